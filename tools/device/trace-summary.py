#!/usr/bin/env python3
"""Summarises chunk timelines (WM_CHUNK_TRACE files, format_chunk_trace):
per timeline, its span, MB/ms, and how much of the span the copy engine and
the scan had work: the union of [copy-in, copied] and of [copied, passed]
over all chunks (a chunk's kernel may wait behind another's, so the second is
an upper bound on scan time), and the idle gaps longer than 0.05 ms.

    trace-summary.py TRACE.txt [TRACE.txt ...]
"""
import sys


def timelines(path):
    cur = []
    for line in open(path):
        if line.startswith("chunk"):
            if cur:
                yield cur
            cur = []
            continue
        f = line.split()
        if len(f) == 11:
            cur.append([float(x) for x in f])
    if cur:
        yield cur


def union(iv):
    iv = sorted((a, b) for a, b in iv if a >= 0 and b >= a)
    out = []
    for a, b in iv:
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def busy(u):
    return sum(b - a for a, b in u)


def gaps(u, least=0.05):
    return [(u[i][1], u[i + 1][0]) for i in range(len(u) - 1) if u[i + 1][0] - u[i][1] > least]


for path in sys.argv[1:]:
    for k, t in enumerate(timelines(path)):
        # columns: chunk slot MB staged copy-in copied scanned passed wait-from wait-to copied-back
        span = max(c[10] if c[10] >= 0 else c[7] for c in t) - min(c[3] for c in t)
        mb = sum(c[2] for c in t)
        copy = union([(c[4], c[5]) for c in t])
        scan = union([(c[5], c[7]) for c in t])
        g = gaps(scan)
        print(f"{path} timeline {k}: {len(t)} chunks, {mb:.1f} MB in {span:.3f} ms = {mb / span:.2f} GB/s; "
              f"copy engine busy {busy(copy):.3f} ms ({busy(copy) / span:.0%}), "
              f"scan+passes busy {busy(scan):.3f} ms ({busy(scan) / span:.0%}); "
              f"{len(g)} scan gaps > 0.05 ms totalling {sum(b - a for a, b in g):.3f} ms")
