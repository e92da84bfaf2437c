"""A table's paytable as data: what each wager, hand and jackpot combination pays, with its
article, derived from the table's rules (CSP-9.5, CSP-10.2/10.3, BAC-17, BAC-18).

Each game's rules object offers ``paytable()`` → :class:`Paytable`; the pages and the jackpot
display render it without knowing the game (:func:`paytable_of` asks any rules object for it).
A :class:`PayLine` names its ``term`` (a word of the games' vocabulary: ``"four_of_a_kind"``,
``"banker"``), how it pays (:class:`Payout`, one catalog text per kind filled with ``odds``,
``amount`` — minor units, shown as money — and ``percent``) and the article that says so. A
:class:`PayNote` is a reading that goes with the lines (the raise cap per box per round, who
funds a fixed award above the meter's share), shown with its article. The catalog texts of
every payout, section, term and note are listed in :data:`TEXTS`.

>>> line = PayLine("raise", "two_pair", Payout.ODDS, "CSP-9.5(2)", odds=2)
>>> Paytable((line,), ()).to_json()["lines"][0]["odds"]
2
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final, Protocol, runtime_checkable

__all__ = ["TEXTS", "PayLine", "PayNote", "Payout", "Paytable", "paytable_of", "text_key"]


class Payout(StrEnum):
    """How a line pays (each value is the catalog text ``pages.pay_<value>``)."""

    ODDS = "odds"
    """``odds``:1."""
    ODDS_CAPPED = "odds_capped"
    """``odds``:1, the win at most ``amount`` per box per round (CSP-9.5(7)–(9))."""
    ODDS_LESS_COMMISSION = "odds_less_commission"
    """``odds``:1 less ``percent`` % commission on the win (BAC-18.1)."""
    PERCENT = "percent"
    """``percent`` % of the wager (the no-commission banker 6, BAC-18.2)."""
    FIXED = "fixed"
    """The fixed award ``amount`` (CSP-10.2(3)–(5), BAC-17.6)."""
    FIXED_OR_METER = "fixed_or_meter"
    """The higher of ``amount`` and ``percent`` % of the meter (CSP-10.2(1)/(2))."""
    FIXED_OR_METER_SHARED = "fixed_or_meter_shared"
    """The higher of ``amount`` and ``percent`` % of the meter, shared equally (BAC-17.5)."""
    METER_SHARED = "meter_shared"
    """The whole meter, shared equally by the round's winners (BAC-17.4)."""


TEXTS: Final[Mapping[str, str]] = MappingProxyType(
    {
        # how a line pays (Payout)
        "odds": "pages.pay_odds",
        "odds_capped": "pages.pay_odds_capped",
        "odds_less_commission": "pages.pay_odds_less_commission",
        "percent": "pages.pay_percent",
        "fixed": "pages.pay_fixed",
        "fixed_or_meter": "pages.pay_fixed_or_meter",
        "fixed_or_meter_shared": "pages.pay_fixed_or_meter_shared",
        "meter_shared": "pages.pay_meter_shared",
        # sections
        "section:ante": "pages.paysection_ante",
        "section:raise": "pages.paysection_raise",
        "section:wagers": "pages.paysection_wagers",
        "section:jackpot": "pages.paysection_jackpot",
        # what a line is for: a Caribbean Stud hand (CSP-9.5) or combination (CSP-10.2),
        # a baccarat wager (BAC-17, BAC-18, 56/2018) or combination (BAC-13.4)
        "term:ante": "pages.payterm_ante",
        "term:one_pair_or_less": "pages.payterm_one_pair_or_less",
        "term:two_pair": "pages.payterm_two_pair",
        "term:three_of_a_kind": "pages.payterm_three_of_a_kind",
        "term:straight": "pages.payterm_straight",
        "term:flush": "pages.payterm_flush",
        "term:full_house": "pages.payterm_full_house",
        "term:four_of_a_kind": "pages.payterm_four_of_a_kind",
        "term:straight_flush": "pages.payterm_straight_flush",
        "term:royal_flush": "pages.payterm_royal_flush",
        "term:player": "pages.payterm_player",
        "term:banker": "pages.payterm_banker",
        "term:banker_six": "pages.payterm_banker_six",
        "term:tie": "pages.payterm_tie",
        "term:banker_pair": "pages.payterm_banker_pair",
        "term:player_pair": "pages.payterm_player_pair",
        "term:lucky_6_two_cards": "pages.payterm_lucky_6_two_cards",
        "term:lucky_6_three_cards": "pages.payterm_lucky_6_three_cards",
        "term:heavenly_straight": "pages.payterm_heavenly_straight",
        "term:double_pair": "pages.payterm_double_pair",
        "term:single_pair": "pages.payterm_single_pair",
        # notes
        "note:dealer_not_qualified": "pages.paynote_dealer_not_qualified",
        "note:raise_cap": "pages.paynote_raise_cap",
        "note:royal_flush_option": "pages.paynote_royal_flush_option",
        "note:jackpot_wager": "pages.paynote_jackpot_wager",
        "note:highest_combination": "pages.paynote_highest_combination",
        "note:house_funds_difference": "pages.paynote_house_funds_difference",
        "note:tie_carries": "pages.paynote_tie_carries",
    }
)
"""The catalog text of each payout (by value), section (``section:``), term (``term:``) and
note (``note:``) a paytable names."""


