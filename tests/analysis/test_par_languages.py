"""The PAR sheets in every language (Portuguese as the third language of
every PAR sheet heading).

Every ``par.*`` message exists in every sheet language with the English placeholders; a sheet
written in a language has its headings, titles, column headers and key labels in that language
and exactly the figures of the English sheet; the HTML page says its language; ``--lang``
refuses a language there is no sheet in, naming the option and the languages there are, before
any work (exit 2, as the commands' other bad options).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from typer.testing import CliRunner

import macau_tables.cli.caribbean_analysis as caribbean_commands
from macau_tables import messages
from macau_tables.analysis import baccarat_sheet, caribbean_sheet
from macau_tables.analysis.baccarat_counting import counting_study
from macau_tables.analysis.baccarat_exact import JackpotAwards, analyze, law_note
from macau_tables.analysis.baccarat_sim import ShoeProcedure
from macau_tables.analysis.caribbean_exact import CaribbeanAnalysis, analyze_jackpot, par_rules
from macau_tables.analysis.render import render
from macau_tables.analysis.report import (
    Format,
    Report,
    Table,
    check_language,
    say,
    sheet_languages,
)
from macau_tables.baccarat.rules import BurnRule, LastRoundRule
from macau_tables.caribbean.rules import JackpotFixedAwards
from macau_tables.cli.app import app
from macau_tables.errors import ConfigError

# The catalog's languages, and Portuguese, which the PAR sheets have before the rest of the
# catalog does (messages.LANGUAGES has it).
LANGUAGES = tuple(dict.fromkeys((*messages.LANGUAGES, "pt")))
OTHERS = tuple(lang for lang in LANGUAGES if lang != messages.DEFAULT_LANGUAGE)
PAR_KEYS = sorted(k for k in messages.catalog() if k.startswith("par."))
CJK = re.compile(r"[\u3400-\u9fff]")


def _headings(report: Report) -> Iterator[str]:
    """Every heading of a report: title, configuration and summary labels, table titles and
    column headers, figure titles."""
    yield report.title
    yield from (k for k, _ in report.configuration)
    yield from (k for k, _ in report.summary)
    for table in report.tables:
        yield table.title
        yield from table.columns
    yield from (f.title for f in report.figures)


# The figures a text states: numbers with a decimal point or thousands separators, or of three
# digits or more (single digits are also words: "Lucky 6" is 幸運六).
FIGURE = re.compile(r"\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+|\d{3,}")


def _figures(report: Report) -> tuple[object, ...]:
    """What a report states beyond its words: every table cell that is not text, the figures in
    its texts (configuration and summary values, text cells, notes, warnings) in any order, the
    JSON payload."""
    cells = tuple(
        tuple(c for c in row if not isinstance(c, str)) for t in report.tables for row in t.rows
    )
    texts = [
        *(v for _, v in (*report.configuration, *report.summary)),
        *(c for t in report.tables for row in t.rows for c in row if isinstance(c, str)),
        *(t.note for t in report.tables),
        *report.notes,
        *report.warnings,
    ]
    figures = sorted(f for text in texts for f in FIGURE.findall(text))
    payload = json.loads(render(report, Format.JSON))
    payload.pop("warnings", None)  # the warnings' words are in the report's language
    return cells, figures, payload


def test_the_sheets_are_written_in_every_catalog_language_and_portuguese() -> None:
    assert sheet_languages() == LANGUAGES
    assert all(check_language(lang) == lang for lang in LANGUAGES)
    for bad in ("fr", "", "EN", "zh"):
        with pytest.raises(ConfigError) as exc:
            check_language(bad)
        assert exc.value.key == "par.unknown_language"
        assert repr(bad) in exc.value.message and "zh-Hant, pt" in exc.value.message


@pytest.mark.parametrize("key", PAR_KEYS)
def test_every_par_message_renders_in_every_language(key: str) -> None:
    texts = messages.catalog()[key]
    assert set(LANGUAGES) <= set(texts), f"{key}: languages {sorted(texts)}"
    names = messages.placeholders(texts["en"])
    for lang in LANGUAGES:
        assert messages.placeholders(texts[lang]) == names, (key, lang)
        params = {name: f"<{name}>" for name in names}
        shown = say(lang, key, **params)
        assert shown.strip() and not shown.startswith(f"{key}("), (key, lang, shown)
        assert all(f"<{name}>" in shown for name in names), (key, lang, shown)
    assert CJK.search(texts["zh-Hant"]), f"{key}: the zh-Hant text has no Chinese"


def test_the_renderer_s_words_and_the_html_language_follow_the_report() -> None:
    table = Table("t", ("a", "ok"), (("x", True), ("y", False)))
    report = Report("r", (("k", "v"),), (("s", "1"),), (table,), {"n": 1}, notes=("n",))
    for lang in LANGUAGES:
        sheet = replace(report, language=lang)
        text = render(sheet, Format.TEXT)
        for key in ("par.configuration", "par.summary"):
            assert f"\n{say(lang, key)}\n" in text
        assert say(lang, "par.yes") in text and say(lang, "par.no") in text
        assert say(lang, "par.note", text="n") in text
        page = render(sheet, Format.HTML)
        assert f'<html lang="{lang}">' in page
        assert say(lang, "par.generated") in page and say(lang, "par.notes") in page
        table_csv = render(sheet, Format.CSV)
        assert f"# {say(lang, 'par.configuration')}\n" in table_csv
        assert f"{say(lang, 'par.item')},{say(lang, 'par.value')}\n" in table_csv


def test_text_columns_of_a_chinese_sheet_line_up_on_a_terminal() -> None:
    """A wide character (莊) takes two terminal columns: a Chinese sheet pads by columns, not
    by characters, so its columns line up (old: every Chinese label pushed its row right)."""
    table = Table("莊對子", ("投注", "n"), (("莊對子", 1), ("和", 22)))
    text = render(Report("表", (), (), (table,), {}, language="zh-Hant"), Format.TEXT)
    assert text.splitlines() == [
        "表",
        "==",
        "",
        "莊對子",
        "------",
        "投注     n",
        "------  --",
        "莊對子   1",
        "和      22",
    ]


# The baccarat command's default jackpot settings (illustrative, BAC-17.7).
AWARDS = JackpotAwards(10_000, 1_000_000_000, 200_000_000, 10_000_000, 300_000, 100_000, 20_000)


@pytest.fixture(scope="module")
def baccarat_sheets() -> dict[str, Report]:
    """The 8-deck sheet with a small card-counting study, in every language."""
    a = analyze(8, AWARDS)
    procedure = ShoeProcedure(8, BurnRule.FIRST_CARD, 0, 14, LastRoundRule.THIS_ROUND, False)
    counting = counting_study(procedure, 5, 1, a.eor, lambda _: None)
    return {lang: baccarat_sheet.par_sheet(a, counting, language=lang) for lang in LANGUAGES}


@pytest.fixture
def caribbean_sheets(macau_par: CaribbeanAnalysis) -> dict[str, Report]:
    rules = par_rules(
        100,
        jackpot_wager=1000,
        jackpot_fixed_awards=JackpotFixedAwards(10_000_000, 1_000_000, 100_000, 75_000, 50_000),
    )
    analysis = replace(macau_par, rules=rules)
    jackpot = analyze_jackpot(analysis, 20_000_000)
    return {lang: caribbean_sheet.par_sheet(analysis, jackpot, language=lang) for lang in LANGUAGES}


def _check_translated(sheets: dict[str, Report], expected: dict[str, tuple[str, ...]]) -> None:
    english = sheets["en"]
    for lang, sheet in sheets.items():
        assert sheet.language == lang
        assert _figures(sheet) == _figures(english), lang  # the same figures in every language
        text = render(sheet, Format.TEXT)
        assert all(word in text for word in expected[lang]), lang
        if lang == "en":
            continue
        pairs = list(zip(_headings(sheet), _headings(english), strict=True))
        same = [mine for mine, en in pairs if mine == en]
        assert not same, f"{lang}: headings left in English {same}"
        if lang == "zh-Hant":
            assert all(CJK.search(mine) for mine, _ in pairs), lang


def test_the_baccarat_sheet_in_each_language(baccarat_sheets: dict[str, Report]) -> None:
    _check_translated(
        baccarat_sheets,
        {
            "en": ("Baccarat PAR sheet: 8 decks", "Effects of removal", "Banker pair"),
            "zh-Hant": ("百家樂 PAR 表：8 副牌", "移除效應", "莊對子", "天堂順", "設定", "摘要"),
            "pt": ("Folha PAR do Bacará: 8 baralhos", "Par de banca", "Configuração", "Resumo"),
        },
    )


def test_the_caribbean_sheet_in_each_language(caribbean_sheets: dict[str, Report]) -> None:
    _check_translated(
        caribbean_sheets,
        {
            "en": ("royal flush 100:1", "House edge per ante", "Jackpot wager at meter 20,000,000"),
            "zh-Hant": (
                "黃袍麒 100:1",
                "每原注的莊家優勢",
                "累進大獎計為 20,000,000 時",
                "莊荷合格",
            ),
            "pt": (
                "sequência real 100 para 1",
                "Vantagem da casa por aposta inicial",
                "«croupier»",
            ),
        },
    )


def test_the_plots_are_drawn_in_the_sheet_s_language() -> None:
    a = analyze(6, AWARDS)
    for lang in OTHERS:
        sheet = baccarat_sheet.par_sheet(a, figures=True, language=lang)
        assert [f.title for f in sheet.figures] == [
            say(lang, "par.outcome_distribution"),
            say(lang, "par.jackpot_return_by_meter"),
        ]
        assert all(f.png.startswith(b"\x89PNG") for f in sheet.figures)
        page = render(sheet, Format.HTML)
        assert f'<html lang="{lang}">' in page
        assert say(lang, "par.plot_bac_meter_caption", lines=say(lang, "par.plot_meter_lines")) in (
            page.replace("&#x27;", "'")
        )


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize("lang", OTHERS)
def test_the_commands_write_the_sheet_in_the_language_asked(lang: str) -> None:
    english = _run("analyze", "baccarat", "--count-shoes", "0", "--format", "csv")
    result = _run("analyze", "baccarat", "--count-shoes", "0", "--format", "csv", "--lang", lang)
    assert result.exit_code == 0, result.output
    assert f"# {say(lang, 'par.configuration')}" in result.output
    assert f"# {say(lang, 'par.bac_eor_table')}" in result.output
    # The same rows, and in each the same numbers (the first column is a label).
    number = re.compile(r"-?\d[\d.]*(?:e-?\d+)?")

    def figures(output: str) -> list[list[str]]:
        rows = csv.reader(io.StringIO(output))
        return [[c for c in row[1:] if number.fullmatch(c)] for row in rows]

    assert figures(result.output) == figures(english.output)
    assert english.output.count("\n") == result.output.count("\n")


@pytest.mark.parametrize("command", [["analyze", "caribbean-stud"], ["simulate", "baccarat"]])
def test_an_unknown_language_is_refused_before_any_work(
    command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("work started despite a bad --lang")

    monkeypatch.setattr(caribbean_commands, "run_analysis", refuse)
    result = _run(*command, "--lang", "fr")
    assert result.exit_code == 2, result.output
    said = " ".join(re.sub("[│╭╮╰╯─]", " ", result.output).split())  # Rich's box, unwrapped
    assert "--lang" in said and "'fr'" in said
    assert ", ".join(LANGUAGES) in said, said


@pytest.mark.parametrize(
    "procedure",
    [
        ShoeProcedure(8, BurnRule.FIRST_CARD, 0, 14, LastRoundRule.THIS_ROUND, False),
        ShoeProcedure(6, BurnRule.DECKS, 0, 20, LastRoundRule.ONE_MORE, False),
        ShoeProcedure(8, BurnRule.FIXED, 3, 14, LastRoundRule.THIS_ROUND, False),
        ShoeProcedure(8, BurnRule.FIRST_CARD, 0, 14, LastRoundRule.THIS_ROUND, True),
    ],
    ids=["first-card", "decks", "fixed", "machine"],
)
def test_the_shoe_procedure_reads_in_every_language_BAC_2_1_BAC_3_1(
    procedure: ShoeProcedure,
) -> None:
    """In English the sheets' description of the shoe procedure is the procedure's own
    (ShoeProcedure.describe); in another language every label and value is translated."""
    english = baccarat_sheet.describe_procedure(procedure, "en")
    assert english == procedure.describe()
    for lang in OTHERS:
        mine = baccarat_sheet.describe_procedure(procedure, lang)
        assert len(mine) == len(english)
        assert all(m[0] != e[0] for m, e in zip(mine, english, strict=True)), mine
        assert all(m[1] != e[1] for m, e in zip(mine[1:], english[1:], strict=True)), mine


def test_a_shoe_outside_the_law_is_said_in_the_sheet_s_language_BAC_1() -> None:
    a = analyze(4, AWARDS)
    assert baccarat_sheet.par_sheet(a).warnings == (law_note(4),)
    for lang in OTHERS:
        sheet = baccarat_sheet.par_sheet(a, language=lang)
        law = say(lang, "par.bac_outside_the_law", minimum="6", maximum="12", decks="4")
        assert sheet.warnings == (law,)
        assert render(sheet, Format.TEXT).splitlines()[3] == say(lang, "par.warning", text=law)
