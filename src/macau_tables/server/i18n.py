"""The pages' language: Traditional Chinese or English, from the message catalog.

* **Which language.** ``?lang=<language>`` (one of :data:`macau_tables.messages.LANGUAGES`) on
  any page switches and is remembered in the cookie :data:`LANG_COOKIE` (a year,
  ``SameSite=Lax``, readable by no script); without it the cookie decides; on a first visit the
  browser's ``Accept-Language`` does (its preferred catalog language by q-value: ``zh-Hant``,
  ``zh-TW``, ``zh-HK``, ``zh-MO`` and a bare ``zh`` are Traditional Chinese; any other tag is
  the catalog language of its primary subtag — ``pt``, ``pt-PT``, ``pt-BR``, ``pt-MO`` are
  Portuguese once ``pt`` is a catalog language; anything else English) —
  :func:`language_of`. The switch of every page (``base.html``) lists every catalog language by
  its own name (``pages.language_name`` in that language: :meth:`Translator.language_name`).
* **Texts.** Every visible text of a page is a catalog message (``src/macau_tables/messages``):
  the pages' own words are in ``pages.toml`` (keys ``pages.*``; the game pages' in their own
  file). Templates call ``t("pages.lobby_title")`` (:class:`Translator`), the JavaScript modules
  ``t("pages.loading")`` from ``static/js/i18n.js`` with the texts the server put in the page as
  JSON (:func:`texts_for`). ``tests/core/test_messages.py`` counts a key written literally in a
  template or a script as used, and refuses one that is not catalogued.
* **Refusals** from the API (and a socket's closing ``error``) come with their ``text`` in the
  page's language (:func:`language_of`, through :func:`.errors.language_of`; ``api.js`` also
  sends the page's language as ``Accept-Language``), rule refusals included, the games' words
  in them too (``{kind:term}``: :mod:`macau_tables.messages.terms`). Refusals a page renders
  itself from a view (a refused card) use :func:`terms_for`, put in the page beside the texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlencode

from starlette.requests import HTTPConnection
from starlette.responses import Response

from .. import messages
from ..messages import terms

__all__ = [
    "LANG_COOKIE",
    "LANG_PARAM",
    "Translator",
    "language_from_header",
    "language_of",
    "remember",
    "switch_url",
    "terms_for",
    "texts_for",
]

LANG_COOKIE: Final = "macau_lang"
LANG_PARAM: Final = "lang"
_ALIASES: Final[Mapping[str, tuple[str, ...]]] = {
    "zh-Hant": ("zh-hant", "zh-tw", "zh-hk", "zh-mo"),
}
"""The ``Accept-Language`` tags (and their subtags) of a catalog language whose own tag names a
script: a bare ``zh`` is Traditional Chinese too, ``zh-CN`` is not. A language without an entry
here takes every tag of its primary subtag (``pt-BR`` is ``pt``)."""


def _known(value: str | None) -> str | None:
    """``value`` as one of the catalog's languages (case-insensitive), else ``None``."""
    if not value:
        return None
    for language in messages.LANGUAGES:
        if value.strip().lower() == language.lower():
            return language
    return None


def language_from_header(header: str) -> str:
    """The catalog language an ``Accept-Language`` header prefers (by q-value, first wins
    ties): Traditional Chinese for ``zh-Hant``/``zh-TW``/``zh-HK``/``zh-MO``/``zh``, a
    language of :data:`macau_tables.messages.LANGUAGES` for its own tag or any tag of its
    primary subtag (``en-US`` is ``en``; ``pt-BR`` is ``pt`` when ``pt`` is one), English for
    anything else.

    >>> language_from_header("zh-TW,zh;q=0.9,en;q=0.8")
    'zh-Hant'
    >>> language_from_header("fr-FR, en;q=0.5, zh-HK;q=0.9")
    'zh-Hant'
    >>> language_from_header("zh-CN, en;q=0.9")
    'en'
    >>> language_from_header("")
    'en'
    """
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")[:20]):
        tag, _, rest = part.strip().partition(";")
        tag = tag.strip().lower()
        quality = 1.0
        rest = rest.strip()
        if rest.startswith("q="):
            try:
                quality = float(rest[2:])
            except ValueError:
                quality = 0.0
        if tag and quality > 0:
            ranked.append((-quality, index, tag))
    for _, _, tag in sorted(ranked):
        found = _language_of_tag(tag)
        if found is not None:
            return found
    return messages.DEFAULT_LANGUAGE


