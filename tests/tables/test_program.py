"""The program's integrity at start-up (STANDARDS "Faults, power loss, recovery": a changed
program keeps the tables closed; SPEC common rules "Approvals"): a table that is not a
demonstration table opens only on the program approved last; every approval is in the audit log
with who and why; the server keeps a refused table closed and opens it once the program is
approved, without a restart. On SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from macau_tables.errors import ConfigError, MacauTablesError
from macau_tables.store import Store
from macau_tables.tables.program import (
    APPROVE_ACTION,
    PACKAGE_ROOT,
    approve_program,
    changed_files,
    last_approval,
    program_of,
    require_approved_program,
    running_program,
)

from .support import caribbean_rules, casino, service


def production_casino(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)}, demo=False)


def approve(store: Store, *, reason: str = "release 0.1.0 checked by the lab") -> int:
    return store.run(lambda tx: approve_program(tx, running_program(), actor="lab", reason=reason))


def test_a_table_that_is_not_a_demonstration_stays_closed_until_the_program_is_approved(
    store: Store,
) -> None:
    production_casino(store)
    with pytest.raises(ConfigError) as refused:
        service(store, "c1")
    assert refused.value.key == "tables.program_not_approved"
    assert "macau-tables program approve" in refused.value.message
    approve(store)
    assert service(store, "c1").table_id == "c1"


def test_a_changed_program_keeps_the_table_closed_and_names_what_changed(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    production_casino(store)
    approve(store)
    running = running_program()
    files = dict(running.files)
    changed = sorted(files)[0]
    files[changed] = "0" * 64
    files["extra.py"] = "1" * 64
    altered = replace(running, digest="f" * 64, files=files)
    monkeypatch.setattr("macau_tables.tables.program.running_program", lambda: altered)
    with pytest.raises(ConfigError) as refused:
        service(store, "c1")
    assert refused.value.key == "tables.program_changed"
    expected = sorted([("extra.py", "+extra.py"), (changed, f"~{changed}")])
    assert refused.value.params["files"] == ", ".join(mark for _, mark in expected)
    assert refused.value.params["actor"] == "lab"
    # approving the program now running opens the table; the first approval stays on record
    store.run(lambda tx: approve_program(tx, altered, actor="lab", reason="patch 2 checked"))
    assert service(store, "c1").table_id == "c1"
    entries = store.read(lambda tx: tx.audit_entries(action=APPROVE_ACTION))
    assert [e.reason for e in entries] == ["release 0.1.0 checked by the lab", "patch 2 checked"]


def test_a_demonstration_table_opens_whatever_the_program(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)}, demo=True)
    assert store.read(last_approval) is None
    assert service(store, "c1").table_id == "c1"


def test_an_approval_records_who_why_and_every_file(store: Store) -> None:
    entry_id = approve(store)
    found = store.read(last_approval)
    assert found is not None and found.id == entry_id
    assert found.actor == "lab" and found.reason == "release 0.1.0 checked by the lab"
    assert found.program == running_program()
    require_approved_program(store)  # no refusal


@pytest.mark.parametrize(("actor", "reason"), [("", "why"), ("lab", ""), ("lab", "   ")])
def test_an_approval_without_who_or_why_is_refused_and_nothing_recorded(
    store: Store, actor: str, reason: str
) -> None:
    with pytest.raises(MacauTablesError) as refused:
        store.run(lambda tx: approve_program(tx, running_program(), actor=actor, reason=reason))
    assert refused.value.key == "tables.text_required"
    assert store.read(lambda tx: tx.audit_entries(action=APPROVE_ACTION)) == []


def test_the_programs_digest_covers_every_file_and_ignores_caches(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "b.toml").write_text("[m]\n")
    first = program_of(tmp_path)
    assert set(first.files) == {"pkg/a.py", "pkg/b.toml"}
    # caches and hidden files are not the program
    (tmp_path / "pkg" / "__pycache__").mkdir()
    (tmp_path / "pkg" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "pkg" / ".a.py.swp").write_bytes(b"\0")
    assert program_of(tmp_path) == first
    # one byte changed, a file added or removed: another digest, and the change named
    (tmp_path / "pkg" / "a.py").write_text("x = 2\n")
    second = program_of(tmp_path)
    assert second.digest != first.digest
    assert changed_files(first.files, second.files) == ["~pkg/a.py"]
    (tmp_path / "pkg" / "b.toml").unlink()
    (tmp_path / "pkg" / "c.py").write_text("")
    third = program_of(tmp_path)
    assert changed_files(second.files, third.files) == ["-pkg/b.toml", "+pkg/c.py"]


def test_the_running_program_is_this_package() -> None:
    program = running_program()
    assert "tables/program.py" in program.files
    assert "messages/tables.toml" in program.files
    assert not any("__pycache__" in name for name in program.files)
    assert program == program_of(PACKAGE_ROOT)
