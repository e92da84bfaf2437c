"""``macau-tables recall``: a table's last rounds as recorded (game recall).

For each round, from the table's log and the ledger alone (read only, no service: it works
while a table is stopped by a fault): the cards in dealing order with where each went, every
wager with its outcome and what it paid, each player's wallet before the round's first
transaction and after its last one with the round's net, the jackpot awards, the table events
of the round (a shoe revealed, a recovery at restart, a large award held, …), each award held for
a supervisor with whether it was released (:mod:`.holds`) and the hash of the round's last
record (which pins it in the table's chain).

Everything is derived through the round contract: the round is ``GAMES[game].replay`` of its
events, the wagers are the :class:`~macau_tables.rounds.WagerResult` lines of its settlement
(the same shape in both games), the awards the dealing adapter's ``hits``, each with the
winning box or seat the settlement names (CSP-10.4, BAC-17: the ``spot`` of the jackpot wager it
paid, never the award's key, which at baccarat is a wager id).

Recall shows no card before the live view does (CSP-12, BAC-16): it goes through the gate
(:mod:`macau_tables.visibility`) for the ``audience`` it is asked for (a supervisor, for the API
and the CLI). A round that is over — settled or void — is recalled whole, every card it dealt
in dealing order; a round still in play is recalled as that audience's live view (``view``,
the round's own view, encoded by the codec) with no card list: not a hole card, a held card or
a card not yet turned more than the table shows that audience.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from .. import codec
from ..cards import Card
from ..facts import SettlementFacts
from ..games import GAMES
from ..rounds import Audience, WagerResult
from ..store import TableRecord, Tx
from ..store.history import balances_before, transactions_of_events
from ..visibility import is_closed, recall_view
from .adapters import dealing_for
from .dealing import game_events
from .holds import held_awards
from .model import TABLE_EVENTS, AwardHeld

__all__ = [
    "PlayerMoney",
    "RecalledAward",
    "RecalledCard",
    "RecalledRound",
    "RecalledWager",
    "recall",
    "recall_round",
    "replayed",
    "settled_wagers",
]


@dataclass(frozen=True, slots=True)
class RecalledCard:
    """A card as recorded: its ``seq``, the card, where it went (``"box 3"``, ``"dealer"``,
    ``"P1"``) and the event (``CardDealt``, or e.g. ``CardRefused`` at a live table)."""

    seq: int
    card: str
    to: str
    event: str


@dataclass(frozen=True, slots=True)
class RecalledWager:
    """One wager as settled (:class:`~macau_tables.rounds.WagerResult`), or as placed when the
    round is not over (``outcome`` ``"in play"``)."""

    player: str
    spot: str
    kind: str
    stake: int
    outcome: str
    paid: int
    award: int
    carried_in: bool


@dataclass(frozen=True, slots=True)
class RecalledAward:
    """One jackpot award of the round: the winning ``place`` (``"box 3"``, ``"seat 2"``; the
    settlement's ``spot`` of the wager it paid, CSP-10.4, BAC-17; ``None`` when it names none),
    the ``combination``, the ``amount`` paid and the part of it ``from_meter``. ``box`` is the
    award's key in the settlement (a wager id at baccarat: not a place)."""

    box: int
    place: str | None
    combination: str
    amount: int
    from_meter: int


@dataclass(frozen=True, slots=True)
class PlayerMoney:
    """A player's wallet around the round: ``before`` its first transaction, ``after`` its last
    one, and the round's ``net`` on it (the wallet may also have moved elsewhere meanwhile)."""

    player: str
    before: int
    after: int
    net: int


@dataclass(frozen=True, slots=True)
class RecalledRound:
    """One round of ``table_id`` as recorded (see the module docstring). ``state`` is
    ``"settled"``, ``"void"``, ``"open"`` or ``"demonstration"`` (a baccarat demonstration
    round, BAC-2.2: cards, no wagers); ``hash`` the chain hash of record ``last_seq``."""

    table_id: str
    game: str
    round_id: str
    state: str
    first_seq: int
    last_seq: int
    hash: str
    started: datetime
    ended: datetime
    cards: tuple[RecalledCard, ...]
    wagers: tuple[RecalledWager, ...]
    players: tuple[PlayerMoney, ...]
    awards: tuple[RecalledAward, ...]
    notes: tuple[str, ...]
    holds: tuple[tuple[str, str, int, str | None], ...] = ()
    """The awards held for a supervisor: ``(hold_id, player, amount, released_by)``
    (``released_by`` ``None``: still held)."""
    view: dict[str, Any] | None = None
    """A round still in play: the audience's live view of it, encoded by the codec (then
    ``cards`` is empty); ``None`` for a round that is over (recalled whole)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (amounts in minor units, times ISO-8601 UTC)."""
        return {
            "table_id": self.table_id,
            "game": self.game,
            "round_id": self.round_id,
            "state": self.state,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "hash": self.hash,
            "started": self.started.isoformat(),
            "ended": self.ended.isoformat(),
            "cards": [
                {"seq": c.seq, "card": c.card, "to": c.to, "event": c.event} for c in self.cards
            ],
            "wagers": [
                {
                    "player": w.player,
                    "spot": w.spot,
                    "kind": w.kind,
                    "stake": w.stake,
                    "outcome": w.outcome,
                    "paid": w.paid,
                    "award": w.award,
                    "carried_in": w.carried_in,
                }
                for w in self.wagers
            ],
            "players": [
                {"player": p.player, "before": p.before, "after": p.after, "net": p.net}
                for p in self.players
            ],
            "awards": [
                {
                    "box": a.box,
                    "place": a.place,
                    "combination": a.combination,
                    "amount": a.amount,
                    "from_meter": a.from_meter,
                }
                for a in self.awards
            ],
            "notes": list(self.notes),
            "holds": [
                {
                    "hold_id": h,
                    "player": p,
                    "amount": a,
                    "state": "held" if by is None else "released",
                    "released_by": by,
                }
                for h, p, a, by in self.holds
            ],
            "view": self.view,
        }


def recall(tx: Tx, table_id: str, last: int, *, audience: Audience) -> list[RecalledRound]:
    """The last ``last`` rounds of ``table_id``, oldest first, as ``audience`` may see them
    (module docstring). Refuses an unknown table (``store.unknown_table``)."""
    table = tx.table(table_id)
    round_ids = tx.round_ids(table_id)
    if last <= 0:
        return []
    return [recall_round(tx, table, rid, audience=audience) for rid in round_ids[-last:]]


def recall_round(tx: Tx, table: TableRecord, round_id: str, *, audience: Audience) -> RecalledRound:
    """Round ``round_id`` of ``table`` as ``audience`` may see it (:class:`RecalledRound`)."""
    records = tx.read_events(table.table_id, round_id=round_id)
    resolver = tx.config_resolver()
    decoded = [(r, r.decode(resolver)) for r in records]
    dealing = dealing_for(table.game, live=False)
    events = [e for _, e in decoded]
    closing, state, round_ = _closing(table, events)
    live = recall_view(round_, audience)
    whole = is_closed(round_)  # CSP-12, BAC-16: a round in play shows no more than its view
    cards = tuple(
        RecalledCard(r.seq, _card(e.card), _where(e), type(e).__name__)
        for r, e in decoded
        if whole and isinstance(getattr(e, "card", None), Card)
    )
    notes = tuple(
        f"#{r.seq} {type(e).__name__}: {_summary(e)}"
        for r, e in decoded
        if isinstance(e, TABLE_EVENTS) and not isinstance(e, SettlementFacts)
    )
    first, last = records[0], records[-1]
    txs = transactions_of_events(tx, table.table_id, first.seq, last.seq)
    wagers = _wagers(closing, txs)
    awards = tuple(
        RecalledAward(h.box, h.place, h.combination, h.amount, h.from_meter)
        for e in ([closing] if closing is not None else [])
        for h in dealing.hits(e)
    )
    return RecalledRound(
        table.table_id,
        table.game,
        round_id,
        state,
        first.seq,
        last.seq,
        last.hash,
        first.recorded_at,
        last.recorded_at,
        cards,
        wagers,
        _players(tx, txs),
        awards,
        notes,
        _holds(tx, table.table_id, [e for _, e in decoded if isinstance(e, AwardHeld)]),
        None if live is None else codec.encode(live),
    )


def _holds(
    tx: Tx, table_id: str, held: list[AwardHeld]
) -> tuple[tuple[str, str, int, str | None], ...]:
    """The round's held awards, each with who released it (``None``: still held)."""
    if not held:
        return ()
    released = {h.hold_id: h.released_by for h in held_awards(tx, table_id)}
    return tuple((e.hold_id, e.player, e.amount, released.get(e.hold_id)) for e in held)


def _card(card: Card) -> str:
    return card.pretty


def _where(event: object) -> str:
    to = getattr(event, "to", None)
    if to is None:
        to = getattr(event, "slot", None) or getattr(event, "position", None)
    if isinstance(to, int) and not isinstance(to, bool):
        return f"box {to}"
    return "-" if to is None else str(to)


def _summary(event: object) -> str:
    """The plain fields of a table event (its reason, the shoe, the rule, …)."""
    parts = []
    for f in fields(event):  # type: ignore[arg-type]
        value = getattr(event, f.name)
        if isinstance(value, str | int | bool) and f.name not in ("salt", "commitment"):
            parts.append(f"{f.name}={value}")
    return ", ".join(parts)


def settled_wagers(tx: Tx, table: TableRecord, round_id: str) -> tuple[WagerResult, ...]:
    """Round ``round_id``'s wagers as its settlement paid them (empty when the round is void,
    not over or a demonstration round)."""
    resolver = tx.config_resolver()
    events = [r.decode(resolver) for r in tx.read_events(table.table_id, round_id=round_id)]
    closing, state, _ = _closing(table, events)
    if state != "settled" or closing is None:
        return ()
    return _results(getattr(closing, "settlement", None))


def _closing(table: TableRecord, events: list[object]) -> tuple[object | None, str, Any]:
    """The round's closing event (``None``: not over), its state and the round its events
    replay to (``None``: none is the game's). The state: ``"settled"``,
    ``"void"``, ``"open"`` or ``"demonstration"`` — how the game closed it, as verify
    re-derives it (a settlement comes out again whole; a void — whichever fault voided it —
    only its money): no guess from the event's name."""
    mine = _own_events(table, events)
    round_: Any = GAMES[table.game].replay(mine) if mine else None
    over = round_ is not None and bool(round_.is_over)
    closing = next((e for e in mine if hasattr(e, "settlement")), None) if over else None
    state = "open"
    if closing is not None:
        at = mine.index(closing)
        closed = GAMES[table.game].closer(closing, lambda: GAMES[table.game].replay(mine[:at]))
        state = "settled" if closed is not None and closed.whole else "void"
    if getattr(round_, "demo", False):
        state = "demonstration"  # BAC-2.2: dealt without wagers
    return closing, state, round_


def replayed(table: TableRecord, events: list[object]) -> Any:
    """The round a round's records (decoded) replay to, through the game's own events
    (``None``: none of them is the game's)."""
    mine = _own_events(table, events)
    return GAMES[table.game].replay(mine) if mine else None


def _own_events(table: TableRecord, events: list[object]) -> list[object]:
    """The game's own events among a round's records (not the table's, not the dealing's)."""
    return game_events(dealing_for(table.game, live=False), events)


def _results(settlement: object) -> tuple[WagerResult, ...]:
    """The settlement's :class:`WagerResult` lines (whatever the game names the field)."""
    for f in fields(settlement):  # type: ignore[arg-type]
        value = getattr(settlement, f.name)
        if isinstance(value, tuple) and value and all(isinstance(v, WagerResult) for v in value):
            return value
    return ()


def _wagers(closing: object | None, txs: list[Any]) -> tuple[RecalledWager, ...]:
    if closing is not None:
        return tuple(
            RecalledWager(
                w.player,
                w.spot,
                str(w.kind),
                w.stake,
                str(w.outcome),
                w.paid,
                w.award,
                w.carried_in,
            )
            for w in _results(getattr(closing, "settlement", None))
        )
    # Not over: the stakes taken so far, from the ledger (wallet → in play).
    out = []
    for t in txs:
        for p in t.postings:
            if p.account_id.startswith("wallet:") and p.reason == "stake":
                player = p.account_id.partition(":")[2]
                kind = (t.reason or "-").rpartition(".")[2]
                out.append(RecalledWager(player, "-", kind, -p.amount, "in play", 0, 0, False))
    return tuple(out)


def _players(tx: Tx, txs: list[Any]) -> tuple[PlayerMoney, ...]:
    if not txs:
        return ()
    net: dict[str, int] = {}
    for t in txs:
        for p in t.postings:
            if p.account_id.startswith("wallet:"):
                net[p.account_id] = net.get(p.account_id, 0) + p.amount
    before = balances_before(tx, net, txs[0].tx_id)
    after = balances_before(tx, net, txs[-1].tx_id + 1)
    return tuple(PlayerMoney(a.partition(":")[2], before[a], after[a], net[a]) for a in sorted(net))