def _language_of_tag(tag: str) -> str | None:
    """The catalog language of one ``Accept-Language`` tag (lower case), else ``None``."""
    primary = tag.partition("-")[0]
    for language in messages.LANGUAGES:
        aliases = _ALIASES.get(language)
        if aliases is None:
            if primary == language.lower():
                return language
        elif tag == primary == language.lower().partition("-")[0] or tag.startswith(aliases):
            return language
    return None


def language_of(conn: HTTPConnection) -> str:
    """The language of the page asked for by ``conn`` (module docstring): ``?lang=``, then the
    cookie, then ``Accept-Language``."""
    return (
        _known(conn.query_params.get(LANG_PARAM))
        or _known(conn.cookies.get(LANG_COOKIE))
        or language_from_header(conn.headers.get("accept-language", ""))
    )


def remember(conn: HTTPConnection, response: Response) -> None:
    """Keep a ``?lang=`` switch in the language cookie of ``response``."""
    chosen = _known(conn.query_params.get(LANG_PARAM))
    if chosen is not None and chosen != conn.cookies.get(LANG_COOKIE):
        response.set_cookie(
            LANG_COOKIE, chosen, max_age=365 * 24 * 3600, path="/", httponly=True, samesite="lax"
        )


def switch_url(conn: HTTPConnection, language: str) -> str:
    """The address of the same page in ``language`` (its other query parameters kept)."""
    query = [(k, v) for k, v in conn.query_params.multi_items() if k != LANG_PARAM]
    query.append((LANG_PARAM, language))
    return f"{conn.url.path}?{urlencode(query)}"


def texts_for(language: str, prefixes: Iterable[str] = ("pages.",)) -> dict[str, str]:
    """Every catalog template whose key starts with one of ``prefixes``, in ``language`` (the
    texts a page's scripts may show: ``i18n.js``)."""
    wanted = tuple(prefixes)
    return {
        key: texts.get(language) or texts[messages.DEFAULT_LANGUAGE]
        for key, texts in messages.catalog().items()
        if key.startswith(wanted)
    }


def terms_for(language: str) -> dict[str, object]:
    """The games' words in ``language`` for the pages' scripts (``i18n.js`` fills a
    ``{kind:term}`` placeholder with them, as :func:`macau_tables.messages.terms.term` does,
    and a ``{path:field}`` one as :func:`~macau_tables.messages.terms.field_word`): ``words``
    (value → text), ``places`` (regular expression, template) pairs, and ``locale``: the
    ``Intl`` locale of the language's dates and times (the glossary's ``[locale]``)."""
    return {
        "words": dict(terms.TERMS.get(language, terms.TERMS[messages.DEFAULT_LANGUAGE])),
        "places": [list(pair) for pair in terms.places(language)],
        "locale": terms.locale(language),
    }


@dataclass(frozen=True, slots=True)
class Translator:
    """``t(key, **params)`` for templates: the catalog message in the page's language."""

    language: str

    def __call__(self, key: str, /, **params: object) -> str:
        return messages.render(key, params, self.language)

    def language_name(self, language: str) -> str:
        """``language``'s own name, in itself (``pages.language_name``: 繁體中文, English …),
        for the language switch."""
        return messages.render("pages.language_name", {}, language)

    def limits(self, minimum: int, maximum: int) -> str:
        """A wager's limits, ``10.00 – 1,000.00`` (``play.limits``), or the one amount
        ``10.00`` (``pages.limit_exact``) when the minimum is the maximum — a jackpot wager of
        a fixed amount (CSP-10.1, BAC-17) — never ``10.00 – 10.00``; the pages' scripts say it
        the same way (``tables_info.js`` ``rangeText``)."""
        if minimum == maximum:
            return messages.render("pages.limit_exact", {"amount": minimum}, self.language)
        params = {"minimum": minimum, "maximum": maximum}
        return messages.render("play.limits", params, self.language)

    def all(self, prefixes: Iterable[str]) -> Mapping[str, str]:
        """:func:`texts_for` in this language."""
        return texts_for(self.language, prefixes)
