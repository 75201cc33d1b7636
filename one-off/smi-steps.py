#!/usr/bin/env python3
"""Per-step clocks, power and throttle reasons from an s49/s50 H200 call's nvidia-smi samples.

Usage: smi-steps.py DIR   (DIR holds steps.txt, smi-clocks.csv, smi-reasons.csv)

steps.txt has "HH:MM:SS.mmm start LABEL" / "... end LABEL" lines; the smi files are
`nvidia-smi --query-gpu=timestamp,... --format=csv,noheader -lms 100` output. For each step it
prints the samples taken while it ran: SM clock (min / median / max MHz), power (median / max W),
utilisation (max %), and every throttle-reason mask seen with its share of the samples.
"""
import csv
import statistics
import sys
from collections import Counter
from pathlib import Path


def stamp(s):
    """Seconds since midnight of an `HH:MM:SS.fff` clock time (the date is dropped)."""
    t = s.strip().split()[-1]
    h, m, sec = t.split(":")
    return int(h) * 3600 + int(m) * 60 + float(sec)


def number(s):
    return float(s.strip().split()[0])


def main(d):
    d = Path(d)
    steps, open_ = [], {}
    for line in (d / "steps.txt").read_text().splitlines():
        t, kind, label = line.split(maxsplit=2)
        if kind == "start":
            open_[label] = stamp(t)
        elif label in open_:
            steps.append((label, open_.pop(label), stamp(t)))
    clocks = []
    for row in csv.reader((d / "smi-clocks.csv").read_text().splitlines()):
        try:
            clocks.append((stamp(row[0]), number(row[1]), number(row[3]), number(row[5])))
        except (IndexError, ValueError):
            pass
    reasons = []
    for row in csv.reader((d / "smi-reasons.csv").read_text().splitlines()):
        if len(row) >= 2:
            try:
                reasons.append((stamp(row[0]), row[1].strip()))
            except ValueError:
                pass
    print("| step | s | samples | SM MHz min / median / max | W median / max | util max | throttle reasons (share) |")
    print("| --- | ---: | ---: | --- | --- | ---: | --- |")
    for label, a, b in steps:
        c = [x for x in clocks if a <= x[0] <= b]
        r = Counter(x[1] for x in reasons if a <= x[0] <= b)
        if not c:
            print(f"| {label} | {b - a:.1f} | 0 | | | | |")
            continue
        sm = [x[1] for x in c]
        w = [x[2] for x in c]
        u = max(x[3] for x in c)
        n = sum(r.values()) or 1
        rs = ", ".join(f"{k} ({v / n:.0%})" for k, v in r.most_common())
        print(f"| {label} | {b - a:.1f} | {len(c)} | {min(sm):.0f} / {statistics.median(sm):.0f} / {max(sm):.0f} "
              f"| {statistics.median(w):.0f} / {max(w):.0f} | {u:.0f} | {rs} |")


if __name__ == "__main__":
    main(sys.argv[1])
