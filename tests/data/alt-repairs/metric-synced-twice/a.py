def solve(correct, total):
    return sum(map(sum, correct)) / sum(map(sum, total))
