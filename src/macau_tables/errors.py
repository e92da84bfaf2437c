"""One exception family for the whole project.

Every error a user can cause is a :class:`MacauTablesError`. Rule breaches carry the id of the
rule they break (``CSP-6.6``, ``BAC-9.3``) so that a dealer console, an API client or a test can
say exactly which part of the law refused the command.
"""

from __future__ import annotations


class MacauTablesError(Exception):
    """Base of every error raised on purpose by macau-tables."""

    code: str = "error"


class RuleViolation(MacauTablesError):
    """A command that the law (as restated in SPEC.md) does not allow.

    ``rule`` is the SPEC rule id, ``message`` a sentence a dealer can read.
    """

    code = "rule_violation"

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message


class ConfigError(MacauTablesError, ValueError):
    """A table setting or rules object that is invalid or inconsistent."""

    code = "config_error"


class ParseError(MacauTablesError, ValueError):
    """Text that does not describe what it should (a card, a hand, an amount)."""

    code = "parse_error"
