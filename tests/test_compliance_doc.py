"""The rules and their compliance map stay true, inside this repository.

docs/rules.md (the only copy of the rules) defines every rule id once; every id has a row in
docs/compliance.md and every id a row cites is defined; every test compliance.md names exists;
and no file of the checkout points outside it, so a clone alone builds, tests and explains itself.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "compliance.md"
RULES = ROOT / "docs" / "rules.md"

# A rule is defined by a paragraph that starts with its id in bold: **CSP-6.6** ...
DEFINITION = re.compile(r"^\*\*((?:CSP|BAC)-\d+(?:\.\d+)?)\*\*", re.MULTILINE)
CITATION = re.compile(r"\b((?:CSP|BAC)-\d+(?:\.\d+)?)")
LAWS = {"CSP": 13, "BAC": 19}  # Dispatch 61/2004 has 13 articles, the Baccarat regulation 19

# Where a clone must not look outside itself, and what it must not point at. The patterns are
# spelled in two parts so that this file does not match them.
CHECKED = ("README.md", "Makefile", "pyproject.toml", "src", "tests", "docs", "bench", ".ci")
OUTSIDE = (".." + "/shared", "shared" + "/SPEC")
SKIPPED_SUFFIXES = {".pyc", ".pyo", ".so", ".pyd"}


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


def _rule_ids() -> list[str]:
    return DEFINITION.findall(RULES.read_text(encoding="utf-8"))


def _rows() -> list[str]:
    return [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]


def _parent(rule: str) -> str:
    return rule.split(".")[0]


def test_rules_md_defines_every_article_of_both_laws_once() -> None:
    ids = _rule_ids()
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicated, f"docs/rules.md defines these ids more than once: {duplicated}"
    expected = {f"{law}-{n}" for law, count in LAWS.items() for n in range(1, count + 1)}
    top = {i for i in ids if "." not in i}
    assert top == expected, (
        f"docs/rules.md: missing {sorted(expected - top)}, unknown {sorted(top - expected)}"
    )
    orphans = [i for i in ids if _parent(i) not in top]
    assert not orphans, f"sub-ids without their rule: {orphans}"
    # The sub-ids the code has always cited (a sample; the full set is in the file).
    sample = {"CSP-6.6", "CSP-8.10", "CSP-10.8", "BAC-2.1", "BAC-9.3", "BAC-13.4"}
    assert sample <= set(ids), f"docs/rules.md lost {sorted(sample - set(ids))}"


def test_every_rule_id_has_a_row() -> None:
    """A rule is covered by a row citing it; a rule with sub-ids also by a row citing one of
    them, and a sub-id also by a row citing its rule on its own (`BAC-16` covers BAC-16.2)."""
    rows = _rows()

    def covered(rule: str) -> bool:
        if any(re.search(rf"\b{re.escape(rule)}(?!\d)", r) for r in rows):
            return True
        parent = _parent(rule)
        return parent != rule and any(
            re.search(rf"\b{re.escape(parent)}(?!\.?\d)", r) for r in rows
        )

    ids = _rule_ids()
    assert len(ids) >= 32
    missing = [i for i in ids if not covered(i)]
    assert not missing, f"no compliance row for {missing}"


def test_every_rule_id_compliance_md_cites_is_defined_in_rules_md() -> None:
    """An id cited in compliance.md is a rule of docs/rules.md, or an item inside one."""
    defined = set(_rule_ids())
    cited = set(CITATION.findall(DOC.read_text(encoding="utf-8")))
    unknown = sorted(i for i in cited if i not in defined and _parent(i) not in defined)
    assert not unknown, f"compliance.md cites ids that docs/rules.md does not define: {unknown}"


def _generated(part: str) -> bool:
    """Caches and build output a clone does not contain (hidden, bytecode, egg-info)."""
    return part.startswith(".") or part == "__pycache__" or part.endswith(".egg-info")


def _checked_files() -> list[Path]:
    files: list[Path] = []
    for name in CHECKED:
        top = ROOT / name
        if top.is_file():
            files.append(top)
            continue
        for path in sorted(top.rglob("*")):
            relative = path.relative_to(top).parts
            if (
                path.is_file()
                and path.suffix not in SKIPPED_SUFFIXES
                and not any(_generated(p) for p in relative)
            ):
                files.append(path)
    return files


def test_no_file_points_outside_the_repository() -> None:
    """A clone stands alone: no document, test or source file needs a directory beside it."""
    files = _checked_files()
    assert RULES in files and Path(__file__).resolve() in files
    offending = [
        f"{path.relative_to(ROOT)}: {pattern}"
        for path in files
        for pattern in OUTSIDE
        if pattern.encode() in path.read_bytes()
    ]
    assert not offending, f"files that point outside the repository: {offending}"
