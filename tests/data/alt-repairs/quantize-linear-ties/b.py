from decimal import Decimal, ROUND_HALF_EVEN
def solve(values, scale, zero_point):
    def q(v):
        r = int((Decimal(v) / Decimal(scale)).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))
        return sorted((0, r + zero_point, 255))[1]
    return [q(v) for v in values]
