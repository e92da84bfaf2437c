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

The computation is in :mod:`.roads_base` (input, drawing, bead plate, big road) and
:mod:`.roads_derived` (derived roads, ask road); this module re-exports all of it and builds
every road at once (:func:`build_roadmaps`). The text rendering of the roads lives in
:mod:`.roads_text` (rendering is kept apart from computation); its functions (``render_all``,
``render_bead_plate``, ``render_big_road``, ``render_derived_road``, ``render_ask_road``) are
still importable from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .roads_base import (
    DEFAULT_ROWS,
    BeadCell,
    BigRoad,
    BigRoadEntry,
    Placed,
    RoadEntry,
    RoadError,
    bead_plate,
    big_road,
    big_road_grid,
    draw_columns,
    from_results,
    parse_entries,
    to_entries,
)
from .roads_derived import (
    AskMarks,
    AskRoad,
    Colour,
    DerivedMark,
    DerivedRoad,
    DerivedRoadKind,
    ask_road,
    big_eye_boy,
    cockroach_road,
    derived_colour,
    derived_road,
    derived_road_grid,
    predict,
    small_road,
)

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
    "to_entries",
]

if TYPE_CHECKING:  # the text rendering, importable from here for compatibility
    from .roads_text import (
        render_all,
        render_ask_road,
        render_bead_plate,
        render_big_road,
        render_derived_road,
    )

_RENDERING = frozenset(
    {"render_all", "render_ask_road", "render_bead_plate", "render_big_road", "render_derived_road"}
)


def __getattr__(name: str) -> Any:
    """The text rendering functions of :mod:`.roads_text`, importable from here as before
    (loaded on first use: :mod:`.roads_text` imports this module)."""
    if name in _RENDERING:
        from . import roads_text

        return getattr(roads_text, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    entries = to_entries(results)
    road = big_road(entries)
    return Roadmaps(
        bead_plate(entries, rows),
        road,
        big_eye_boy(road),
        small_road(road),
        cockroach_road(road),
        ask_road(road),
    )
