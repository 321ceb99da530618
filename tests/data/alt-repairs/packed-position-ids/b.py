def solve(lengths, pad):
    starts = set()
    at = 0
    for length in lengths:
        starts.add(at)
        at += length
    starts.add(at)
    total = at + pad
    out = []
    current = 0
    for i in range(total):
        if i in starts:
            current = 0
        out.append(current)
        current += 1
    return out
