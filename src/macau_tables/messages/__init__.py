"""The message catalog: every text in English, Traditional Chinese and Portuguese (Macau's
official languages; :data:`LANGUAGES`).

Each ``*.toml`` file beside this module is one namespace; a table in it is one message, keyed
``"<file stem>.<table>"``, with one template per language::

    [raise_not_twice_ante]
    en = "the raise is exactly twice the ante ({wanted:money}), not {amount:money}"
    zh-Hant = "加注必須恰好是原注的兩倍（{wanted:money}），不能是 {amount:money}"
    pt = "a aposta adicional é exactamente o dobro da aposta inicial ({wanted:money}), …"

Templates use ``str.format`` placeholders filled from the error's ``params``. Every language of
a key has the same placeholders with the same specs (a test checks it, and that every key used
in the code exists). The games' words of every language are the glossary (``glossary.toml``,
:mod:`.terms`), which names the source of each language's terms.
A placeholder with the format spec ``term`` (``{kind:term}``) is a word of the games' vocabulary
shown in the template's language (:mod:`.terms`: 莊對子 for ``"banker_pair"``). A placeholder
with the format spec ``money`` (``{amount:money}``) is an amount: its parameter stays an ``int``
of minor units (for machines: the API's ``params``, the logs), and the text reads it in major
units through :func:`macau_tables.money.format_minor` (``1050`` reads ``10.50``), in every
language alike. A parameter that is not an ``int`` (a refused ``"abc"``) is shown as it came. A
placeholder with the format spec ``field`` (``{path:field}``) is a JSON path into a request
(``"$.command.card"``): the text names the field in words (:func:`.terms.field_word`: 牌), the
parameter keeps the path. ``glossary.toml`` is the games' vocabulary (:mod:`.terms`), not a
namespace of messages.

>>> render("money.stake_off_unit", {"what": "ante", "amount": 500, "unit": 1000})
'ante 5.00 is not a whole multiple of the bet unit 10.00'
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Final

from .terms import GLOSSARY_FILE, field_word, term

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "catalog",
    "placeholders",
    "render",
]

LANGUAGES: Final = ("en", "zh-Hant", "pt")
"""The catalog's languages, English first (the CLI's and the logs' language)."""

DEFAULT_LANGUAGE: Final = "en"


@cache
def catalog() -> Mapping[str, Mapping[str, str]]:
    """Every message: ``{key: {language: template}}``, loaded once from the TOML files.

    Refuses (``ValueError``) a file whose message is not a table of strings.
    """
    out: dict[str, dict[str, str]] = {}
    for entry in sorted(resources.files(__name__).iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".toml") or entry.name == GLOSSARY_FILE:
            continue
        namespace = entry.name.removesuffix(".toml")
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
        for name, texts in data.items():
            if not isinstance(texts, dict) or not all(isinstance(v, str) for v in texts.values()):
                raise ValueError(f"{entry.name}: [{name}] must map languages to strings")
            out[f"{namespace}.{name}"] = dict(texts)
    return out


def placeholders(template: str) -> frozenset[str]:
    """The names of the ``{placeholders}`` in ``template``."""
    return frozenset(
        field for _, field, _, _ in string.Formatter().parse(template) if field is not None
    )


def render(key: str, params: Mapping[str, object], language: str = DEFAULT_LANGUAGE) -> str:
    """The message ``key`` in ``language`` with ``params`` filled in.

    Never raises: an unknown language falls back to English; an unknown key or a template whose
    placeholder is missing from ``params`` renders the key and its parameters (a test keeps the
    catalog complete, so this only shows a bug, it never hides a refusal).
    """
    texts = catalog().get(key)
    if texts is not None:
        template = texts.get(language) or texts.get(DEFAULT_LANGUAGE)
        if template is not None:
            try:
                return template.format_map({k: _value(v, language) for k, v in params.items()})
            except (KeyError, IndexError, ValueError):
                pass
    shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
    return f"{key}({shown})"


class _Amount(int):
    """An ``int`` parameter; the format spec ``money`` reads it as minor units in major units
    (:func:`~macau_tables.money.format_minor`), any other spec as the ``int`` it is."""

    def __format__(self, spec: str) -> str:
        if spec == "money":
            return _format_minor(int(self))
        return format(int(self), spec)


def _format_minor(amount: int) -> str:
    from ..money import format_minor  # money imports errors, which renders through this module

    return format_minor(amount)


class _Word(str):
    """A text parameter; the format spec ``term`` shows it in the template's language
    (:func:`~.terms.term`: ``{kind:term}`` is 莊對子 in Chinese for ``"banker_pair"``)."""

    language: str = DEFAULT_LANGUAGE

    def __format__(self, spec: str) -> str:
        if spec == "term":
            return term(str(self), self.language)
        if spec == "field":
            return field_word(str(self), self.language)
        if spec == "money":  # not an amount (a refused value): shown as it came
            return str(self)
        return format(str(self), spec)


def _value(value: object, language: str) -> object:
    if isinstance(value, int) and not isinstance(value, bool):
        return _Amount(value)
    if not isinstance(value, str):
        return value
    word = _Word(value)
    word.language = language
    return word
