"""Benchmark of the exact baccarat analysis (``macau-tables analyze baccarat``).

Usage::

    .venv/bin/python bench/baccarat_exact.py [--decks 8] [--repeat 5] [--json PATH]

Measures, in this process:

* **first call**: :func:`~macau_tables.analysis.baccarat_exact.analyze` the first time in a fresh
  process: numba loads (or, with an empty cache, compiles) the enumeration kernel, the
  composition-free multiset table is built, then everything is computed;
* **warm**: best of ``--repeat`` further calls: every wager (banker, no-commission banker,
  player, tie, both pairs, Lucky 6), the six jackpot combinations and the jackpot return, and
  the effects of removal of all 13 ranks on all of them (1 + 13 + 52 shoe compositions);
* **reference**, run beside it: a plain-Python enumeration of every value sequence of a round
  (the textbook method, main game only: banker / player / tie), and the ratio reference / warm.

Goal (the task): warm exact 8-deck analysis of all wagers in at most 1 s. Exit status 0 when
met, 1 otherwise (no test runs this as a timing assertion).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_SECONDS = 1.0


def plain_reference(values: list[int]) -> tuple[int, int, int]:
    """Banker / player / tie counts over ordered 6-card sequences for a shoe with
    ``values[v]`` cards of value ``v``, by walking every value sequence of a round in plain
    Python (no tables, no numba)."""
    counts = list(values)
    n = sum(counts)
    completion = {4: (n - 4) * (n - 5), 5: n - 5, 6: 1}
    banker = player = tie = 0
    for p1 in range(10):
        w1 = counts[p1]
        counts[p1] -= 1
        for b1 in range(10):
            w2 = w1 * counts[b1]
            counts[b1] -= 1
            for p2 in range(10):
                w3 = w2 * counts[p2]
                counts[p2] -= 1
                for b2 in range(10):
                    w4 = w3 * counts[b2]
                    counts[b2] -= 1
                    pt = (p1 + p2) % 10
                    bt = (b1 + b2) % 10
                    outcomes: list[tuple[int, int, int, int]] = []  # weight, cards, p, b
                    if pt >= 8 or bt >= 8:
                        outcomes.append((w4, 4, pt, bt))
                    elif pt <= 5:
                        for x in range(10):
                            w5 = w4 * counts[x]
                            counts[x] -= 1
                            p3 = (pt + x) % 10
                            draws = (
                                bt <= 2
                                or (bt == 3 and x != 8)
                                or (bt == 4 and 2 <= x <= 7)
                                or (bt == 5 and 4 <= x <= 7)
                                or (bt == 6 and 6 <= x <= 7)
                            )
                            if draws:
                                for y in range(10):
                                    outcomes.append((w5 * counts[y], 6, p3, (bt + y) % 10))
                            else:
                                outcomes.append((w5, 5, p3, bt))
                            counts[x] += 1
                    elif bt <= 5:
                        for y in range(10):
                            outcomes.append((w4 * counts[y], 5, pt, (bt + y) % 10))
                    else:
                        outcomes.append((w4, 4, pt, bt))
                    for w, used, p, b in outcomes:
                        w *= completion[used]
                        if b > p:
                            banker += w
                        elif p > b:
                            player += w
                        else:
                            tie += w
                    counts[b2] += 1
                counts[p2] += 1
            counts[b1] += 1
        counts[p1] += 1
    return banker, player, tie


def cold_compile_seconds(decks: int) -> float:
    """The first call in a fresh process whose numba cache directory is empty (so the kernel is
    compiled, not loaded)."""
    code = (
        "import time\n"
        "t0 = time.perf_counter()\n"
        "from macau_tables.analysis.baccarat_exact import JackpotAwards, analyze\n"
        "t1 = time.perf_counter()\n"
        f"analyze({decks}, JackpotAwards(100, 0, 0, 0, 0, 0, 0))\n"
        "print(time.perf_counter() - t1)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
    return float(out.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    started = time.perf_counter()
    from macau_tables.analysis.baccarat_exact import JackpotAwards, analyze, class_counts

    import_seconds = time.perf_counter() - started
    awards = JackpotAwards(10_000, 1_000_000_000, 200_000_000, 10_000_000, 300_000, 100_000, 20_000)
    t0 = time.perf_counter()
    first = analyze(args.decks, awards)
    first_seconds = time.perf_counter() - t0
    warm = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        result = analyze(args.decks, awards)
        warm.append(time.perf_counter() - t0)
    best = min(warm)
    assert result.main == first.main

    # The reference does the main-game part of the same work: the full shoe and the 13 shoes
    # with one card of a rank removed (the EOR table). Pairs and the jackpot have no plain
    # counterpart (a card-by-card walk of 416^5 first cards is out of reach).
    full = [16 * args.decks] + [4 * args.decks] * 9
    shoes = [full]
    for rank in range(2, 15):
        value = 1 if rank == 14 else (0 if rank >= 10 else rank)
        shoes.append([c - (v == value) for v, c in enumerate(full)])
    t0 = time.perf_counter()
    references = [plain_reference(shoe) for shoe in shoes]
    reference_seconds = time.perf_counter() - t0
    m = result.main
    assert references[0] == (m.banker, m.player, m.tie), "reference and fast engine disagree"
    t0 = time.perf_counter()
    for _ in range(20):
        fast_one = class_counts(full)
    fast_one_seconds = (time.perf_counter() - t0) / 20
    assert int(fast_one.sum()) == m.total

    report = {
        "decks": args.decks,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "import_seconds": round(import_seconds, 3),
        "first_call_seconds": round(first_seconds, 3),
        "warm_seconds_best": round(best, 4),
        "warm_seconds_all": [round(w, 4) for w in warm],
        "reference_seconds": round(reference_seconds, 3),
        "reference_covers": "banker/player/tie of the full shoe and 13 one-card-removed shoes",
        "ratio_reference_over_warm": round(reference_seconds / best, 1),
        "one_shoe_fast_seconds": round(fast_one_seconds, 5),
        "one_shoe_reference_seconds": round(reference_seconds / len(shoes), 4),
        "goal_seconds": GOAL_SECONDS,
        "goal_met": best <= GOAL_SECONDS,
    }
    print(f"exact baccarat analysis, {args.decks} decks, all wagers + jackpot + EOR of 13 ranks")
    print(f"  import (numpy, numba kernels)     {import_seconds:8.3f} s")
    print(f"  first call (kernel load + table)  {first_seconds:8.3f} s")
    print(
        f"  warm, best of {args.repeat}                 {best:8.4f} s   (goal ≤ {GOAL_SECONDS} s)"
    )
    print(f"  plain-Python reference, B/P/T of 14 shoes {reference_seconds:8.3f} s")
    print(f"  ratio reference / warm (whole analysis)   {reference_seconds / best:8.1f} ×")
    one = reference_seconds / len(shoes)
    print(
        f"  one shoe, B/P/T: multiset table {fast_one_seconds * 1e3:.2f} ms, "
        f"plain {one * 1e3:.1f} ms ({one / fast_one_seconds:.0f} ×)"
    )
    compile_seconds = cold_compile_seconds(args.decks)
    report["first_call_empty_cache_seconds"] = round(compile_seconds, 3)
    print(f"  first call with an empty numba cache (compile) {compile_seconds:8.3f} s")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if best <= GOAL_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
