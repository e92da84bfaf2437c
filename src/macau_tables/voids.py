"""The legal grounds of a void, shared by both games (CSP-11.1, CSP-11.4, BAC-10).

A round is void only on a ground the law names, and the void says which, who decided and what
in the table's own log shows it:

* :class:`Ground` — the grounds: CSP-11.1 a wrong dealing procedure, a wrong number of cards,
  two or more cards exposed in error; CSP-11.4 a shuffling machine's failure during the deal; a
  virtual shoe (deck) lost mid-deal (the system proves it: no supervisor); BAC-10 a dealing
  error that cannot be corrected.
* :class:`Evidence` — the sequence number and hash of the event, in the same table chain and
  the same round, that shows the ground (a dealer's fault report, the report of a misdeal, an
  exposure or a shuffler's failure, a recovery that found the shoe lost). It precedes the void.
* :class:`VoidBasis` — what a void event records: ground, rule id, the supervisor who decided
  (``None`` for a ground the system proves), the reason and the evidence.

A game's ``Void`` command carries ``ground``, ``supervisor``, ``reason`` and ``evidence`` (its
class declares ``VOIDS = True``); the table service finds or checks the evidence in the log
before the round sees the command. An event that can serve as evidence declares the grounds it
shows (``SHOWS``: a frozenset of :class:`Ground`); a void event declares ``VOID_GROUND_SINCE``,
the codec version from which it carries a basis (older void events have none: they verify as
before and are counted apart).

"During the deal" (CSP-11.4, a lost shoe) means before the round's last card: a round that
waits for a card (``DueKind.CARD``) or for wagers is still before it; one waiting for a
decision, a reveal or the settlement is past it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from .errors import RuleViolation

__all__ = [
    "DURING_DEAL",
    "SYSTEM_GROUNDS",
    "Evidence",
    "Ground",
    "VoidBasis",
    "basis_of",
    "is_void_command",
    "redecider",
    "shows",
    "shuffler_failed",
    "void_since",
]


class Ground(StrEnum):
    """A legal ground for a void."""

    WRONG_PROCEDURE = "wrong_procedure"
    """CSP-11.1: the cards were dealt by a wrong procedure."""
    WRONG_CARD_COUNT = "wrong_card_count"
    """CSP-11.1: a wrong number of cards was dealt."""
    EXPOSURES = "exposures"
    """CSP-11.1: two or more cards were exposed in error."""
    SHUFFLER_FAILURE = "shuffler_failure"
    """CSP-11.4: the shuffling machine failed during the deal."""
    SHOE_LOST = "shoe_lost"
    """A virtual shoe (deck) was lost mid-deal: the deal cannot be completed (CSP-11.4 at
    Caribbean Stud, BAC-10 at baccarat). The system proves it; no supervisor decides."""
    UNCORRECTABLE = "uncorrectable"
    """BAC-10: a dealing error that cannot be corrected 「至無法更正時，該局取消作廢」."""

    @property
    def rule(self) -> str:
        """The rule id the ground stands on (a lost shoe: CSP-11.4; the game may say BAC-10)."""
        return _RULES[self]


_RULES: Final = {
    Ground.WRONG_PROCEDURE: "CSP-11.1",
    Ground.WRONG_CARD_COUNT: "CSP-11.1",
    Ground.EXPOSURES: "CSP-11.1",
    Ground.SHUFFLER_FAILURE: "CSP-11.4",
    Ground.SHOE_LOST: "CSP-11.4",
    Ground.UNCORRECTABLE: "BAC-10",
}

DURING_DEAL: Final[frozenset[Ground]] = frozenset({Ground.SHUFFLER_FAILURE, Ground.SHOE_LOST})
"""Grounds that void only before the round's last card (CSP-11.4 "during the deal")."""
SYSTEM_GROUNDS: Final[frozenset[Ground]] = frozenset({Ground.SHOE_LOST})
"""Grounds the system proves itself: the void names no supervisor."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """The event that shows a ground: its ``seq`` in the table's chain and its ``hash``."""

    seq: int
    hash: str


