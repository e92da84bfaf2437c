"""The shared report model renders every format."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

from macau_tables.analysis.report import (
    Figure,
    Report,
    Table,
    check_format,
    check_output,
    render,
)
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
    data = json.loads(render(REPORT, "json"))
    assert data["total"] == 2**60 + 1
    assert data["edge"]["exact"] == "43/415"
    assert data["nested"] == {"x": [1, 2]}


def test_csv_has_exact_counts_and_decimal_probabilities() -> None:
    """Counts exact; fractions as decimals a spreadsheet reads as numbers ("1/2" would be a
    date, "19/20" text), to the float's full precision."""
    rows = list(csv.reader(io.StringIO(render(REPORT, "csv"))))
    start = rows.index(["# Outcomes"])
    assert rows[start + 1] == ["event", "count", "p"]
    assert rows[start + 2] == ["banker", str(2**60), "0.3333333333333333"]
    assert float(rows[start + 2][2]) == 1 / 3


def test_csv_starts_with_configuration_and_summary() -> None:
    """The headline figures of a sheet live in its summary: the CSV must carry them too."""
    rows = list(csv.reader(io.StringIO(render(REPORT, "csv"))))
    assert rows[:3] == [["# Configuration"], ["item", "value"], ["decks", "8"]]
    assert rows[4:7] == [["# Summary"], ["item", "value"], ["house edge", "1.06 %"]]


def test_text_aligns_whole_columns() -> None:
    """A column of numbers is right-aligned; a column mixing "10" with "J" is left-aligned
    throughout instead of scattering."""
    table = Table("t", ("rank", "n"), (("9", 1), ("10", 22), ("J", 333)))
    text = render(Report("r", (), (), (table,), {}), "text")
    assert "9       1\n10     22\nJ     333" in text


def test_output_path_is_checked_before_work(tmp_path: Path) -> None:
    assert check_output(None) is None
    assert check_output(tmp_path / "par.html") == tmp_path / "par.html"
    with pytest.raises(ConfigError, match=r"--output.*does not exist"):
        check_output(tmp_path / "missing" / "par.html")
    with pytest.raises(ConfigError, match=r"--output.*folder"):
        check_output(tmp_path)


def test_text_and_html_contain_the_numbers() -> None:
    text = render(REPORT, "text")
    assert "1,152,921,504,606,846,976" in text and "house edge" in text
    page = render(REPORT, "html")
    assert page.startswith("<!doctype html>") and "data:image/png;base64," in page
    assert "a caption" in page and "<td class='n'>" in page


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ConfigError, match="xml"):
        check_format("xml")
    with pytest.raises(ConfigError):
        render(REPORT, "pdf")
