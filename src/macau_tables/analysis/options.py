"""A table configuration's exact figures, as the admin page shows them before saving a change.

:func:`table_figures` takes a table's rules (:class:`~macau_tables.caribbean.rules.
CaribbeanRules` or :class:`~macau_tables.baccarat.rules.BaccaratRules`) and its jackpot
meter's current amount, and answers, exactly, what the PAR sheets compute for them
(:mod:`.caribbean_exact`, :mod:`.baccarat_exact`; nothing is computed a second way here):

* each wager the configuration offers: its house edge and its return (``1 − house edge``),
  per unit wagered — at Caribbean Stud the ante with the optimal raise (per ante, CSP-9.5 with
  the table's royal flush odds; the money cap per box of CSP-9.5 is not applied: per ante it
  binds only above ``max_payout_per_box / (2 × odds)``), at baccarat each offered wager of
  ``decks`` decks with the table's commission option (BAC-18.1 or the no-commission banker of
  BAC-18.2);
* the jackpot wager (CSP-10, BAC-17): its return at ``meter`` with the table's fixed awards and
  the meter share of CSP-10.2 / BAC-17.4–17.5, and its break-even meter (the smallest meter at
  which the return reaches 100 %; ``None`` when none does);

every figure an exact ``"n/d"`` text. :func:`difference` is the change between two such
answers. The Caribbean sweep (a few seconds once the numba kernels are compiled, see
:mod:`.warm`) depends only on the royal flush odds: it is kept per odds for the process
(:func:`caribbean_sweep`). These run in the server's analysis worker process
(:mod:`macau_tables.server.analysis_worker`), never beside a table's commit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final

from ..baccarat.rules import BaccaratRules, CommissionMode, WagerKind
from ..caribbean.rules import CaribbeanRules
from ..errors import ConfigError
from .baccarat_exact import (
    JackpotAwards,
    break_even_meter,
    full_shoe,
    jackpot_counts,
    jackpot_return,
    main_counts,
    pair_count,
    wager_stats,
)
from .caribbean_exact import TOTAL_DECISIONS, JackpotAnalysis, analyze, par_rules

__all__ = ["STEPS", "CaribbeanSweep", "caribbean_sweep", "difference", "table_figures"]

Step = Callable[[str], None]

STEPS: Final[Mapping[str, tuple[str, ...]]] = {
    "caribbean": ("hands", "strengths", "sweep", "jackpot"),
    "baccarat": ("counts", "wagers", "jackpot"),
}
"""The stages :func:`table_figures` reports through ``step``, per game, in order."""

_BACCARAT_WAGERS: Final = (
    # (the analysis's wager key, the table's wager kind)
    ("player", WagerKind.PLAYER),
    ("banker", WagerKind.BANKER),
    ("tie", WagerKind.TIE),
    ("player_pair", WagerKind.PLAYER_PAIR),
    ("banker_pair", WagerKind.BANKER_PAIR),
    ("lucky_six", WagerKind.LUCKY_6),
)


def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _wager(key: str, house_edge: Fraction) -> dict[str, str]:
    return {"wager": key, "house_edge": _exact(house_edge), "return": _exact(1 - house_edge)}


class CaribbeanSweep:
    """What the admin page needs of one exact Caribbean sweep (macau ranking, CSP-8): the house
    edge per ante and the number of raised (hand, up card) pairs of each hand category."""

    __slots__ = ("house_edge", "raised_by_category")

    def __init__(self, house_edge: Fraction, raised_by_category: tuple[int, ...]) -> None:
        self.house_edge = house_edge
        self.raised_by_category = raised_by_category


@lru_cache(maxsize=8)
def _sweep(royal_flush_odds: int) -> CaribbeanSweep:
    done = analyze(par_rules(royal_flush_odds), step=_sweep_step)
    return CaribbeanSweep(done.house_edge, done.raised_by_category)


_current_step: list[Step] = []


def _sweep_step(name: str) -> None:
    for step in _current_step:
        step(name)


def caribbean_sweep(royal_flush_odds: int, step: Step | None = None) -> CaribbeanSweep:
    """The exact sweep with the royal flush paying ``royal_flush_odds`` (CSP-9.5), kept for
    the process (the eight last asked); ``step(stage)`` after each of its stages when it runs."""
    _current_step[:] = [] if step is None else [step]
    try:
        return _sweep(royal_flush_odds)
    finally:
        _current_step.clear()


def _caribbean(rules: CaribbeanRules, meter: int, step: Step) -> dict[str, Any]:
    sweep = caribbean_sweep(rules.royal_flush_odds, step)
    probabilities = tuple(Fraction(n, TOTAL_DECISIONS) for n in sweep.raised_by_category)
    jackpot = JackpotAnalysis(rules, meter, probabilities)
    step("jackpot")
    rate = jackpot.return_rate(meter)
    return {
        "game": "caribbean",
        "meter": meter,
        "wagers": [_wager("ante", sweep.house_edge)],
        "jackpot": {
            "offered": True,
            "return": _exact(rate),
            "house_edge": _exact(1 - rate),
            "break_even_meter": jackpot.break_even_meter(),
        },
    }


def _baccarat(rules: BaccaratRules, meter: int, step: Step) -> dict[str, Any]:
    full = full_shoe(rules.shoe.decks)
    main = main_counts(full)
    step("counts")
    stats = wager_stats(main, pair_count(full))
    wagers = []
    for key, kind in _BACCARAT_WAGERS:
        if not rules.offers(kind):
            continue
        figures = stats[key]
        if kind is WagerKind.BANKER and rules.commission is CommissionMode.NO_COMMISSION:
            figures = stats["banker_no_commission"]  # BAC-18.2: a win on 6 pays half
        wagers.append(_wager(key, figures.house_edge))
    step("wagers")
    jackpot: dict[str, Any] = {"offered": False}
    if rules.offers(WagerKind.JACKPOT):
        awards = JackpotAwards.from_rules(rules, meter)
        counts = jackpot_counts(full)
        paid = jackpot_return(counts, main.total, awards)
        jackpot = {
            "offered": True,
            "return": _exact(paid.total_return),
            "house_edge": _exact(paid.house_edge),
            "break_even_meter": break_even_meter(counts, main.total, awards),
        }
    step("jackpot")
    return {"game": "baccarat", "meter": meter, "wagers": wagers, "jackpot": jackpot}


def _no_step(_: str) -> None:
    return None


def table_figures(rules: object, meter: int, step: Step = _no_step) -> dict[str, Any]:
    """The exact figures of ``rules`` with the jackpot meter at ``meter`` (minor units), as
    plain JSON (module docstring); ``step(stage)`` after each stage of :data:`STEPS`. Refuses
    (``ConfigError``) rules of neither game and a meter that is not a whole number 0 or more.

    >>> from macau_tables.baccarat.rules import BaccaratRules
    >>> table_figures(BaccaratRules(), 1_000_000)["wagers"][1]["house_edge"]
    '114753351728/10847218479825'
    """
    if isinstance(meter, bool) or not isinstance(meter, int) or meter < 0:
        raise ConfigError("analysis.bad_meter", meter=repr(meter))
    if isinstance(rules, CaribbeanRules):
        return _caribbean(rules, meter, step)
    if isinstance(rules, BaccaratRules):
        return _baccarat(rules, meter, step)
    raise ConfigError("analysis.not_table_rules", rules=type(rules).__name__)


def _fraction(text: str) -> Fraction:
    return Fraction(text)


def difference(current: Mapping[str, Any], candidate: Mapping[str, Any]) -> dict[str, Any]:
    """What changes from ``current`` to ``candidate`` (two :func:`table_figures` answers):
    per wager in either, the house edge's change (``None`` for a wager only one offers); the
    jackpot's return change and the candidate's break-even meter minus the current one (``None``
    when either has none)."""
    before = {w["wager"]: w for w in current["wagers"]}
    after = {w["wager"]: w for w in candidate["wagers"]}
    wagers = []
    for key in [*after, *(k for k in before if k not in after)]:
        change = None
        if key in before and key in after:
            change = _exact(
                _fraction(after[key]["house_edge"]) - _fraction(before[key]["house_edge"])
            )
        wagers.append({"wager": key, "house_edge": change})
    jackpot: dict[str, Any] = {"return": None, "break_even_meter": None}
    old, new = current["jackpot"], candidate["jackpot"]
    if old["offered"] and new["offered"]:
        jackpot["return"] = _exact(_fraction(new["return"]) - _fraction(old["return"]))
        if old["break_even_meter"] is not None and new["break_even_meter"] is not None:
            jackpot["break_even_meter"] = new["break_even_meter"] - old["break_even_meter"]
    return {"wagers": wagers, "jackpot": jackpot}
