"""The README's library example runs and says what it claims."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

from macau_tables.baccarat.sides import Side
from macau_tables.caribbean.hands import HandCategory

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_example_runs_and_is_right() -> None:
    """The README's library example prints what it says it prints (run as a doctest)."""
    blocks = re.findall(r"```pycon\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "README has no pycon example"
    test = doctest.DocTestParser().get_doctest(blocks[0], {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, clear_globs=False)
    assert runner.summarize(verbose=False).failed == 0, "a README example prints otherwise"
    ns = test.globs
    evaluate, compare = ns["evaluate"], ns["compare"]
    player, dealer = ns["player"], ns["dealer"]
    assert evaluate(player).category is HandCategory.ONE_PAIR
    assert compare(player, dealer) == -1
    result = ns["result"]
    _run_remaining_blocks()
    assert (result.winner, result.player_total, result.banker_total, result.cards_used) == (
        Side.BANKER,
        5,
        7,
        5,
    )


def _run_remaining_blocks() -> None:
    blocks = re.findall(r"```pycon\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2, "README shows the round contract in a second pycon block"
    for i, block in enumerate(blocks[1:], start=2):
        test = doctest.DocTestParser().get_doctest(block, {}, f"README-{i}", str(README), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.summarize(verbose=False).failed == 0, f"README example {i} prints otherwise"


def test_readme_shows_the_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make serve" in text and "make test" in text
