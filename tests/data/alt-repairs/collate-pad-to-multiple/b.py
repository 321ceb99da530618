def solve(lengths, multiple):
    width = max(lengths)
    while width % multiple:
        width += 1
    return [width, width * len(lengths) - sum(lengths)]
