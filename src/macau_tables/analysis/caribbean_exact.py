"""Exact Caribbean Stud Poker mathematics: every deal, the optimal raise, exact integer counts.

The analysis covers all 2,598,960 player hands, each against all 1,533,939 dealer hands from the
other 47 cards, with each of the dealer's five cards as the face-up card (CSP-7):
19,933,230,517,200 deals. For each of the 122,151,120 (player hand, up card) pairs the player
raises or folds, whichever has the higher expected value given exactly what CSP-6.5 lets the
player see (own five cards and the dealer's up card). Rules: CSP-9 (the dealer qualifies with A-K
or better; not qualifying: ante 1:1, raise returned; qualifying: the higher hand wins, the ante
1:1, the raise by the paytable of CSP-9.5), CSP-6.6 (raise = 2 × ante), CSP-6.7 (fold loses the
ante).

Method (see ``docs/methods.md``): hands are processed in increasing strength. For every
card subset ``T`` with ``|T| <= 4`` a table keeps, per card ``c``, how many dealer hands seen so
far contain ``T ∪ {c}``; inclusion-exclusion over the 31 subsets of the player's hand then gives,
for all 47 up cards at once, how many dealer hands containing the up card and disjoint from the
player's hand are below it. The same on a static table of non-qualifying hands gives the
non-qualifying count. Everything is exact integer arithmetic; probabilities are ``Fraction``.

Hand strengths, categories and qualification come from :mod:`macau_tables.caribbean.hands`
(``evaluate_many``, ``strength_category``, ``QUALIFYING_STRENGTH``); no second evaluator.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Final

import numpy as np
import numpy.typing as npt

from ..cards import Card
from ..caribbean.hands import (
    QUALIFYING_STRENGTH,
    RANKINGS,
    HandCategory,
    Ranking,
    evaluate_many,
    strength_category,
)
from ..caribbean.rules import (
    CAPPED_CATEGORIES,
    CaribbeanRules,
    JackpotFixedAwards,
    jackpot_combination,
)
from ..errors import ConfigError
from ..jackpot import (
    CARIBBEAN_JACKPOT_COMBINATIONS,
    AwardSplit,
    Combination,
    Meter,
    resolve_caribbean,
    split_contribution,
)

__all__ = [
    "DEALS_PER_UP_CARD",
    "TOTAL_DEALS",
    "TOTAL_DECISIONS",
    "CaribbeanAnalysis",
    "JackpotAnalysis",
    "OutcomeLine",
    "analyze",
    "analyze_jackpot",
    "category_name",
    "check_options",
    "hand_index",
    "par_rules",
    "raise_win_units",
]

N_HANDS: Final = 2_598_960
DEALS_PER_UP_CARD: Final = 163_185
"""Dealer hands holding a given up card, from the 46 other unseen cards: C(46, 4)."""
TOTAL_DECISIONS: Final = N_HANDS * 47
"""(player hand, dealer up card) pairs: 122,151,120 raise/fold decisions."""
TOTAL_DEALS: Final = TOTAL_DECISIONS * DEALS_PER_UP_CARD
"""All deals counting which dealer card is face up: 19,933,230,517,200."""

_NO_FIXED_AWARDS: Final = JackpotFixedAwards(0, 0, 0, 0, 0)


def category_name(category: HandCategory) -> str:
    """A short English name of a hand category: the hands' own name
    (:attr:`HandCategory.english`), the high-card category as it can win: A-K (CSP-9.1).

    >>> category_name(HandCategory.HIGH_CARD), category_name(HandCategory.FULL_HOUSE)
    ('A-K high', 'full house')
    """
    category = HandCategory(category)
    return "A-K high" if category is HandCategory.HIGH_CARD else category.english


def par_rules(
    royal_flush_odds: int = 100,
    *,
    jackpot_wager: int = 100,
    jackpot_fixed_awards: JackpotFixedAwards = _NO_FIXED_AWARDS,
    jackpot_contribution: Fraction = Fraction(0),
) -> CaribbeanRules:
    """A :class:`CaribbeanRules` table for a PAR sheet: the royal flush's raise odds (CSP-9.5)
    and the jackpot settings (CSP-10) an analysis reads, the rest filled in plainly.

    The analysis is per ante, so the table's limits do not matter: the bet unit, the ante
    limits and the jackpot wager are all ``jackpot_wager``; the money cap per box
    (``max_payout_per_box``, CSP-9.5) is set where one ante of it never binds (the analysis
    applies a cap only when asked, in antes: ``max_payout_units``). Refuses (``ConfigError``,
    from :class:`CaribbeanRules`) what a table would refuse: odds outside 50..100, a jackpot
    wager below 1, negative awards, a share outside 0..1.

    >>> par_rules(50).royal_flush_odds
    50
    """
    wager = jackpot_wager
    if isinstance(wager, bool) or not isinstance(wager, int) or wager < 1:
        raise ConfigError("analysis.bad_jackpot_wager", wager=repr(wager))
    return CaribbeanRules(
        bet_unit=wager,
        ante_minimum=wager,
        ante_maximum=wager,
        jackpot_wager=wager,
        royal_flush_odds=royal_flush_odds,
        # The highest raise win is 2 x 100 antes (royal flush 100:1): this cap never binds.
        max_payout_per_box=2 * 100 * wager,
        jackpot_fixed_awards=jackpot_fixed_awards,
        jackpot_contribution=jackpot_contribution,
        jackpot_seed=0,
    )


def check_options(ranking: object, max_payout_units: object) -> None:
    """Refuse (``ConfigError``) a ranking other than ``"macau"`` / ``"standard"`` and a cap
    (``max_payout_units``, in antes) that is not ``None`` or a whole number 1 or more."""
    if ranking not in RANKINGS:
        raise ConfigError(
            "analysis.unknown_ranking", ranking=repr(ranking), choices=", ".join(RANKINGS)
        )
    cap = max_payout_units
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
        raise ConfigError("analysis.bad_payout_cap", cap=repr(cap))


def raise_win_units(
    rules: CaribbeanRules, category: HandCategory, max_payout_units: int | None = None
) -> int:
    """What a winning raise wins, in ante units: the raise is two antes (CSP-6.6) paid at
    ``rules.raise_odds(category)`` (CSP-9.5), capped at ``max_payout_units`` antes for four of
    a kind, straight flush and royal flush when a cap is given.

    >>> raise_win_units(par_rules(100), HandCategory.ROYAL_FLUSH)
    200
    >>> raise_win_units(par_rules(100), HandCategory.FOUR_OF_A_KIND, max_payout_units=30)
    30
    """
    category = HandCategory(category)
    win = 2 * rules.raise_odds(category)
    if max_payout_units is not None and category in CAPPED_CATEGORIES:
        win = min(win, max_payout_units)
    return win


@dataclass(frozen=True, slots=True)
class OutcomeLine:
    """One line of the return table: an event, the units it wins per ante, its exact count."""

    event: str
    units: int
    combinations: int

    @property
    def probability(self) -> Fraction:
        """Exact probability of the event over all deals."""
        return Fraction(self.combinations, TOTAL_DEALS)

    @property
    def expected_return(self) -> Fraction:
        """Exact contribution of the event to the expected win per ante."""
        return self.units * self.probability


@dataclass(frozen=True, slots=True)
class CaribbeanAnalysis:
    """The exact result: return table, strategy and the counts behind every headline figure.

    ``rules``, ``ranking`` and ``max_payout_units`` are what :func:`analyze` was given.

    ``decisions[i]`` (uint64) has bit ``u`` set when raising with the hand of colex index
    ``i`` (:func:`hand_index`) against up card ``u`` is optimal. ``raised_by_category[c]``
    counts raised (hand, up card) pairs whose hand has category ``c``; ``pairs_by_category[c]``
    all pairs.
    ``probe_counts[k, j, u]``: for the ``k``-th probed hand and up card ``u``, the dealer hands in
    which the dealer does not qualify (``j`` = 0), qualifies and loses (1), ties (2), wins (3).
    """

    rules: CaribbeanRules
    ranking: Ranking
    max_payout_units: int | None
    outcomes: tuple[OutcomeLine, ...]
    raised_pairs: int
    dealer_qualifies_deals: int
    dealer_qualifies_raised_deals: int
    indifferent_pairs: int
    raised_by_category: tuple[int, ...]
    pairs_by_category: tuple[int, ...]
    decisions: npt.NDArray[np.uint64] = field(repr=False)
    hands: npt.NDArray[np.int8] = field(repr=False)
    strengths: npt.NDArray[np.int64] = field(repr=False)
    probe_counts: npt.NDArray[np.int64] = field(repr=False)

    @property
    def total_combinations(self) -> int:
        """All deals counted (always :data:`TOTAL_DEALS`)."""
        return sum(o.combinations for o in self.outcomes)

    @property
    def expected_win(self) -> Fraction:
        """Exact expected win per ante (negative: the player loses)."""
        return Fraction(sum(o.units * o.combinations for o in self.outcomes), TOTAL_DEALS)

    @property
    def house_edge(self) -> Fraction:
        """Exact house edge per ante: minus the expected win."""
        return -self.expected_win

    @property
    def raise_probability(self) -> Fraction:
        """Probability that the optimal player raises."""
        return Fraction(self.raised_pairs, TOTAL_DECISIONS)

    @property
    def average_wager(self) -> Fraction:
        """Expected total amount wagered per ante: 1 + 2 × P(raise) (CSP-6.6)."""
        return 1 + 2 * self.raise_probability

    @property
    def element_of_risk(self) -> Fraction:
        """House edge per total amount wagered (ante plus raise)."""
        return self.house_edge / self.average_wager

    @property
    def dealer_qualifies_probability(self) -> Fraction:
        """Probability that the dealer qualifies (CSP-9.1), over all deals."""
        return Fraction(self.dealer_qualifies_deals, TOTAL_DEALS)

    @property
    def dealer_qualifies_given_raise(self) -> Fraction:
        """Probability that the dealer qualifies, given the player raised."""
        raised_deals = self.raised_pairs * DEALS_PER_UP_CARD
        return Fraction(self.dealer_qualifies_raised_deals, raised_deals)

    @property
    def variance(self) -> Fraction:
        """Exact variance of the win per ante."""
        second = Fraction(sum(o.units**2 * o.combinations for o in self.outcomes), TOTAL_DEALS)
        return second - self.expected_win**2

    @property
    def standard_deviation(self) -> float:
        """Standard deviation of the win per ante."""
        return math.sqrt(self.variance)

    def should_raise(self, cards: list[Card], up_card: Card) -> bool:
        """The optimal decision for a hand and the dealer's up card (CSP-6.5).

        Refuses (``ConfigError``) anything but five distinct cards and an up card not among them.
        """
        indices = sorted({c.index for c in cards})
        if len(indices) != 5 or len(cards) != 5:
            raise ConfigError("analysis.not_five_distinct_cards")
        if up_card.index in indices:
            raise ConfigError("analysis.up_card_in_hand", card=up_card)
        return bool(int(self.decisions[hand_index(indices)]) >> up_card.index & 1)


def hand_index(sorted_indices: list[int] | tuple[int, ...]) -> int:
    """Colex index (0..2,598,959) of five sorted distinct card indices: ``sum C(c_i, i)``."""
    return sum(math.comb(c, i + 1) for i, c in enumerate(sorted_indices))


Step = Callable[[str], None]


def _no_step(_: str) -> None:
    return None


def analyze(
    rules: CaribbeanRules,
    *,
    ranking: Ranking = "macau",
    max_payout_units: int | None = None,
    step: Step = _no_step,
    threads: int = 2,
    probes: Sequence[int] = (),
) -> CaribbeanAnalysis:
    """Run the exact analysis (a few seconds once the numba kernels are compiled and cached).

    ``rules`` is the table's :class:`CaribbeanRules`: its paytable (``raise_odds``, CSP-9.5)
    decides every raise's win; :func:`par_rules` builds one from the royal flush's odds.
    ``ranking``: ``"macau"`` (the law, CSP-8) or ``"standard"`` (equal ranks push, for
    comparison with published figures). ``max_payout_units``: optional cap on the raise's win
    for four of a kind, straight flush and royal flush, in antes (CSP-9.5 caps it in money per
    box, which a per-ante analysis cannot apply; ``None`` = no cap).

    ``step(name)`` is called after each stage (for a progress bar). ``threads``: work chunks
    run in parallel (1 or more). ``probes``: colex hand indices whose per-up-card counts are
    kept in :attr:`CaribbeanAnalysis.probe_counts` (for checks). Returns a
    :class:`CaribbeanAnalysis` whose counts are exact. Refuses (``ConfigError``) rules of the
    wrong type, an unknown ranking, a cap below 1 and probe indices outside 0..2,598,959.
    """
    from . import _caribbean_kernels as kernels

    if not isinstance(rules, CaribbeanRules):
        raise ConfigError("analysis.not_caribbean_rules", rules=type(rules).__name__)
    check_options(ranking, max_payout_units)
    probes = [int(p) for p in probes]
    if any(not 0 <= p < N_HANDS for p in probes) or len(set(probes)) != len(probes):
        raise ConfigError("analysis.bad_probes")
    hands = kernels.all_hands()
    step("hands")
    strengths = evaluate_many(hands, ranking)
    # CSP-9.1 qualification is a property of the dealer's cards alone: judged on the Macau
    # strengths whatever ranking decides the showdown.
    macau = strengths if ranking == "macau" else evaluate_many(hands, "macau")
    qualifies = macau >= QUALIFYING_STRENGTH
    category = strength_category(strengths)
    step("strengths")
    if int(strengths[qualifies].min()) <= int(strengths[~qualifies].max()):
        # The sweep relies on every qualifying hand ranking above every non-qualifying one.
        raise AssertionError("qualifying hands do not all rank above non-qualifying hands")

    nonqualifying = np.flatnonzero(~qualifies).astype(np.int64)
    qualifying = np.flatnonzero(qualifies)
    order = qualifying[np.argsort(strengths[qualifying], kind="stable")].astype(np.int64)
    ordered = strengths[order]
    change = np.flatnonzero(np.diff(ordered) != 0) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [order.shape[0]]))
    group_end = np.repeat(ends, ends - starts).astype(np.int64)
    n_chunks = max(1, int(threads))
    bounds = [0]
    for k in range(1, n_chunks):
        # Later chunks start with the earlier hands already counted, which costs little, but
        # their queries are the expensive part: split the queries evenly, at group boundaries.
        position = order.shape[0] * k // n_chunks
        bounds.append(int(group_end[position]))
    bounds.append(order.shape[0])
    probe_slot = np.full(N_HANDS, -1, dtype=np.int64)
    probe_out = np.zeros((len(probes), 4, 52), dtype=np.int64)
    for k, hand in enumerate(probes):
        probe_slot[hand] = k
    raise_win = np.array(
        [raise_win_units(rules, HandCategory(c), max_payout_units) for c in range(10)],
        dtype=np.int64,
    )
    # Output arrays allocated here, not returned by the kernel: see kernels.sweep (Ctrl-C).
    decisions = np.zeros(N_HANDS, dtype=np.uint64)
    slots = np.zeros((n_chunks, kernels.N_SLOTS), dtype=np.int64)
    extra = np.zeros((n_chunks, 16), dtype=np.int64)
    kernels.sweep(
        hands,
        nonqualifying,
        order,
        group_end,
        np.array(bounds, dtype=np.int64),
        category,
        raise_win,
        ranking == "standard",
        probe_slot,
        probe_out,
        decisions,
        slots,
        extra,
    )
    step("sweep")
    totals = [int(x) for x in slots.sum(axis=0)]
    more = [int(x) for x in extra.sum(axis=0)]
    outcomes: list[OutcomeLine] = []
    for c in reversed(range(10)):
        cat = HandCategory(c)
        outcomes.append(
            OutcomeLine(f"player wins with {category_name(cat)}", 1 + int(raise_win[c]), totals[c])
        )
    outcomes.append(
        OutcomeLine("dealer does not qualify (raised)", 1, totals[kernels.SLOT_NOT_QUALIFIED])
    )
    outcomes.append(OutcomeLine("push (equal hands)", 0, totals[kernels.SLOT_PUSH]))
    outcomes.append(OutcomeLine("dealer wins", -3, totals[kernels.SLOT_DEALER_WINS]))
    outcomes.append(OutcomeLine("fold", -1, totals[kernels.SLOT_FOLD]))
    pairs_by_category = tuple(int(x) * 47 for x in np.bincount(category, minlength=10))
    analysis = CaribbeanAnalysis(
        rules=rules,
        ranking=ranking,
        max_payout_units=max_payout_units,
        outcomes=tuple(outcomes),
        raised_pairs=sum(more[2:12]),
        dealer_qualifies_deals=more[12],
        dealer_qualifies_raised_deals=more[1],
        indifferent_pairs=more[0],
        raised_by_category=tuple(more[2:12]),
        pairs_by_category=pairs_by_category,
        decisions=decisions,
        hands=hands,
        strengths=strengths,
        probe_counts=probe_out,
    )
    if analysis.total_combinations != TOTAL_DEALS:
        raise AssertionError(f"counted {analysis.total_combinations} deals, not {TOTAL_DEALS}")
    return analysis


# -- jackpot (CSP-10) ------------------------------------------------------------------------

_CATEGORY_OF: Final[Mapping[Combination, HandCategory]] = MappingProxyType(
    {
        combination: category
        for category in HandCategory
        if (combination := jackpot_combination(category)) is not None
    }
)
"""The hand category of each jackpot combination (the inverse of the rules' mapping)."""


@dataclass(frozen=True, slots=True)
class JackpotAnalysis:
    """Exact jackpot probabilities (per box round with a jackpot wager, optimal play) and the
    awards of ``rules`` with the meter at ``meter`` (minor units).

    ``probabilities[c]``: probability that the box holds a hand of category ``c`` and raises
    (a folded box wins no jackpot, CSP-6.7/CSP-10.2). Awards come from
    :func:`macau_tables.jackpot.resolve_caribbean` for one winning box, as a table pays them:
    royal flush ``max(fixed, meter)``, straight flush ``max(fixed, floor(10 % of meter))``, the
    others the fixed award (CSP-10.2, CSP-10.8).
    """

    rules: CaribbeanRules
    meter: int
    probabilities: tuple[Fraction, ...]

    @property
    def wager(self) -> int:
        """The jackpot wager (minor units, ``rules.jackpot_wager``)."""
        return self.rules.jackpot_wager

    @property
    def contribution_per_wager(self) -> int:
        """What each jackpot wager credits to the meter (rounded down, as a table does)."""
        return split_contribution(self.rules.jackpot_wager, self.rules.jackpot_contribution)[0]

    def award(self, combination: Combination, meter: int) -> AwardSplit:
        """What one box winning ``combination`` (alone in its round) is paid with the meter at
        ``meter``, and who funds it (the meter, the house)."""
        result = resolve_caribbean(
            Meter(meter, self.rules.jackpot_seed),
            [(1, combination)],
            self.rules.jackpot_fixed_awards.as_mapping(),
        )
        (paid,) = result.awards
        return AwardSplit(paid.from_meter, paid.from_house)

    def probability(self, combination: Combination) -> Fraction:
        """The probability that a box wins ``combination`` (raised, CSP-6.7)."""
        return self.probabilities[_CATEGORY_OF[combination]]

    def expected_award(self, meter: int) -> Fraction:
        """Expected award per jackpot wager at ``meter`` (CSP-10.2; shares rounded down)."""
        return sum(
            (
                self.probability(c) * self.award(c, meter).amount
                for c in CARIBBEAN_JACKPOT_COMBINATIONS
            ),
            Fraction(0),
        )

    def return_rate(self, meter: int) -> Fraction:
        """Expected award per unit of jackpot wager at ``meter`` (1 = break even)."""
        return self.expected_award(meter) / self.wager

    def break_even_meter(self) -> int:
        """The smallest meter (minor units) at which the jackpot wager's return reaches 100 %."""
        lo, hi = 0, 1
        while self.expected_award(hi) < self.wager:
            hi *= 2
        if self.expected_award(lo) >= self.wager:
            return 0
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.expected_award(mid) >= self.wager:
                hi = mid
            else:
                lo = mid
        return hi

    def meter_drain(self, meter: int) -> Fraction:
        """Expected amount paid out of the meter per jackpot wager at ``meter`` (CSP-10.8)."""
        return sum(
            (
                self.probability(c) * self.award(c, meter).from_meter
                for c in CARIBBEAN_JACKPOT_COMBINATIONS
            ),
            Fraction(0),
        )


def analyze_jackpot(analysis: CaribbeanAnalysis, meter: int) -> JackpotAnalysis:
    """Jackpot probabilities under the analysis's optimal strategy (exact ``Fraction``), with
    the jackpot settings of ``analysis.rules`` and the meter at ``meter`` (minor units).

    Refuses (``ConfigError``) a meter that is not a whole number 0 or more.
    """
    if isinstance(meter, bool) or not isinstance(meter, int) or meter < 0:
        raise ConfigError("analysis.bad_meter", meter=repr(meter))
    probabilities = tuple(
        Fraction(analysis.raised_by_category[c], TOTAL_DECISIONS) for c in range(10)
    )
    return JackpotAnalysis(analysis.rules, meter, probabilities)
