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
* the **seat** part (:class:`SeatPart`): what every player at the table sees alike — the view
  of a player with no stake in the round (:data:`SEATED`: no user bears that name), e.g. the
  baccarat layout (the chips on the felt, BAC view rules) and who holds each side; nothing a
  signed-in player would not see by sitting down at the table without a wager;
* the **role** part (:class:`RolePart`): the dealer's console or a supervisor's view, with the
  whole expectation (staff act on who is due);
* the **personal** part (:class:`PersonalPart`): a player's own view (their wagers, their cards,
  the cards they hold) and the expectation naming them alone.

On the wire (the table sockets, :mod:`macau_tables.server.streams`) the shared part is encoded
once per event and the same text sent to every socket of the table, the seat part once per
event for every player's socket; a role part carries only what its view holds beyond the shared
one, a personal part only what its view holds beyond the shared and seat parts laid together
(:func:`own_fields`: the fields of the audience's encoded view that the other does not hold
alike), so a client rebuilds the audience's whole view by laying its parts in that order
(:func:`merged`). A player's personal part so changes only when that player's own data does:
another player's bet changes the seat part (the layout), not it.

A round that is over (settled or void) is closed: its record may be shown whole to staff
(:func:`is_closed`); until then a surface shows an audience that audience's live view and
nothing else (:func:`recall_view`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, overload

from .rounds import Audience, Due, Expected, Role, require_audience

__all__ = [
    "SEATED",
    "Parts",
    "PersonalPart",
    "RolePart",
    "SeatPart",
    "SharedPart",
    "expected_for",
    "is_closed",
    "merged",
    "not_own",
    "own_fields",
    "parts",
    "recall_view",
    "seat_view",
    "shared_view",
    "view_for",
]


@dataclass(frozen=True, slots=True)
class SharedPart:
    """What everyone may see of a round: ``round_id``, the public ``view`` and ``expected``
    (what the round waits for) without any player id; ``None``\\ s before the first round."""

    round_id: str | None
    view: Any
    expected: Expected | None


SEATED: Audience = Audience.of_player("~seated")
"""A player at the table with no stake in the round: the audience of the seat part. No user can
bear this name (a user name begins with a letter or a digit: ``users_ops.NAME_PATTERN``), so its
view is what any player sees of the round by sitting down without a wager or a held side."""


@dataclass(frozen=True, slots=True)
class SeatPart:
    """What every player at the table sees alike: the ``view`` of :data:`SEATED` (``None``
    before the first round)."""

    view: Any


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
    or the ``seat`` and ``personal`` parts (a player)."""

    audience: Audience
    shared: SharedPart
    role: RolePart | None = None
    personal: PersonalPart | None = None
    seat: SeatPart | None = None

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
        return Parts(who, shared, personal=mine, seat=SeatPart(seat_view(round_)))
    return Parts(who, shared, role=RolePart(who.role, view_for(round_, who), expected))


def shared_view(round_: Any) -> Any:
    """The shared part's view of ``round_``: the public's (``None`` without a round) — the one
    view every socket of the table may receive."""
    return view_for(round_, Audience.public())


def seat_view(round_: Any) -> Any:
    """The seat part's view of ``round_``: :data:`SEATED`'s (``None`` without a round) — the one
    view every player's socket of the table may receive."""
    return view_for(round_, SEATED)


def own_fields(
    own: Mapping[str, Any] | None, shared: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """What an audience's encoded view ``own`` holds beyond the shared (public) encoded view
    ``shared``: each of its fields that ``shared`` lacks or holds with another value, whole
    (``None`` when ``own`` is ``None``: no round). Every field a role's or player's view holds
    that the public's does not — an own wager, a held card, the layout, a box's cards — is
    there; a field equal in both is not repeated. Laid over ``shared``, less the fields ``own``
    has not (:func:`merged`, :func:`not_own`), it gives ``own`` back whole."""
    if own is None:
        return None
    if shared is None:
        return dict(own)
    missing = _MISSING
    return {k: v for k, v in own.items() if shared.get(k, missing) != v}


_MISSING: Any = object()


def not_own(own: Mapping[str, Any] | None, shared: Mapping[str, Any] | None) -> list[str]:
    """The fields of the shared encoded view that an audience's encoded view ``own`` does not
    have (its view is another kind of value: a Caribbean player's holds no public box count):
    a client drops them when it lays the part over the shared view (:func:`merged`)."""
    if own is None or shared is None:
        return []
    return [k for k in shared if k not in own]


def merged(
    shared: Mapping[str, Any] | None,
    own: Mapping[str, Any] | None,
    drop: Sequence[str] = (),
) -> dict[str, Any] | None:
    """The view a client shows: the fields of a part (:func:`own_fields`) laid over the shared
    view, less the shared fields its view has not (``drop``: :func:`not_own`) — the audience's
    own view, whole (``None`` when there is neither); what the pages do
    (``static/js/table.js``)."""
    if own is None and shared is None:
        return None
    out = {**(shared or {}), **(own or {})}
    for name in drop:
        out.pop(name, None)
    return out


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
