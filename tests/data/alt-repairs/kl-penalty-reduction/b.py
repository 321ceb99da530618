def solve(kl, mask, scores, kl_coef):
    result = []
    for row, row_mask, score in zip(kl, mask, scores):
        reward = score
        for k, m in zip(row, row_mask):
            reward -= kl_coef * k * (1 if m else 0)
        result.append(reward)
    return result
