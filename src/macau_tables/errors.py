"""One exception family for the whole project.

Every error a user can cause is a :class:`MacauTablesError`. Each carries a stable message
``key`` and its ``params`` (JSON-ready: ``str``, ``int``, ``bool`` or ``None``); the English
``message`` is rendered from the catalog in :mod:`macau_tables.messages`, which holds the same key
in Traditional Chinese, so a page can show the refusal in the reader's language
(:meth:`MacauTablesError.text`). Rule breaches carry the id of the rule they break (``CSP-6.6``,
``BAC-9.3``) so that a dealer console, an API client or a test can say exactly which part of the
law refused the command.

>>> err = RuleViolation("CSP-6.6", "caribbean.raise_not_twice_ante", wanted=200, amount=150)
>>> err.rule, err.key, err.params["wanted"]
('CSP-6.6', 'caribbean.raise_not_twice_ante', 200)
>>> print(err)
[CSP-6.6] the raise is exactly twice the ante (2.00), not 1.50
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from . import messages

__all__ = [
    "AuthError",
    "CodecError",
    "ConfigError",
    "MacauTablesError",
    "ParseError",
    "RuleViolation",
    "StoreError",
    "json_param",
]

Param = str | int | bool | None


def json_param(value: object) -> Param:
    """``value`` as a JSON-ready message parameter: ``str``/``int``/``bool``/``None`` as they
    are, an enum as its value, anything else (a card, a date, another refusal) as its ``str``."""
    if value is None or isinstance(value, str | int | bool):
        return value
    inner = getattr(value, "value", None)
    if isinstance(inner, str | int) and not isinstance(inner, bool):
        return inner
    return str(value)


class MacauTablesError(Exception):
    """Base of every error raised on purpose by macau-tables.

    ``key`` names the message in the catalog, ``params`` fill its placeholders, ``message`` is
    the English text. ``code`` is the machine-readable kind (``rule_violation``, …).

    The text is rendered lazily: constructing an error stores its key and parameters only;
    ``message``, ``str(err)`` and :meth:`text` render it when asked (``message`` once, then
    kept), the same text an eager rendering gave. A refusal that is raised and caught without
    being shown (a decoder trying a value, a check that falls back) costs no rendering.
    """

    code: ClassVar[str] = "error"
    _message: str | None = None

    def __init__(self, key: str, /, **params: Any) -> None:
        self.key = key
        # A parameter that is itself a refusal (the detail of a card that cannot be read) is
        # kept so that :meth:`text` shows it in the same language; ``params`` holds its English.
        self.nested: dict[str, MacauTablesError] = {
            k: v for k, v in params.items() if isinstance(v, MacauTablesError)
        }
        self.params: dict[str, Param] = {k: json_param(v) for k, v in params.items()}
        super().__init__(key)

    @property
    def message(self) -> str:
        """The English text (rendered on first use, then kept)."""
        if self._message is None:
            self._message = messages.render(self.key, self.params)
        return self._message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from key and params (pickling across processes keeps the key).
        return (_rebuild_error, (type(self), self.key, {**self.params, **self.nested}))

    def text(self, language: str = messages.DEFAULT_LANGUAGE) -> str:
        """The message in ``language`` (one of ``messages.LANGUAGES``: ``en``, ``zh-Hant``,
        ``pt``; others fall back to English), a nested refusal among the parameters included in
        that language."""
        params: dict[str, object] = dict(self.params)
        for name, inner in self.nested.items():
            params[name] = inner.inline(language)
        return messages.render(self.key, params, language)

    def inline(self, language: str = messages.DEFAULT_LANGUAGE) -> str:
        """The text this refusal shows inside another one (its ``str`` in ``language``)."""
        return self.text(language)

    def to_dict(self, language: str = messages.DEFAULT_LANGUAGE) -> dict[str, Any]:
        """``{"error", "rule", "key", "params", "message"}``: the JSON shape of a refusal."""
        return {
            "error": self.code,
            "rule": getattr(self, "rule", None),
            "key": self.key,
            "params": dict(self.params),
            "message": self.text(language),
        }


class RuleViolation(MacauTablesError):
    """A command that the law (as restated in docs/rules.md) does not allow.

    ``rule`` is the rule id, ``message`` a sentence a dealer can read.
    """

    code: ClassVar[str] = "rule_violation"

    def __init__(self, rule: str, key: str, /, **params: Any) -> None:
        self.rule = rule
        super().__init__(key, **params)

    def __str__(self) -> str:
        return f"[{self.rule}] {self.message}"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.rule, self.key, {**self.params, **self.nested}))

    def inline(self, language: str = messages.DEFAULT_LANGUAGE) -> str:
        """``[rule] message`` in ``language`` (as ``str(self)`` is in English)."""
        return f"[{self.rule}] {self.text(language)}"


class ConfigError(MacauTablesError, ValueError):
    """A table setting or rules object that is invalid or inconsistent."""

    code: ClassVar[str] = "config_error"


class ParseError(MacauTablesError, ValueError):
    """Text that does not describe what it should (a card, a hand, an amount)."""

    code: ClassVar[str] = "parse_error"


class CodecError(MacauTablesError, ValueError):
    """A stored payload that cannot be read back (:mod:`macau_tables.codec`): not an object,
    an unknown type, a missing or extra field, a wrong value, a newer schema version, rules
    that do not match their reference. ``params["path"]`` names where (``$.settlement.wagers[2]``).
    """

    code: ClassVar[str] = "codec_error"


class AuthError(MacauTablesError):
    """Who is asking may not do what they ask (wrong role, no session)."""

    code: ClassVar[str] = "auth_error"


class StoreError(MacauTablesError):
    """The database refuses or cannot be used: not migrated, a newer schema, a failed integrity
    check, an unbalanced transaction, a conflict retried too often (:mod:`macau_tables.store`).
    The message says what to do."""

    code: ClassVar[str] = "store_error"


def _rebuild_error(
    cls: type[MacauTablesError], key: str, params: Mapping[str, Param]
) -> MacauTablesError:
    return cls(key, **params)


def _rebuild(
    cls: type[RuleViolation], rule: str, key: str, params: Mapping[str, Param]
) -> RuleViolation:
    return cls(rule, key, **params)
