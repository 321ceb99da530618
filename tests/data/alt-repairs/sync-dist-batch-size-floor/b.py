def solve(values, sizes):
    total = 0.0
    count = 0
    for i in range(min(len(values), len(sizes))):
        total = total + values[i]
        count = count + sizes[i]
    return total / count
