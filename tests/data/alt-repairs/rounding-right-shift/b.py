def solve(values, shift):
    def one(v):
        if shift == 0:
            return v
        sign = -1 if v < 0 else 1
        m = sign * v
        return sign * ((m + (1 << (shift - 1))) >> shift)
    return [one(v) for v in values]
