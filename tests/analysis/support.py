"""Helpers shared by the tests of tests/analysis (no tests here; test files import them from this
module, never from one another)."""

from __future__ import annotations

import fcntl
import os
import pickle
import random
from collections.abc import Callable
from typing import Literal, TypeVar

import pytest

from macau_tables.analysis.caribbean_exact import (
    CaribbeanAnalysis,
    analyze,
    hand_index,
    par_rules,
)
from macau_tables.cards import parse_cards
from macau_tables.jackpot import Combination


def classify_first_cards(cards: list[int]) -> Combination | None:
    """BAC-13.4 from the law's wording, for card indices P1 B1 P2 B2 [fifth]."""
    ranks = [c // 4 + 2 for c in cards]
    suits = [c % 4 for c in cards]
    if len(cards) == 5 and sorted(ranks) == [10, 11, 12, 13, 14]:
        face_suits = {s for r, s in zip(ranks, suits, strict=True) if r != 14}
        ace_suit = next(s for r, s in zip(ranks, suits, strict=True) if r == 14)
        if len(face_suits) == 1:
            return (
                Combination.ROYAL_FLUSH if ace_suit in face_suits else Combination.HEAVENLY_STRAIGHT
            )
    first4 = ranks[:4]
    if len(set(first4)) == 1 and len(set(suits[:4])) == 4:
        return Combination.FOUR_OF_A_KIND
    player_pair = ranks[0] == ranks[2]
    banker_pair = ranks[1] == ranks[3]
    if player_pair and banker_pair and ranks[0] != ranks[1]:
        return Combination.DOUBLE_PAIR
    if max(first4.count(r) for r in first4) >= 3:
        return Combination.THREE_OF_A_KIND
    if player_pair or banker_pair:
        return Combination.SINGLE_PAIR
    return None


# Player hands probed by the brute-force checks: borderline A-K hands, pairs, a made hand,
# a hand tying often under the standard ranking, and a seeded random sample.
_NAMED = [
    "As Kd Jc 8h 3s",
    "Ad Kc Qh 4s 2d",
    "Ah Kh 9c 6d 5s",
    "2d 2c 7h 9s Jd",
    "Ac Kc Qc Jc 9c",
    "Ad Kd Qh Js 9c",
    "5h 4c 3d 2s Ad",
]

_rng = random.Random(20041122)

_RANDOM = [sorted(_rng.sample(range(52), 5)) for _ in range(2)]

PROBE_HANDS = [sorted(c.index for c in parse_cards(text)) for text in _NAMED] + _RANDOM

PROBES = [hand_index(h) for h in PROBE_HANDS]


T = TypeVar("T")


def shared(factory: pytest.TempPathFactory, name: str, build: Callable[[], T]) -> T:
    """``build()`` once per test session: under pytest-xdist the first worker builds it and
    leaves it in the folder shared by the run's workers; the others wait for it and load it."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if os.environ.get("PYTEST_XDIST_WORKER") is None or run is None:
        return build()
    folder = factory.getbasetemp().parent  # shared by the run's workers (maybe by other runs)
    path = folder / f"{name}-{run}.pickle"  # this run's only: never another code's result
    with open(folder / f"{name}-{run}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            value: T = pickle.loads(path.read_bytes())
            return value
        value = build()
        part = path.with_suffix(".part")
        part.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        part.replace(path)
        return value


_PAR: dict[str, CaribbeanAnalysis] = {}


def par_analysis(
    factory: pytest.TempPathFactory, ranking: Literal["macau", "standard"]
) -> CaribbeanAnalysis:
    """The PAR sheet's exact analysis (``analyze(par_rules(100))``, royal flush 100:1) under
    ``ranking``, with the per-up-card counts of :data:`PROBES`: computed once per test session
    (:func:`shared`), whichever test directory asks first, kept in the process afterwards."""
    if ranking not in _PAR:
        _PAR[ranking] = shared(
            factory,
            f"caribbean-par-{ranking}",
            lambda: analyze(par_rules(100), ranking=ranking, probes=PROBES),
        )
    return _PAR[ranking]
