def solve(scores, labels, k):
    correct = 0
    for i in range(len(labels)):
        s = scores[i]
        y = labels[i]
        # worst-case rank of the label: 1 + every other class scoring at least as high
        rank = 1
        for c, v in enumerate(s):
            if c != y and v >= s[y]:
                rank += 1
        if rank <= k:
            correct += 1
    return correct / len(labels)
