#!/usr/bin/python3
"""Plot GPU Aho-Corasick kernel throughput against pattern count.

Reads the JSON that gpu/bench_ac_kernel writes (--json) and draws one line per
output mode, with Hyperscan's all-core figure for the full set as a reference.
    tools/plot_pattern_sweep.py docs/data/bench_ac_h200.json docs/ac-throughput-vs-patterns.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    data = json.load(open(src))
    runs = sorted((r for r in data["runs"] if "patterns" in r), key=lambda r: r["patterns"])
    n = [r["patterns"] for r in runs]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    for key, label in (("kernel_set_gbs", "kernel, set (text on the device)"),
                       ("kernel_count_gbs", "kernel, count (text on the device)"),
                       ("kernel_positions_gbs", "kernel, positions (text on the device)"),
                       ("plugin_pinned_gbs", "GpuMatcher::scan, one synchronous set batch from pinned memory")):
        ax.plot(n, [r[key] for r in runs], marker="o", label=label)
    # Hyperscan only where it was measured (the full set unless --hs-sweep 1):
    # a line across the other counts would claim figures nobody took.
    hs = [(r["patterns"], r["hs_gbs"]) for r in runs if r.get("hs_gbs")]
    if hs:
        ax.plot([p for p, _ in hs], [g for _, g in hs], color="grey", linestyle="--", marker="s",
                label=f"Hyperscan, {data['hs_threads']} host threads")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ET Open prefilter literals")
    ax.set_ylabel("GB/s of payload text")
    ax.set_title(f"warpmatch Aho-Corasick on {data['device']}: real payloads, "
                 f"{data['text_bytes'] / 1e9:.1f} GB")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
