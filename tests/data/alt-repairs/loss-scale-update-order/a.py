def solve(norms, overflow, init_scale, growth_interval):
    scale = init_scale
    clean = 0
    out = []
    for i in range(min(len(norms), len(overflow))):
        if overflow[i]:
            scale /= 2.0
            clean = 0
        else:
            out.append(norms[i] / scale)
            clean += 1
            if clean == growth_interval:
                scale *= 2.0
                clean = 0
    return out
