"""The package's source files as syntax trees, for the tests that scan the code (a support
module: never a test file): each file is read and parsed once per process, however many scans
of how many test modules walk it (a parse of the package is about a second of CPU)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

__all__ = ["SRC", "tree_of"]

SRC = Path(__file__).resolve().parents[1] / "src" / "macau_tables"
"""The package's source directory."""


@cache
def tree_of(path: Path) -> ast.Module:
    """``path``'s syntax tree (shared: a scan walks it, never changes it)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
