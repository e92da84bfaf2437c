"""Properties of the roadmaps over random shoes (SPEC section "Baccarat roadmaps")."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from macau_tables.baccarat.roads import (
    DerivedRoadKind,
    Placed,
    RoadEntry,
    ask_road,
    bead_plate,
    big_road,
    big_road_grid,
    derived_road,
    derived_road_grid,
    predict,
)
from macau_tables.baccarat.roads_text import render_all
from macau_tables.baccarat.sides import Side

SIDES = [Side.BANKER, Side.PLAYER, Side.TIE]

entry = st.builds(RoadEntry, st.sampled_from(SIDES), st.booleans(), st.booleans(), st.booleans())


@st.composite
def shoes(draw: st.DrawFn) -> list[RoadEntry]:
    """Round sequences with streaks long enough to exercise the dragon tail: runs of one
    outcome (length 1..14) concatenated, plus some independently random rounds."""
    runs = draw(st.lists(st.tuples(entry, st.integers(1, 14)), max_size=14))
    out: list[RoadEntry] = []
    for e, n in runs:
        out.extend([e] * n)
        out.extend(draw(st.lists(entry, max_size=3)))
    return out[:90]


rows_st = st.integers(1, 8)
# Each property is also checked on the worked cases of test_roads.py (ties and derived roads,
# the dragon tail, ask roads, the grids' placement).
common = settings(max_examples=75, deadline=None)


def check_drawn(cells: Sequence[Placed[object]], lengths: Sequence[int], rows: int) -> None:
    """No two items in one cell, nothing below the last row, and every logical column drawn as
    a path from the top row: down, then (once it turns) only right."""
    assert len(cells) == sum(lengths)
    positions = [(p.col, p.row) for p in cells]
    assert len(set(positions)) == len(positions)
    assert all(0 <= r < rows and c >= 0 for c, r in positions)
    i = 0
    previous_start = -1
    for n in lengths:
        path = positions[i : i + n]
        i += n
        assert path[0][1] == 0
        assert path[0][0] > previous_start
        previous_start = path[0][0]
        turned = False
        for (c0, r0), (c1, r1) in pairwise(path):
            if (c1, r1) == (c0, r0 + 1):
                assert not turned
            else:
                assert (c1, r1) == (c0 + 1, r0)
                turned = True


@common
@given(shoes(), rows_st)
def test_bead_plate_one_cell_per_round_ROADMAPS(results: list[RoadEntry], rows: int) -> None:
    cells = bead_plate(results, rows)
    assert len(cells) == len(results)
    for i, (cell, e) in enumerate(zip(cells, results, strict=True)):
        assert (cell.col, cell.row, cell.index) == (i // rows, i % rows, i)
        assert (cell.outcome, cell.banker_pair, cell.player_pair) == (
            e.winner,
            e.banker_pair,
            e.player_pair,
        )


@common
@given(shoes())
def test_big_road_cells_are_the_decided_rounds_ROADMAPS(results: list[RoadEntry]) -> None:
    road = big_road(results)
    decided = [i for i, e in enumerate(results) if e.winner is not Side.TIE]
    assert [e.round_index for e in road.entries] == decided
    assert road.tie_total == len(results) - len(decided)
    leading = next((i for i, e in enumerate(results) if e.winner is not Side.TIE), len(results))
    assert road.leading_ties == leading
    if road.entries:
        assert road.entries[0].leading_ties == leading
        assert all(e.leading_ties == 0 for e in road.entries[1:])
    for prev, cur in pairwise(road.entries):
        # ties between two decisions are counted on the earlier one
        assert prev.ties == cur.round_index - prev.round_index - 1
        if cur.winner is prev.winner:
            assert (cur.column, cur.row) == (prev.column, prev.row + 1)
        else:
            assert (cur.column, cur.row) == (prev.column + 1, 0)


@common
@given(shoes(), rows_st)
def test_drawn_grids_are_well_formed_ROADMAPS(results: list[RoadEntry], rows: int) -> None:
    road = big_road(results)
    grid = big_road_grid(road, rows)
    check_drawn(grid, road.lengths, rows)
    assert [p.item for p in grid] == list(road.entries)
    for kind in DerivedRoadKind:
        derived = derived_road(road, kind)
        check_drawn(derived_road_grid(derived, rows), [len(c) for c in derived.columns], rows)


@common
@given(shoes())
def test_derived_marks_one_per_entry_from_the_start_ROADMAPS(results: list[RoadEntry]) -> None:
    """The start entry is column k+1 row 2, else column k+2 row 1: every entry except those of
    the first k columns and the first cell of column k+1 gets exactly one mark."""
    road = big_road(results)
    lengths = road.lengths
    for kind in DerivedRoadKind:
        k = kind.k
        expected = len(road.entries) - (sum(lengths[:k]) + 1) if len(lengths) > k else 0
        derived = derived_road(road, kind)
        assert len(derived.marks) == expected
        # marks are laid out like the big road: same colour down, a change starts a column
        for prev, cur in pairwise(derived.marks):
            if cur.colour is prev.colour:
                assert (cur.column, cur.row) == (prev.column, prev.row + 1)
            else:
                assert (cur.column, cur.row) == (prev.column + 1, 0)


@common
@given(shoes())
def test_ties_never_change_a_derived_road_ROADMAPS(results: list[RoadEntry]) -> None:
    no_ties = [e for e in results if e.winner is not Side.TIE]
    for kind in DerivedRoadKind:
        assert derived_road(results, kind).colours == derived_road(no_ties, kind).colours


@common
@given(shoes(), st.sampled_from([Side.BANKER, Side.PLAYER]))
def test_ask_road_predicts_exactly_the_next_mark_ROADMAPS(
    results: list[RoadEntry], winner: Side
) -> None:
    ask = ask_road(results)
    marks = ask.banker if winner is Side.BANKER else ask.player
    after = [*results, RoadEntry(winner)]
    for kind in DerivedRoadKind:
        predicted = predict(results, winner, kind)
        assert predicted is marks.of(kind)
        before = derived_road(results, kind).colours
        now = derived_road(after, kind).colours
        assert now[: len(before)] == before
        if predicted is None:
            assert now == before
        else:
            assert now == (*before, predicted)


@settings(max_examples=40, deadline=None)
@given(shoes(), rows_st)
def test_markup_strips_to_the_plain_text_ROADMAPS(results: list[RoadEntry], rows: int) -> None:
    assert Text.from_markup(render_all(results, rows, markup=True)).plain == render_all(
        results, rows
    )
