def solve(candidate, references):
    total = 0
    for tok in set(candidate):
        in_cand = candidate.count(tok)
        best_ref = max([ref.count(tok) for ref in references] + [0])
        total += min(in_cand, best_ref)
    return [total, len(candidate)]
