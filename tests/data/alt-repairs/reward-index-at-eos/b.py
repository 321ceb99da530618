def solve(rows, eos_id, pad_id):
    def one(row):
        for i in range(len(row)):
            if row[i] == eos_id:
                return i
        kept = [i for i in range(len(row)) if row[i] != pad_id]
        return kept[-1] if kept else 0
    return [one(r) for r in rows]
