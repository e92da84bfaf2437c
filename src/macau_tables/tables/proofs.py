"""Each audience gets a proof of exactly the cards its view shows (Common rules "Randomness").

A virtual shoe is committed card by card (:mod:`macau_tables.merkle`); every dealt card's
deal event carries its :class:`~macau_tables.rng.CardLeaf` (position and salt). Which cards an
audience may be proved is read off the view it is shown — :func:`audience_view`, through the
gate (:mod:`macau_tables.visibility`), the same view the live views send — never from a second
list of rules: a player is proved their own cards and the dealer's once shown, the public what
the public view shows (baccarat: the cards of the hands; Caribbean Stud: nothing, CSP-12), and
no one a burned or withdrawn card, a folded box or the undealt rest (staff and the regulator
have every leaf with its salt in the audit archive).

* :func:`shown` — the cards ``audience`` sees of a round now, each with its leaf;
* :func:`published` — the public's cards of a round that ended (recorded as
  :class:`~.model.CardsPublished`, kept for the public shoe list);
* :func:`prove_round` — the proofs for ``audience`` of a round (current or recorded), grouped by
  shoe with each shoe's commitment.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from .. import codec
from ..cards import Card
from ..games import GAMES
from ..rng import CardLeaf, CardProof, CardShown, ShoeOpening, prove_all
from ..rounds import Audience
from ..visibility import view_for
from .dealing import Dealing, Proving, game_events
from .model import CardsPublished, TableError

__all__ = [
    "ShoeProofs",
    "audience_view",
    "prove_round",
    "published",
    "shown",
]


def audience_view(round_: Any, audience: Audience) -> Any:
    """What ``audience`` sees of ``round_`` now: the one function that decides which cards an
    audience is proved — the gate's view (:func:`macau_tables.visibility.view_for`), exactly
    what the live views send."""
    return view_for(round_, audience)


def _cards(value: object, depth: int = 0) -> Iterator[Card]:
    """Every card a view holds (its dataclasses, tuples and mappings, walked)."""
    if depth > 12:
        return
    if isinstance(value, Card):
        yield value
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            yield from _cards(getattr(value, f.name), depth + 1)
    elif isinstance(value, tuple | list | frozenset | set):
        for item in value:
            yield from _cards(item, depth + 1)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _cards(item, depth + 1)


def shown(round_: Any, audience: Audience) -> tuple[tuple[Card, CardLeaf], ...]:
    """The cards of ``round_`` that ``audience``'s view shows now, each with its leaf, in deal
    order (cards with no leaf — a live table's, or recorded before — are not provable).

    A view shows cards, not positions: when a shoe of several decks dealt the same card twice
    in a round and the view shows fewer copies than were dealt (one of them face down, e.g.
    held under BAC-16), which copy is shown cannot be told, so none of them is proved — a proof
    of the wrong position would tell the hidden card."""
    seen = Counter(_cards(audience_view(round_, audience)))
    dealt: list[tuple[Card, CardLeaf]] = []
    for e in round_.events:
        card, leaf = getattr(e, "card", None), getattr(e, "leaf", None)
        if isinstance(card, Card) and isinstance(leaf, CardLeaf):
            dealt.append((card, leaf))
    copies = Counter(card for card, _ in dealt)
    return tuple((card, leaf) for card, leaf in dealt if seen[card] >= copies[card])


def published(round_: Any, proving: Proving) -> CardsPublished | None:
    """The public's cards of ``round_`` (over) in the shoe in play, to record; ``None`` when the
    public view shows none of them."""
    if proving.shoe_no is None:
        return None
    cards = tuple(
        CardShown(leaf.position, card, leaf.salt)
        for card, leaf in shown(round_, Audience.public())
        if leaf.shoe_no == proving.shoe_no
    )
    return CardsPublished(proving.shoe_no, str(round_.round_id), cards) if cards else None


@dataclass(frozen=True, slots=True)
class ShoeProofs:
    """The proofs of one shoe's cards: its ``commitment`` (``merkle-v2:<root>``), its number
    ``shoe_no`` and each card's :class:`~macau_tables.rng.CardProof`."""

    shoe_no: int
    commitment: str
    cards: tuple[CardProof, ...]


Leaves = Callable[[int], tuple[str, tuple[str, ...]] | None]
"""``shoe_no`` → ``(commitment, leaves)`` of that shoe, or ``None`` when unknown."""


def prove_round(round_: Any, audience: Audience, leaves_of: Leaves) -> tuple[ShoeProofs, ...]:
    """The proofs for ``audience`` of the cards its view of ``round_`` shows, by shoe."""
    by_shoe: dict[int, list[tuple[Card, CardLeaf]]] = {}
    for card, leaf in shown(round_, audience):
        by_shoe.setdefault(leaf.shoe_no, []).append((card, leaf))
    out: list[ShoeProofs] = []
    for shoe_no, cards in sorted(by_shoe.items()):
        known = leaves_of(shoe_no)
        if known is None:
            continue
        commitment, leaves = known
        wanted = [(leaf.position, card, leaf.salt) for card, leaf in cards]
        out.append(ShoeProofs(shoe_no, commitment, prove_all(leaves, wanted)))
    return tuple(out)


def round_of(tx: Any, table_id: str, dealing: Dealing, round_id: str) -> Any:
    """Round ``round_id`` of ``table_id`` rebuilt from its recorded events. Refuses a round
    the table never had (``tables.unknown_round``)."""
    records = tx.read_events(table_id, round_id=round_id)
    resolver = tx.config_resolver()
    events = [r.decode(resolver) for r in records]
    mine = game_events(dealing, events)
    if not mine:
        raise TableError("tables.unknown_round", table=table_id, round_id=round_id)
    return GAMES[dealing.game].replay(mine)


def recorded_leaves(tx: Any, table_id: str, proving: Proving, commitment: str | None) -> Leaves:
    """Where a shoe's leaves are: the shoe in play's from ``proving`` (its ``commitment``), an
    ended shoe's from its record (:class:`~macau_tables.rng.ShoeOpening`)."""

    def leaves_of(shoe_no: int) -> tuple[str, tuple[str, ...]] | None:
        if shoe_no == proving.shoe_no and commitment is not None and proving.leaves:
            return commitment, proving.leaves
        record = tx.shoe(table_id, shoe_no)
        if record is None or record.revealed is None:
            return None
        if record.revealed.get("type") != codec.type_name(ShoeOpening):
            return None
        opening = codec.decode(record.revealed, expect=ShoeOpening)
        return opening.commitment, opening.leaves

    return leaves_of
