"""The gate: what each audience may see of a round, on every surface (SPEC "Hidden
information"; CSP-6.5, CSP-12, BAC-15, BAC-16).

One place decides what a role may see of a round, and every surface goes through it: the live
views (:func:`macau_tables.tables.publish.table_update`, ``GET /api/tables/{id}``, the table
sockets), recall (:mod:`macau_tables.tables.recall`: the API's, the CLI's), the audit archive
(:mod:`macau_tables.tables.archive`: only rounds that are closed) — so no surface shows a role a
card before that role's live view shows it.

It knows no game: it asks the round contract (:class:`~macau_tables.rounds.Round`) —
``view(audience)``, ``is_over``, ``expected_next()`` — and answers in three parts, the shape in
which views are sent:

* the **shared** part (:class:`SharedPart`): what everyone may see — the public view and what
  the round waits for *without naming any player* (who sits in which box or holds which side is
  not public: BAC-15, CSP-12);
* the **role** part (:class:`RolePart`): the dealer's console or a supervisor's view, with the
  whole expectation (staff act on who is due);
* the **personal** part (:class:`PersonalPart`): a player's own view (their wagers, their cards,
  the cards they hold) and the expectation naming them alone.

A round that is over (settled or void) is closed: its record may be shown whole to staff
(:func:`is_closed`); until then a surface shows an audience that audience's live view and
nothing else (:func:`recall_view`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any, overload

from .rounds import Audience, Due, Expected, Role, require_audience

__all__ = [
    "Parts",
    "PersonalPart",
    "RolePart",
    "SharedPart",
    "expected_for",
    "is_closed",
    "parts",
    "recall_view",
    "view_for",
]


@dataclass(frozen=True, slots=True)
class SharedPart:
    """What everyone may see of a round: ``round_id``, the public ``view`` and ``expected``
    (what the round waits for) without any player id; ``None``\\ s before the first round."""

    round_id: str | None
    view: Any
    expected: Expected | None


@dataclass(frozen=True, slots=True)
class RolePart:
    """What a member of staff (``role``: the dealer or a supervisor) may see: the role's ``view``
    and the whole ``expected``."""

    role: Role
    view: Any
    expected: Expected | None


@dataclass(frozen=True, slots=True)
class PersonalPart:
    """What player ``player`` alone may see: their ``view`` (own wagers, own cards, held cards)
    and ``expected`` naming them alone."""

    player: str
    view: Any
    expected: Expected | None


@dataclass(frozen=True, slots=True)
class Parts:
    """A round as one audience may see it: the ``shared`` part, and the ``role`` part (staff)
    or the ``personal`` part (a player) — at most one of them."""

    audience: Audience
    shared: SharedPart
    role: RolePart | None = None
    personal: PersonalPart | None = None

    @property
    def view(self) -> Any:
        """The audience's whole view (the most its parts show)."""
        if self.personal is not None:
            return self.personal.view
        if self.role is not None:
            return self.role.view
        return self.shared.view

    @property
    def expected(self) -> Expected | None:
        """What the round waits for, as the audience may read it."""
        if self.personal is not None:
            return self.personal.expected
        if self.role is not None:
            return self.role.expected
        return self.shared.expected


def view_for(round_: Any, audience: Audience) -> Any:
    """``round_.view(audience)`` (``None`` without a round): what ``audience`` may see of it now.
    Refuses (``RuleViolation`` ``VIEW``) anything that is not an :class:`Audience`."""
    who = require_audience(audience)
    return None if round_ is None else round_.view(who)


@overload
def expected_for(expected: Expected, audience: Audience) -> Expected: ...
@overload
def expected_for(expected: None, audience: Audience) -> None: ...
def expected_for(expected: Expected | None, audience: Audience) -> Expected | None:
    """``expected`` as ``audience`` may read it: whole for the dealer and a supervisor; for a
    player, the entries naming another player lose that name; for the public, every entry
    loses its player (BAC-15, CSP-12: the public does not learn who sits where)."""
    if expected is None:
        return None
    return _expected_for(expected, require_audience(audience))


@functools.lru_cache(maxsize=512)
def _expected_for(expected: Expected, audience: Audience) -> Expected:
    if audience.role in (Role.DEALER, Role.SUPERVISOR):
        return expected
    if all(d.player is None or d.player == audience.player for d in expected.due):
        return expected
    return replace(expected, due=tuple(_unnamed(d, audience.player) for d in expected.due))


def _unnamed(due: Due, player: str | None) -> Due:
    return due if due.player is None or due.player == player else replace(due, player=None)


def parts(round_: Any, audience: Audience) -> Parts:
    """``round_`` (``None``: before the first round) as ``audience`` may see it, in parts."""
    who = require_audience(audience)
    expected = None if round_ is None else round_.expected_next()
    round_id = None if round_ is None else str(round_.round_id)
    public = Audience.public()
    shared = SharedPart(round_id, view_for(round_, public), expected_for(expected, public))
    if who.role is Role.PUBLIC:
        return Parts(who, shared)
    if who.player is not None:
        mine = PersonalPart(who.player, view_for(round_, who), expected_for(expected, who))
        return Parts(who, shared, personal=mine)
    return Parts(who, shared, role=RolePart(who.role, view_for(round_, who), expected))


def is_closed(round_: Any) -> bool:
    """Whether ``round_`` is over (settled or void): only then may its record — every card it
    dealt — be shown whole, to staff, in recall and in an archive."""
    return round_ is not None and bool(round_.is_over)


def recall_view(round_: Any, audience: Audience) -> Any | None:
    """What a recall shows ``audience`` of ``round_`` instead of its record: ``None`` when the
    round is closed (its record is shown whole); otherwise the audience's live view, exactly
    as the table shows it — not a card more."""
    who = require_audience(audience)
    if is_closed(round_):
        return None
    return view_for(round_, who)
