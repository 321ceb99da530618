def solve(values):
    import math, struct
    return struct.unpack('<e', struct.pack('<e', math.fsum(values)))[0]
