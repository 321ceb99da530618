import struct
def solve(bits):
    def one(b):
        f = struct.unpack('<f', struct.pack('<I', b))[0]
        if f != f:
            return 0x7FC0
        q, r = divmod(b, 65536)
        if r * 2 > 65536 or (r * 2 == 65536 and q & 1):
            q += 1
        return q
    return list(map(one, bits))
