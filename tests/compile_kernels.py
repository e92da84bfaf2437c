"""Compile the numba kernels the tests call into numba's on-disk cache, once, before pytest.

``make test`` runs this beside ruff and mypy (``make -j``): on a fresh clone the kernels are
not yet compiled, and without it each pytest-xdist worker that first calls a kernel compiles it
itself — both workers often the same kernel at once. Each call below is a small one made the
way the library or a test makes it, so numba compiles (and caches) the very signatures the
tests use; a kernel it misses is only compiled later by the test, as before. Not a test: it
asserts nothing (``python -m tests.compile_kernels [hands] [baccarat] [caribbean]``, all by
default).

``make`` compiles them in two processes side by side: Caribbean Stud's hand evaluator and
Baccarat's kernels; Caribbean Stud's sweep (the kernels the analysis's warm-up, ``make warm``,
compiles: ``make test`` does not run it) and its simulation, which needs the sweep's analysis.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from macau_tables.analysis import _baccarat_kernels as baccarat_kernels
from macau_tables.analysis.baccarat_counting import counting_study
from macau_tables.analysis.baccarat_counts import main_counts
from macau_tables.analysis.baccarat_exact import effects_of_removal
from macau_tables.analysis.baccarat_sim import ShoeProcedure
from macau_tables.analysis.baccarat_sim import simulate as simulate_baccarat
from macau_tables.analysis.caribbean_exact import analyze, par_rules
from macau_tables.analysis.caribbean_sim import STREAMS
from macau_tables.analysis.caribbean_sim import simulate as simulate_caribbean
from macau_tables.caribbean.hands import evaluate_many


def caribbean() -> None:
    """Caribbean Stud: the exact sweep (compiled here, as the warm-up would) and the
    simulation."""
    analysis = analyze(par_rules(100))
    simulate_caribbean(analysis, 10 * STREAMS, seed=1, record_rounds=10)


def hands() -> None:
    """Caribbean Stud's hand evaluator on the array types the tests pass (it needs nothing the
    warm-up compiles)."""
    for dtype in (np.uint8, np.int16, np.int32, np.int64):
        evaluate_many(np.array([[0, 1, 2, 3, 4]], dtype=dtype))


def baccarat() -> None:
    """Baccarat: the exact counts, the simulation, the counting study, the traced shoe."""
    main_counts([1] * 52)  # one deck: the few rounds of the smallest shoe
    simulate_baccarat(ShoeProcedure(), 1_000, seed=1)
    counting_study(ShoeProcedure(), 1, seed=1, eor=effects_of_removal(8))
    cards = np.arange(6, dtype=np.int64)
    baccarat_kernels.replay(cards, np.zeros(1, np.int64), np.empty(1, np.int64))
    p = ShoeProcedure()
    shoe = np.empty(416, np.int64)
    slots = np.empty(105, np.int64)
    baccarat_kernels.trace_shoe(
        1, 0, 8, p.burn_mode, p.burn_count, p.cut_card, p.extra_rounds, shoe, slots, slots.copy()
    )


GROUPS: dict[str, Callable[[], None]] = {
    "hands": hands,
    "baccarat": baccarat,
    "caribbean": caribbean,
}


def main(argv: list[str]) -> None:
    for name in argv or list(GROUPS):
        GROUPS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
