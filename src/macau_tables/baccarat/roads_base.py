"""Baccarat roadmaps, part one: the input, drawing (the dragon tail), bead plate and big road.

See :mod:`.roads` for the definitions and coordinates; every name here is re-exported there.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..errors import ConfigError, MacauTablesError, ParseError
from .sides import Side

__all__ = [
    "DEFAULT_ROWS",
    "BeadCell",
    "BigRoad",
    "BigRoadEntry",
    "Placed",
    "RoadEntry",
    "RoadError",
    "bead_plate",
    "big_road",
    "big_road_grid",
    "check_rows",
    "draw_columns",
    "from_results",
    "group_columns",
    "parse_entries",
    "shown",
    "to_entries",
]

T = TypeVar("T")

DEFAULT_ROWS = 6
"""Height of every drawn road on a standard Macau board."""


class RoadError(MacauTablesError, ValueError):
    """A round result that cannot be put on a road (wrong type of winner or pair flag)."""

    code = "road_error"


# --------------------------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoadEntry:
    """What the roads need to know about one round: who won, and the pair / natural marks.

    Refuses (with :class:`RoadError`) a ``winner`` that is not a :class:`Side` and flags that
    are not ``bool``.
    """

    winner: Side
    banker_pair: bool = False
    player_pair: bool = False
    natural: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.winner, Side):
            raise RoadError("shoe.road_bad_winner", winner=shown(self.winner))
        for name in ("banker_pair", "player_pair", "natural"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise RoadError("shoe.road_flag_not_bool", flag=name, value=shown(value))


def shown(value: object) -> str:
    """``repr(value)`` for a message, shortened; never raises."""
    return reprlib.repr(value)


def _to_entry(result: object, index: int) -> RoadEntry:
    if isinstance(result, RoadEntry):
        return result
    if isinstance(result, Side):
        return RoadEntry(result)
    try:
        winner = result.winner  # type: ignore[attr-defined]
        banker_pair = result.banker_pair  # type: ignore[attr-defined]
        player_pair = result.player_pair  # type: ignore[attr-defined]
        natural = getattr(result, "natural", False)
    except Exception:
        raise RoadError(
            "shoe.road_result_no_attributes", index=index, result=shown(result)
        ) from None
    if not isinstance(winner, Side):
        raise RoadError("shoe.road_result_bad_winner", index=index, winner=shown(winner))
    for name, value in (
        ("banker_pair", banker_pair),
        ("player_pair", player_pair),
        ("natural", natural),
    ):
        if not isinstance(value, bool):
            raise RoadError(
                "shoe.road_result_flag_not_bool", index=index, flag=name, value=shown(value)
            )
    return RoadEntry(winner, banker_pair, player_pair, natural)


def from_results(results: Iterable[object]) -> tuple[RoadEntry, ...]:
    """The road entries for ``results``, oldest first.

    Each result may be a :class:`RoadEntry`, a bare :class:`Side`, or any object with the
    attributes ``winner`` (a :class:`Side`), ``banker_pair`` and ``player_pair`` (bools) and,
    optionally, ``natural`` (bool) — e.g. the tableau's round result. Refuses anything else with
    :class:`RoadError` naming the position of the bad result (nothing is returned then).
    """
    return tuple(_to_entry(result, i) for i, result in enumerate(results))


_LETTERS = {"B": Side.BANKER, "P": Side.PLAYER, "T": Side.TIE}


def parse_entries(text: str) -> tuple[RoadEntry, ...]:
    """Parse outcomes written as letters, e.g. ``"BBPT"`` or ``"B^ P_ T! B^_"``.

    ``B`` / ``P`` / ``T`` is banker / player / tie; a letter may be followed by ``^`` (banker
    pair), ``_`` (player pair) and ``!`` (natural). Whitespace is ignored. Refuses any other
    character, or a modifier with no letter before it, with :class:`ParseError`.
    """
    if not isinstance(text, str):
        raise ParseError("shoe.road_text_not_str", text=shown(text))
    entries: list[RoadEntry] = []
    current: dict[str, bool] | None = None
    winner: Side | None = None

    def flush() -> None:
        if winner is not None and current is not None:
            entries.append(RoadEntry(winner, **current))

    for pos, ch in enumerate(text):
        if ch.isspace():
            continue
        upper = ch.upper()
        if upper in _LETTERS:
            flush()
            winner = _LETTERS[upper]
            current = {"banker_pair": False, "player_pair": False, "natural": False}
        elif ch in "^_!":
            if current is None:
                raise ParseError("shoe.road_modifier_first", modifier=repr(ch), position=pos)
            current[{"^": "banker_pair", "_": "player_pair", "!": "natural"}[ch]] = True
        else:
            raise ParseError(
                "shoe.road_unexpected_character",
                character=repr(ch),
                position=pos,
                text=shown(text),
            )
    flush()
    return tuple(entries)


def to_entries(results: Iterable[object]) -> tuple[RoadEntry, ...]:
    """``results`` as road entries: a text is read by :func:`parse_entries`, anything else by
    :func:`from_results` (refusing what they refuse)."""
    if isinstance(results, str):
        return parse_entries(results)
    return from_results(results)


def check_rows(rows: int) -> int:
    """``rows`` if it is an ``int`` ≥ 1 (a drawn road's height); otherwise a ConfigError."""
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
        raise ConfigError("shoe.road_bad_rows", rows=shown(rows))
    return rows


# --------------------------------------------------------------------------------------------
# Drawing: the dragon tail
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placed(Generic[T]):
    """One drawn cell: ``item`` at drawn column ``col``, row ``row`` (0-based, row 0 on top)."""

    col: int
    row: int
    item: T


def draw_columns(columns: Sequence[Sequence[T]], rows: int = DEFAULT_ROWS) -> tuple[Placed[T], ...]:
    """Lay out logical columns on a grid ``rows`` high, with the dragon tail (SPEC roadmaps).

    Each logical column starts at row 0 of the leftmost drawn column to the right of where the
    previous logical column started whose top cell is free, and goes down. When the next cell
    down is below the grid or already occupied, the column turns right and continues along that
    row for the rest of the streak ("dragon tail"). A tail never meets an occupied cell: any
    earlier cell on its row to the right would have been a contiguous tail covering its own
    start cell. Returns the cells in the order of the items. Refuses ``rows < 1``
    (:class:`ConfigError`).
    """
    check_rows(rows)
    occupied: set[tuple[int, int]] = set()
    placed: list[Placed[T]] = []
    previous_start = -1
    for column in columns:
        if not column:
            continue
        start = previous_start + 1
        # Only a tail turned at row 0 can occupy a top cell; skip past it.
        while (start, 0) in occupied:
            start += 1
        previous_start = start
        col, row, turned = start, 0, False
        for i, item in enumerate(column):
            if i > 0:
                if not turned and row + 1 < rows and (col, row + 1) not in occupied:
                    row += 1
                else:
                    turned = True
                    col += 1
            occupied.add((col, row))
            placed.append(Placed(col, row, item))
    return tuple(placed)


def group_columns(items: Sequence[T], column_of: Iterable[int]) -> tuple[tuple[T, ...], ...]:
    """``items`` grouped into logical columns by their column numbers (0, 1, 2 … in order)."""
    columns: list[list[T]] = []
    for item, col in zip(items, column_of, strict=True):
        if col == len(columns):
            columns.append([])
        columns[col].append(item)
    return tuple(tuple(c) for c in columns)


# --------------------------------------------------------------------------------------------
# Bead plate (珠盤路)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BeadCell:
    """One round on the bead plate: drawn at ``col``, ``row``; ``index`` is the round's position
    in the input (0-based)."""

    col: int
    row: int
    index: int
    outcome: Side
    banker_pair: bool
    player_pair: bool
    natural: bool


def bead_plate(results: Iterable[object], rows: int = DEFAULT_ROWS) -> tuple[BeadCell, ...]:
    """The bead plate: one cell per round, ties included, filled down ``rows`` rows, then the
    next column (SPEC roadmaps). Refuses bad results (:class:`RoadError`) and ``rows < 1``
    (:class:`ConfigError`)."""
    check_rows(rows)
    return tuple(
        BeadCell(i // rows, i % rows, i, e.winner, e.banker_pair, e.player_pair, e.natural)
        for i, e in enumerate(to_entries(results))
    )


# --------------------------------------------------------------------------------------------
# Big road (大路)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BigRoadEntry:
    """One decided (non-tie) round on the big road.

    ``column`` / ``row`` are logical (0-based; a streak of any length is one column).
    ``ties`` counts the ties dealt after this round and before the next decision;
    ``leading_ties`` counts the ties dealt before the very first decision of the shoe and is
    non-zero only on the first entry (SPEC: they attach to the first cell). ``round_index`` is
    the round's position in the input.
    """

    round_index: int
    winner: Side
    column: int
    row: int
    ties: int = 0
    leading_ties: int = 0
    banker_pair: bool = False
    player_pair: bool = False
    natural: bool = False

    @property
    def tie_count(self) -> int:
        """The number drawn with the cell's green slash: leading ties plus following ties."""
        return self.leading_ties + self.ties


@dataclass(frozen=True, slots=True)
class BigRoad:
    """The big road: its entries in order; ``leading_ties`` are the ties before the first
    decision (also carried by the first entry once it exists)."""

    entries: tuple[BigRoadEntry, ...]
    leading_ties: int = 0

    @property
    def columns(self) -> tuple[tuple[BigRoadEntry, ...], ...]:
        """The logical columns (streaks), oldest first."""
        return group_columns(self.entries, (e.column for e in self.entries))

    @property
    def lengths(self) -> tuple[int, ...]:
        """The length L(x) of every logical column x (0-based x)."""
        return tuple(len(c) for c in self.columns)

    @property
    def tie_total(self) -> int:
        """All ties of the shoe so far."""
        return self.leading_ties + sum(e.ties for e in self.entries)


def big_road(results: Iterable[object]) -> BigRoad:
    """The big road of ``results`` (SPEC roadmaps): a tie makes no cell and is counted on the
    last cell (or, before the first decision, on the first cell); the same winner as the
    previous cell goes one row down, a change of winner starts a new column. Refuses bad
    results (:class:`RoadError`)."""
    entries: list[BigRoadEntry] = []
    leading = 0
    for i, e in enumerate(to_entries(results)):
        if e.winner is Side.TIE:
            if entries:
                last = entries[-1]
                entries[-1] = BigRoadEntry(
                    last.round_index,
                    last.winner,
                    last.column,
                    last.row,
                    last.ties + 1,
                    last.leading_ties,
                    last.banker_pair,
                    last.player_pair,
                    last.natural,
                )
            else:
                leading += 1
            continue
        if not entries:
            column, row = 0, 0
        elif entries[-1].winner is e.winner:
            column, row = entries[-1].column, entries[-1].row + 1
        else:
            column, row = entries[-1].column + 1, 0
        entries.append(
            BigRoadEntry(
                i,
                e.winner,
                column,
                row,
                0,
                leading if not entries else 0,
                e.banker_pair,
                e.player_pair,
                e.natural,
            )
        )
    return BigRoad(tuple(entries), leading)


def big_road_grid(
    results: Iterable[object] | BigRoad, rows: int = DEFAULT_ROWS
) -> tuple[Placed[BigRoadEntry], ...]:
    """The big road as drawn on a grid ``rows`` high, with the dragon tail (:func:`draw_columns`).
    Accepts results or an already computed :class:`BigRoad`. Refuses what :func:`big_road` and
    :func:`draw_columns` refuse."""
    road = results if isinstance(results, BigRoad) else big_road(results)
    return draw_columns(road.columns, rows)
