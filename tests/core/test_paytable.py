"""The paytable the rules offer (:mod:`macau_tables.paytable`): every line follows the table's
own settings (CSP-9.5 raise odds and cap, CSP-10.2/10.3 fixed awards, BAC-17 payouts, BAC-18
commission option), every line and note has its article, and every word a page shows for it is
in the catalog in both languages."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st

from macau_tables import messages
from macau_tables.baccarat.rules import CommissionMode, WagerKind, default_limits
from macau_tables.caribbean.hands import HandCategory
from macau_tables.caribbean.rules import CAPPED_CATEGORIES, JackpotFixedAwards
from macau_tables.jackpot import Combination
from macau_tables.paytable import Payout, Paytable, paytable_of
from tests.tables.support import baccarat_rules, caribbean_rules


def _catalogued(table: Paytable) -> None:
    cat = messages.catalog()
    keys = {line.payout_key for line in table.lines} | {line.term_key for line in table.lines}
    keys |= {note.text_key for note in table.notes}
    keys |= {table.section_key(name) for name in table.sections()}
    for key in keys:
        assert set(cat[key]) == set(messages.LANGUAGES), key
    for item in (*table.lines, *table.notes):
        assert item.article, item


@given(
    odds=st.integers(50, 100),
    cap=st.integers(1, 10**9),
    awards=st.lists(st.integers(0, 10**9), min_size=5, max_size=5),
)
def test_the_caribbean_paytable_is_the_tables_own_CSP_9_5_CSP_10_3(
    odds: int, cap: int, awards: list[int]
) -> None:
    """CSP-9.5: each raise line pays the rules' own odds, items (7)–(9) capped at the table's
    maximum per box per round; CSP-10.2/10.3: the jackpot lines carry the table's fixed awards
    in the law's order; CSP-10.8: the note on who funds the difference."""
    rules = caribbean_rules(
        royal_flush_odds=odds,
        max_payout_per_box=cap,
        jackpot_fixed_awards=JackpotFixedAwards(*awards),
    )
    table = paytable_of(rules)
    assert table is not None and table == rules.paytable()
    raise_lines = table.section("raise").lines
    assert [x.article for x in raise_lines] == [f"CSP-9.5({n})" for n in range(1, 10)]
    categories = list(HandCategory)[1:]
    for line, category in zip(raise_lines, categories, strict=True):
        assert line.odds == rules.raise_odds(category)
        capped = category in CAPPED_CATEGORIES
        assert (line.payout is Payout.ODDS_CAPPED) == capped
        assert line.amount == (cap if capped else 0)
    jackpot = table.section("jackpot").lines
    assert [x.amount for x in jackpot] == awards
    assert [x.article for x in jackpot] == [f"CSP-10.2({n})" for n in range(1, 6)]
    assert [x.percent for x in jackpot[:2]] == [100, 10]
    assert ("house_funds_difference", "CSP-10.8") in {(n.key, n.article) for n in table.notes}
    # CSP-9.5(9) / CSP-13: the royal flush's odds are the table's approved option, said so
    raise_notes = {(n.key, n.article) for n in table.section("raise").notes}
    assert ("royal_flush_option", "CSP-13") in raise_notes
    _catalogued(table)


def test_the_baccarat_paytable_follows_the_commission_and_the_wagers_BAC_17_BAC_18() -> None:
    """BAC-18.1 / BAC-18.2: the banker line by the commission option; a wager not offered has
    no line; a table without the jackpot has no jackpot section; BAC-17.5 its fixed award."""
    standard = baccarat_rules().paytable()
    banker = [x for x in standard.lines if x.term == "banker"]
    assert [(x.payout, x.percent, x.article) for x in banker] == [
        (Payout.ODDS_LESS_COMMISSION, 5, "BAC-18.1")
    ]
    assert {x.term for x in standard.section("jackpot").lines} == {
        c.value
        for c in Combination
        if c not in (Combination.STRAIGHT_FLUSH, Combination.FULL_HOUSE, Combination.FLUSH)
    }
    heavenly = next(x for x in standard.lines if x.term == "heavenly_straight")
    assert heavenly.amount == baccarat_rules().jackpot_fixed_awards[Combination.HEAVENLY_STRAIGHT]
    _catalogued(standard)
    plain = baccarat_rules(
        limits=default_limits(100),
        commission=CommissionMode.NO_COMMISSION,
        jackpot_fixed_awards=MappingProxyType({}),
    ).paytable()
    assert [(x.term, x.payout) for x in plain.lines] == [
        ("player", Payout.ODDS),
        ("banker", Payout.ODDS),
        ("banker_six", Payout.PERCENT),
        ("tie", Payout.ODDS),
    ]
    assert plain.section("jackpot") == Paytable((), ())
    assert WagerKind.JACKPOT not in replace(baccarat_rules(), limits=default_limits(100)).limits
    _catalogued(plain)


def test_rules_without_a_paytable_have_none() -> None:
    assert paytable_of(object()) is None
