#!/usr/bin/env python3
"""Variants of an imported rule set for the plugin-path study (run 61):
  distinct: one rule per distinct (pattern, nocase), no protocol/ports/offset/depth
            (the literal set bench_pairs_trace and bench_ac_kernel scan);
  noscope:  every rule, without protocol/ports (no scope filter on the device).
usage: rule-variants.py IN.yaml OUT_PREFIX   (writes OUT_PREFIX-distinct.yaml, OUT_PREFIX-noscope.yaml)
Reads the `warpmatch rules import` layout line by line (no YAML library there)."""
import sys

def rules(path):
    head, cur = [], None
    for line in open(path, encoding="utf-8"):
        if line.startswith("  - id:"):
            if cur: yield cur
            cur = [line]
        elif cur is not None:
            cur.append(line)
    if cur: yield cur

def field(rule, name):
    for line in rule:
        if line.strip().startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return None

src, prefix = sys.argv[1], sys.argv[2]
drop_scope = ("protocol:", "ports:")
drop_all = drop_scope + ("offset:", "depth:")
seen = set()
with open(prefix + "-distinct.yaml", "w") as d, open(prefix + "-noscope.yaml", "w") as n:
    for f in (d, n):
        f.write("version: 1\nrules:\n")
    for r in rules(src):
        n.writelines(l for l in r if not l.strip().startswith(drop_scope))
        key = (field(r, "pattern"), field(r, "nocase"))
        if key in seen: continue
        seen.add(key)
        d.writelines(l for l in r if not l.strip().startswith(drop_all))
