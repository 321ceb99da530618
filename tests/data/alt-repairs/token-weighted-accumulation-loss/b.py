def solve(micro_batches):
    total = 0.0
    for b in range(len(micro_batches)):
        for i in range(len(micro_batches[b])):
            total = total + micro_batches[b][i]
    return total / sum(len(batch) for batch in micro_batches)
