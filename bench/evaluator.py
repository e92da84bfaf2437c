"""Benchmark of the Caribbean Stud hand evaluator against eval7, phevaluator and treys.

Usage::

    .venv/bin/python bench/evaluator.py [--hands 1000000] [--repeat 3] [--seed 2004] [--json PATH]

All evaluators see the same random five-card hands in the same run. Each library gets its own
card representation prepared before timing (eval7 ``Card`` objects, phevaluator integer card
ids for its five-card entry point ``evaluate_5cards``, treys integer cards split into the
2-card "hand" and 3-card "board" its API takes), and is timed with one call per hand in a
plain loop. Ours: :func:`evaluate` with one call per hand
on :class:`~macau_tables.cards.Card` lists, and :func:`evaluate_many` on an ``(N, 5)`` uint8
array (after a warm-up call, so numba compilation is not timed). Every timing is the best of
``--repeat`` runs (``10 * --repeat`` for ``evaluate_many``, whose run is ~100x shorter).

Goals (docs/benchmarks.md): ``evaluate_many`` at least 20x the fastest per-hand library, and
``evaluate`` at least 0.5x treys. Besides timing, the script checks that our "standard"
ranking orders the hands exactly as treys does (lower treys rank = better hand), so the
libraries are compared on the same work.

Exit status: 0 when both goals are met, 1 otherwise (no test runs this as a timing assertion).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import numpy as np
import numpy.typing as npt

from macau_tables.cards import DECK
from macau_tables.caribbean.hands import evaluate, evaluate_many

GOAL_MANY_VS_FASTEST = 20.0
GOAL_EVALUATE_VS_TREYS = 0.5


def random_hands(n: int, seed: int) -> npt.NDArray[np.uint8]:
    """``n`` uniformly random five-card hands as card indices (distinct within a row)."""
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52))
    return np.argpartition(keys, 5, axis=1)[:, :5].astype(np.uint8)


def best_time(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def loop_eval7(hands: list[Any]) -> Callable[[], None]:
    import eval7

    ev = eval7.evaluate

    def run() -> None:
        for h in hands:
            ev(h)

    return run


def loop_phevaluator(hands: list[tuple[int, ...]]) -> Callable[[], None]:
    from phevaluator import evaluate_5cards as ev

    def run() -> None:
        for h in hands:
            ev(*h)

    return run


def loop_treys(hands: list[tuple[list[int], list[int]]]) -> Callable[[], None]:
    import treys

    ev = treys.Evaluator().evaluate

    def run() -> None:
        for hole, board in hands:
            ev(hole, board)

    return run


def loop_ours(hands: list[Any]) -> Callable[[], None]:
    ev = evaluate

    def run() -> None:
        for h in hands:
            ev(h)

    return run


def check_against_treys(
    arr: npt.NDArray[np.uint8], treys_hands: list[tuple[list[int], list[int]]]
) -> None:
    """Our standard ranking must order the hands exactly as treys does."""
    import treys

    ev = treys.Evaluator().evaluate
    theirs = np.fromiter((ev(h, b) for h, b in treys_hands), np.int64, len(treys_hands))
    ours = evaluate_many(arr, "standard")
    order = np.argsort(ours, kind="stable")
    o, t = ours[order], theirs[order]
    same_ours, same_theirs = o[1:] == o[:-1], t[1:] == t[:-1]
    if not (np.array_equal(same_ours, same_theirs) and np.all(t[1:] <= t[:-1])):
        raise SystemExit("MISMATCH: our standard ranking does not order hands as treys does")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2004)
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--no-check", action="store_true", help="skip the treys order check")
    args = parser.parse_args(argv)

    import eval7
    import phevaluator
    import treys

    n = args.hands
    arr = random_hands(n, args.seed)
    names = [[str(DECK[i]) for i in row] for row in arr.tolist()]

    # Each library's own card objects, prepared before timing.
    e7 = {s: eval7.Card(s) for s in (str(c) for c in DECK)}
    ph = {s: phevaluator.Card(s).id_ for s in e7}
    tr = {s: treys.Card.new(s) for s in e7}
    hands_eval7 = [[e7[s] for s in row] for row in names]
    hands_ph = [tuple(ph[s] for s in row) for row in names]
    hands_treys = [([tr[s] for s in row[:2]], [tr[s] for s in row[2:]]) for row in names]
    hands_ours = [[DECK[i] for i in row] for row in arr.tolist()]
    evaluate_many(arr[:10])  # compile or load the numba kernel before timing

    if not args.no_check:
        check_against_treys(arr, hands_treys)

    runs: dict[str, Callable[[], object]] = {
        "eval7.evaluate": loop_eval7(hands_eval7),
        "phevaluator.evaluate_5cards": loop_phevaluator(hands_ph),
        "treys.Evaluator.evaluate": loop_treys(hands_treys),
        "macau_tables evaluate": loop_ours(hands_ours),
        "macau_tables evaluate_many": lambda: evaluate_many(arr),
    }
    # evaluate_many takes ~1% of the others' time per run: it gets more runs (still best-of),
    # so one scheduling hiccup on the shared machine does not decide its figure.
    rate = {
        name: n / best_time(run, args.repeat * (10 if name.endswith("_many") else 1))
        for name, run in runs.items()
    }

    libraries = ("eval7.evaluate", "phevaluator.evaluate_5cards", "treys.Evaluator.evaluate")
    fastest = max(libraries, key=rate.__getitem__)
    many_ratio = rate["macau_tables evaluate_many"] / rate[fastest]
    eval_ratio = rate["macau_tables evaluate"] / rate["treys.Evaluator.evaluate"]
    ok_many = many_ratio >= GOAL_MANY_VS_FASTEST
    ok_eval = eval_ratio >= GOAL_EVALUATE_VS_TREYS

    import numba

    print(
        f"{n:,} random 5-card hands (seed {args.seed}), best of {args.repeat}; "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"numba {numba.__version__} ({numba.get_num_threads()} threads); "
        f"eval7 {version('eval7')}, phevaluator {version('phevaluator')}, "
        f"treys {version('treys')}"
    )
    if not args.no_check:
        print("check: our standard ranking orders every hand exactly as treys does")
    print(f"{'evaluator':<30} {'hands/s':>14} {'ns/hand':>9}")
    for name, r in rate.items():
        print(f"{name:<30} {r:>14,.0f} {1e9 / r:>9.1f}")
    print(
        f"evaluate_many / fastest library ({fastest}): {many_ratio:6.1f}x  "
        f"(goal >= {GOAL_MANY_VS_FASTEST:g}x) {'OK' if ok_many else 'MISSED'}"
    )
    print(
        f"evaluate / treys:                 {eval_ratio:6.2f}x  "
        f"(goal >= {GOAL_EVALUATE_VS_TREYS:g}x) {'OK' if ok_eval else 'MISSED'}"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(
                {
                    "hands": n,
                    "seed": args.seed,
                    "repeat": args.repeat,
                    "hands_per_second": rate,
                    "fastest_library": fastest,
                    "many_vs_fastest": many_ratio,
                    "evaluate_vs_treys": eval_ratio,
                    "goals_met": ok_many and ok_eval,
                },
                fh,
                indent=2,
            )
    return 0 if ok_many and ok_eval else 1


if __name__ == "__main__":
    sys.exit(main())
