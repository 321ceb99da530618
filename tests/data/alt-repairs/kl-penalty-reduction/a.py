def solve(kl, mask, scores, kl_coef):
    out = []
    for i in range(min(len(kl), len(mask), len(scores))):
        penalty = sum(k for k, m in zip(kl[i], mask[i]) if m)
        out.append(scores[i] - kl_coef * penalty)
    return out
