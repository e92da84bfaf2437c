"""Baccarat roadmaps, part two: the three derived roads (大眼仔, 小路, 曱甴路) and the ask road.

Computed from the big road's logical columns (see :mod:`.roads` for the definitions); every
name here is re-exported by :mod:`.roads`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from ..errors import ConfigError
from .roads_base import (
    DEFAULT_ROWS,
    BigRoad,
    Placed,
    RoadError,
    big_road,
    draw_columns,
    group_columns,
    shown,
)
from .sides import Side

__all__ = [
    "AskMarks",
    "AskRoad",
    "Colour",
    "DerivedMark",
    "DerivedRoad",
    "DerivedRoadKind",
    "ask_road",
    "big_eye_boy",
    "cockroach_road",
    "derived_colour",
    "derived_road",
    "derived_road_grid",
    "predict",
    "small_road",
]


# --------------------------------------------------------------------------------------------
# Derived roads (大眼仔 / 小路 / 曱甴路)
# --------------------------------------------------------------------------------------------


class Colour(Enum):
    """Colour of a derived-road mark: red = "regular", blue = "choppy" (not banker/player)."""

    RED = "red"
    BLUE = "blue"

    @property
    def letter(self) -> str:
        """``'R'`` or ``'B'``."""
        return "R" if self is Colour.RED else "B"


class DerivedRoadKind(Enum):
    """The three derived roads; the value is the SPEC's ``k``."""

    BIG_EYE_BOY = 1
    SMALL_ROAD = 2
    COCKROACH_ROAD = 3

    @property
    def k(self) -> int:
        """How many columns back the road compares (1, 2 or 3)."""
        return self.value

    @property
    def chinese(self) -> str:
        return {1: "大眼仔", 2: "小路", 3: "曱甴路"}[self.value]

    @property
    def english(self) -> str:
        return {1: "big eye boy", 2: "small road", 3: "cockroach road"}[self.value]

    @property
    def symbol(self) -> str:
        """Text symbol after the colour letter: ``o`` hollow circle, ``*`` solid dot, ``/``
        slash."""
        return {1: "o", 2: "*", 3: "/"}[self.value]


def _kind(kind: DerivedRoadKind | int) -> DerivedRoadKind:
    if isinstance(kind, DerivedRoadKind):
        return kind
    if isinstance(kind, int) and not isinstance(kind, bool) and 1 <= kind <= 3:
        return DerivedRoadKind(kind)
    raise ConfigError("shoe.road_bad_kind", kind=shown(kind))


def derived_colour(
    completed_lengths: Sequence[int], column: int, row: int, kind: DerivedRoadKind | int
) -> Colour | None:
    """The mark a derived road adds for the big-road entry at logical ``column``, ``row``
    (0-based), or ``None`` if that entry comes before the road's starting entry.

    ``completed_lengths`` are the lengths of the logical columns ``0 .. column-1`` (all complete
    by then; extra items are ignored). The SPEC rule, in its 1-based terms (c = column+1,
    r = row+1): the road starts at column k+1 row 2, or, if that cell never fills, at column
    k+2 row 1 — i.e. every entry after the first cell of column k+1 gets a mark;
    r = 1: red if L(c-1) = L(c-1-k) else blue; r >= 2: blue if L(c-k) = r-1 exactly, else red
    (a shorter column c-k is the "straight drop" 直落: red). Refuses a position or lengths that
    cannot occur (:class:`RoadError`).
    """
    k = _kind(kind).k
    if column < 0 or row < 0:
        raise RoadError("shoe.road_negative_position", column=column, row=row)
    if len(completed_lengths) < column or any(n < 1 for n in completed_lengths[:column]):
        raise RoadError(
            "shoe.road_lengths_needed", column=column, lengths=shown(tuple(completed_lengths))
        )
    if column < k or (column == k and row == 0):
        return None  # before the starting entry (SPEC: column k+1 row 2, else k+2 row 1)
    lengths = completed_lengths
    if row == 0:
        # A new column: compare the two completed columns c-1 and c-1-k.
        return Colour.RED if lengths[column - 1] == lengths[column - 1 - k] else Colour.BLUE
    # Going down: only a column k back that ended exactly one row above this one is "choppy".
    return Colour.BLUE if lengths[column - k] == row else Colour.RED


@dataclass(frozen=True, slots=True)
class DerivedMark:
    """One mark of a derived road.

    ``column`` / ``row`` are the mark's logical position in the derived road (same colour goes
    down, a change of colour starts a new column). ``source_column`` / ``source_row`` are the
    logical big-road position of the entry it was made for, ``round_index`` that entry's round.
    """

    colour: Colour
    column: int
    row: int
    source_column: int
    source_row: int
    round_index: int


