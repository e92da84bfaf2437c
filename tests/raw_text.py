"""What a person must never read: the patterns
the catalog test (tests/core/test_glossary.py) and the pages' crawl
(tests/browser/test_every_page_words.py) look for in a text — a support module, never a test.

:func:`raw_left` names, in a text a person reads:

* a catalog key (``pages.lobby_title``) — a text the page or the catalog could not find;
* a class name of the codebase (``CardCorrected``, ``OpenShoe``, ``TableMode``: CamelCase with
  two capitals or more) or a stored type (``baccarat.Correct``) — an event, command or enum
  shown as it is stored;
* a value of the glossary written in ``snake_case`` (``banker_pair``, ``table_open``) — a game
  word not shown as a word;
* a JSON path (``$.card``, ``$[0]``);
* an amount in minor units: one of ``minor`` (the ints a test gave ``{amount:money}``) written
  as it is rather than in major units.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from functools import cache

from macau_tables import messages
from macau_tables.messages import terms
from tests.sources import SRC, tree_of

CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b")
STORED_TYPE = re.compile(r"\b[a-z_]+\.[A-Z][A-Za-z0-9]+\b")
SNAKE = re.compile(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b")
JSON_PATH = re.compile(r"\$(?:\.[A-Za-z_]|\[)[\w.\[\]]*")
KEY = re.compile(r"\b([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)\b")


@cache
def class_names() -> frozenset[str]:
    """Every class defined in ``src/macau_tables`` whose name is CamelCase with two capitals or
    more (``DealCard``; not ``Card``, a word)."""
    names = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.ClassDef) and CAMEL.fullmatch(node.name.lstrip("_")):
                names.add(node.name.lstrip("_"))
    return frozenset(names)


@cache
def snake_words() -> frozenset[str]:
    """The glossary's values written in ``snake_case`` (``banker_pair``, ``table_open``)."""
    return frozenset(
        value
        for words in terms.TERMS.values()
        for value in words
        if SNAKE.fullmatch(value.rpartition(".")[2])
        for value in (value.rpartition(".")[2],)
    )


def raw_left(text: str, *, minor: Iterable[int] = (), data: Iterable[str] = ()) -> list[str]:
    """What in ``text`` a person should not read (module docstring), once the ``data`` a page
    shows as it is stored (a user's name, a table's id) is set aside; empty when nothing."""
    for value in sorted(data, key=len, reverse=True):
        if value:
            text = text.replace(value, " ")
    found = []
    catalog = messages.catalog()
    found += [f"key {m[0]}" for m in KEY.finditer(text) if m[0] in catalog]
    found += [f"class {m[0]}" for m in CAMEL.finditer(text) if m[0] in class_names()]
    found += [f"type {m[0]}" for m in STORED_TYPE.finditer(text)]
    found += [f"value {m[0]}" for m in SNAKE.finditer(text) if m[0] in snake_words()]
    found += [f"path {m[0]}" for m in JSON_PATH.finditer(text)]
    for amount in minor:
        if re.search(rf"(?<![\d.,]){amount}(?![\d.,])", text):
            found.append(f"minor units {amount}")
    return found


ASCII_WORD = re.compile(r"[A-Za-z]{3,}")

SAME_IN_EVERY_LANGUAGE = frozenset(
    {"SHA", "CSV", "JSON", "BAC", "CSP", "MOP", "NUL", "verify", "macau", "tables"}
    | {"DEMO", "ONLY"}  # the demonstration's approval reference, DEMO-ONLY
    | {"Enter"}  # a key's name as printed on the keyboard ("按 Enter")
)
"""Words a page in any language shows as they are: the rules' ids, formats, a command line
(``macau-tables verify``)."""


LETTERS = re.compile(r"[^\W\d_]{3,}")
"""A word in any script (Português is one word, not ``Portugu``)."""
CJK = re.compile(r"[\u3400-\u9fff]")


@cache
def vocabulary(language: str) -> frozenset[str]:
    """Every word (lower case) the catalog and the glossary write in ``language``."""
    words: set[str] = set()
    texts = [t.get(language, "") for t in messages.catalog().values()]
    texts += [w for w in terms.TERMS.get(language, {}).values()]
    for text in texts:
        text = re.sub(r"\{[^{}]*\}", " ", text)  # placeholders
        words.update(w.lower() for w in LETTERS.findall(text))
    return frozenset(words)


def english_words(text: str, *, data: Iterable[str] = (), language: str = "zh-Hant") -> list[str]:
    """The English words left in ``text`` of a page in ``language`` (not English), once the
    ``data`` it shows as stored (names, ids, reasons people typed), digests and ids are set
    aside; each language's own name (the switch) too. In a language written in Chinese
    characters every Latin word is one; in one written in Latin letters (Portuguese) a word of
    the English catalog that the language's own catalog never writes."""
    for value in sorted(data, key=len, reverse=True):
        if value:
            text = text.replace(value, " ")
    for other in messages.LANGUAGES:
        text = text.replace(messages.render("pages.language_name", {}, other), " ")
    text = re.sub(r"[0-9a-f]{16,}", " ", text)
    text = re.sub(r"\b(?:[A-Za-z0-9]+-)+[A-Za-z0-9]+\b", " ", text)
    text = re.sub(r"\b\w*\d\w*\b", " ", text)  # ids typed with digits: pit3dced9, 3dced1
    latin = not CJK.search(messages.render("pages.language_name", {}, language))
    if not latin:
        return sorted({w for w in ASCII_WORD.findall(text) if w not in SAME_IN_EVERY_LANGUAGE})
    own, english = vocabulary(language), vocabulary(messages.DEFAULT_LANGUAGE)
    return sorted(
        {
            w
            for w in LETTERS.findall(text)
            if w not in SAME_IN_EVERY_LANGUAGE and w.lower() in english - own
        }
    )
