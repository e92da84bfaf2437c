"""The program's integrity: what runs is what was approved (STANDARDS "Faults, power loss,
recovery": on start-up, before taking commands, check the integrity of the program — a changed
program keeps the tables closed; SPEC common rules "Approvals").

The program is every file of the installed ``macau_tables`` package (its code, message
catalogs, pages and their assets), each by its SHA-256; the program's digest is the SHA-256 of
that list (``path<TAB>sha256<LF>`` per file, sorted by path; caches such as ``__pycache__`` and
hidden files left out). It is computed once per process, at the first check: the program that
was loaded is the one that runs.

An approval (``macau-tables program approve --actor NAME --reason TEXT``) is a privileged
action in the audit log (action ``program.approve``: who, why, when, and in its detail the
digest, the version and every file's digest). A table that is not a demonstration table
refuses to open (:class:`~macau_tables.tables.service.TableService`) unless the running
program's digest is the one last approved: ``tables.program_not_approved`` when none was,
``tables.program_changed`` naming the files added, removed or changed since. The server keeps
such a table closed and tries again at each tick, so an approval opens it without a restart.
Demonstration tables open whatever the program (their approvals are fictitious too); the
check's finding is still shown (``macau-tables program show``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Final

from .. import __version__
from ..errors import ConfigError
from ..store import Store, Tx
from .model import text_field

__all__ = [
    "APPROVE_ACTION",
    "Approved",
    "Program",
    "approve_program",
    "changed_files",
    "last_approval",
    "program_of",
    "require_approved_program",
    "running_program",
]

APPROVE_ACTION: Final = "program.approve"
"""The audit log's action of an approval of the program."""

PACKAGE_ROOT: Final = Path(__file__).resolve().parent.parent
_SKIPPED_DIRS: Final = frozenset({"__pycache__"})
_SKIPPED_SUFFIXES: Final = (".pyc", ".pyo")
_NAMED: Final = 5
"""How many changed files a refusal names (the rest are counted)."""


@dataclass(frozen=True, slots=True)
class Program:
    """A program: its digest, its version and every file's SHA-256 by path (``/``-separated,
    relative to the package's folder)."""

    digest: str
    version: str
    files: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Approved:
    """The last approval: the program approved, by whom, why and when (audit entry ``id``)."""

    program: Program
    actor: str
    reason: str
    at: datetime
    id: int


def program_of(root: Path, version: str = __version__) -> Program:
    """The program made of the files under ``root`` (see the module docstring)."""
    files: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if (
            not path.is_file()
            or any(part in _SKIPPED_DIRS or part.startswith(".") for part in relative.parts)
            or path.name.endswith(_SKIPPED_SUFFIXES)
        ):
            continue
        files[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    listing = "".join(f"{name}\t{digest}\n" for name, digest in sorted(files.items()))
    return Program(hashlib.sha256(listing.encode()).hexdigest(), version, files)


@cache
def running_program() -> Program:
    """The program of this process (its package's files, read once)."""
    return program_of(PACKAGE_ROOT)


def changed_files(approved: Mapping[str, str], running: Mapping[str, str]) -> list[str]:
    """What differs from ``approved`` in ``running``, by path: ``+path`` added, ``-path``
    removed, ``~path`` changed."""
    out: list[str] = []
    for name in sorted(set(approved) | set(running)):
        if name not in approved:
            out.append(f"+{name}")
        elif name not in running:
            out.append(f"-{name}")
        elif approved[name] != running[name]:
            out.append(f"~{name}")
    return out


def last_approval(tx: Tx) -> Approved | None:
    """The program approved last (``None``: never)."""
    entry = tx.last_audit(APPROVE_ACTION)
    if entry is None:
        return None
    detail = entry.detail or {}
    files = detail.get("files")
    program = Program(
        str(detail.get("digest", "")),
        str(detail.get("version", "")),
        {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {},
    )
    return Approved(program, entry.actor, entry.reason or "", entry.at, entry.id)


def approve_program(tx: Tx, program: Program, *, actor: str, reason: str) -> int:
    """Record ``program`` as approved by ``actor`` for ``reason`` (both required: refused
    ``tables.text_required`` when empty); returns the audit entry's id."""
    text_field(actor, "actor")
    text_field(reason, "reason")
    return tx.audit(
        APPROVE_ACTION,
        actor=actor,
        reason=reason,
        detail={"digest": program.digest, "version": program.version, "files": program.files},
    )


def require_approved_program(store: Store, program: Program | None = None) -> None:
    """Refuse (``tables.program_not_approved`` / ``tables.program_changed``) unless
    ``program`` (default: the running one) is the program approved last in ``store``."""
    running = program or running_program()
    approved = store.read(last_approval)
    if approved is None:
        raise ConfigError("tables.program_not_approved", digest=running.digest[:16])
    if approved.program.digest != running.digest:
        changes = changed_files(approved.program.files, running.files)
        named = ", ".join(changes[:_NAMED])
        if len(changes) > _NAMED:
            named += f" (+{len(changes) - _NAMED})"
        raise ConfigError(
            "tables.program_changed",
            digest=running.digest[:16],
            approved=approved.program.digest[:16],
            actor=approved.actor,
            files=named or "-",
        )
