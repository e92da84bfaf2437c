"""Hand-checked roadmaps (SPEC section "Baccarat roadmaps"; no rule id in the law).

Every expected grid below was worked out by hand from the SPEC definitions; the working is in
the comments (SPEC positions are 1-based "column c row r"; code positions are 0-based).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from macau_tables.baccarat.read_models import LAST_RESULTS, shoe_statistics
from macau_tables.baccarat.roads import (
    AskMarks,
    AskRoad,
    BigRoadEntry,
    Colour,
    DerivedRoadKind,
    Placed,
    RoadEntry,
    RoadError,
    ask_road,
    bead_plate,
    big_eye_boy,
    big_road,
    big_road_grid,
    build_roadmaps,
    cockroach_road,
    derived_colour,
    derived_road,
    draw_columns,
    from_results,
    parse_entries,
    predict,
    small_road,
)
from macau_tables.baccarat.roads_text import (
    render_all,
    render_ask_road,
    render_bead_plate,
    render_big_road,
    render_derived_road,
)
from macau_tables.baccarat.sides import Side
from macau_tables.errors import ConfigError, ParseError

R, BL = Colour.RED, Colour.BLUE
B, P, T = Side.BANKER, Side.PLAYER, Side.TIE


def colours(text: str) -> tuple[Colour, ...]:
    """'RBB' -> (RED, BLUE, BLUE): the expected colour sequence of a derived road."""
    return tuple(R if ch == "R" else BL for ch in text)


def lines(*rows: str) -> str:
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------------
# Input
# ---------------------------------------------------------------------------------------------


def test_parse_entries_letters_and_marks_ROADMAPS() -> None:
    assert parse_entries("B P\nt") == (RoadEntry(B), RoadEntry(P), RoadEntry(T))
    assert parse_entries("B^_! P_ T^") == (
        RoadEntry(B, banker_pair=True, player_pair=True, natural=True),
        RoadEntry(P, player_pair=True),
        RoadEntry(T, banker_pair=True),
    )


@pytest.mark.parametrize("text", ["BX", "^B", "B 1"])
def test_parse_entries_refuses_bad_text_ROADMAPS(text: str) -> None:
    with pytest.raises(ParseError):
        parse_entries(text)


def test_from_results_accepts_duck_typed_round_results_ROADMAPS() -> None:
    @dataclass
    class FakeResult:  # what the tableau's RoundResult looks like to the roads
        winner: Side
        banker_pair: bool
        player_pair: bool

    @dataclass
    class WithNatural(FakeResult):
        natural: bool

    got = from_results([FakeResult(B, True, False), WithNatural(T, False, True, True), P])
    assert got == (
        RoadEntry(B, banker_pair=True),
        RoadEntry(T, player_pair=True, natural=True),
        RoadEntry(P),
    )


def test_from_results_refuses_and_names_the_bad_result_ROADMAPS() -> None:
    @dataclass
    class Bad:
        winner: str
        banker_pair: bool
        player_pair: bool

    with pytest.raises(RoadError, match="#1"):
        from_results([B, Bad("banker", False, False)])
    with pytest.raises(RoadError, match="#0"):
        from_results([object()])
    with pytest.raises(RoadError, match="banker_pair"):
        RoadEntry(B, banker_pair=1)  # type: ignore[arg-type]


def test_road_refusals_carry_keys_and_chinese_ROADMAPS() -> None:
    with pytest.raises(RoadError) as exc:
        from_results([B, object()])
    assert exc.value.key == "shoe.road_result_no_attributes" and exc.value.params["index"] == 1
    with pytest.raises(RoadError) as exc:
        RoadEntry("banker")  # type: ignore[arg-type]
    assert exc.value.key == "shoe.road_bad_winner" and "勝方" in exc.value.text("zh-Hant")
    with pytest.raises(ParseError) as exc2:
        parse_entries("B Z")
    err = exc2.value
    assert err.key == "shoe.road_unexpected_character" and err.params["position"] == 2
    assert "unexpected character 'Z' at position 2" in err.message
    with pytest.raises(ParseError) as exc2:
        parse_entries(["B"])  # type: ignore[arg-type]
    assert exc2.value.key == "shoe.road_text_not_str"
    with pytest.raises(ConfigError) as exc3:
        derived_road("BP", 4)
    assert exc3.value.key == "shoe.road_bad_kind" and "曱甴路" in exc3.value.text("zh-Hant")
    with pytest.raises(RoadError) as exc:
        predict("BP", T, 1)
    assert exc.value.key == "shoe.road_ask_side" and "問路" in exc.value.text("zh-Hant")


def test_from_results_refuses_what_raises_on_access_ROADMAPS() -> None:
    class Raises:
        @property
        def winner(self) -> Side:
            raise RuntimeError("broken")

    with pytest.raises(RoadError) as exc:
        from_results([Raises()])
    assert exc.value.params["index"] == 0


def test_rendering_lives_apart_and_stays_importable_from_roads_ROADMAPS() -> None:
    from macau_tables.baccarat import roads, roads_text

    for name in roads_text.__all__:
        if name.startswith("render_"):
            assert getattr(roads, name) is getattr(roads_text, name)
            assert name in roads.__all__
    # computation modules draw no text
    from macau_tables.baccarat import roads_base, roads_derived

    for module in (roads, roads_base, roads_derived):
        assert not any(
            getattr(v, "__module__", None) == module.__name__ and k.startswith("render")
            for k, v in vars(module).items()
        )
    with pytest.raises(AttributeError):
        roads.render_everything  # noqa: B018


def test_rows_and_kind_are_validated_ROADMAPS() -> None:
    with pytest.raises(ConfigError):
        bead_plate("BP", rows=0)
    with pytest.raises(ConfigError):
        draw_columns([[1]], rows=True)
    with pytest.raises(ConfigError):
        derived_road("BP", 4)
    with pytest.raises(RoadError):
        predict("BP", T, 1)
    with pytest.raises(ConfigError):
        render_derived_road("BP")


# ---------------------------------------------------------------------------------------------
# Bead plate
# ---------------------------------------------------------------------------------------------


def test_bead_plate_fills_down_six_rows_then_next_column_ROADMAPS() -> None:
    cells = bead_plate("BPTBBPPT")
    assert [(c.col, c.row, c.outcome) for c in cells] == [
        (0, 0, B),
        (0, 1, P),
        (0, 2, T),
        (0, 3, B),
        (0, 4, B),
        (0, 5, P),
        (1, 0, P),
        (1, 1, T),
    ]
    assert render_bead_plate("BPTBBPPT") == lines("B P", "P T", "T .", "B .", "B .", "P .")


def test_bead_plate_pair_marks_ROADMAPS() -> None:
    """Banker pair '^' before the letter (red dot top-left), player pair '_' after it (blue dot
    bottom-right); rows=2 so the layout is visible."""
    cells = bead_plate("B^_ P_ T^", rows=2)
    assert [(c.col, c.row, c.banker_pair, c.player_pair) for c in cells] == [
        (0, 0, True, True),
        (0, 1, False, True),
        (1, 0, True, False),
    ]
    assert render_bead_plate("B^_ P_ T^", rows=2) == lines("^B_ ^T", " P_  .")


# ---------------------------------------------------------------------------------------------
# Big road
# ---------------------------------------------------------------------------------------------


def test_big_road_ties_at_the_very_start_attach_to_the_first_cell_ROADMAPS() -> None:
    road = big_road("TTBTPT")
    assert road.leading_ties == 2
    assert road.entries == (
        BigRoadEntry(2, B, 0, 0, ties=1, leading_ties=2),
        BigRoadEntry(4, P, 1, 0, ties=1),
    )
    assert road.entries[0].tie_count == 3
    assert road.tie_total == 4
    assert render_big_road("TTBTPT") == "B/3 P/"


def test_big_road_only_ties_so_far_ROADMAPS() -> None:
    road = big_road("TTT")
    assert road.entries == () and road.leading_ties == 3
    assert render_big_road("TTT") == "(no decision yet; 3 tie(s) waiting for the first cell)"


def test_big_road_ties_in_the_middle_ROADMAPS() -> None:
    # B, tie, tie, B (same column, one down), P (new column), tie, B (new column).
    road = big_road("BTTBPTB")
    assert [(e.winner, e.column, e.row, e.ties) for e in road.entries] == [
        (B, 0, 0, 2),
        (B, 0, 1, 0),
        (P, 1, 0, 1),
        (B, 2, 0, 0),
    ]
    assert road.lengths == (2, 1, 1)
    assert render_big_road("BTTBPTB") == lines("B/2 P/ B", "B   .  .")


def test_big_road_cells_carry_their_rounds_pair_marks_ROADMAPS() -> None:
    """SPEC: outcomes come "with banker pair / player pair marks"; issue: the big road "with
    ties, pairs and the dragon tail". A cell shows its own round's pairs like the bead plate
    (^ banker pair before, _ player pair after), then the tie slash; a tie's pairs stay on the
    bead plate."""
    assert render_big_road("B^ P_ T P B^_") == lines("^B  P_/ ^B_", " .  P    .")
    assert render_big_road("B_ T^_ P") == lines("B_/ P")  # the tied round's pairs: bead plate
    assert render_big_road("BBP") == lines("B P", "B .")  # no pair: no pair slot
    assert render_big_road("B^ P", markup=True) == "[red]^[/red][red]B[/red]  [blue]P[/blue]"


def test_big_road_long_banker_streak_turns_the_dragon_tail_ROADMAPS() -> None:
    # Nine bankers: rows 1-6 of column 1, then right along row 6 for three more cells.
    road = big_road("B" * 9 + "PPP" + "B")
    assert road.lengths == (9, 3, 1)  # logical: the streak is ONE column of length 9
    assert [(e.column, e.row) for e in road.columns[0]] == [(0, r) for r in range(9)]
    grid = big_road_grid(road)
    assert [(p.col, p.row) for p in grid[:9]] == [
        (0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5), (2, 5), (3, 5),
    ]  # fmt: skip
    assert render_big_road(road) == lines(
        "B P B .",
        "B P . .",
        "B P . .",
        "B . . .",
        "B . . .",
        "B B B B",
    )


def test_big_road_streak_meeting_an_occupied_cell_turns_right_ROADMAPS() -> None:
    # B x8: column 0 rows 0-5, tail (1,5) (2,5).  P x7 starts at column 1, goes down to row 4,
    # meets the tail at (1,5), turns right along row 4: (2,4) (3,4).  B x5 starts at column 2,
    # rows 0-3, meets (2,4), turns right: (3,3).
    text = "B" * 8 + "P" * 7 + "B" * 5
    grid = big_road_grid(text)
    assert [(p.col, p.row) for p in grid[8:15]] == [
        (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4),
    ]  # fmt: skip
    assert [(p.col, p.row) for p in grid[15:]] == [(2, 0), (2, 1), (2, 2), (2, 3), (3, 3)]
    assert render_big_road(text) == lines(
        "B P B .",
        "B P B .",
        "B P B .",
        "B P B B",
        "B P P P",
        "B B B .",
    )


def test_big_road_new_column_skips_a_top_cell_taken_by_a_tail_ROADMAPS() -> None:
    # rows=3.  B x4: (0,0) (0,1) (0,2) tail (1,2).  P x3: (1,0) (1,1), (1,2) taken -> (2,1).
    # B x2: (2,0), (2,1) taken -> (3,0).  P: column 3's top is taken by that tail -> (4,0).
    text = "BBBBPPPBBP"
    grid = big_road_grid(text, rows=3)
    assert [(p.col, p.row) for p in grid] == [
        (0, 0), (0, 1), (0, 2), (1, 2),
        (1, 0), (1, 1), (2, 1),
        (2, 0), (3, 0),
        (4, 0),
    ]  # fmt: skip
    assert render_big_road(text, rows=3) == lines("B P B B P", "B P P . .", "B B . . .")


def test_draw_columns_is_generic_and_keeps_item_order_ROADMAPS() -> None:
    assert draw_columns([["a", "b"], ["c"]], rows=1) == (
        Placed(0, 0, "a"),
        Placed(1, 0, "b"),
        Placed(2, 0, "c"),
    )


# ---------------------------------------------------------------------------------------------
# Derived roads
# ---------------------------------------------------------------------------------------------

# S1: big road lengths L(1..7) = 3, 1, 2, 2, 1, 4, 1.
S1 = "BBB P BB PP B PPPP B"


def test_big_eye_boy_starts_at_column_3_row_1_when_column_2_row_2_never_fills_ROADMAPS() -> None:
    """k=1; column 2 has one cell, so the first mark is for column 3 row 1.

    (3,1) L2=1 vs L1=3 B | (3,2) L2=1=r-1 B | (4,1) L3=2 vs L2=1 B | (4,2) L3=2!=1 R |
    (5,1) L4=2=L3 R | (6,1) L5=1 vs L4=2 B | (6,2) L5=1=1 B | (6,3) L5=1<2 R (straight drop) |
    (6,4) R | (7,1) L6=4 vs L5=1 B.
    """
    road = big_eye_boy(S1)
    assert road.colours == colours("BBBRRBBRRB")
    assert (road.marks[0].source_column, road.marks[0].source_row) == (2, 0)
    assert render_derived_road(road) == lines("Bo Ro Bo Ro Bo", "Bo Ro Bo Ro .", "Bo .  .  .  .")


def test_small_road_starts_at_column_3_row_2_ROADMAPS() -> None:
    """k=2; column 3 reaches row 2, so the first mark is for column 3 row 2.

    (3,2) L1=3!=1 R | (4,1) L3=2 vs L1=3 B | (4,2) L2=1=1 B | (5,1) L4=2 vs L2=1 B |
    (6,1) L5=1 vs L3=2 B | (6,2) L4=2!=1 R | (6,3) L4=2=2 B | (6,4) L4=2!=3 R |
    (7,1) L6=4 vs L4=2 B.
    """
    road = small_road(S1)
    assert road.colours == colours("RBBBBRBRB")
    assert (road.marks[0].source_column, road.marks[0].source_row) == (2, 1)
    assert render_derived_road(road) == lines(
        "R* B* R* B* R* B*",
        ".  B* .  .  .  .",
        ".  B* .  .  .  .",
        ".  B* .  .  .  .",
    )


def test_cockroach_road_starts_at_column_4_row_2_ROADMAPS() -> None:
    """k=3; column 4 reaches row 2.

    (4,2) L1=3!=1 R | (5,1) L4=2 vs L1=3 B | (6,1) L5=1=L2 R | (6,2) L3=2!=1 R |
    (6,3) L3=2=2 B | (6,4) L3=2!=3 R | (7,1) L6=4 vs L3=2 B.
    """
    road = cockroach_road(S1)
    assert road.colours == colours("RBRRBRB")
    assert (road.marks[0].source_column, road.marks[0].source_row) == (3, 1)
    assert render_derived_road(road) == lines("R/ B/ R/ B/ R/ B/", ".  .  R/ .  .  .")


# S2: big road lengths 2, 2, 1, 1, 3.
S2 = "BB PP B P BBB"


def test_derived_road_starts_for_S2_all_three_k_ROADMAPS() -> None:
    """k=1 starts at column 2 row 2; k=2 at column 4 row 1 (column 3 never reaches row 2);
    k=3 at column 5 row 1 (column 4 never reaches row 2).

    k=1: (2,2) L1=2!=1 R | (3,1) L2=L1=2 R | (4,1) L3=1 vs L2=2 B | (5,1) L4=L3=1 R |
         (5,2) L4=1=1 B | (5,3) L4=1<2 R.
    k=2: (4,1) L3=1 vs L1=2 B | (5,1) L4=1 vs L2=2 B | (5,2) L3=1=1 B | (5,3) L3=1<2 R.
    k=3: (5,1) L4=1 vs L1=2 B | (5,2) L2=2!=1 R | (5,3) L2=2=2 B.
    """
    first = {}
    for kind, expected in zip(DerivedRoadKind, ["RRBRBR", "BBBR", "BRB"], strict=True):
        road = derived_road(S2, kind)
        assert road.colours == colours(expected), kind
        first[kind.k] = (road.marks[0].source_column, road.marks[0].source_row)
    assert first == {1: (1, 1), 2: (3, 0), 3: (4, 0)}
    assert [[m.colour for m in col] for col in big_eye_boy(S2).columns] == [
        [R, R],
        [BL],
        [R],
        [BL],
        [R],
    ]


def test_straight_drop_is_red_ROADMAPS() -> None:
    """Lengths 1, 1, 4.  k=1: (3,1) L2=L1 R | (3,2) L2=1=1 B | (3,3) L2=1<2 R | (3,4) R.
    k=2: (3,2) L1=1=1 B | (3,3) R | (3,4) R.  The red marks at rows 3 and 4 are 直落."""
    assert big_eye_boy("PBPPPP").colours == colours("RBRR")
    assert small_road("PBPPPP").colours == colours("BRR")
    assert cockroach_road("PBPPPP").colours == ()
    # The rule on its own: column c-k (length 1) shorter than r-1 (3 - 1 = 2) -> red.
    assert derived_colour([1, 1], 2, 2, 1) is R
    assert derived_colour([1, 1], 2, 1, 1) is BL


def test_derived_colour_before_the_start_is_none_ROADMAPS() -> None:
    assert derived_colour([], 0, 5, 1) is None
    assert derived_colour([3], 1, 0, 1) is None  # column k+1 row 1 never gets a mark
    assert derived_colour([3], 1, 1, 1) is R  # column k+1 row 2: L1 = 3 != r-1 = 1
    assert derived_colour([1], 1, 1, 1) is BL  # column k+1 row 2: L1 = 1 = r-1
    with pytest.raises(RoadError):
        derived_colour([3], 2, 0, 1)  # lengths of two columns needed


def test_derived_road_dragon_tail_ROADMAPS() -> None:
    """Single-cell columns throughout: every mark is red (L(c-1) = L(c-1-k) = 1).
    Ten entries: k=1 marks from column 3 -> 8 reds, drawn down 6 then right 2."""
    road = big_eye_boy("BP" * 5)
    assert road.colours == colours("R" * 8)
    assert render_derived_road(road) == lines(
        "Ro .  .",
        "Ro .  .",
        "Ro .  .",
        "Ro .  .",
        "Ro .  .",
        "Ro Ro Ro",
    )
    assert small_road("BP" * 5).colours == colours("R" * 7)
    assert cockroach_road("BP" * 5).colours == colours("R" * 6)


def test_ties_do_not_change_derived_roads_ROADMAPS() -> None:
    with_ties = "TBBTBPTBBPPTBPPPPTB"
    for kind in DerivedRoadKind:
        assert derived_road(with_ties, kind).colours == derived_road(S1, kind).colours


# ---------------------------------------------------------------------------------------------
# Ask road
# ---------------------------------------------------------------------------------------------


def test_ask_road_S1_ROADMAPS() -> None:
    """S1 ends with B at column 7 row 1 (lengths 3,1,2,2,1,4,1).
    Banker next -> (7,2): k=1 L6=4!=1 R; k=2 L5=1=1 B; k=3 L4=2!=1 R.
    Player next -> (8,1): k=1 L7=1 vs L6=4 B; k=2 L7=1=L5 R; k=3 L7=1 vs L4=2 B."""
    assert ask_road(S1) == AskRoad(AskMarks(R, BL, R), AskMarks(BL, R, BL))
    assert render_ask_road(S1) == lines(
        "if Banker: big eye boy Ro  small road B*  cockroach road R/",
        "if Player: big eye boy Bo  small road R*  cockroach road B/",
    )


def test_ask_road_none_before_the_roads_start_ROADMAPS() -> None:
    """'BBP': lengths 2, 1.  Banker next -> (3,1): k=1 L2=1 vs L1=2 B; k=2 is column k+1
    row 1: no mark; k=3 no mark.  Player next -> (2,2): k=1 L1=2!=1 R; k=2, k=3 no mark."""
    assert ask_road("") == AskRoad(AskMarks(None, None, None), AskMarks(None, None, None))
    assert ask_road("TTB") == AskRoad(AskMarks(None, None, None), AskMarks(None, None, None))
    assert ask_road("BBP") == AskRoad(AskMarks(BL, None, None), AskMarks(R, None, None))
    assert render_ask_road("BBP") == lines(
        "if Banker: big eye boy Bo  small road --  cockroach road --",
        "if Player: big eye boy Ro  small road --  cockroach road --",
    )


def test_ask_road_prediction_is_what_the_next_round_adds_ROADMAPS() -> None:
    for winner in (B, P):
        after = S1 + winner.letter
        for kind in DerivedRoadKind:
            assert derived_road(after, kind).colours[-1] is predict(S1, winner, kind)


# ---------------------------------------------------------------------------------------------
# Everything together
# ---------------------------------------------------------------------------------------------


def test_render_all_sections_ROADMAPS() -> None:
    text = render_all("TBPB")
    assert text == lines(
        "Bead plate (珠盤路)",
        "T",
        "B",
        "P",
        "B",
        "",
        "Big road (大路)",
        "B/ P B",
        "",
        "Big eye boy (大眼仔)",
        "Ro",
        "",
        "Small road (小路)",
        "(empty)",
        "",
        "Cockroach road (曱甴路)",
        "(empty)",
        "",
        "Ask road (問路)",
        "if Banker: big eye boy Bo  small road B*  cockroach road --",
        "if Player: big eye boy Ro  small road R*  cockroach road --",
        "",
    )


def test_build_roadmaps_matches_the_single_road_functions_ROADMAPS() -> None:
    maps = build_roadmaps(S1)
    assert maps.bead_plate == bead_plate(S1)
    assert maps.big_road == big_road(S1)
    assert maps.derived == tuple(derived_road(S1, kind) for kind in DerivedRoadKind)
    assert maps.ask == ask_road(S1)


def _results(letters: str) -> list[RoadEntry]:
    side = {"B": Side.BANKER, "P": Side.PLAYER, "T": Side.TIE}
    return [RoadEntry(side[x], False, False, False) for x in letters]


@pytest.mark.parametrize(
    ("letters", "banker", "player"),
    [
        ("", (0, 0), (0, 0)),
        ("TT", (0, 0), (0, 0)),  # ties alone make no run
        ("TBBTB", (3, 3), (0, 0)),  # a tie neither breaks nor lengthens a run
        ("BBBPPT", (0, 3), (2, 2)),
        ("PBBBBPPPT", (0, 4), (3, 3)),
    ],
)
def test_the_shoe_statistics_count_runs_as_the_big_road_does(
    letters: str, banker: tuple[int, int], player: tuple[int, int]
) -> None:
    stats = shoe_statistics(_results(letters))
    assert (stats["streaks"]["banker"]["current"], stats["streaks"]["banker"]["longest"]) == banker
    assert (stats["streaks"]["player"]["current"], stats["streaks"]["player"]["longest"]) == player
    assert stats["last"] == list(letters)


def test_the_shoe_statistics_list_the_last_60_results_and_no_card() -> None:
    letters = "BP" * 40 + "T"
    stats = shoe_statistics(_results(letters))
    assert stats["last"] == list(letters[-LAST_RESULTS:]) and LAST_RESULTS == 60
    assert set(stats) == {"streaks", "last"}  # results only: never the cards left in the shoe