@dataclass(frozen=True, slots=True)
class VoidBasis:
    """Why a round is void: ``ground`` (its ``rule``), the ``supervisor`` who decided (``None``
    for a ground the system proves), the ``reason`` and the ``evidence`` in the log (``None``
    only for a round played outside a table service, which has no log)."""

    ground: Ground
    rule: str
    supervisor: str | None
    reason: str
    evidence: Evidence | None = None


def is_void_command(command: object) -> bool:
    """Whether ``command`` is a game's ``Void`` (its class declares ``VOIDS = True``)."""
    return getattr(type(command), "VOIDS", False) is True


def shows(event: object) -> frozenset[Ground]:
    """The grounds ``event`` can show as evidence (its ``SHOWS``: a class attribute, or a
    property of an event whose ground is one of its fields; none otherwise)."""
    value: object = getattr(event, "SHOWS", None)
    return (
        frozenset(g for g in value if isinstance(g, Ground))
        if isinstance(value, frozenset)
        else frozenset()
    )


def redecider(basis: VoidBasis) -> str | None:
    """Who a re-derivation of the void on ``basis`` names as deciding (``verify`` gives the
    round before the void its ``Void`` again): its supervisor; for a dealer's report that voided
    at once (no supervisor, a ground the system does not prove) a stand-in, so the ground's fit
    to the phase and the money are checked the same way."""
    if basis.supervisor is not None or basis.ground in SYSTEM_GROUNDS:
        return basis.supervisor
    return "(dealer's report)"


def shuffler_failed(event: object) -> bool:
    """Whether ``event`` is a report of a shuffling machine's failure (CSP-11.4): the table
    deals no round until the shuffler is recorded replaced."""
    return getattr(event, "ground", None) is Ground.SHUFFLER_FAILURE


def void_since(event_type: type) -> int | None:
    """The codec version from which a void event type carries its basis (``None``: the type
    is no void event)."""
    value = getattr(event_type, "VOID_GROUND_SINCE", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def basis_of(
    command: object,
    *,
    grounds: frozenset[Ground],
    rule: str,
    before_last_card: bool,
    after_outcome: bool = False,
) -> VoidBasis:
    """The :class:`VoidBasis` of a game's ``Void`` ``command`` (fields ``ground``,
    ``supervisor``, ``reason``, ``evidence``), checked against the law. ``grounds``: the ones
    the game knows; ``rule``: the rule id a refusal cites (and a lost shoe's);
    ``before_last_card``: the round has not had its
    last card (a ground of :data:`DURING_DEAL` fits only then); ``after_outcome``: the
    outcome is already known to someone (a complete baccarat hand, a natural), when only a
    ground that cannot be corrected still fits.

    Refuses (``RuleViolation``): no ground (``voids.needs_ground``), a ground the game
    does not know or that does not fit the phase (``voids.ground_not_now``), a missing
    reason, a supervisor missing where one decides or given where the system proves it."""
    ground = getattr(command, "ground", None)
    if not isinstance(ground, Ground):
        raise RuleViolation(
            rule,
            "voids.needs_ground",
            grounds=", ".join(sorted(g.value for g in grounds)),
        )
    if ground not in grounds or (ground in DURING_DEAL and not before_last_card):
        raise RuleViolation(rule, "voids.ground_not_now", ground=ground.value)
    if after_outcome and ground is not Ground.UNCORRECTABLE:
        raise RuleViolation(rule, "voids.ground_not_now", ground=ground.value)
    reason = getattr(command, "reason", None)
    if not isinstance(reason, str) or not reason.strip():
        raise RuleViolation(rule, "voids.reason_required")
    supervisor = getattr(command, "supervisor", None)
    named = isinstance(supervisor, str) and bool(supervisor.strip())
    if ground in SYSTEM_GROUNDS:
        if supervisor is not None:
            raise RuleViolation(rule, "voids.system_ground", ground=ground.value)
    elif not named:
        raise RuleViolation(rule, "voids.needs_supervisor", ground=ground.value)
    evidence = getattr(command, "evidence", None)
    if evidence is not None and not isinstance(evidence, Evidence):
        raise RuleViolation(rule, "voids.bad_evidence")
    ground_rule = rule if ground is Ground.SHOE_LOST else ground.rule
    return VoidBasis(ground, ground_rule, supervisor if named else None, reason, evidence)
