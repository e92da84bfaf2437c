"""bench/evaluator.py keeps working, and our standard ranking orders hands exactly as treys does
(an outside check of CSP-4/CSP-8's category order and kickers). No timing is asserted."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tests.support import require_module

# eval7 imports pyparsing with deprecated names: not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

BENCH = Path(__file__).resolve().parents[2] / "bench" / "evaluator.py"


def load_bench() -> ModuleType:
    for name in ("eval7", "phevaluator", "treys"):
        require_module(name)
    spec = importlib.util.spec_from_file_location("bench_evaluator", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_standard_ranking_orders_hands_as_treys_CSP_4_CSP_8() -> None:
    bench = load_bench()
    treys = require_module("treys")
    arr = bench.random_hands(10_000, seed=8)
    names = [[str(bench.DECK[i]) for i in row] for row in arr.tolist()]
    hands = [
        ([treys.Card.new(s) for s in r[:2]], [treys.Card.new(s) for s in r[2:]]) for r in names
    ]
    bench.check_against_treys(arr, hands)  # raises SystemExit on any disagreement
    # The check can fail: a wrong order (here: reversed) is caught.
    with pytest.raises(SystemExit, match="MISMATCH"):
        bench.check_against_treys(arr, hands[::-1])


def test_random_hands_are_valid_deals() -> None:
    bench = load_bench()
    arr = bench.random_hands(5_000, seed=1)
    assert arr.shape == (5_000, 5) and arr.dtype == np.uint8
    assert arr.max() <= 51
    assert all(len(set(row)) == 5 for row in arr.tolist())


def test_benchmark_script_runs(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_bench()
    bench.main(["--hands", "2000", "--repeat", "1"])  # exit status depends on timing: ignored
    out = capsys.readouterr().out
    for name in ("eval7", "phevaluator", "treys", "evaluate_many", "evaluate / treys"):
        assert name in out
    assert "orders every hand exactly as treys" in out
