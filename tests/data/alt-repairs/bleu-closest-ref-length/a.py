def solve(hyp_lens, ref_lens):
    total_c = sum(hyp_lens[:len(ref_lens)])
    total_r = 0
    for i in range(min(len(hyp_lens), len(ref_lens))):
        h = hyp_lens[i]
        best = None
        for length in sorted(ref_lens[i]):
            if best is None or abs(length - h) < abs(best - h):
                best = length
        total_r += best
    return [total_c, total_r]
