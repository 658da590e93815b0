# Emits mcp__pow10_128: for e in [-348, 347], the 128-bit significand of 10^e, rounded down,
# normalised so its top bit is set, as {high, low} pairs. Exact for 0 <= e <= 55.
rows=[]
for e in range(-348, 348):
    if e >= 0:
        n = 10**e; k = n.bit_length()
        v = n << (128-k) if k <= 128 else n >> (k-128)
    else:
        d = 10**(-e); s = d.bit_length() + 127
        v = (1 << s) // d
        if v.bit_length() < 128: s += 1; v = (1 << s) // d
    assert v.bit_length() == 128
    rows.append("{0x%016xu,0x%016xu}" % (v >> 64, v & (2**64-1)))
lines=[]
for i in range(0, len(rows), 2):
    lines.append("    " + ",".join(rows[i:i+2]) + ",")
lines[-1] = lines[-1].rstrip(',')
print("\n".join(lines))
