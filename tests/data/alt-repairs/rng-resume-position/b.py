def solve(seed, draws_per_step, steps_done, count):
    first = draws_per_step * steps_done + 1
    return [(7919 * seed + 104729 * k) % 1000003 for k in range(first, first + count)]
