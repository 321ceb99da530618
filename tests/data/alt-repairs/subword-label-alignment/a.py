def solve(word_ids, labels):
    out = [-100] * len(word_ids)
    for i, w in enumerate(word_ids):
        if w < 0:
            continue
        if i == 0 or word_ids[i - 1] != w:
            out[i] = labels[w]
    return out
