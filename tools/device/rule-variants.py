#!/usr/bin/env python3
"""Variants of an imported rule set for the plugin-path study (run 61):
  distinct: one rule per distinct (pattern, nocase), no protocol/ports/offset/depth
            (the literal set bench_pairs_trace and bench_ac_kernel scan);
  noscope:  every rule, without protocol/ports (no scope filter on the device);
  unique:   one rule per distinct (pattern, nocase, offset, depth), no protocol/ports
            (one scope entry per device pattern: no expansion pass, run 83).
usage: rule-variants.py IN.yaml OUT_PREFIX   (writes OUT_PREFIX-{distinct,noscope,unique}.yaml)
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
seen, seen_unique = set(), set()
with open(prefix + "-distinct.yaml", "w") as d, open(prefix + "-noscope.yaml", "w") as n, \
     open(prefix + "-unique.yaml", "w") as u:
    for f in (d, n, u):
        f.write("version: 1\nrules:\n")
    for r in rules(src):
        n.writelines(l for l in r if not l.strip().startswith(drop_scope))
        ukey = tuple(field(r, k) for k in ("pattern", "nocase", "offset", "depth"))
        if ukey not in seen_unique:
            seen_unique.add(ukey)
            u.writelines(l for l in r if not l.strip().startswith(drop_scope))
        key = (field(r, "pattern"), field(r, "nocase"))
        if key in seen: continue
        seen.add(key)
        d.writelines(l for l in r if not l.strip().startswith(drop_all))
