"""The ``macau-tables`` app: ``--version``, one app for every command, option choices refused
by Typer itself (exit 2) before any work."""

from __future__ import annotations

import ast
from importlib import metadata
from typing import Any

import pytest
from typer.testing import CliRunner

import macau_tables
from macau_tables.cli.app import app
from tests.sources import SRC, tree_of


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_version_prints_the_package_version() -> None:
    result = _run("--version")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"macau-tables {metadata.version('macau-tables')}\n"
    assert metadata.version("macau-tables") == macau_tables.__version__


def test_every_command_is_on_the_one_app() -> None:
    for group, commands in {
        "analyze": ("caribbean-stud", "baccarat"),
        "simulate": ("caribbean-stud", "baccarat"),
        "demo": ("caribbean", "baccarat"),
    }.items():
        for command in commands:
            result = _run(group, command, "--help")
            assert result.exit_code == 0, (group, command, result.output)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["analyze", "caribbean-stud", "--format", "pdf"], "--format"),
        (["analyze", "caribbean-stud", "--ranking", "poker"], "--ranking"),
        (["simulate", "caribbean-stud", "--format", "xml"], "--format"),
        (["simulate", "caribbean-stud", "--ranking", "Macau"], "--ranking"),
        (["analyze", "baccarat", "--format", "TEXT"], "--format"),
        (["analyze", "baccarat", "--burn", "sometimes"], "--burn"),
        (["analyze", "baccarat", "--last-round", "two-more"], "--last-round"),
        (["simulate", "baccarat", "--burn", "first_card"], "--burn"),
        (["simulate", "baccarat", "--last-round", "this_round"], "--last-round"),
    ],
)
def test_enum_options_refuse_other_values_with_exit_2(args: list[str], option: str) -> None:
    """--format, --ranking, --burn and --last-round are enum choices: Typer refuses any other
    value (exit 2, naming the option and the choices) before a command runs."""
    result = _run(*args)
    assert result.exit_code == 2, result.output
    assert option in result.output
    assert "is not one of" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["analyze", "caribbean-stud", "--format", "json", "--help"],
        ["analyze", "baccarat", "--burn", "fixed", "--help"],
    ],
)
def test_enum_options_accept_their_values(args: list[str]) -> None:
    assert _run(*args).exit_code == 0


def test_no_game_or_analysis_module_imports_the_cli() -> None:
    """The command line imports the games and the analysis, never the reverse (no cycle)."""
    offenders = []
    for path in SRC.rglob("*.py"):
        if "cli" in path.relative_to(SRC).parts:
            continue
        for node in ast.walk(tree_of(path)):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                names = [module, *(f"{module}.{a.name}" for a in node.names)]
            if any(n == "macau_tables.cli" or n.startswith("macau_tables.cli.") for n in names):
                offenders.append(str(path))
            if (
                isinstance(node, ast.ImportFrom)
                and node.level
                and (
                    (node.module or "").split(".")[0] == "cli"
                    or any(a.name == "cli" for a in node.names)
                )
            ):
                offenders.append(str(path))
    assert offenders == []
