"""The shared report model renders every format."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path

import pytest
import typer

from macau_tables.analysis.render import render
from macau_tables.analysis.report import Figure, Format, Report, Table
from macau_tables.cli.output import check_output
from macau_tables.errors import ConfigError

REPORT = Report(
    title="Sample",
    configuration=(("decks", "8"),),
    summary=(("house edge", "1.06 %"),),
    tables=(Table("Outcomes", ("event", "count", "p"), (("banker", 2**60, Fraction(1, 3)),)),),
    data={"total": 2**60 + 1, "edge": Fraction(43, 415), "nested": {"x": [1, 2]}},
    figures=(Figure("plot", b"\x89PNG fake", "a caption"),),
    notes=("exact",),
)


def test_json_keeps_exact_integers_and_fractions() -> None:
    data = json.loads(render(REPORT, Format.JSON))
    assert data["total"] == 2**60 + 1
    assert data["edge"]["exact"] == "43/415"
    assert data["nested"] == {"x": [1, 2]}


def test_csv_has_exact_counts_and_decimal_probabilities() -> None:
    """Counts exact; fractions as decimals a spreadsheet reads as numbers ("1/2" would be a
    date, "19/20" text), to the float's full precision."""
    rows = list(csv.reader(io.StringIO(render(REPORT, Format.CSV))))
    start = rows.index(["# Outcomes"])
    assert rows[start + 1] == ["event", "count", "p"]
    assert rows[start + 2] == ["banker", str(2**60), "0.3333333333333333"]
    assert float(rows[start + 2][2]) == 1 / 3


def test_csv_starts_with_configuration_and_summary() -> None:
    """The headline figures of a sheet live in its summary: the CSV must carry them too."""
    rows = list(csv.reader(io.StringIO(render(REPORT, Format.CSV))))
    assert rows[:3] == [["# Configuration"], ["item", "value"], ["decks", "8"]]
    assert rows[4:7] == [["# Summary"], ["item", "value"], ["house edge", "1.06 %"]]


def test_text_aligns_whole_columns() -> None:
    """A column of numbers is right-aligned; a column mixing "10" with "J" is left-aligned
    throughout instead of scattering."""
    table = Table("t", ("rank", "n"), (("9", 1), ("10", 22), ("J", 333)))
    text = render(Report("r", (), (), (table,), {}), Format.TEXT)
    assert "9       1\n10     22\nJ     333" in text


def test_output_path_is_checked_before_work(tmp_path: Path) -> None:
    assert check_output(None) is None
    assert check_output(tmp_path / "par.html") == tmp_path / "par.html"
    with pytest.raises(typer.BadParameter, match=r"does not exist"):
        check_output(tmp_path / "missing" / "par.html")
    with pytest.raises(typer.BadParameter, match=r"is a folder"):
        check_output(tmp_path)


def test_text_and_html_contain_the_numbers() -> None:
    text = render(REPORT, Format.TEXT)
    assert "1,152,921,504,606,846,976" in text and "house edge" in text
    page = render(REPORT, Format.HTML)
    assert page.startswith("<!doctype html>") and "data:image/png;base64," in page
    assert "a caption" in page and "<td class='n'>" in page


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ConfigError, match="xml") as refused:
        render(REPORT, "xml")  # type: ignore[arg-type]
    assert refused.value.key == "analysis.unknown_format"
    assert render(REPORT, "json") == render(REPORT, Format.JSON)  # type: ignore[arg-type]


def test_warnings_head_every_format() -> None:
    """A report's warnings (e.g. a shoe outside the law) come first in every format."""
    warned = Report("r", (("decks", "1"),), (), (), {"decks": 1}, warnings=("Outside the law",))
    text = render(warned, Format.TEXT).splitlines()
    assert text[:4] == ["r", "=", "", "WARNING: Outside the law"]
    rows = list(csv.reader(io.StringIO(render(warned, Format.CSV))))
    assert rows[:2] == [["# Warning"], ["Outside the law"]]
    page = render(warned, Format.HTML)
    assert page.index("Outside the law") < page.index("Configuration")
    assert json.loads(render(warned, Format.JSON)) == {"warnings": ["Outside the law"], "decks": 1}
    # Without warnings nothing is added (the recorded sheets stay as they are).
    assert "warnings" not in json.loads(render(REPORT, Format.JSON))
