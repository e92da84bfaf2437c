"""Baccarat's read-models (:class:`macau_tables.plugin.ReadModel`): the roads of a table's
current shoe, followed from its log.

``roads``: the roadmaps computed by :mod:`macau_tables.baccarat.roads` and the shoe's statistics
(:func:`shoe_statistics`: streaks and the last results) from the results of the shoe's settled
rounds (recorded ``RoundSettled`` events; demonstration rounds, BAC-2.2, are not
on the roads), with the shoe's number, commitment (virtual shoes) and whether it is live,
finished and revealed — the results are public once a round is settled. A log that holds no
shoe shows empty roads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .roads import Colour, RoadEntry, big_road_grid, build_roadmaps, derived_road_grid
from .sides import Side

__all__ = [
    "LAST_RESULTS",
    "READ_MODELS",
    "ROAD_ROWS",
    "ShoeLog",
    "ShoeRoads",
    "roads_json",
    "shoe_statistics",
]

ROAD_ROWS: Final = 6
"""The height of every drawn road (the boards Macau's tables show)."""

LAST_RESULTS: Final = 60
"""How many of the shoe's latest results the statistics list."""

_SHOE_OPENED: Final = "baccarat.ShoeOpened"
_ROUND_STARTED: Final = "baccarat.RoundStarted"
_ROUND_SETTLED: Final = "baccarat.RoundSettled"
_SHOE_FINISHED: Final = "baccarat.ShoeFinished"
_SHOE_REVEALED: Final = "tables.ShoeRevealed"


@dataclass(slots=True)
class ShoeLog:
    """What a table's log says of its current baccarat shoe so far: the shoe's ``number``
    (shoes opened in the log), ``commitment`` (virtual shoes), whether it is ``live`` and
    ``finished``, and the ``entries`` of its settled rounds, oldest first."""

    number: int = 0
    shoe_id: str | None = None
    commitment: str | None = None
    live: bool = False
    finished: bool = False
    revealed: bool = False
    demo_rounds: set[str] = field(default_factory=set)
    entries: list[RoadEntry] = field(default_factory=list)

    def take(self, kind: str, round_id: str | None, data: Mapping[str, Any]) -> None:
        """Follow one recorded event (its type and JSON payload)."""
        if kind == _SHOE_OPENED:
            self.number += 1
            self.shoe_id = str(data.get("shoe_id") or "") or None
            self.commitment = data.get("commitment")
            self.live = bool(data.get("live"))
            self.finished = self.revealed = False
            self.demo_rounds.clear()
            self.entries.clear()
        elif kind == _ROUND_STARTED and data.get("demo") and round_id is not None:
            self.demo_rounds.add(round_id)  # BAC-2.2: a demonstration round is not on the roads
        elif kind == _ROUND_SETTLED and round_id not in self.demo_rounds:
            result = data.get("result") or {}
            self.entries.append(
                RoadEntry(
                    Side(result["winner"]),
                    bool(result.get("banker_pair")),
                    bool(result.get("player_pair")),
                    bool(result.get("natural")),
                )
            )
        elif kind == _SHOE_FINISHED:
            self.finished = True
        elif kind == _SHOE_REVEALED and data.get("shoe_id") == self.shoe_id:
            self.revealed = True


def _colour(colour: Colour | None) -> str | None:
    return None if colour is None else colour.value


def shoe_statistics(entries: list[RoadEntry], last: int = LAST_RESULTS) -> dict[str, Any]:
    """The statistics a player sees beside the roads, from the shoe's settled results only
    (never the cards left: no per-face counts of unseen cards, BAC-16's hidden information):
    ``streaks`` per side (banker, player) — ``current`` (the run the latest non-tie results
    make, 0 for the other side) and ``longest`` — where, as on the big road, a tie neither
    breaks nor lengthens a run; ``last`` the latest ``last`` results, oldest first (``B``,
    ``P``, ``T``).

    >>> from .sides import Side
    >>> b, p, t = (RoadEntry(s, False, False, False) for s in (Side.BANKER, Side.PLAYER, Side.TIE))
    >>> stats = shoe_statistics([b, b, t, b, p, p])
    >>> stats["streaks"]["banker"], stats["streaks"]["player"], stats["last"]
    ({'current': 0, 'longest': 3}, {'current': 2, 'longest': 2}, ['B', 'B', 'T', 'B', 'P', 'P'])
    """
    longest = {Side.BANKER: 0, Side.PLAYER: 0}
    side: Side | None = None
    run = 0
    for entry in entries:
        if entry.winner is Side.TIE:
            continue
        run = run + 1 if entry.winner is side else 1
        side = entry.winner
        longest[side] = max(longest[side], run)
    return {
        "streaks": {
            s.value: {"current": run if s is side else 0, "longest": longest[s]}
            for s in (Side.BANKER, Side.PLAYER)
        },
        "last": [e.winner.letter for e in entries[-last:]] if last > 0 else [],
    }


def roads_json(log: ShoeLog, rows: int = ROAD_ROWS) -> dict[str, Any]:
    """The roads of ``log``'s shoe as drawn grids (0-based ``col`` / ``row``; letters ``B``,
    ``P``, ``T``; derived marks ``red`` / ``blue``), the ask road, the shoe's counts and its
    statistics (:func:`shoe_statistics`)."""
    maps = build_roadmaps(log.entries, rows)
    derived = {
        name: [
            {"col": p.col, "row": p.row, "colour": p.item.colour.value}
            for p in derived_road_grid(road, rows)
        ]
        for name, road in zip(
            ("big_eye_boy", "small_road", "cockroach_road"), maps.derived, strict=True
        )
    }
    entries = log.entries
    return {
        "rows": rows,
        "rounds": len(entries),
        "counts": {
            "banker": sum(e.winner is Side.BANKER for e in entries),
            "player": sum(e.winner is Side.PLAYER for e in entries),
            "tie": sum(e.winner is Side.TIE for e in entries),
            "banker_pair": sum(e.banker_pair for e in entries),
            "player_pair": sum(e.player_pair for e in entries),
        },
        "bead_plate": [
            {
                "col": c.col,
                "row": c.row,
                "outcome": c.outcome.letter,
                "banker_pair": c.banker_pair,
                "player_pair": c.player_pair,
                "natural": c.natural,
            }
            for c in maps.bead_plate
        ],
        "big_road": [
            {
                "col": p.col,
                "row": p.row,
                "winner": p.item.winner.letter,
                "ties": p.item.tie_count,
                "banker_pair": p.item.banker_pair,
                "player_pair": p.item.player_pair,
                "natural": p.item.natural,
            }
            for p in big_road_grid(maps.big_road, rows)
        ],
        **shoe_statistics(entries),
        "leading_ties": maps.big_road.leading_ties,
        **derived,
        "ask": {
            side: {
                "big_eye_boy": _colour(marks.big_eye_boy),
                "small_road": _colour(marks.small_road),
                "cockroach_road": _colour(marks.cockroach_road),
            }
            for side, marks in (("banker", maps.ask.banker), ("player", maps.ask.player))
        },
    }


class ShoeRoads:
    """The ``roads`` read-model: the current shoe's :class:`ShoeLog` and its roads."""

    def __init__(self) -> None:
        self.log = ShoeLog()

    def take(self, kind: str, round_id: str | None, data: Mapping[str, Any]) -> None:
        self.log.take(kind, round_id, data)

    def json(self) -> dict[str, Any]:
        log = self.log
        return {
            "shoe": {
                "number": log.number,
                "commitment": log.commitment,
                "live": log.live,
                "finished": log.finished,
                "revealed": log.revealed,
            },
            **roads_json(log),
        }


READ_MODELS: Final[Mapping[str, Callable[[], ShoeRoads]]] = {"roads": ShoeRoads}
"""The read-models baccarat offers, by name."""
