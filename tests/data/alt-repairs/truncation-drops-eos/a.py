def solve(batch, max_len):
    keep = max_len - 2
    rows = []
    for s in batch:
        body = []
        for tok in s:
            if len(body) == keep:
                break
            body.append(tok)
        rows.append([1] + body + [2])
    width = 0
    for r in rows:
        width = max(width, len(r))
    for r in rows:
        while len(r) < width:
            r.append(0)
    return rows
