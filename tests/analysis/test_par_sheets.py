"""docs/par is what its recorded commands produce (issue 4, deliverable 7), in every language
the sheets are written in.

The commands are read from ``docs/par/README.md`` (the block a person would paste), run through
the CLI into a temporary directory, and compared with the committed sheets: text sheets byte
for byte, HTML sheets with their embedded PNG images set aside (matplotlib may render other
bytes in another version; the data behind the plots is in the tables beside them).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from macau_tables.analysis.report import sheet_languages
from macau_tables.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
PAR = ROOT / "docs" / "par"
_IMAGE = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")


def recorded_commands() -> list[list[str]]:
    """The ``macau-tables`` command lines of the README's ``sh`` block, ``$JP`` expanded."""
    text = (PAR / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block is not None, "docs/par/README.md has no sh block"
    variables: dict[str, str] = {}
    commands = []
    for line in block.group(1).splitlines():
        assignment = re.fullmatch(r'([A-Z]+)="(.*)"', line)
        if assignment:
            variables[assignment.group(1)] = assignment.group(2)
        elif line.startswith("macau-tables "):
            for name, value in variables.items():
                line = line.replace(f"${name}", value)
            commands.append(shlex.split(line)[1:])
    return commands


def test_readme_records_a_command_for_every_sheet() -> None:
    outputs = {Path(c[c.index("-o") + 1]).name for c in recorded_commands()}
    sheets = {p.name for p in PAR.iterdir() if p.suffix in (".html", ".txt")}
    assert outputs == sheets


def test_readme_records_sheets_in_every_language() -> None:
    """docs/par has a sheet of each game in every language the sheets are written in
    (zh-Hant and pt beside English), each named after its language: ``<sheet>.<lang>.txt``."""
    languages: dict[str, set[str]] = {}
    for command in recorded_commands():
        lang = command[command.index("--lang") + 1] if "--lang" in command else "en"
        name = Path(command[command.index("-o") + 1]).name
        if lang != "en":
            assert name.endswith(f".{lang}.txt"), (lang, name)
        languages.setdefault(lang, set()).add(command[1])
    assert set(languages) == set(sheet_languages())
    assert all(games == {"caribbean-stud", "baccarat"} for games in languages.values())


def _without_images(page: str) -> tuple[str, int]:
    return _IMAGE.sub("data:image/png;base64,…", page), len(_IMAGE.findall(page))


@pytest.mark.slow
@pytest.mark.parametrize("command", recorded_commands(), ids=lambda c: c[c.index("-o") + 1])
def test_sheet_is_reproduced_by_its_recorded_command(command: list[str], tmp_path: Path) -> None:
    at = command.index("-o") + 1
    committed = ROOT / command[at]
    out = tmp_path / committed.name
    result = CliRunner().invoke(app, [*command[:at], str(out), *command[at + 1 :]])
    assert result.exit_code == 0, result.output
    fresh = out.read_text(encoding="utf-8")
    recorded = committed.read_text(encoding="utf-8")
    if committed.suffix == ".html":
        assert _without_images(fresh) == _without_images(recorded)
    else:
        assert fresh == recorded
