from collections import Counter
def solve(candidate, references):
    ceiling = Counter()
    for ref in references:
        ceiling |= Counter(ref)
    clipped = Counter(candidate) & ceiling
    return [sum(clipped.values()), len(candidate)]
