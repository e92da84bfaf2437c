"""The README's library example runs and says what it claims."""

from __future__ import annotations

import re
from pathlib import Path

from macau_tables.baccarat.sides import Side
from macau_tables.caribbean.hands import HandCategory

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_example_runs_and_is_right(capsys: object) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "README has no python example"
    ns: dict[str, object] = {}
    exec(compile(blocks[0], str(README), "exec"), ns)
    evaluate, compare = ns["evaluate"], ns["compare"]
    player, dealer = ns["player"], ns["dealer"]
    assert evaluate(player).category is HandCategory.ONE_PAIR  # type: ignore[operator]
    assert compare(player, dealer) == -1  # type: ignore[operator]
    result = ns["result"]
    assert (result.winner, result.player_total, result.banker_total, result.cards_used) == (  # type: ignore[attr-defined]
        Side.BANKER,
        5,
        7,
        5,
    )


def test_readme_shows_the_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make serve" in text and "make test" in text
