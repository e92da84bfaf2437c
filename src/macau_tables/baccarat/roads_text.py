"""Baccarat roadmaps as text: the rendering of what :mod:`.roads` computes.

Rendering is kept apart from computation: :mod:`.roads` builds the roads (pure values), this
module only draws them. The functions are also importable from :mod:`.roads` (as before).

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

>>> print(render_big_road("BBPT"))
B P/
B .
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import ConfigError
from .roads import (
    DEFAULT_ROWS,
    AskRoad,
    BeadCell,
    BigRoad,
    BigRoadEntry,
    Colour,
    DerivedMark,
    DerivedRoad,
    DerivedRoadKind,
    ask_road,
    bead_plate,
    big_road,
    big_road_grid,
    build_roadmaps,
    derived_road,
    derived_road_grid,
    to_entries,
)
from .sides import Side

__all__ = [
    "EMPTY",
    "render_all",
    "render_ask_road",
    "render_bead_plate",
    "render_big_road",
    "render_derived_road",
]

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
            raise ConfigError("shoe.road_render_needs_kind")
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
    entries = to_entries(results)
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
