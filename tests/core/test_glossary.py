"""The glossary and the words of the catalog.

* the glossary (``messages/glossary.toml``) has every entry in every language of
  ``messages.LANGUAGES``, names its source and locale per language, and no template of a
  language uses a word the glossary says that language avoids (荷官, 累積獎金, a Caribbean deck
  called a 靴);
* every catalog entry rendered in every language, with sample parameters (ints for ``:money``,
  a glossary value for ``:term``, a JSON path for ``:field``), shows no raw key, class or stored
  type name, ``snake_case`` glossary value, JSON path or amount in minor units;
* a placeholder has one format spec in every language, and one named as an amount has the
  money spec (the commented allow-list below names the exceptions);
* the language switch, ``Accept-Language`` and the pages' locale are generic over
  ``messages.LANGUAGES`` (a monkeypatched ``pt``).
"""

from __future__ import annotations

import ast
import string
import tomllib
from importlib import resources

import pytest

from macau_tables import messages
from macau_tables.messages import terms
from macau_tables.server import i18n
from tests.raw_text import raw_left
from tests.sources import SRC, tree_of

CATALOG = messages.catalog()
SAMPLE_MINOR = 123_457
"""The int every ``{x:money}`` placeholder gets: it must read 1,234.57, never 123457."""
SAMPLE_TERM = "banker_pair"
SAMPLE_PATH = "$.command.card"
SAMPLE_TEXT = "x"


def _specs(template: str) -> dict[str, str]:
    return {n: s or "" for _, n, s, _ in string.Formatter().parse(template) if n is not None}


def _sample(spec: str) -> object:
    return {"money": SAMPLE_MINOR, "term": SAMPLE_TERM, "field": SAMPLE_PATH}.get(spec, SAMPLE_TEXT)


# -- the glossary -----------------------------------------------------------------------------


def test_every_glossary_entry_has_every_language_and_each_language_its_source() -> None:
    for name, texts in terms.entries().items():
        assert set(texts) == set(messages.LANGUAGES), f"{name}: languages {sorted(texts)}"
        assert all(t.strip() for t in texts.values()), f"{name}: an empty text"
    for language in messages.LANGUAGES:
        assert terms.source(language), f"the glossary names no source for {language}"
        assert terms.locale(language), f"the glossary names no locale for {language}"
    raw = tomllib.loads(
        resources.files("macau_tables.messages").joinpath(terms.GLOSSARY_FILE).read_text("utf-8")
    )
    for name, place in raw["places"].items():
        specs = {lang: sorted(_specs(t).items()) for lang, t in place.items() if lang != "pattern"}
        assert len({str(s) for s in specs.values()}) == 1, f"places.{name}: {specs}"


def test_the_glossary_words_a_value_in_every_language_places_and_fields_too() -> None:
    assert terms.term("banker_pair", "en") == "banker pair"
    assert terms.term("banker_pair", "zh-Hant") == "莊對子"
    assert terms.term("box 3", "zh-Hant") == "第 3 門"
    assert terms.term("seat 2", "en") == "seat 2"
    assert terms.term("command baccarat.Correct", "zh-Hant") == "指令：更正實體牌"
    assert terms.term("tables.OpenShoe", "zh-Hant") == "開新牌靴"
    assert terms.term("caribbean shoe 4", "zh-Hant") == "第 4 副牌"
    assert terms.term("Baccarat live", "zh-Hant") == "真人百家樂"
    assert terms.term("bob", "zh-Hant") == "bob"  # a name is shown as it is
    assert terms.term("banker_pair", "fr") == "banker pair"  # a language it lacks: English
    assert terms.field_word("$.command.card", "zh-Hant") == "牌"
    assert terms.field_word("$", "en") == "the request"
    assert terms.field_word("$.nothing_known", "en") == "a field of the request"


@pytest.mark.parametrize("avoid", terms.avoided(), ids=lambda a: f"{a.language}-{a.word}")
def test_no_template_uses_a_word_its_language_avoids(avoid: terms.Avoided) -> None:
    """莊荷 (never 荷官), 累進大獎 (never 累積獎金), 牌副 for a Caribbean Stud deck (never 靴)."""
    used = sorted(
        key
        for key, texts in CATALOG.items()
        if key.startswith(avoid.where) and avoid.used_in(texts.get(avoid.language, ""))
    )
    used += sorted(
        name
        for name, texts in terms.entries().items()
        if not avoid.where and avoid.used_in(texts.get(avoid.language, ""))
    )
    assert not used, f"{avoid.language} uses {avoid.word} (use {avoid.use}) in: {used}"


