def solve(mask):
    out = []
    for row in mask:
        seen = 0
        ids = []
        for m in row:
            if m:
                ids.append(seen)
                seen += 1
        out.append(ids)
    return out
