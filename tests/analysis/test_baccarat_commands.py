"""``macau-tables analyze baccarat`` and ``simulate baccarat`` (BAC-1, BAC-2.1, BAC-13.4, BAC-17).

Bad options exit with code 2 before any work (the analysis is replaced by a trap here); a
Ctrl-C exits 130 without results; every format renders; the JSON keys outside checks read exist.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from typer.testing import CliRunner

import macau_tables.cli.baccarat_analysis as commands
from macau_tables.cli.app import app


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def trap(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("work started despite a bad option")

    monkeypatch.setattr(commands, "analyze", refuse)
    monkeypatch.setattr(commands, "simulate", refuse)
    monkeypatch.setattr(commands, "counting_study", refuse)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--decks", "0"], "--decks"),
        (["--decks", "13"], "--decks"),
        (["--meter", "-1"], "--meter"),
        (["--jackpot-wager", "0"], "--jackpot-wager"),
        (["--award-single-pair", "-5"], "--award-single-pair"),
        (["--award-heavenly-straight", "-1"], "--award-heavenly-straight"),
        (["--award-four-of-a-kind", "-1"], "--award-four-of-a-kind"),
        (["--jackpot-bettors", "0"], "--jackpot-bettors"),
        (["--format", "pdf"], "--format"),
        (["--count-shoes", "-1"], "--count-shoes"),
        (["--cut-card", "11"], "--cut-card"),
        (["--burn", "sometimes"], "--burn"),
        (["--burn", "fixed", "--burn-count", "9"], "--burn-count"),
        (["--burn", "card", "--burn-count", "3"], "--burn-count"),
        (["--last-round", "two-more"], "--last-round"),
        (["-o", "/nonexistent-folder/par.txt"], "--output"),
        (["-o", "."], "--output"),
        (["--lang", "de"], "--lang"),
    ],
)
def test_bad_analysis_options_exit_2_before_work_BAC_1_BAC_17(
    trap: None, args: list[str], named: str
) -> None:
    """Bad input (BAC-1 deck count, BAC-17 negative awards/meter, format) → exit 2, named."""
    result = _run("analyze", "baccarat", *args)
    assert result.exit_code == 2, result.output
    assert named in result.output


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--rounds", "0"], "--rounds"),
        (["--seed", "-1"], "--seed"),
        (["--format", "xml"], "--format"),
        (["--decks", "13"], "--decks"),
        (["--cut-card", "5"], "--cut-card"),
        (["--rounds", str(10**23)], "--rounds"),
        (["-o", "/nonexistent-folder/sim.json"], "--output"),
        (["--lang", "EN"], "--lang"),
    ],
)
def test_bad_simulation_options_exit_2_BAC_2_1(trap: None, args: list[str], named: str) -> None:
    result = _run("simulate", "baccarat", *args)
    assert result.exit_code == 2, result.output
    assert named in result.output


def test_ctrl_c_exits_130_without_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_: Any, **__: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "analyze", interrupted)
    result = _run("analyze", "baccarat", "--format", "json")
    assert result.exit_code == 130
    assert "interrupted" in result.output
    assert "house_edge" not in result.output
    monkeypatch.setattr(commands, "simulate", interrupted)
    result = _run("simulate", "baccarat", "--rounds", "1000")
    assert result.exit_code == 130


def test_json_has_the_documented_keys_and_exact_counts_BAC_11() -> None:
    result = _run("analyze", "baccarat", "--format", "json", "--count-shoes", "10")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["decks"] == 8
    assert data["total_combinations"] == 4_998_398_275_503_360
    assert set(data["probabilities"]) >= {"banker", "player", "tie", "banker_six"}
    assert set(data["house_edge"]) >= {
        "banker",
        "banker_no_commission",
        "player",
        "tie",
        "player_pair",
        "banker_pair",
        "lucky_six",
    }
    assert set(data["cards_dealt"]) == {"4", "5", "6"}
    assert data["counts"]["banker"] == 2_292_252_566_437_888
    assert data["counts"]["player"] == 2_230_518_282_592_256
    assert data["counts"]["tie"] == 475_627_426_473_216
    assert data["house_edge_exact"]["player_pair"] == "43/415"
    assert data["house_edge"]["banker"] == pytest.approx(0.010579, abs=1e-6)
    assert sum(data["cards_dealt"].values()) == pytest.approx(1.0)
    assert data["counting"]["shoes"] == 10
    assert set(data["jackpot"]["combinations"]) == {
        "royal_flush",
        "heavenly_straight",
        "four_of_a_kind",
        "double_pair",
        "three_of_a_kind",
        "single_pair",
    }


def test_six_decks_from_the_command_line() -> None:
    result = _run("analyze", "baccarat", "--decks", "6", "--format", "json", "--count-shoes", "0")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["counts"]["banker"] == 403_095_751_234_560
    assert data["counting"] is None


def test_jackpot_options_change_the_return_BAC_17() -> None:
    def jackpot_return(*args: str) -> float:
        result = _run("analyze", "baccarat", "--format", "json", "--count-shoes", "0", *args)
        assert result.exit_code == 0, result.output
        return float(json.loads(result.output)["jackpot"]["return"])

    base = jackpot_return()
    assert jackpot_return("--meter", "2000000000") > base
    assert jackpot_return("--award-single-pair", "0") < base
    assert jackpot_return("--jackpot-bettors", "2") < base


@pytest.mark.parametrize("fmt", ["text", "csv", "html"])
def test_every_format_renders(fmt: str) -> None:
    result = _run("analyze", "baccarat", "--format", fmt, "--count-shoes", "5")
    assert result.exit_code == 0, result.output
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(result.output)))
        assert any(row and row[0] == "banker wins (BAC-11)" for row in rows)
    elif fmt == "html":
        assert result.output.count("data:image/png;base64,") == 2
        assert "PAR sheet" in result.output
    else:
        assert "43/415" in result.output
        assert "Effects of removal" in result.output


def test_simulate_prints_intervals_beside_exact_values() -> None:
    result = _run("simulate", "baccarat", "--rounds", "200000", "--seed", "3", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["rounds"] == 200_000
    banker = data["estimates"]["banker"]
    assert banker["ci95"][0] < banker["mean"] < banker["ci95"][1]
    assert banker["exact"] == pytest.approx(-0.010579, abs=1e-6)
    text = _run("simulate", "baccarat", "--rounds", "50000", "--machine").output
    assert "machine" in text


def test_many_jackpot_bettors_share_the_royal_flush_quickly_BAC_17() -> None:
    """Royal flush and heavenly straight awards are shared by the round's jackpot bettors; the
    share is computed per winner, not by listing every winner (a huge count must not hang)."""
    bettors = 10**20
    args = ["--count-shoes", "0", "--format", "json", "--jackpot-bettors", str(bettors)]
    result = _run("analyze", "baccarat", *args)
    assert result.exit_code == 0, result.output
    combos = json.loads(result.stdout)["jackpot"]["combinations"]
    assert combos["royal_flush"]["award"] == 1_000_000_000 // bettors == 0
    assert combos["heavenly_straight"]["award"] == 200_000_000 // bettors == 0
    assert combos["single_pair"]["award"] == 20_000  # fixed awards: each winner


def test_csv_states_the_headline_figures_BAC_17() -> None:
    """CSV carries the configuration and the summary (house edges, jackpot return), not only
    the tables."""
    result = _run("analyze", "baccarat", "--count-shoes", "0", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["# Configuration"]
    summary = {r[0]: r[1] for r in rows[rows.index(["# Summary"]) + 2 :] if len(r) == 2}
    assert summary["House edge: Player pair"].endswith("= 43/415")
    assert "Jackpot break-even meter" in summary


def test_analysis_sheet_is_reproducible() -> None:
    """The same options give the same sheet (no run time in it), so docs/par/ can be
    regenerated and compared."""
    args = ["analyze", "baccarat", "--count-shoes", "20", "--decks", "6"]
    first, second = _run(*args), _run(*args)
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout


@pytest.mark.parametrize("decks", [1, 4])
def test_shoe_outside_the_law_is_marked_in_every_format_BAC_1(decks: int) -> None:
    """BAC-1 asks for 6 … 12 decks. A smaller shoe is analysed (for comparison) but its sheet
    says in its header, in every format, that it is outside the law; a lawful shoe's does not."""
    base = ["analyze", "baccarat", "--decks", str(decks), "--count-shoes", "0"]
    warning = f"Outside the law (BAC-1: a shoe of 6 to 12 decks): this {decks}-deck shoe"
    text = _run(*base).stdout
    lines = text.splitlines()
    assert lines[0] == f"Baccarat PAR sheet: {decks} decks"
    assert lines[3].startswith(f"WARNING: {warning}")
    rows = list(csv.reader(io.StringIO(_run(*base, "--format", "csv").stdout)))
    assert rows[0] == ["# Warning"] and rows[1][0].startswith(warning)
    data = json.loads(_run(*base, "--format", "json").stdout)
    assert next(iter(data)) == "warnings" and data["warnings"][0].startswith(warning)
    assert data["decks"] == decks
    page = _run(*base, "--format", "html").stdout
    assert warning in page and page.index(warning) < page.index("<h2>Configuration</h2>")
    simulated = _run("simulate", "baccarat", "--decks", str(decks), "--rounds", "20000").stdout
    assert f"WARNING: {warning}" in simulated.splitlines()[3]


@pytest.mark.parametrize("decks", [6, 12])
def test_lawful_shoes_carry_no_warning_BAC_1(decks: int) -> None:
    result = _run("analyze", "baccarat", "--decks", str(decks), "--count-shoes", "0")
    assert result.exit_code == 0, result.output
    assert "WARNING" not in result.stdout and "Outside the law" not in result.stdout
    data = json.loads(
        _run(
            "analyze", "baccarat", "--decks", str(decks), "--count-shoes", "0", "--format", "json"
        ).stdout
    )
    assert "warnings" not in data
