def solve(rows, eos_id, pad_id):
    result = []
    for row in rows:
        if eos_id in row:
            result.append(row.index(eos_id))
            continue
        i = len(row) - 1
        while i > 0 and row[i] == pad_id:
            i -= 1
        result.append(i)
    return result