def test_the_avoid_check_sees_an_avoided_word() -> None:
    avoid = next(a for a in terms.avoided() if a.word == "荷官")
    assert avoid.language == "zh-Hant" and avoid.use == "莊荷"
    deck = next(a for a in terms.avoided() if a.where == "caribbean.")
    assert deck.used_in("第 1 牌靴") and not deck.used_in("發牌靴")


# -- every catalog entry, rendered --------------------------------------------------------------


DEVELOPERS_ONLY: frozenset[str] = frozenset(
    {
        # a programming error: code handed an object of the wrong class (never a person's input)
        "analysis.not_caribbean_rules",
        "caribbean.bad_fixed_awards",
        "caribbean.bad_rules",
        "core.jackpot_not_exact",
        "core.rng_not_production",
        "shoe.bad_commitment",
        "shoe.bad_rules",
        "shoe.bad_settings",
        "shoe.limit_not_wager_limit",
        "shoe.rules_shoe_not_settings",
        "shoe.road_result_no_attributes",
        # a stored event log that does not start as the game's replay needs (a damaged store)
        "baccarat.log_without_opening",
        "caribbean.log_without_opening",
        "shoe.replay_needs_opened",
    }
)
"""Keys whose text names a class on purpose: for the developer who passed it, never shown on a
page (the rendering test leaves them out; every other key must read in words)."""


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_every_catalog_entry_renders_without_raw_text(language: str) -> None:
    problems = []
    for key, texts in sorted(CATALOG.items()):
        if key in DEVELOPERS_ONLY:
            continue
        template = texts[language]
        params = {n: _sample(s) for n, s in _specs(template).items()}
        text = messages.render(key, params, language)
        assert not text.startswith(f"{key}("), f"{key}: {template!r} does not render"
        minor = [SAMPLE_MINOR] if "money" in _specs(template).values() else []
        left = raw_left(text, minor=minor)
        if left:
            problems.append(f"{key} [{language}]: {left} in {text!r}")
    assert not problems, "raw text in the catalog:\n" + "\n".join(problems)


def test_the_raw_text_check_finds_what_it_looks_for() -> None:
    assert raw_left("pages.lobby_title") == ["key pages.lobby_title"]
    assert raw_left("B1: 3♠ (CardCorrected)") == ["class CardCorrected"]
    assert raw_left("指令 baccarat.Correct") == ["type baccarat.Correct"]
    assert raw_left("bet on banker_pair") == ["value banker_pair"]
    assert raw_left("$.card: not a card") == ["path $.card"]
    assert raw_left("ante 500", minor=[500]) == ["minor units 500"]
    assert raw_left("ante 5.00 (box 1), bob", minor=[500]) == []


# -- format specs ---------------------------------------------------------------------------------

AMOUNT_NAMES = frozenset(
    {"amount", "balance", "stake", "paid", "minimum", "maximum", "total", "seed", "unit"}
    | {"award", "wanted", "bound", "low", "high", "net", "drop", "win", "from_meter"}
    | {"table_seed", "available", "needed", "meter_amount", "threshold", "limit"}
)
"""Placeholder names that are amounts in a message that shows money (one with a ``:money``
placeholder); ``ALWAYS_MONEY`` are amounts in any message."""

ALWAYS_MONEY = frozenset({"amount", "balance", "stake", "paid", "seed", "award"})

NOT_MONEY: frozenset[tuple[str, str]] = frozenset(
    {
        # a value refused because it is not a whole number of minor units: shown as it came
        ("core.posting_not_int", "amount"),
        ("money.amount_not_minor_units", "amount"),
        ("money.stake_not_whole", "amount"),
        # the analysis's own inputs (a meter seed typed for a computation, refused as typed)
        ("analysis.bad_seed", "seed"),
        # a PAR sheet states its own units: an amount labelled "minor units" is read as such
        ("par.minor_units", "amount"),
        ("par.csp_meter_note", "amount"),
        # a simulation's random generator seed, not a jackpot meter's
        ("par.bac_counting_note", "seed"),
    }
)
"""(key, placeholder) pairs named as amounts that are not money shown to a person."""


def test_a_placeholder_has_one_spec_in_every_language() -> None:
    differ = []
    for key, texts in CATALOG.items():
        by_language = {lang: _specs(t) for lang, t in texts.items()}
        if len({str(sorted(s.items())) for s in by_language.values()}) > 1:
            differ.append(f"{key}: {by_language}")
    assert not differ, "\n".join(differ)


