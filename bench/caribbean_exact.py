"""Benchmark of the exact Caribbean Stud analysis (``macau-tables analyze caribbean-stud``).

Usage::

    .venv/bin/python bench/caribbean_exact.py [--repeat 3] [--json PATH]

Times, after a warm-up run (so numba compilation is not timed; the kernels are cached on disk
with ``cache=True``, so a fresh process only loads them):

* each stage of :func:`~macau_tables.analysis.caribbean_exact.analyze` (all hands, strengths,
  the sweep) with 1 and 2 threads, Macau and standard ranking;
* the whole command in a fresh process (``macau-tables analyze caribbean-stud --format json``),
  wall time and peak memory (``ru_maxrss`` of the child);
* the reference: brute force, i.e. ``evaluate_many`` over all 163,185 dealer hands of a few
  (hand, up card) pairs, extrapolated to all 122,151,120 pairs. The ratio reference / sweep is
  what the algorithm buys.

Goal (the task): the whole command in at most 10 s wall on a 2-core machine within 4 GiB.
Exit status 0 when met, 1 otherwise (no test runs this as a timing assertion).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from itertools import combinations, pairwise
from pathlib import Path

import numpy as np

from macau_tables.analysis.caribbean_exact import TOTAL_DECISIONS, analyze, par_rules
from macau_tables.caribbean.hands import QUALIFYING_STRENGTH, evaluate_many

GOAL_WALL_SECONDS = 10.0
GOAL_MEMORY_BYTES = 4 * 2**30


def stage_times(ranking: str, threads: int, repeat: int) -> dict[str, float]:
    """Best-of-``repeat`` seconds per stage of the analysis."""
    best: dict[str, float] = {}
    for _ in range(repeat):
        marks: list[tuple[str, float]] = [("start", time.perf_counter())]

        def mark(name: str, marks: list[tuple[str, float]] = marks) -> None:
            marks.append((name, time.perf_counter()))

        analyze(par_rules(), ranking=ranking, step=mark, threads=threads)  # type: ignore[arg-type]
        for (_, t0), (name, t1) in pairwise(marks):
            best[name] = min(best.get(name, 1e9), t1 - t0)
        best["total"] = min(best.get("total", 1e9), marks[-1][1] - marks[0][1])
    return best


def command_run() -> tuple[float, int]:
    """Wall seconds and peak RSS bytes of the whole command in a fresh process."""
    exe = Path(sys.executable).with_name("macau-tables")
    started = time.perf_counter()
    subprocess.run(
        [str(exe), "analyze", "caribbean-stud", "--format", "json"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, peak_kib * 1024


def brute_force_seconds_per_pair(pairs: int = 4) -> float:
    """Seconds to settle one (hand, up card) pair by enumerating its 163,185 dealer hands."""
    template = np.array(list(combinations(range(46), 4)), dtype=np.int64)
    rng = np.random.default_rng(7)
    dealer = np.empty((template.shape[0], 5), dtype=np.int64)
    evaluate_many(np.arange(5, dtype=np.int64).reshape(1, 5))  # warm-up
    started = time.perf_counter()
    for _ in range(pairs):
        cards = rng.permutation(52)
        hand, up, others = cards[:5], cards[5], np.sort(cards[6:])
        dealer[:, :4] = others[template]
        dealer[:, 4] = up
        strengths = evaluate_many(dealer)
        player = evaluate_many(hand.reshape(1, 5))[0]
        qualified = strengths >= QUALIFYING_STRENGTH
        _ = ((~qualified).sum(), (qualified & (strengths < player)).sum())
    return (time.perf_counter() - started) / pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    analyze(par_rules())  # warm-up: load (or compile) the kernels
    results: dict[str, object] = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "python": platform.python_version(),
    }
    for ranking in ("macau", "standard"):
        for threads in (1, 2):
            stages = stage_times(ranking, threads, args.repeat)
            results[f"{ranking}_threads{threads}"] = stages
            print(
                f"{ranking:8s} threads={threads}: "
                + ", ".join(f"{k} {v:.2f} s" for k, v in stages.items())
            )
    wall, peak = command_run()
    results["command_wall_seconds"] = wall
    results["command_peak_bytes"] = peak
    print(f"whole command (fresh process): {wall:.2f} s wall, peak RSS {peak / 2**20:.0f} MiB")
    per_pair = brute_force_seconds_per_pair()
    brute = per_pair * TOTAL_DECISIONS
    sweep = results["macau_threads2"]["total"]  # type: ignore[index]
    results["brute_force_seconds_estimate"] = brute
    results["speedup_vs_brute_force"] = brute / sweep
    print(
        f"reference brute force (evaluate_many, {per_pair * 1e3:.1f} ms per pair): "
        f"~{brute / 3600:.0f} h for all pairs; sweep is {brute / sweep:,.0f}x faster"
    )
    ok = wall <= GOAL_WALL_SECONDS and peak <= GOAL_MEMORY_BYTES
    results["goal_met"] = ok
    print(f"goal (<= {GOAL_WALL_SECONDS:.0f} s, <= 4 GiB): {'met' if ok else 'NOT met'}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
