def solve(lengths, multiple):
    width = -(-max(lengths) // multiple) * multiple
    pads = 0
    for x in lengths:
        pads += width - x
    return [width, pads]