def test_every_amount_placeholder_has_the_money_spec() -> None:
    missing = []
    for key, texts in CATALOG.items():
        specs = _specs(texts[messages.DEFAULT_LANGUAGE])
        shows_money = "money" in specs.values()
        for name, spec in specs.items():
            wanted = name in ALWAYS_MONEY or (shows_money and name in AMOUNT_NAMES)
            if wanted and spec != "money" and (key, name) not in NOT_MONEY:
                missing.append(f"{key}: {{{name}}} is an amount: {{{name}:money}}")
    assert not missing, "\n".join(missing)


# -- the languages of the pages, generic over messages.LANGUAGES ----------------------------------


def test_accept_language_maps_every_tag_of_a_catalog_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert "pt" in messages.LANGUAGES  # Macau's other official language
    monkeypatch.setattr(messages, "LANGUAGES", ("en", "zh-Hant"))
    assert i18n.language_from_header("pt-BR, en;q=0.5") == "en"  # a language not in the catalog
    monkeypatch.setattr(messages, "LANGUAGES", ("en", "zh-Hant", "pt"))
    for header in ("pt", "pt-PT", "pt-BR", "pt-MO", "PT-mo;q=0.8, fr", "fr, pt-AO;q=0.4"):
        assert i18n.language_from_header(header) == "pt", header
    assert i18n.language_from_header("zh-MO, pt;q=0.9") == "zh-Hant"
    assert i18n.language_from_header("zh, pt;q=0.9") == "zh-Hant"
    assert i18n.language_from_header("zh-CN, pt;q=0.9") == "pt"  # simplified: not zh-Hant
    assert i18n.language_from_header("en-US, pt;q=0.9") == "en"


def test_the_switch_names_each_language_in_itself_and_the_locale_is_the_glossary_s() -> None:
    translator = i18n.Translator("en")
    names = {lang: translator.language_name(lang) for lang in messages.LANGUAGES}
    assert names["en"] == "English" and names["zh-Hant"] == "繁體中文"
    assert names["pt"] == "Português" and i18n.terms_for("pt")["locale"] == "pt-MO"
    assert len(set(names.values())) == len(names)
    assert i18n.terms_for("zh-Hant")["locale"] == "zh-Hant-MO"
    assert i18n.terms_for("en")["locale"] == "en-GB"


# -- the words the pages need: every command, card event and audit action ------------------------


def _literal_actions() -> set[str]:
    """The audit actions written literally in ``src`` (``tx.audit("meter_adjust", …)``,
    ``record_action(…, "user_unlock", …)``, ``self._audit("meter_link_down", …)``)."""
    found = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(tree_of(path)):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            index = {"audit": 0, "_audit": 0, "record_action": 2}.get(name)
            if index is None or len(node.args) <= index:
                continue
            arg = node.args[index]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
    return found


def test_every_audit_action_command_and_card_event_has_a_word_in_every_language() -> None:
    from macau_tables.server import app  # noqa: F401 (registers every game's commands)
    from macau_tables.store.records import TableStatus
    from macau_tables.tables.program import APPROVE_ACTION

    actions = _literal_actions() | {APPROVE_ACTION}
    actions |= {f"table_{s.value}" for s in TableStatus}  # the store's set_table_status
    actions |= {"cashier_deposit", "cashier_withdrawal"}  # api_admin's f"cashier_{kind}"
    assert {"meter_adjust", "user_unlock", "award_held", "table_closed"} <= actions
    commands = {c.__name__ for c in _subclasses(object) if _issuer(c)}
    assert {"DealCard", "Correct", "OpenShoe", "ReleaseAward", "Burn"} <= commands
    events = {"CardDealt", "CardRefused", "CardCorrected", "CardExposed"}  # tables.recall kinds
    missing = []
    for language in messages.LANGUAGES:
        for value in sorted(actions | commands | events):
            if value not in terms.TERMS[language]:
                missing.append(f"{language}: {value}")
        for command in ("command baccarat.Correct", "tables.OpenShoe"):
            assert terms.term(command, language) != command, command
    assert not missing, "no word in the glossary for:\n" + "\n".join(missing)


def _subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    subs: list[type] = type.__subclasses__(cls)  # a metaclass's own method would be unbound
    for sub in subs:
        module = sub.__dict__.get("__module__")  # a metaclass's attribute is a descriptor
        if isinstance(module, str) and module.startswith("macau_tables."):
            out.add(sub)
        out |= _subclasses(sub)
    return out


def _issuer(cls: type) -> bool:
    from macau_tables.rounds import Issuer

    return isinstance(cls.__dict__.get("ISSUER", getattr(cls, "ISSUER", None)), Issuer)
