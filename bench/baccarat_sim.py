"""Benchmark of the baccarat simulation (``macau-tables simulate baccarat``).

Usage::

    .venv/bin/python bench/baccarat_sim.py [--rounds 100000000] [--repeat 3] [--json PATH]

Measures, in this process:

* the numba kernel with the full shoe procedure (shuffle every shoe, burn by the first card,
  cut card 14 cards from the end, last-round rule, pairs and jackpot combinations tallied),
  8 decks, with 1 thread and with every thread numba has (2 on the project machine), best of
  ``--repeat`` runs of ``--rounds`` rounds, after a warm-up that loads the cached kernel;
* the automatic-machine mode (every round from the full set) for comparison;
* **reference**, run beside it: a plain-Python loop over shuffled 8-deck shoes (values only,
  ``random.shuffle``, same burn / cut-card / third-card rules), for about two seconds;
* the first call in a fresh process with an empty numba cache (compile time), separately.

Goal (the task): at least 20 million rounds per second on 2 cores with the full procedure.
Exit status 0 when met, 1 otherwise (no test runs this as a timing assertion).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_ROUNDS_PER_SECOND = 20e6


def plain_reference(seconds: float, seed: int = 1) -> tuple[int, float]:
    """Rounds dealt by a plain-Python shoe loop in about ``seconds``; returns (rounds, time)."""
    rng = random.Random(seed)
    shoe = ([0] * 16 + list(range(1, 10)) * 4) * 8  # BAC-5 values of 8 decks
    size = len(shoe)
    cut = size - 14
    rounds = banker = player = tie = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        rng.shuffle(shoe)
        first = shoe[0]
        pos = 1 + (first if first else 10)  # burn (a 0-valued card burns 10)
        while True:
            start = pos
            pt = (shoe[pos] + shoe[pos + 2]) % 10
            bt = (shoe[pos + 1] + shoe[pos + 3]) % 10
            pos += 4
            if pt < 8 and bt < 8:
                if pt <= 5:
                    x = shoe[pos]
                    pos += 1
                    pt = (pt + x) % 10
                    if (
                        bt <= 2
                        or (bt == 3 and x != 8)
                        or (bt == 4 and 2 <= x <= 7)
                        or (bt == 5 and 4 <= x <= 7)
                        or (bt == 6 and 6 <= x <= 7)
                    ):
                        bt = (bt + shoe[pos]) % 10
                        pos += 1
                elif bt <= 5:
                    bt = (bt + shoe[pos]) % 10
                    pos += 1
            rounds += 1
            if bt > pt:
                banker += 1
            elif pt > bt:
                player += 1
            else:
                tie += 1
            if pos > cut >= start:
                break
    return rounds, time.perf_counter() - started


def cold_compile_seconds() -> float:
    """First (small) simulation in a fresh process with an empty numba cache directory."""
    code = (
        "import time\n"
        "from macau_tables.analysis.baccarat_sim import ShoeProcedure, simulate\n"
        "t0 = time.perf_counter()\n"
        "simulate(ShoeProcedure(), 10_000, 1)\n"
        "print(time.perf_counter() - t0)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    import numba

    from macau_tables.analysis.baccarat_sim import ShoeProcedure, simulate

    threads = numba.get_num_threads()
    t0 = time.perf_counter()
    simulate(ShoeProcedure(), 100_000, 1)  # loads the cached kernel (or compiles it)
    warm_up = time.perf_counter() - t0

    def best_rate(procedure: ShoeProcedure, n_threads: int) -> float:
        numba.set_num_threads(n_threads)
        best = 0.0
        for i in range(args.repeat):
            result = simulate(procedure, args.rounds, seed=100 + i)
            best = max(best, result.rounds / result.kernel_seconds)
        numba.set_num_threads(threads)
        return best

    shoe_all = best_rate(ShoeProcedure(), threads)
    shoe_one = best_rate(ShoeProcedure(), 1)
    machine_all = best_rate(ShoeProcedure(machine=True), threads)
    ref_rounds, ref_seconds = plain_reference(2.0)
    ref_rate = ref_rounds / ref_seconds
    compile_seconds = cold_compile_seconds()

    report = {
        "python": platform.python_version(),
        "numba": numba.__version__,
        "cpus": os.cpu_count(),
        "threads": threads,
        "rounds_per_run": args.rounds,
        "warm_up_seconds": round(warm_up, 3),
        "first_call_empty_cache_seconds": round(compile_seconds, 3),
        "shoe_rounds_per_second_all_threads": round(shoe_all),
        "shoe_rounds_per_second_one_thread": round(shoe_one),
        "machine_rounds_per_second_all_threads": round(machine_all),
        "reference_rounds_per_second": round(ref_rate),
        "ratio_over_reference": round(shoe_all / ref_rate, 1),
        "goal_rounds_per_second": GOAL_ROUNDS_PER_SECOND,
        "goal_met": shoe_all >= GOAL_ROUNDS_PER_SECOND,
    }
    print(f"baccarat simulation, 8 decks, {args.rounds:,} rounds per run, best of {args.repeat}")
    print(
        f"  full shoe procedure, {threads} threads   {shoe_all / 1e6:8.2f} M rounds/s (goal ≥ 20)"
    )
    print(f"  full shoe procedure, 1 thread    {shoe_one / 1e6:8.2f} M rounds/s")
    print(f"  machine dealing, {threads} threads       {machine_all / 1e6:8.2f} M rounds/s")
    print(f"  plain-Python reference           {ref_rate / 1e6:8.3f} M rounds/s")
    print(f"  ratio kernel / reference         {shoe_all / ref_rate:8.1f} ×")
    print(f"  warm-up (cached kernel load)     {warm_up:8.3f} s")
    print(f"  first call, empty numba cache    {compile_seconds:8.3f} s (compile)")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if shoe_all >= GOAL_ROUNDS_PER_SECOND else 1


if __name__ == "__main__":
    sys.exit(main())
