#!/usr/bin/env python3
"""The shapes table and plot again from `bin shapes`' log and `scripts/peers_shapes.py`'s JSON.

`bin shapes --out DIR` writes DIR/shapes.md and DIR/shapes.svg itself; this rebuilds both where
only its log came back from a GPU machine (a device call returns a limited number of files).

    python3 scripts/shapes_table.py --log shapes-f32.log --peers peers-f32.json \
        --log shapes-i32.log --peers peers-i32.json --out DIR

Ours: the log's lines `shapes: OP DTYPE CASE: MS ms F.FFFx copy ok`; the peers: their
`copy_fraction` where `status` is ok (each from its own same-call copy). Writes DIR/shapes.md
(table, the worst case of each operation, the cases under the issue-12 targets) and
DIR/shapes.svg (×copy per case, ours and each peer per type).
"""
import argparse
import json
import re
from pathlib import Path

LINE = re.compile(r"^shapes: (\w+) (\w+) (.+): ([0-9.]+) ms ([0-9.]+)x copy (\w+)")
# Issue 12's targets: axis reductions 0.95, axis scans 0.85, segmented reductions 0.9, segmented
# scans 0.85 (×copy, H100, 2^28 values).
TARGETS = {"sum": 0.95, "max": 0.95, "min": 0.95, "cumsum": 0.85,
           "segment_sum": 0.9, "segment_max": 0.9, "segment_cumsum": 0.85}


def peer_case(r):
    if r.get("segments"):
        return r["segments"]
    s = r["shape"]
    return f"{s[0]}x{s[1]} {r['order']} axis {r['axis']}"


def load(logs, peers):
    rows, peer = [], {}
    for p in peers:
        for r in json.load(open(p))["results"]:
            if r.get("status") == "ok":
                peer[(r["library"], r["op"], r["dtype"], peer_case(r))] = r["copy_fraction"]
    for p in logs:
        for line in open(p):
            m = LINE.match(line.strip())
            if m:
                op, dtype, case, ms, frac, verdict = m.groups()
                # segment cases carry their count: "segments 1-8 (59652113)"
                key_case = re.sub(r"^segments (\S+) \(\d+\)$", r"\1", case)
                rows.append(dict(op=op, dtype=dtype, case=case, ms=float(ms), frac=float(frac),
                                 ok=verdict, torch=peer.get(("torch", op, dtype, key_case)),
                                 cupy=peer.get(("cupy", op, dtype, key_case))))
    return rows


def svg(rows, title):
    w, h, ml, mr, mt, mb = 900, 420, 60, 170, 30, 40
    series = {}
    for i, r in enumerate(rows):
        for name, v in (("ours", r["frac"]), ("PyTorch", r["torch"]), ("CuPy", r["cupy"])):
            if v is not None:
                series.setdefault(f"{name} {r['dtype']}", []).append((i, v))
    ymax = max(1.1, max(v for s in series.values() for _, v in s))
    x = lambda i: ml + (w - ml - mr) * i / max(1, len(rows) - 1)
    y = lambda v: mt + (h - mt - mb) * (1 - v / ymax)
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<text x="{ml}" y="18" font-size="13">{title}</text>']
    for t in [0, 0.25, 0.5, 0.75, 1.0]:
        out.append(f'<line x1="{ml}" x2="{w - mr}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#ddd"/>'
                   f'<text x="{ml - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:.2f}</text>')
    out.append(f'<text x="{(ml + w - mr) / 2}" y="{h - 8}" text-anchor="middle">case (index in shapes.md order)</text>')
    for k, (name, pts) in enumerate(sorted(series.items())):
        c = colors[k % len(colors)]
        for i, v in pts:
            out.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="2.5" fill="{c}"/>')
        out.append(f'<circle cx="{w - mr + 15}" cy="{mt + 16 * k}" r="4" fill="{c}"/>'
                   f'<text x="{w - mr + 25}" y="{mt + 16 * k + 4}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log", action="append", required=True)
    ap.add_argument("--peers", action="append", default=[])
    ap.add_argument("--title", default="×copy per case, 2^28 values")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rows = load(a.log, a.peers)
    if not rows:
        raise SystemExit("no `shapes:` rows in the logs")
    fmt = lambda v: "–" if v is None else f"{v:.3f}"
    md = ["| op | dtype | case | ours ms | ours ×copy | PyTorch ×copy | CuPy ×copy | checked |",
          "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    md += [f"| {r['op']} | {r['dtype']} | {r['case']} | {r['ms']:.3f} | {r['frac']:.3f} | "
           f"{fmt(r['torch'])} | {fmt(r['cupy'])} | {r['ok']} |" for r in rows]
    md.append("\nWorst case of each operation (ours):\n")
    for op in sorted({r["op"] for r in rows}):
        r = min((r for r in rows if r["op"] == op), key=lambda r: r["frac"])
        md.append(f"- {op}: {r['frac']:.3f}× copy, {r['dtype']} {r['case']}")
    under = [r for r in rows if r["frac"] < TARGETS.get(r["op"], 0)]
    md.append(f"\nUnder issue 12's targets: {len(under)} of {len(rows)} cases"
              + "".join(f"\n- {r['op']} {r['dtype']} {r['case']}: {r['frac']:.3f}" for r in under))
    md.append(f"Not checked ok: {sum(r['ok'] != 'ok' for r in rows)}")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "shapes.md").write_text("\n".join(md) + "\n")
    (out / "shapes.svg").write_text(svg(rows, a.title))
    print("\n".join(md[-(len(under) + 3):]))


if __name__ == "__main__":
    main()
