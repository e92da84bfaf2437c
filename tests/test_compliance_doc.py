"""docs/compliance.md stays true: every SPEC rule id has a row, every test it names exists."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REQUIRE_ALL

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "compliance.md"
SPEC = ROOT.parent / "shared" / "SPEC.md"


@cache
def _names(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    )


def _references() -> list[tuple[str, str | None]]:
    """(file, test name or None) for every backticked test reference, `::name` following the
    last file named."""
    refs: list[tuple[str, str | None]] = []
    current: str | None = None
    for token in re.findall(r"`([^`]+)`", DOC.read_text(encoding="utf-8")):
        m = re.fullmatch(r"(tests/[\w/]+\.py)(?:::(\w+))?", token)
        if m:
            current = m.group(1)
            refs.append((current, m.group(2)))
        elif token.startswith("::") and current is not None:
            refs.append((current, token[2:].split("[")[0]))
    return refs


def test_every_test_named_in_compliance_md_exists() -> None:
    refs = _references()
    assert len(refs) > 100
    missing = []
    for file, name in refs:
        path = ROOT / file
        if not path.is_file():
            missing.append(file)
        elif name is not None and name not in _names(path):
            missing.append(f"{file}::{name}")
    assert not missing, f"compliance.md names tests that do not exist: {missing}"


def test_every_spec_rule_id_has_a_row() -> None:
    if not SPEC.is_file():
        if REQUIRE_ALL:
            pytest.fail(f"{SPEC} is missing: the compliance check needs ../shared/SPEC.md")
        pytest.skip("../shared/SPEC.md is not beside this checkout")
    ids = sorted(set(re.findall(r"\*\*((?:CSP|BAC)-\d+)", SPEC.read_text(encoding="utf-8"))))
    doc = DOC.read_text(encoding="utf-8")
    rows = [line for line in doc.splitlines() if line.startswith("| ")]
    missing = [i for i in ids if not any(re.search(rf"\b{i}(?![0-9])", r) for r in rows)]
    assert len(ids) >= 30
    assert not missing, f"no compliance row for {missing}"
