def solve(bits):
    out = []
    for b in bits:
        exponent = (b >> 23) & 0xFF
        fraction = b & 0x7FFFFF
        if exponent == 0xFF and fraction != 0:
            out.append(0x7FC0)
            continue
        kept = b >> 16
        low = b & 0xFFFF
        if low > 0x8000 or (low == 0x8000 and kept % 2 == 1):
            kept += 1
        out.append(kept)
    return out
