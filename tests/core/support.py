"""Helpers shared by the tests of tests/core (no tests here; test files import them from this
module, never from one another)."""

from __future__ import annotations

from hypothesis import strategies as st

from macau_tables.rounds import Outcome, WagerResult


@st.composite
def wager_results(draw: st.DrawFn, amounts: st.SearchStrategy[int] | None = None) -> WagerResult:
    """A balanced wager result; ``amounts``: where every money field is drawn from (default:
    a few thousand, commission, meter and carried a few hundred)."""

    def up_to(high: int) -> int:
        return draw(amounts if amounts is not None else st.integers(0, high))

    stake = up_to(10_000)
    award_meter, award_house = up_to(5_000), up_to(5_000)
    commission, meter, carried = (up_to(500) for _ in range(3))
    paid = up_to(20_000)
    house = stake + award_meter + award_house - paid - commission - meter - carried
    return WagerResult(
        draw(st.sampled_from(["p1", "p2", "p3"])),
        "box 1",
        draw(st.sampled_from(["ante", "banker", "jackpot"])),
        stake,
        draw(st.sampled_from(Outcome)),
        paid=paid,
        commission=commission,
        house=house,
        meter=meter,
        carried=carried,
        award_from_meter=award_meter,
        award_from_house=award_house,
        carried_in=draw(st.booleans()),
    )
