"""``macau-tables demo baccarat``: a seeded demonstration shoe, printed for people.

The demo is never a live table (SeededRandom); its output is readable (cards as ``A♠ 10♥``,
totals, winner, every wager with its outcome and amounts, the jackpot, the shoe commitment and
its verified reveal), has no dataclass reprs, and is the same for the same seed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from typer.testing import CliRunner

from macau_tables.baccarat.round import BaccaratRound
from macau_tables.cli.app import app
from macau_tables.cli.baccarat_demo import describe, play_demo_shoe
from macau_tables.rng import verify_commitment

_CARD = r"(?:[2-9]|10|[JQKA])[♠♥♦♣]"
_REPR = re.compile(r"\b[A-Z][A-Za-z]+\(|<[A-Za-z.]+: |=")


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, ["demo", "baccarat", *args])


def test_prints_readable_rounds_BAC_7_BAC_9_BAC_11() -> None:
    result = _run("--seed", "2")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "SeededRandom (demo only, never a live table)" in out
    assert re.search(r"shoe commitment \(SHA-256\) [0-9a-f]{64}\n", out)
    rounds = re.findall(r"^round demo-2-(\d+)$", out, re.M)
    assert rounds == ["1", "2", "3"]
    hands = re.findall(rf"^  (player|banker) +((?:{_CARD} ?){{2,3}}) +total (\d)", out, re.M)
    assert len(hands) == 6
    assert re.search(r"^  (banker wins|player wins|tie)( \(natural\))?$", out, re.M)
    # Every wager: who, where, what, stake, outcome, paid (amounts in major units).
    wagers = re.findall(
        r"^    player\d +seat \d +[a-z ]+ +stake +[\d,]+\.\d\d +(won|lost|returned|carried over)"
        r" +paid +[\d,]+\.\d\d",
        out,
        re.M,
    )
    assert len(wagers) >= 3 * 3
    assert "matches the commitment published before the first card: True" in out
    assert not _REPR.search(out), _REPR.search(out)


def test_same_seed_same_output_other_seed_differs() -> None:
    first, again, other = _run("--seed", "5"), _run("--seed", "5"), _run("--seed", "6")
    assert first.exit_code == again.exit_code == other.exit_code == 0
    assert first.stdout == again.stdout
    assert first.stdout != other.stdout


def test_players_and_rounds_options() -> None:
    result = _run("--seed", "1", "--players", "7", "--rounds", "5")
    assert result.exit_code == 0, result.output
    assert len(re.findall(r"^round demo-1-\d$", result.stdout, re.M)) == 5
    assert "player7" in result.stdout
    for bad in (["--players", "0"], ["--players", "8"], ["--rounds", "0"], ["--rounds", "11"]):
        refused = _run(*bad)
        assert refused.exit_code == 2, refused.output


def test_rounds_balance_replay_and_follow_the_shoe_BAC_12_BAC_17() -> None:
    """Each demo round is settled, balanced and rebuilt by replay; a tie's banker and player
    wagers are carried into the next round (BAC-12); the shoe's reveal verifies."""
    saw_tie = False
    for seed in range(1, 15):
        demo = play_demo_shoe(seed, players=7, rounds=10)
        for r, nxt in zip(demo.rounds, demo.rounds[1:], strict=False):
            assert r.settlement is not None and r.settlement.balance == 0
            assert BaccaratRound.replay(r.events) == r
            carried = r.carried_out()
            if carried:
                saw_tie = True
                assert {w.player for w in carried} <= {w.player for w in nxt.wagers if w.carried}
        reveal = demo.order.reveal
        assert verify_commitment(demo.shoe.commitment or "", reveal.order, reveal.salt)
        if saw_tie:
            break
    assert saw_tie
    assert describe(play_demo_shoe(3)) == describe(play_demo_shoe(3))


def test_bad_arguments_refused() -> None:
    with pytest.raises(ValueError):
        play_demo_shoe(1, players=8)
    with pytest.raises(ValueError):
        play_demo_shoe(1, rounds=0)