def text_key(kind: str, name: str) -> str:
    """The catalog key for ``name`` of ``kind`` (``"payout"``, ``"section"``, ``"term"``,
    ``"note"``): from :data:`TEXTS`; for a name it does not list, ``pages.pay<kind>_<name>``
    (a page then shows the key itself, which a test of each game's paytable rules out)."""
    key = name if kind == "payout" else f"{kind}:{name}"
    return TEXTS.get(key) or f"pages.pay{'' if kind == 'payout' else kind}_{name}"


@dataclass(frozen=True, slots=True)
class PayLine:
    """One line: in ``section`` (``"wagers"``, ``"ante"``, ``"raise"``, ``"jackpot"``), what
    ``term`` pays, by ``article``. ``amount`` is in minor units (a fixed award or the cap)."""

    section: str
    term: str
    payout: Payout
    article: str
    odds: int = 0
    amount: int = 0
    percent: int = 0

    @property
    def term_key(self) -> str:
        """The catalog text naming the line's ``term``."""
        return text_key("term", self.term)

    @property
    def payout_key(self) -> str:
        """The catalog text of how it pays (``odds``, ``amount``, ``percent`` filled in)."""
        return text_key("payout", self.payout.value)


@dataclass(frozen=True, slots=True)
class PayNote:
    """A reading shown with the lines of ``section``: the catalog text ``pages.paynote_<key>``
    (``amount``, minor units, filled in as money where the text has one), by ``article``."""

    section: str
    key: str
    article: str
    amount: int = 0

    @property
    def text_key(self) -> str:
        """The catalog text of the note (``amount`` filled in as money)."""
        return text_key("note", self.key)


@dataclass(frozen=True, slots=True)
class Paytable:
    """A table's lines and notes, in the order a page shows them."""

    lines: tuple[PayLine, ...]
    notes: tuple[PayNote, ...]

    def sections(self) -> tuple[str, ...]:
        """The sections in order of their first line or note."""
        seen: dict[str, None] = {}
        for section in (*(x.section for x in self.lines), *(x.section for x in self.notes)):
            seen.setdefault(section, None)
        return tuple(seen)

    @staticmethod
    def section_key(name: str) -> str:
        """The catalog text naming section ``name``."""
        return text_key("section", name)

    def section(self, name: str) -> Paytable:
        """Only the lines and notes of section ``name`` (the jackpot display shows
        ``"jackpot"``)."""
        return Paytable(
            tuple(x for x in self.lines if x.section == name),
            tuple(x for x in self.notes if x.section == name),
        )

    def to_json(self) -> dict[str, Any]:
        """``{"lines": [...], "notes": [...]}``, each a JSON object of its fields and its
        catalog texts (``term_key``, ``payout_key``; a note's ``text_key``)."""
        return {
            "lines": [
                {
                    **asdict(x),
                    "payout": x.payout.value,
                    "term_key": x.term_key,
                    "payout_key": x.payout_key,
                }
                for x in self.lines
            ],
            "notes": [{**asdict(x), "text_key": x.text_key} for x in self.notes],
        }


@runtime_checkable
class _HasPaytable(Protocol):
    def paytable(self) -> Paytable: ...


def paytable_of(rules: object) -> Paytable | None:
    """``rules.paytable()`` for a rules object that offers one; ``None`` otherwise."""
    if isinstance(rules, _HasPaytable):
        table = rules.paytable()
        return table if isinstance(table, Paytable) else None
    return None
