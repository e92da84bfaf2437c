"""``macau-tables analyze caribbean-stud`` and ``simulate caribbean-stud`` (CSP-9.5, CSP-10).

Bad options exit with code 2 before any work (the analysis is replaced by a trap here); a
Ctrl-C exits 130 without results; every format renders; the JSON keys outside checks read exist.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from typer.testing import CliRunner

import macau_tables.cli.caribbean_analysis as commands
from macau_tables.analysis.caribbean_exact import CaribbeanAnalysis
from macau_tables.analysis.caribbean_sheet import ak_strategy_table
from macau_tables.cli.app import app

JSON_KEYS = (
    "house_edge",
    "element_of_risk",
    "raise_probability",
    "dealer_qualifies_probability",
    "total_combinations",
    "outcomes",
)


@pytest.fixture
def exact(macau_par: CaribbeanAnalysis) -> CaribbeanAnalysis:
    """The PAR sheet's analysis (``analyze(par_rules())``: Macau ranking, royal 100:1), shared
    with the other analysis tests (tests/analysis/conftest.py)."""
    return macau_par


@pytest.fixture
def cached(monkeypatch: pytest.MonkeyPatch, exact: CaribbeanAnalysis) -> None:
    def cached_analysis(rules: Any, ranking: str, cap: int | None, threads: int = 2) -> Any:
        # The cached analysis with the rules (jackpot settings) the command asked for.
        return replace(exact, rules=rules)

    monkeypatch.setattr(commands, "run_analysis", cached_analysis)


@pytest.fixture
def trap(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("work started despite a bad option")

    monkeypatch.setattr(commands, "run_analysis", refuse)


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--royal-odds", "49"], "--royal-odds"),
        (["--royal-odds", "101"], "--royal-odds"),
        (["--award-royal", "-1"], "--award-royal"),
        (["--award-flush", "-5"], "--award-flush"),
        (["--meter", "-1"], "--meter"),
        (["--jackpot-wager", "0"], "--jackpot-wager"),
        (["--contribution", "1.5"], "--contribution"),
        (["--contribution", "abc"], "--contribution"),
        (["--format", "pdf"], "--format"),
        (["--ranking", "poker"], "--ranking"),
        (["--max-payout-units", "0"], "--max-payout-units"),
        (["-o", "/nonexistent-folder/par.html"], "--output"),
        (["-o", "."], "--output"),
        (["--lang", "fr"], "--lang"),
    ],
)
def test_bad_options_exit_2_before_work_CSP_9_5(trap: None, args: list[str], named: str) -> None:
    """Bad input (CSP-9.5 odds 50..100, CSP-10 amounts) is refused with a message naming it."""
    result = _run("analyze", "caribbean-stud", *args)
    assert result.exit_code == 2, result.output
    assert named in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--rounds", "0"],
        ["--rounds", str(10**23)],
        ["--seed", "-1"],
        ["--format", "xml"],
        ["--royal-odds", "49"],
        ["-o", "/nonexistent-folder/sim.json"],
        ["--lang", "zh"],
    ],
)
def test_bad_simulation_options_exit_2(trap: None, args: list[str]) -> None:
    result = _run("simulate", "caribbean-stud", *args)
    assert result.exit_code == 2, result.output


def test_interrupt_gives_no_results(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_: Any, **__: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "run_analysis", interrupted)
    result = _run("analyze", "caribbean-stud")
    assert result.exit_code == 130
    assert "interrupted: no results" in result.output
    assert "House edge" not in result.output


def test_simulation_interrupt_gives_no_results(
    cached: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import macau_tables.analysis.caribbean_sim as sim

    def interrupted(*_: Any, **__: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(sim, "simulate", interrupted)
    result = _run("simulate", "caribbean-stud", "--rounds", "1000")
    assert result.exit_code == 130
    assert "interrupted: no results" in result.output
    assert "Mean win" not in result.output


def test_the_cap_reaches_the_analysis_and_the_sheet_CSP_9_5(
    monkeypatch: pytest.MonkeyPatch, exact: CaribbeanAnalysis
) -> None:
    """``--max-payout-units`` is the exact analysis's cap (through the command's progress bar)
    and the sheet's. The capped sweep itself runs in ``make test-slow``
    (:func:`test_capped_paytable_CSP_9_5`): the cap only changes the raise's win per category
    that the sweep reads (``raise_win_units``, checked with a cap in test_caribbean_exact.py,
    as is an outcome line's units following it: the royal flush at 50:1 and 100:1)."""
    asked: list[dict[str, Any]] = []

    def spy(rules: Any, **options: Any) -> CaribbeanAnalysis:
        asked.append(options)
        return replace(exact, rules=rules, max_payout_units=options["max_payout_units"])

    monkeypatch.setattr(commands, "analyze", spy)
    result = _run("analyze", "caribbean-stud", "--max-payout-units", "60", "--format", "json")
    assert result.exit_code == 0, result.output
    assert [(a["max_payout_units"], a["ranking"]) for a in asked] == [(60, "macau")]
    assert json.loads(result.stdout)["max_payout_units"] == 60


@pytest.mark.slow
def test_capped_paytable_CSP_9_5() -> None:
    """--max-payout-units caps the raise's win of four of a kind, straight flush, royal (a
    whole sweep with the cap; in ``make test``: the test above)."""
    result = _run("analyze", "caribbean-stud", "--max-payout-units", "60", "--format", "json")
    assert result.exit_code == 0, result.output
    units = {o["event"]: o["units"] for o in json.loads(result.stdout)["outcomes"]}
    assert units["player wins with royal flush"] == 61
    assert units["player wins with straight flush"] == 61
    assert units["player wins with four of a kind"] == 41  # 20:1 x 2 = 40 < 60
    assert units["player wins with full house"] == 15


def test_json_keys_and_values_CSP_9(cached: None, exact: CaribbeanAnalysis) -> None:
    result = _run("analyze", "caribbean-stud", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in JSON_KEYS:
        assert key in data
    assert data["total_combinations"] == 19_933_230_517_200
    assert data["house_edge"] == pytest.approx(0.0522410736, abs=1e-10)
    assert sum(o["combinations"] for o in data["outcomes"]) == data["total_combinations"]
    for outcome in data["outcomes"]:
        assert set(outcome) >= {"event", "units", "combinations", "probability"}
    assert data["jackpot"]["break_even_meter"] > 0
    # Exact counts beside the probabilities (CSP-9.1 qualification, CSP-10 jackpot).
    assert data["raised_combinations"] == data["total_combinations"] - next(
        o["combinations"] for o in data["outcomes"] if o["event"] == "fold"
    )
    assert data["dealer_qualifies_raised_combinations"] / data["raised_combinations"] == (
        pytest.approx(data["dealer_qualifies_given_raise_probability"])
    )
    assert data["dealer_qualifies_combinations"] / data["total_combinations"] == pytest.approx(
        data["dealer_qualifies_probability"]
    )
    assert data["jackpot"]["counts"]["royal_flush"] == 4 * 47  # every royal is raised
    # The readable strategy and the jackpot return against the meter are in the JSON too.
    assert data["ak_strategy"][0] == {
        "hand": "A K Q J 9",
        "up_card": dict.fromkeys("23456789TJQKA", "R"),
    }
    curve = data["jackpot"]["return_by_meter"]
    assert [p["meter"] for p in curve] == sorted(p["meter"] for p in curve)
    assert any(p["meter"] == data["jackpot"]["break_even_meter"] for p in curve)


@pytest.mark.slow
def test_full_json_run_standard_ranking_CSP_9() -> None:
    """The real command end to end: the published standard figure (a second exhaustive sweep
    under the standard ranking: ``make test`` checks the figure on the session's analysis,
    test_caribbean_exact.py, and runs the real command in test_capped_paytable_CSP_9_5)."""
    result = _run("analyze", "caribbean-stud", "--ranking", "standard", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    loss = -sum(o["units"] * o["combinations"] for o in data["outcomes"])
    assert loss == 1_041_372_912_372
    assert data["house_edge_exact"] == "142031221/2718662100"


def test_text_csv_html_render(cached: None, tmp_path: Any) -> None:
    text = _run("analyze", "caribbean-stud", "--meter", "500000", "--award-flush", "5000")
    assert text.exit_code == 0, text.output
    assert "House edge per ante" in text.stdout and "A K Q J 9" in text.stdout
    csv = _run("analyze", "caribbean-stud", "--format", "csv")
    assert csv.exit_code == 0 and "# Return table" in csv.stdout
    # The headline figures are in the CSV as well as the tables.
    for item in ("Element of risk", "Dealer qualifies, given a raise", "Standard deviation"):
        assert item in csv.stdout
    out = tmp_path / "par.html"
    html = _run("analyze", "caribbean-stud", "--format", "html", "-o", str(out))
    assert html.exit_code == 0, html.output
    page = out.read_text()
    assert page.count("data:image/png;base64,") == 2


def test_simulate_smoke_json(cached: None) -> None:
    args = ["simulate", "caribbean-stud", "--rounds", "300000", "--seed", "5", "--format", "json"]
    result = _run(*args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rounds"] == 300_000
    assert sum(o["count"] for o in data["outcomes"]) == 300_000
    assert data["mean_ci95"][0] < data["mean"] < data["mean_ci95"][1]
    again = json.loads(_run(*args).stdout)
    assert again["outcomes"] == data["outcomes"]  # same seed, same result


def test_contribution_parsing() -> None:
    from fractions import Fraction

    assert commands.parse_share("0.7") == Fraction(7, 10)
    assert commands.parse_share("70%") == Fraction(7, 10)
    assert commands.parse_share("7/10") == Fraction(7, 10)


def test_ak_strategy_table_matches_decisions_CSP_6_5(exact: CaribbeanAnalysis) -> None:
    """The readable A-K table agrees with the decision table it summarises."""
    from macau_tables.cards import parse_cards

    table = ak_strategy_table(exact)
    rows = {row[0]: row[1:] for row in table.rows}
    assert rows["A K Q J 9"] == ("R",) * 13
    # A K 5 4 2: raise when the up card pairs one of the player's small cards, else fold.
    assert rows["A K 5 4 2"][:4] == ("R", ".", "R", "R")
    for up in parse_cards("2c 9c Qd Ks As"):
        assert exact.should_raise(parse_cards("Ad Kc Qh Js 9d"), up)
    assert exact.should_raise(parse_cards("Ad Kc 5h 4s 2d"), parse_cards("2c")[0])
    for up in parse_cards("3c 9d Qh Ks As"):
        assert not exact.should_raise(parse_cards("Ad Kc 5h 4s 2d"), up)
