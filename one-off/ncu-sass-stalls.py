import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
h = rows[1]; data = rows[2:]
ix = {n: i for i, n in enumerate(h)}
def num(s):
    try: return float(s.replace(',', ''))
    except: return 0.0
cols = [c for c in h if c.startswith('stall_')]
tot = collections.Counter(); per_op = collections.defaultdict(collections.Counter)
samples = []
for r in data:
    if len(r) < len(h): continue
    src = r[ix['Source']]; op = src.split()[0] if src else ''
    if op.startswith('@'): op = src.split()[1]
    opc = op.split('.')[0]
    s = num(r[ix['Warp Stall Sampling (All Samples)']])
    samples.append((s, r[ix['Address']], src, {c: num(r[ix[c]]) for c in cols}))
    for c in cols:
        v = num(r[ix[c]]); tot[c] += v; per_op[opc][c] += v
T = sum(tot.values())
print("total samples", T)
for c, v in tot.most_common(10): print(f"  {c:22s} {v/T:6.3f}")
print("by opcode (share of all samples; top stall):")
ops = sorted(per_op.items(), key=lambda kv: -sum(kv[1].values()))[:14]
for op, cnt in ops:
    s = sum(cnt.values()); print(f"  {op:10s} {s/T:6.3f}  " + ", ".join(f"{k[6:]} {v/T:.3f}" for k, v in cnt.most_common(3)))
print("top instructions:")
for s, a, src, st in sorted(samples, reverse=True)[:int(sys.argv[2]) if len(sys.argv) > 2 else 15]:
    top = sorted(st.items(), key=lambda kv: -kv[1])[:2]
    print(f"  {s/T:6.4f} {a} {src[:60]:60s} " + ", ".join(f"{k[6:]} {v/T:.4f}" for k, v in top))
