"""The command line's shared helpers: results written whole or not at all, Ctrl-C anywhere."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import typer

from macau_tables import cli


def test_emit_writes_the_whole_file(tmp_path: Path) -> None:
    out = tmp_path / "sheet.txt"
    out.write_text("old result", encoding="utf-8")
    cli.emit("new result\n", out)
    assert out.read_text(encoding="utf-8") == "new result\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.txt"]  # no temporary left


def test_emit_unwritable_file_is_a_clear_error_and_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "sheet.txt"
    out.write_text("old result", encoding="utf-8")

    def disk_full(self: Path, *args: object, **kwargs: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", disk_full)
    with pytest.raises(typer.Exit) as exited:
        cli.emit("new result\n", out)
    monkeypatch.undo()
    assert exited.value.exit_code == 1
    err = capsys.readouterr().err
    assert f"error: cannot write {out}" in err and "No space left on device" in err
    # The earlier file stands untouched and no half-written temporary is left beside it.
    assert out.read_text(encoding="utf-8") == "old result"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.txt"]


def test_ctrl_c_while_commands_load_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(name: str) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib, "import_module", interrupted)
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 130
    assert "interrupted: no results" in capsys.readouterr().err
