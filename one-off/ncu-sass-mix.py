# Executed-instruction mix of one kernel from `ncu -i REP --page source --csv --print-source sass`:
# the share of each opcode, and of classes of them, in the instructions the warps executed.
# Usage: python3 ncu-sass-mix.py SASS.csv [TOP]
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
hi = next(i for i, r in enumerate(rows) if 'Source' in r)
h = rows[hi]; data = rows[hi + 1:]
ix = {n: i for i, n in enumerate(h)}
col = 'Instructions Executed' if 'Instructions Executed' in ix else next(c for c in h if 'Instructions Executed' in c)
def num(s):
    try: return float(s.replace(',', ''))
    except ValueError: return 0.0
ops = collections.Counter()
for r in data:
    if len(r) < len(h): continue
    src = r[ix['Source']].strip()
    if not src: continue
    t = src.split()
    op = t[1] if t[0].startswith('@') and len(t) > 1 else t[0]
    ops[op.rstrip(';')] += num(r[ix[col]])
T = sum(ops.values())
CLASSES = [
    ('fp32 arith', ('FFMA', 'FADD', 'FMUL', 'FMNMX', 'FSEL', 'FSETP', 'FCHK')),
    ('fp64 arith', ('DFMA', 'DADD', 'DMUL', 'DSETP')),
    ('shared ld/st', ('LDS', 'STS')),
    ('global ld/st', ('LDG', 'STG')),
    ('local ld/st (spills)', ('LDL', 'STL')),
    ('integer/address', ('IMAD', 'IADD3', 'IADD', 'LEA', 'SHF', 'LOP3', 'ISETP', 'IABS', 'SEL', 'PRMT', 'SGXT', 'BMSK', 'FLO', 'POPC', 'UIADD3', 'UIMAD', 'ULEA', 'USHF', 'ULOP3', 'UISETP', 'USEL')),
    ('moves', ('MOV', 'UMOV', 'S2R', 'S2UR', 'CS2R', 'R2UR')),
    ('barrier/vote/shfl', ('BAR', 'VOTE', 'SHFL', 'WARPSYNC', 'BSSY', 'BSYNC')),
    ('conversion', ('F2F', 'I2F', 'F2I', 'F2FP', 'HADD2', 'HFMA2', 'HMUL2')),
    ('branch/other', ('BRA', 'EXIT', 'RET', 'CALL', 'NOP', 'PLOP3', 'P2R', 'R2P', 'YIELD', 'DEPBAR')),
]
print(f"instructions executed (warp-level): {T:.0f} by column '{col}'")
seen = set()
for name, pre in CLASSES:
    v = sum(c for o, c in ops.items() if o.split('.')[0] in pre)
    seen.update(o for o in ops if o.split('.')[0] in pre)
    print(f"  {name:22s} {v / T:6.3f}")
print(f"  {'unclassed':22s} {sum(c for o, c in ops.items() if o not in seen) / T:6.3f}")
print("top opcodes:")
for o, c in ops.most_common(int(sys.argv[2]) if len(sys.argv) > 2 else 25):
    print(f"  {o:24s} {c / T:6.3f}")
