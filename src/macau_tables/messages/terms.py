"""The games' own words in each language, for the parameters of a message: the glossary.

A message's parameters are language-neutral values: a wager kind (``"banker_pair"``), a side, a
phase, a supervisor's action, a position at the table (``"box 3"``, ``"the dealer"``), a
command or event class (``"DealCard"``, ``"CardRefused"``), an audit action (``"table_open"``),
a demonstration table's name. A template marks the parameters that are such words with the
format spec ``term`` (``"{kind:term} 投注 {amount:money} …"``); :func:`term` gives the word in
the template's language from the catalog's glossary, ``glossary.toml`` beside this module (one
text per language, English included: 閒 / player, 原注 / ante, 門 / box, 莊荷 / dealer …), which
also names each language's source (:func:`source`) and the words a language's templates avoid
(:func:`avoided`). A value that is not a known word is shown as it is (a player's name).

>>> term("banker_pair", "zh-Hant"), term("box 3", "zh-Hant"), term("bob", "zh-Hant")
('莊對子', '第 3 門', 'bob')
>>> term("banker_pair", "en"), term("command baccarat.Correct", "zh-Hant")
('banker pair', '指令：更正實體牌')
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Final

__all__ = [
    "GLOSSARY_FILE",
    "TERMS",
    "Avoided",
    "avoided",
    "entries",
    "field_word",
    "locale",
    "places",
    "source",
    "term",
]

GLOSSARY_FILE: Final = "glossary.toml"
"""The glossary's file beside this module (not a message namespace: ``messages.catalog``
leaves it out)."""

_PLACE_FIELD: Final = re.compile(r"\{(\d+)(?::(term))?\}")


@dataclass(frozen=True, slots=True)
class Avoided:
    """A word the templates of ``language`` do not use (``use`` instead); ``where``: only in the
    keys starting so (``"caribbean."``), every key when empty; ``but``: longer words holding it
    that stay (發牌靴, a dealing shoe, holds 牌靴)."""

    language: str
    word: str
    use: str
    where: str = ""
    but: tuple[str, ...] = ()

    def used_in(self, text: str) -> bool:
        """Whether ``text`` uses the avoided word (not only inside one of ``but``)."""
        for kept in self.but:
            text = text.replace(kept, "")
        return self.word in text


@dataclass(frozen=True, slots=True)
class _Glossary:
    words: Mapping[str, Mapping[str, str]]  # language → value → text
    places: Mapping[str, tuple[tuple[re.Pattern[str], str], ...]]  # language → (pattern, template)
    sources: Mapping[str, str]
    locales: Mapping[str, str]
    avoided: tuple[Avoided, ...]
    entries: Mapping[str, Mapping[str, str]]  # "terms.<value>" / "places.<name>" → language → text


@cache
def _glossary() -> _Glossary:
    data = tomllib.loads(resources.files(__package__).joinpath(GLOSSARY_FILE).read_text("utf-8"))
    words: dict[str, dict[str, str]] = {}
    entries: dict[str, dict[str, str]] = {}
    for value, texts in data.get("terms", {}).items():
        entries[f"terms.{value}"] = dict(texts)
        for language, text in texts.items():
            words.setdefault(language, {})[value] = text
    places: dict[str, list[tuple[re.Pattern[str], str]]] = {}
    for name, place in data.get("places", {}).items():
        pattern = re.compile(place["pattern"])
        texts = {k: v for k, v in place.items() if k != "pattern"}
        entries[f"places.{name}"] = texts
        for language, template in texts.items():
            places.setdefault(language, []).append((pattern, template))
    avoid = tuple(
        Avoided(a["language"], a["word"], a["use"], a.get("where", ""), tuple(a.get("but", ())))
        for a in data.get("avoid", ())
    )
    return _Glossary(
        words,
        {k: tuple(v) for k, v in places.items()},
        dict(data.get("source", {})),
        dict(data.get("locale", {})),
        avoid,
        entries,
    )


TERMS: Final[Mapping[str, Mapping[str, str]]] = _glossary().words
"""Value → its text, per language (English included)."""


def term(value: str, language: str) -> str:
    """``value`` (a word of the games' vocabulary) in ``language`` (English in a language the
    glossary does not have); ``value`` itself when it is not a known word. Never raises."""
    glossary = _glossary()
    if language not in glossary.words:
        language = "en"
    known = glossary.words[language].get(value)
    if known is not None:
        return known
    for pattern, template in glossary.places.get(language, ()):
        match = pattern.fullmatch(value)
        if match is not None:
            return _fill(template, match.groups(), language)
    return value


def _fill(template: str, groups: tuple[str | None, ...], language: str) -> str:
    """A place's ``template`` with its groups: ``{0}`` as it is, ``{0:term}`` as a word."""

    def one(m: re.Match[str]) -> str:
        value = groups[int(m[1])] or ""
        return term(value, language) if m[2] else value

    return _PLACE_FIELD.sub(one, template)


def field_word(path: str, language: str) -> str:
    """The field a JSON path names (``"$.command.card"``: its last name, ``card``), as the
    glossary words it (``"field card"``: 牌); the request itself for ``"$"``, a field of the
    request for a name the glossary lacks. Never the path itself: a refusal shown to a person
    names the field in words (the machine path stays in the refusal's ``params``)."""
    names = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", path)
    words = _glossary().words.get(language, _glossary().words["en"])
    if not names:
        return words.get("field $", path)
    return words.get(f"field {names[-1]}") or words.get("field", path)


def places(language: str) -> tuple[tuple[str, str], ...]:
    """The numbered places of ``language`` as (regular expression, template with ``{0}`` and
    ``{0:term}``) pairs — what :func:`term` applies after the words, for a page's script to do
    the same."""
    return tuple(
        (pattern.pattern, template) for pattern, template in _glossary().places.get(language, ())
    )


def source(language: str) -> str:
    """Where ``language``'s words come from (the glossary's ``[source]``); empty if unnamed."""
    return _glossary().sources.get(language, "")


def locale(language: str) -> str:
    """The ``Intl`` locale of ``language``'s dates and times (the glossary's ``[locale]``:
    ``zh-Hant-MO``), English's for a language without one."""
    locales = _glossary().locales
    return locales.get(language) or locales["en"]


def avoided() -> tuple[Avoided, ...]:
    """The words each language's templates avoid (the glossary's ``[[avoid]]``)."""
    return _glossary().avoided


def entries() -> Mapping[str, Mapping[str, str]]:
    """Every entry of the glossary (``terms.<value>``, ``places.<name>``, ``source``) with its
    text per language: what a new language must fill."""
    g = _glossary()
    return {**g.entries, "source": g.sources, "locale": g.locales}
