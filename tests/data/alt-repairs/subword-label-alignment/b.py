def solve(word_ids, labels):
    result = []
    last = None
    for w in word_ids:
        special = w == -1
        first = not special and w != last
        result.append(labels[w] if first else -100)
        last = None if special else w
    return result
