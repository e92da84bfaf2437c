"""``macau-tables program show`` and ``program approve`` (STANDARDS: the program's integrity
checked at start-up; a changed program keeps the tables closed): the running program against
the one approved last, exit 1 when they differ; an approval audited with who and why; bad input
refused with exit code 2 and nothing written; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from typer.testing import CliRunner

from macau_tables.cli.app import app
from macau_tables.store import Store
from macau_tables.tables.program import APPROVE_ACTION, running_program


@pytest.fixture
def url(migrated_url: str) -> str:
    """A migrated, empty database's URL."""
    return migrated_url


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def approvals(url: str) -> list[Any]:
    with Store.open(url) as store:
        return store.read(lambda tx: tx.audit_entries(action=APPROVE_ACTION))


def test_show_says_no_program_was_approved_and_exits_1(url: str) -> None:
    done = run("program", "show", "--database", url)
    assert done.exit_code == 1, done.output
    assert running_program().digest in done.stdout
    assert "approved program none" in done.stdout


def test_approve_then_show_exits_0_and_the_approval_is_audited(url: str) -> None:
    done = run(
        "program", "approve", "--actor", "lab", "--reason", "0.1.0 checked", "--database", url
    )
    assert done.exit_code == 0, done.output
    assert running_program().digest in done.stdout
    (entry,) = approvals(url)
    assert (entry.actor, entry.reason) == ("lab", "0.1.0 checked")
    assert entry.detail is not None and entry.detail["digest"] == running_program().digest
    shown = run("program", "show", "--format", "json", "--database", url)
    assert shown.exit_code == 0, shown.output
    found = json.loads(shown.stdout)
    assert found["approved_is_running"] is True and found["changed"] == []
    assert found["approved"]["actor"] == "lab"


def test_show_names_what_changed_since_the_approval(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (
        run("program", "approve", "--actor", "lab", "--reason", "r", "--database", url).exit_code
        == 0
    )
    running = running_program()
    files = {**running.files, "tables/service.py": "0" * 64}
    altered = replace(running, digest="e" * 64, files=files)
    monkeypatch.setattr("macau_tables.cli.program_cli.running_program", lambda: altered)
    done = run("program", "show", "--database", url)
    assert done.exit_code == 1, done.output
    assert "NOT the one approved" in done.stdout
    assert "~tables/service.py" in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("--actor", "", "--reason", "r"),
        ("--actor", "lab", "--reason", " "),
        ("--reason", "r"),
    ],
)
def test_an_approval_without_who_or_why_is_refused_with_exit_2(
    url: str, args: tuple[str, ...]
) -> None:
    done = run("program", "approve", *args, "--database", url)
    assert done.exit_code == 2, done.output
    assert approvals(url) == []
