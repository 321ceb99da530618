def solve(norms, overflow, init_scale, growth_interval):
    in_effect = []
    scale = init_scale
    streak = 0
    for found_inf in overflow[:len(norms)]:
        in_effect.append(scale)
        if found_inf:
            scale = scale * 0.5
            streak = 0
            continue
        streak = streak + 1
        if streak == growth_interval:
            scale = scale * 2.0
            streak = 0
    return [n / s for n, s, f in zip(norms, in_effect, overflow) if not f]
