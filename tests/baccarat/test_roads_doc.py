"""docs/roadmaps.md stays true (SPEC section "Baccarat roadmaps"): its examples are doctests,
and its sample-shoe section is exactly what docs/examples/render_roads.py generates."""

from __future__ import annotations

import doctest
import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "roadmaps.md"
SCRIPT = ROOT / "docs" / "examples" / "render_roads.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("render_roads", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_roadmaps_doc_examples_are_true_ROADMAPS() -> None:
    result = doctest.testfile(str(DOC), module_relative=False, verbose=False, report=True)
    assert result.attempted >= 20
    assert result.failed == 0


def test_roadmaps_doc_sample_shoe_is_up_to_date_ROADMAPS() -> None:
    script = load_script()
    text = DOC.read_text("utf-8")
    assert script.replace_section(text, script.generate()) == text, (
        "docs/roadmaps.md is stale: run "
        ".venv/bin/python docs/examples/render_roads.py --write docs/roadmaps.md"
    )


def test_sample_shoe_has_seventy_rounds_and_a_dragon_tail_ROADMAPS() -> None:
    from macau_tables.baccarat.roads import big_road, from_results

    rounds = load_script().sample_rounds()
    assert len(rounds) == 70
    assert max(big_road(from_results(rounds)).lengths) > 6
