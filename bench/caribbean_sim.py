"""Benchmark of the Caribbean Stud simulation (``macau-tables simulate caribbean-stud``).

Usage::

    .venv/bin/python bench/caribbean_sim.py [--rounds 40000000] [--repeat 3] [--json PATH]

Times :func:`~macau_tables.analysis.caribbean_sim.simulate` (after a warm-up, so numba
compilation is not timed) and, as the reference, the same rounds played in pure Python through
the rule functions (``evaluate``/``compare``/``dealer_qualifies``, the strategy looked up with
``should_raise``) on a smaller sample. Prints rounds per second and the ratio.

Goal (the task): at least 2 million rounds per second on 2 cores. Exit status 0 when met.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

from macau_tables.analysis.caribbean_exact import analyze, par_rules
from macau_tables.analysis.caribbean_sim import simulate
from macau_tables.cards import DECK
from macau_tables.caribbean.hands import compare, dealer_qualifies, evaluate

GOAL_ROUNDS_PER_SECOND = 2_000_000


def python_reference(analysis: object, rounds: int) -> float:
    """Rounds per second of a pure-Python round loop through the rule functions."""
    rng = random.Random(1)
    deck = list(DECK)
    started = time.perf_counter()
    for _ in range(rounds):
        cards = rng.sample(deck, 10)
        player, dealer = cards[:5], cards[5:]
        if not analysis.should_raise(player, dealer[4]):  # type: ignore[attr-defined]
            continue
        if dealer_qualifies(dealer):
            compare(evaluate(player), evaluate(dealer))
    return rounds / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    analysis = analyze(par_rules())
    simulate(analysis, 100_000, seed=1)  # warm-up
    best = 1e9
    for r in range(args.repeat):
        started = time.perf_counter()
        simulate(analysis, args.rounds, seed=r + 1)
        best = min(best, time.perf_counter() - started)
    rate = args.rounds / best
    reference = python_reference(analysis, 50_000)
    print(f"simulate: {args.rounds:,} rounds in {best:.2f} s = {rate / 1e6:.2f} M rounds/s")
    print(
        f"reference (pure Python rule functions): {reference:,.0f} rounds/s; "
        f"kernel is {rate / reference:,.0f}x faster"
    )
    ok = rate >= GOAL_ROUNDS_PER_SECOND
    print(f"goal (>= 2 M rounds/s): {'met' if ok else 'NOT met'}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "machine": f"{platform.processor() or platform.machine()}, "
                    f"{os.cpu_count()} CPUs",
                    "rounds": args.rounds,
                    "seconds": best,
                    "rounds_per_second": rate,
                    "python_reference_rounds_per_second": reference,
                    "goal_met": ok,
                },
                indent=2,
            )
            + "\n"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
