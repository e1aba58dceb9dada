# Generates src/test/resources/python-float-repr.txt: "<IEEE-754 bits as 16 hex digits> <json.dumps(value)>"
import json, math, random, struct
rnd = random.Random(20260807)
def bits(x): return struct.unpack('>Q', struct.pack('>d', x))[0]
def frombits(b): return struct.unpack('>d', struct.pack('>Q', b))[0]
vals = []
vals += [0.0, -0.0, float('nan'), float('inf'), float('-inf'), 5e-324, -5e-324, 1.7976931348623157e308,
         2.2250738585072014e-308, 2.225073858507201e-308, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5,
         0.1, 0.2, 0.3, 1/3, 2/3, 100000.0, 1.5, 123.456, 1e22, 1e23, 5e-310, 9007199254740992.0,
         9007199254740993.0, 9007199254740994.0, 1704067200.0, 1704067200.123456, 12345678901234567890.0]
for e in range(-1074, 1024):                      # every power of two: asymmetric rounding intervals
    vals.append(math.ldexp(1.0, e))
for e in range(-325, 309, 1):                     # powers of ten and their neighbours
    v = float('1e%d' % e); vals.append(v)
    if e % 5 == 0 and v != 0:
        vals.append(math.nextafter(v, 0)); vals.append(math.nextafter(v, math.inf))
for _ in range(800):                              # uniformly random bit patterns (finite)
    v = frombits(rnd.getrandbits(64))
    if math.isfinite(v): vals.append(v)
for _ in range(300):                              # random magnitudes around the fixed/scientific switch
    vals.append(rnd.random() * 10.0 ** rnd.randint(-8, 20))
for _ in range(200):                              # short decimals as people write them
    vals.append(round(rnd.uniform(-1e6, 1e6), rnd.randint(0, 6)))
for _ in range(200):                              # subnormals
    vals.append(frombits(rnd.getrandbits(52) or 1))
for _ in range(100):                              # integral doubles near 2**53 and 1e16
    vals.append(float(rnd.randint(2**52, 2 * 10**16)))
seen = set(); out = []
for v in vals:
    b = bits(v)
    if b in seen: continue
    seen.add(b); out.append('%016x %s' % (b, json.dumps(v)))
with open('src/test/resources/python-float-repr.txt', 'w') as f:
    f.write('# json.dumps(float) from CPython 3.11 (float.__repr__): <IEEE-754 bits, hex> <output>\n')
    f.write('\n'.join(out) + '\n')
print(len(out))
