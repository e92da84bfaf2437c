"""The command line's one error format and its help: every error is one
line ``error: <message>`` on stderr — a usage error Typer finds as well as a refusal of the
library — with exit code 2 for bad input; ``serve`` on a port in use says so in that one line
before anything else is printed or created; no option's help shows a ``<bool>`` type."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from macau_tables.cli.app import app


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _one_error_line(result: Any) -> str:
    """The one line a refused command prints (asserting that it printed nothing else)."""
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    line: str = lines[0]
    return line


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A loopback port another server listens on."""
    with socket.create_server(("127.0.0.1", 0)) as other:
        yield other.getsockname()[1]


def test_serve_on_a_busy_port_says_so_in_one_line_before_anything_else(
    busy_port: int, tmp_path: Path
) -> None:
    database = tmp_path / "casino.db"
    result = _run("serve", "--port", str(busy_port), "--database", f"sqlite:///{database}")
    line = _one_error_line(result)
    assert line == (
        f"error: http://127.0.0.1:{busy_port} is in use already (another server?): choose "
        "another port with --port, e.g. make serve SERVE_ARGS='--port 8001'"
    )
    assert not database.exists()  # nothing created: no casino, no one-time credentials


def test_serve_on_an_address_of_another_machine_says_so_in_one_line(tmp_path: Path) -> None:
    database = tmp_path / "casino.db"
    result = _run(
        "serve", "--host", "192.0.2.1", "--port", "8000", "--database", f"sqlite:///{database}"
    )
    line = _one_error_line(result)
    assert line.startswith("error: cannot listen on http://192.0.2.1:8000: "), line
    assert not database.exists()


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["serve", "--port", "99999"], ["--port", "65535", "macau-tables serve --help"]),
        (["serve", "--bogus"], ["--bogus", "macau-tables serve --help"]),
        (["analyze", "baccarat", "--burn", "x"], ["--burn", "macau-tables analyze baccarat"]),
        (["report", "--day", "5 Jan"], ["YYYY-MM-DD", "5 Jan"]),
        (["tables", "--database", "sqlite:////no/such/folder/x.db"], ["db upgrade"]),
        (["verify", "--public-key", "k.pub"], ["--archive"]),
    ],
)
def test_every_error_is_one_line_in_one_format(args: list[str], names: list[str]) -> None:
    """Typer's usage errors (an option out of range, unknown, a bad choice) and the library's
    refusals (a bad day, a missing database, options that go together) read alike."""
    line = _one_error_line(_run(*args))
    for name in names:
        assert name in line, line


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        if not getattr(sub, "hidden", False):
            yield from _commands(sub, (*path, name))


def test_no_help_shows_a_bool_type_and_version_says_what_it_does() -> None:
    top = _run("--help")
    assert top.exit_code == 0, top.output
    assert "--version  Print the installed version and exit." in top.stdout
    paths = list(_commands(typer.main.get_command(app)))
    assert ("serve",) in paths and ("analyze", "baccarat") in paths
    for path in paths:
        shown = _run(*path, "--help")
        assert shown.exit_code == 0, (path, shown.output)
        assert "<bool>" not in shown.stdout, (path, shown.stdout)
        assert "╭" not in shown.stdout  # plain text, as a terminal or a pipe shows it