@dataclass(frozen=True, slots=True)
class DerivedRoad:
    """A derived road: its ``kind`` and its marks in order."""

    kind: DerivedRoadKind
    marks: tuple[DerivedMark, ...]

    @property
    def columns(self) -> tuple[tuple[DerivedMark, ...], ...]:
        """The logical columns of marks, oldest first."""
        return group_columns(self.marks, (m.column for m in self.marks))

    @property
    def colours(self) -> tuple[Colour, ...]:
        """The colours of the marks in order."""
        return tuple(m.colour for m in self.marks)


def _derived_from_big_road(road: BigRoad, kind: DerivedRoadKind) -> DerivedRoad:
    lengths = road.lengths  # every column before an entry's own column is complete
    marks: list[DerivedMark] = []
    for e in road.entries:
        colour = derived_colour(lengths[: e.column], e.column, e.row, kind)
        if colour is None:
            continue
        if not marks:
            column, row = 0, 0
        elif marks[-1].colour is colour:
            column, row = marks[-1].column, marks[-1].row + 1
        else:
            column, row = marks[-1].column + 1, 0
        marks.append(DerivedMark(colour, column, row, e.column, e.row, e.round_index))
    return DerivedRoad(kind, tuple(marks))


def derived_road(results: Iterable[object] | BigRoad, kind: DerivedRoadKind | int) -> DerivedRoad:
    """The derived road ``kind`` (k = 1, 2, 3) of ``results`` (or of a computed
    :class:`BigRoad`), one mark per big-road entry from the starting entry on (SPEC roadmaps;
    rule in :func:`derived_colour`). Refuses bad results (:class:`RoadError`) and any other k
    (:class:`ConfigError`)."""
    k = _kind(kind)
    road = results if isinstance(results, BigRoad) else big_road(results)
    return _derived_from_big_road(road, k)


def big_eye_boy(results: Iterable[object] | BigRoad) -> DerivedRoad:
    """The big eye boy (大眼仔, k = 1); see :func:`derived_road`."""
    return derived_road(results, DerivedRoadKind.BIG_EYE_BOY)


def small_road(results: Iterable[object] | BigRoad) -> DerivedRoad:
    """The small road (小路, k = 2); see :func:`derived_road`."""
    return derived_road(results, DerivedRoadKind.SMALL_ROAD)


def cockroach_road(results: Iterable[object] | BigRoad) -> DerivedRoad:
    """The cockroach road (曱甴路, k = 3); see :func:`derived_road`."""
    return derived_road(results, DerivedRoadKind.COCKROACH_ROAD)


def derived_road_grid(
    road: DerivedRoad, rows: int = DEFAULT_ROWS
) -> tuple[Placed[DerivedMark], ...]:
    """A derived road as drawn on a grid ``rows`` high, with the same dragon tail as the big
    road (:func:`draw_columns`). Refuses ``rows < 1`` (:class:`ConfigError`)."""
    return draw_columns(road.columns, rows)


# --------------------------------------------------------------------------------------------
# Ask road (問路)
# --------------------------------------------------------------------------------------------


def predict(
    results: Iterable[object] | BigRoad, winner: Side, kind: DerivedRoadKind | int
) -> Colour | None:
    """The mark derived road ``kind`` would add if the next round were won by ``winner``
    (BANKER or PLAYER), or ``None`` if it would add no mark yet. Refuses a TIE or non-Side
    ``winner`` (a tie adds no mark to any derived road) with :class:`RoadError`."""
    k = _kind(kind)
    if winner is not Side.BANKER and winner is not Side.PLAYER:
        raise RoadError("shoe.road_ask_side", winner=shown(winner))
    road = results if isinstance(results, BigRoad) else big_road(results)
    lengths = road.lengths
    if not road.entries:
        return None  # the next entry would be column 0 row 0: never marked
    last = road.entries[-1]
    if last.winner is winner:
        return derived_colour(lengths[: last.column], last.column, last.row + 1, k)
    return derived_colour(lengths, last.column + 1, 0, k)


@dataclass(frozen=True, slots=True)
class AskMarks:
    """The marks the three derived roads would add for one hypothetical next winner."""

    big_eye_boy: Colour | None
    small_road: Colour | None
    cockroach_road: Colour | None

    def of(self, kind: DerivedRoadKind) -> Colour | None:
        """The prediction for one road."""
        return (self.big_eye_boy, self.small_road, self.cockroach_road)[kind.value - 1]


@dataclass(frozen=True, slots=True)
class AskRoad:
    """The ask road: what each derived road would add if the next round were a banker win
    (``banker``) or a player win (``player``)."""

    banker: AskMarks
    player: AskMarks


def ask_road(results: Iterable[object] | BigRoad) -> AskRoad:
    """The ask road (問路) of ``results`` (SPEC roadmaps). Refuses bad results
    (:class:`RoadError`)."""
    road = results if isinstance(results, BigRoad) else big_road(results)

    def marks(winner: Side) -> AskMarks:
        return AskMarks(*(predict(road, winner, kind) for kind in DerivedRoadKind))

    return AskRoad(marks(Side.BANKER), marks(Side.PLAYER))
