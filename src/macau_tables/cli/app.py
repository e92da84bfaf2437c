"""The complete ``macau-tables`` app: every command module registered on :data:`app`."""

from __future__ import annotations

from . import (
    audit_cli,
    baccarat_analysis,
    baccarat_demo,
    caribbean_analysis,
    caribbean_demo,
    program_cli,
    serve_cli,
    tables_cli,
    users_cli,
)
from .apps import app

__all__ = ["app"]

# Imported for their commands (each registers itself on the groups of .apps).
COMMAND_MODULES = (
    caribbean_analysis,
    baccarat_analysis,
    caribbean_demo,
    baccarat_demo,
    tables_cli,
    audit_cli,
    serve_cli,
    users_cli,
    program_cli,
)
