def solve(batch_sizes, target):
    import functools, operator
    return functools.reduce(operator.add, batch_sizes, 0)
