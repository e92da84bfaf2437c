"""Baccarat roadmaps (路紙): bead plate, big road, the three derived roads and the ask road.

The roads are not part of the law; SPEC section "Baccarat roadmaps" defines them for this project
and this module implements exactly those definitions. Everything here is a pure function of the
sequence of round results (oldest first); nothing is stored or mutated.

Coordinates are 0-based everywhere in code: ``column`` / ``row`` 0 is the SPEC's column / row 1.
So the SPEC's "column k+1, row 2" is ``(column=k, row=1)`` here.

Two kinds of position are used:

* **logical** positions (:attr:`BigRoadEntry.column`, :attr:`BigRoadEntry.row`,
  :attr:`DerivedMark.column`, :attr:`DerivedMark.row`): a streak of any length is one column,
  and its rows count without limit. The derived roads are computed from these (SPEC).
* **drawn** positions (:class:`Placed`): the grid a board shows, ``rows`` high (6 by default).
  A streak that is longer than the grid, or that meets an occupied cell, turns right along its
  row (the "dragon tail", 長龍). Drawing never changes a logical position or a derived mark.

Every function that takes ``results`` accepts round results (see :func:`from_results`) or a
string of letters (see :func:`parse_entries`), e.g. ``big_road("TBBPT")``.

Text rendering (plain ASCII, one token per cell, cells separated by a space, ``.`` = empty; each
drawn column is as wide as its widest token):

============================  ===================================================
bead plate                    ``B`` / ``P`` / ``T``; ``^`` before = banker pair (red dot
                              top-left), ``_`` after = player pair (blue dot bottom-right)
big road                      ``B`` / ``P``, pair marks as on the bead plate; ties: ``/``
                              after the letter (and pair mark) for one tie, ``/n`` for n ties
                              (leading ties are counted on the first cell)
big eye boy (大眼仔)          ``Ro`` / ``Bo``  (red / blue hollow circle)
small road (小路)             ``R*`` / ``B*``  (red / blue solid dot)
cockroach road (曱甴路)       ``R/`` / ``B/``  (red / blue slash)
============================  ===================================================

With ``markup=True`` the same text carries Rich colour tags (banker/red ``red``, player/blue
``blue``, tie ``green``); stripping the tags gives the plain text exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

from ..errors import ConfigError, MacauTablesError, ParseError
from .sides import Side

__all__ = [
    "DEFAULT_ROWS",
    "AskMarks",
    "AskRoad",
    "BeadCell",
    "BigRoad",
    "BigRoadEntry",
    "Colour",
    "DerivedMark",
    "DerivedRoad",
    "DerivedRoadKind",
    "Placed",
    "RoadEntry",
    "RoadError",
    "Roadmaps",
    "ask_road",
    "bead_plate",
    "big_eye_boy",
    "big_road",
    "big_road_grid",
    "build_roadmaps",
    "cockroach_road",
    "derived_colour",
    "derived_road",
    "derived_road_grid",
    "draw_columns",
    "from_results",
    "parse_entries",
    "predict",
    "render_all",
    "render_ask_road",
    "render_bead_plate",
    "render_big_road",
    "render_derived_road",
    "small_road",
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
            raise RoadError(f"winner must be a Side (PLAYER/BANKER/TIE), got {self.winner!r}")
        for name in ("banker_pair", "player_pair", "natural"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise RoadError(f"{name} must be a bool, got {value!r}")


def _to_entry(result: object, index: int) -> RoadEntry:
    if isinstance(result, RoadEntry):
        return result
    if isinstance(result, Side):
        return RoadEntry(result)
    try:
        winner = result.winner  # type: ignore[attr-defined]
        banker_pair = result.banker_pair  # type: ignore[attr-defined]
        player_pair = result.player_pair  # type: ignore[attr-defined]
    except AttributeError as exc:
        raise RoadError(
            f"result #{index} ({result!r}) has no winner/banker_pair/player_pair attributes"
        ) from exc
    natural = getattr(result, "natural", False)
    try:
        return RoadEntry(winner, banker_pair, player_pair, natural)
    except RoadError as exc:
        raise RoadError(f"result #{index}: {exc}") from exc


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
                raise ParseError(f"modifier {ch!r} at position {pos} has no outcome before it")
            current[{"^": "banker_pair", "_": "player_pair", "!": "natural"}[ch]] = True
        else:
            raise ParseError(
                f"unexpected character {ch!r} at position {pos} in {text!r} "
                "(expected B, P, T, ^, _, ! or whitespace)"
            )
    flush()
    return tuple(entries)


def _entries(results: Iterable[object]) -> tuple[RoadEntry, ...]:
    if isinstance(results, str):
        return parse_entries(results)
    return from_results(results)


def _check_rows(rows: int) -> int:
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
        raise ConfigError(f"a drawn road needs rows >= 1 (an int), got {rows!r}")
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
    _check_rows(rows)
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


def _group_columns(items: Sequence[T], column_of: Iterable[int]) -> tuple[tuple[T, ...], ...]:
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
    _check_rows(rows)
    return tuple(
        BeadCell(i // rows, i % rows, i, e.winner, e.banker_pair, e.player_pair, e.natural)
        for i, e in enumerate(_entries(results))
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
        return _group_columns(self.entries, (e.column for e in self.entries))

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
    for i, e in enumerate(_entries(results)):
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
    raise ConfigError(f"a derived road has k = 1, 2 or 3, got {kind!r}")


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
        raise RoadError(f"a big-road position is never negative, got column={column}, row={row}")
    if len(completed_lengths) < column or any(n < 1 for n in completed_lengths[:column]):
        raise RoadError(
            f"need the lengths (each >= 1) of the {column} columns before column {column}, "
            f"got {tuple(completed_lengths)!r}"
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
        return _group_columns(self.marks, (m.column for m in self.marks))

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
        raise RoadError(f"the ask road asks about BANKER or PLAYER, got {winner!r}")
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


# --------------------------------------------------------------------------------------------
# Everything at once
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Roadmaps:
    """All roads of one shoe, computed together by :func:`build_roadmaps`."""

    bead_plate: tuple[BeadCell, ...]
    big_road: BigRoad
    big_eye_boy: DerivedRoad
    small_road: DerivedRoad
    cockroach_road: DerivedRoad
    ask: AskRoad

    @property
    def derived(self) -> tuple[DerivedRoad, DerivedRoad, DerivedRoad]:
        """The three derived roads, k = 1, 2, 3."""
        return (self.big_eye_boy, self.small_road, self.cockroach_road)


def build_roadmaps(results: Iterable[object], rows: int = DEFAULT_ROWS) -> Roadmaps:
    """Every road of ``results`` (a string of letters is parsed with :func:`parse_entries`).
    Refuses bad results (:class:`RoadError` / :class:`ParseError`) and ``rows < 1``."""
    entries = _entries(results)
    road = big_road(entries)
    return Roadmaps(
        bead_plate(entries, rows),
        road,
        big_eye_boy(road),
        small_road(road),
        cockroach_road(road),
        ask_road(road),
    )


# --------------------------------------------------------------------------------------------
# Text rendering
# --------------------------------------------------------------------------------------------

_SIDE_STYLE = {Side.BANKER: "red", Side.PLAYER: "blue", Side.TIE: "green"}
_COLOUR_STYLE = {Colour.RED: "red", Colour.BLUE: "blue"}
EMPTY = "."


def _styled(text: str, style: str, markup: bool) -> str:
    return f"[{style}]{text}[/{style}]" if markup and text and style else text


def _grid(
    cells: Iterable[tuple[int, int, list[tuple[str, str]]]], markup: bool, indent: int = 0
) -> str:
    """Lay out tokens (lists of (text, style) pieces) on a grid; empty cells are ``EMPTY``,
    ``indent`` spaces in, so that they line up with letters behind a pair-mark slot."""
    empty = " " * indent + EMPTY
    table: dict[tuple[int, int], list[tuple[str, str]]] = {}
    for col, row, pieces in cells:
        table[(col, row)] = pieces
    if not table:
        return ""
    ncols = max(c for c, _ in table) + 1
    nrows = max(r for _, r in table) + 1
    # Each drawn column is as wide as its widest token, so one long tie count does not widen
    # the whole road.
    widths = [len(empty)] * ncols
    for (col, _), pieces in table.items():
        widths[col] = max(widths[col], sum(len(t) for t, _ in pieces))
    lines = []
    for row in range(nrows):
        tokens = []
        for col in range(ncols):
            cell = table.get((col, row))
            if cell is None:
                tokens.append(empty.ljust(widths[col]))
            else:
                plain_len = sum(len(t) for t, _ in cell)
                text = "".join(_styled(t, s, markup) for t, s in cell)
                tokens.append(text + " " * (widths[col] - plain_len))
        lines.append(" ".join(tokens).rstrip())
    return "\n".join(lines)


def render_bead_plate(
    results: Iterable[object], rows: int = DEFAULT_ROWS, markup: bool = False
) -> str:
    """The bead plate as text: ``B``/``P``/``T``, ``^`` before = banker pair, ``_`` after =
    player pair; the pair slots exist only when some cell has that pair, so the letters stay
    aligned. ``markup=True`` adds Rich colour tags. Refuses what :func:`bead_plate` refuses."""
    cells = bead_plate(results, rows)
    any_bp = any(c.banker_pair for c in cells)
    any_pp = any(c.player_pair for c in cells)

    def token(c: BeadCell) -> list[tuple[str, str]]:
        pieces: list[tuple[str, str]] = []
        if any_bp:
            pieces.append(("^", "red") if c.banker_pair else (" ", ""))
        pieces.append((c.outcome.letter, _SIDE_STYLE[c.outcome]))
        if any_pp and c.player_pair:
            pieces.append(("_", "blue"))
        return pieces

    return _grid(((c.col, c.row, token(c)) for c in cells), markup, indent=int(any_bp))


def _tie_mark(n: int) -> str:
    return "" if n == 0 else "/" if n == 1 else f"/{n}"


def render_big_road(
    results: Iterable[object] | BigRoad, rows: int = DEFAULT_ROWS, markup: bool = False
) -> str:
    """The big road as drawn text: ``B``/``P``, with the pair marks of that round as on the
    bead plate (``^`` before = banker pair, ``_`` after = player pair; the ``^`` slot exists only
    when some cell has a banker pair, so the letters stay aligned), then ``/`` (one tie) or
    ``/n`` (n ties); leading ties are counted on the first cell. With only ties so far, a
    one-line note. ``markup=True`` adds Rich colour tags. Refuses what :func:`big_road_grid`
    refuses."""
    road = results if isinstance(results, BigRoad) else big_road(results)
    if not road.entries:
        if road.leading_ties:
            note = f"(no decision yet; {road.leading_ties} tie(s) waiting for the first cell)"
            return _styled(note, "green", markup)
        return ""
    cells = big_road_grid(road, rows)
    any_bp = any(e.banker_pair for e in road.entries)

    def token(e: BigRoadEntry) -> list[tuple[str, str]]:
        pieces: list[tuple[str, str]] = []
        if any_bp:
            pieces.append(("^", "red") if e.banker_pair else (" ", ""))
        pieces.append((e.winner.letter, _SIDE_STYLE[e.winner]))
        if e.player_pair:
            pieces.append(("_", "blue"))
        pieces.append((_tie_mark(e.tie_count), "green"))
        return pieces

    return _grid(((p.col, p.row, token(p.item)) for p in cells), markup, indent=int(any_bp))


def render_derived_road(
    road: DerivedRoad | Iterable[object],
    kind: DerivedRoadKind | int | None = None,
    rows: int = DEFAULT_ROWS,
    markup: bool = False,
) -> str:
    """A derived road as drawn text: colour letter ``R``/``B`` then the road's symbol (``o``
    big eye boy, ``*`` small road, ``/`` cockroach road). Pass a :class:`DerivedRoad`, or
    results together with ``kind``. Refuses results without a ``kind`` (:class:`ConfigError`)."""
    if not isinstance(road, DerivedRoad):
        if kind is None:
            raise ConfigError("render_derived_road needs kind (1, 2 or 3) when given results")
        road = derived_road(road, kind)
    symbol = road.kind.symbol

    def token(m: DerivedMark) -> list[tuple[str, str]]:
        return [(m.colour.letter + symbol, _COLOUR_STYLE[m.colour])]

    return _grid(((p.col, p.row, token(p.item)) for p in derived_road_grid(road, rows)), markup)


def _ask_token(colour: Colour | None, kind: DerivedRoadKind, markup: bool) -> str:
    if colour is None:
        return "--"
    return _styled(colour.letter + kind.symbol, _COLOUR_STYLE[colour], markup)


def render_ask_road(results: Iterable[object] | AskRoad, markup: bool = False) -> str:
    """The ask road as two lines, e.g. ``if Banker: big eye boy Ro  small road B*  cockroach
    road --`` (``--`` = the road would add no mark yet). Refuses what :func:`ask_road`
    refuses."""
    ask = results if isinstance(results, AskRoad) else ask_road(results)
    lines = []
    for label, side, marks in (
        ("Banker", Side.BANKER, ask.banker),
        ("Player", Side.PLAYER, ask.player),
    ):
        parts = [
            f"{kind.english} {_ask_token(marks.of(kind), kind, markup)}" for kind in DerivedRoadKind
        ]
        lines.append(f"if {_styled(label, _SIDE_STYLE[side], markup)}: " + "  ".join(parts))
    return "\n".join(lines)


def render_all(results: Iterable[object], rows: int = DEFAULT_ROWS, markup: bool = False) -> str:
    """Every road of ``results`` as one text block: bead plate, big road, big eye boy, small
    road, cockroach road and ask road, each under a title (English and Chinese). Refuses what
    :func:`build_roadmaps` refuses."""
    entries = _entries(results)
    maps = build_roadmaps(entries, rows)
    empty = "(empty)"
    sections = [
        ("Bead plate (珠盤路)", render_bead_plate(entries, rows, markup)),
        ("Big road (大路)", render_big_road(maps.big_road, rows, markup)),
    ]
    for road in maps.derived:
        title = f"{road.kind.english.capitalize()} ({road.kind.chinese})"
        sections.append((title, render_derived_road(road, rows=rows, markup=markup)))
    sections.append(("Ask road (問路)", render_ask_road(maps.ask, markup)))
    return "\n\n".join(f"{title}\n{body or empty}" for title, body in sections) + "\n"
