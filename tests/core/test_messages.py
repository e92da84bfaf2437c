"""The message catalog (issue 8, "Translatable refusals").

* every key has an English and a Traditional Chinese template with the same placeholders;
* every refusal raised in ``src/`` names a literal key that is in the catalog and gives every
  placeholder its template needs (an AST scan of the calls to the error classes);
* the catalog holds no key that no code uses;
* ``render`` never raises.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables import messages
from macau_tables.errors import MacauTablesError, RuleViolation
from tests.sources import SRC, tree_of

SOURCES = sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)
CATALOG = messages.catalog()
KEY = re.compile(r"[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*")
CJK = re.compile(r"[\u3400-\u9fff]")

BASE_ERRORS = {"MacauTablesError", "ConfigError", "ParseError", "CodecError", "AuthError"}
RULE_ERRORS = {"RuleViolation"}


@cache
def _trees() -> dict[Path, ast.Module]:
    """Every source file's syntax tree (parsed once, when a test first needs it: not while the
    tests are collected)."""
    return {p: tree_of(p) for p in SOURCES}


@cache
def _nodes(path: Path) -> dict[type, list[ast.AST]]:
    """The class definitions, function definitions, calls and string constants of a source
    file's tree, by type."""
    out: dict[type, list[ast.AST]] = {t: [] for t in (ast.ClassDef, ast.Call, ast.Constant)}
    for node in ast.walk(_trees()[path]):
        if type(node) in out:
            out[type(node)].append(node)
    return out


@cache
def _error_classes() -> tuple[frozenset[str], frozenset[str]]:
    """The names of the error classes (key first) and of the rule classes (rule, then key):
    the base classes and every class of ``src`` derived from them, however deep."""
    keyed, ruled = set(BASE_ERRORS), set(RULE_ERRORS)
    classes = [node for path in SOURCES for node in _nodes(path)[ast.ClassDef]]
    changed = True
    while changed:
        changed = False
        for node in classes:
            assert isinstance(node, ast.ClassDef)
            bases = {
                b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
            }
            target = ruled if bases & ruled else keyed if bases & keyed else None
            if target is not None and node.name not in keyed | ruled:
                target.add(node.name)
                changed = True
    return frozenset(keyed), frozenset(ruled)


def _called(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def _forwarders(
    trees: dict[Path, ast.Module],
) -> tuple[dict[str, int], set[tuple[Path, int, int]]]:
    """Functions that take a message key and pass it on to an error class (or to another such
    function), as ``cli.output.fail(key, **params)`` does: name → the key's argument index at
    their call sites, and the forwarding calls themselves (checked at the callers instead)."""
    keyed, ruled = _error_classes()
    # Each function's calls of a name with a parameter of the function as a positional
    # argument: the only calls that can forward a key (walked once, not at every round).
    candidates = []
    for path, tree in trees.items():
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            params = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
            shift = 1 if params[:1] in (["self"], ["cls"]) else 0
            for node in ast.walk(func):
                if isinstance(node, ast.Call) and any(
                    isinstance(a, ast.Name) and a.id in params for a in node.args
                ):
                    candidates.append((path, func.name, params, shift, node))
    forwarders: dict[str, int] = {}
    forwarding: set[tuple[Path, int, int]] = set()
    changed = True
    while changed:
        changed = False
        for path, func_name, params, shift, node in candidates:
            name = _called(node)
            index = 1 if name in ruled else 0 if name in keyed else forwarders.get(name or "")
            if index is None or len(node.args) <= index:
                continue
            arg = node.args[index]
            if isinstance(arg, ast.Name) and arg.id in params:
                forwarding.add((path, node.lineno, node.col_offset))
                if func_name not in forwarders:
                    forwarders[func_name] = params.index(arg.id) - shift
                    changed = True
    return forwarders, forwarding


@cache
def _src_forwarders() -> tuple[dict[str, int], set[tuple[Path, int, int]]]:
    return _forwarders(_trees())


@dataclass(frozen=True)
class Site:
    where: str
    key: str | None  # None: not a literal
    keywords: frozenset[str] | None  # None: **params


def _sites(path: Path) -> list[Site]:
    keyed, ruled = _error_classes()
    forwarders, forwarding = _src_forwarders()
    out = []
    calls = [n for n in _nodes(path)[ast.Call] if isinstance(n, ast.Call)]
    for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
        name = _called(node)
        if name is None or (path, node.lineno, node.col_offset) in forwarding:
            continue
        if name in ruled:
            index = 1
        elif name in keyed:
            index = 0
        elif name in forwarders:
            index = forwarders[name]
        else:
            continue
        where = f"{path.relative_to(SRC.parent)}:{node.lineno}"
        arg = node.args[index] if len(node.args) > index else None
        key = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
        if any(isinstance(a, ast.Starred) for a in node.args):
            key = None
        if any(k.arg is None for k in node.keywords):
            keywords = None
        else:
            keywords = frozenset(k.arg for k in node.keywords if k.arg is not None)
        out.append(Site(where, key, keywords))
    return out


@cache
def _all_sites() -> dict[Path, list[Site]]:
    return {p: _sites(p) for p in SOURCES}


def _placeholders(key: str) -> dict[str, frozenset[str]]:
    return {lang: messages.placeholders(text) for lang, text in CATALOG[key].items()}


def _every_key(check: Callable[[str], None]) -> None:
    """Run ``check(key)`` for every key of the catalog and fail naming each key whose check
    failed (one test over the ~1,600 keys: as many items as keys cost more in pytest's and
    its workers' bookkeeping than the checks themselves)."""
    failed = []
    for key in sorted(CATALOG):
        try:
            check(key)
        except AssertionError as exc:
            failed.append(f"{key}: {exc}")
    assert not failed, f"{len(failed)} keys fail:\n" + "\n".join(failed)


def _has_every_language_and_the_same_placeholders(key: str) -> None:
    texts = CATALOG[key]
    assert set(texts) == set(messages.LANGUAGES), f"{key}: languages {sorted(texts)}"
    assert all(t.strip() for t in texts.values()), f"{key}: an empty template"
    assert KEY.fullmatch(key), f"{key}: keys are '<namespace>.<snake_case_name>'"
    found = _placeholders(key)
    assert all(f == found["en"] for f in found.values()), f"{key}: placeholders differ {found}"
    assert all(p.isidentifier() for p in found["en"]), f"{key}: placeholders are plain names"
    assert CJK.search(texts["zh-Hant"]), f"{key}: the zh-Hant text has no Chinese"


def test_every_key_has_english_and_chinese_with_the_same_placeholders() -> None:
    """Every language of ``messages.LANGUAGES`` (a new one is one line there), every key."""
    _every_key(_has_every_language_and_the_same_placeholders)


def _formats(key: str) -> None:
    for language, text in CATALOG[key].items():
        names = messages.placeholders(text)
        for sample in ("x", 1):
            rendered = messages.render(key, dict.fromkeys(names, sample), language)
            if not rendered.startswith(f"{key}("):  # not the fallback of a template that fails
                break
        else:
            raise AssertionError(f"{key}: {text!r} cannot be formatted")
        specs = {spec for _, _, spec, _ in string.Formatter().parse(text) if spec}
        assert specs <= {"term", "money"}, f"{key}: format specs {specs} (only term, money)"


def test_every_template_formats() -> None:
    _every_key(_formats)


def test_the_every_key_check_names_each_failing_key() -> None:
    """The loop over the keys reports every key whose check fails, not only the first."""
    failing = sorted(CATALOG)[:2]

    def check(key: str) -> None:
        assert key not in failing, "refused"

    with pytest.raises(AssertionError) as raised:
        _every_key(check)
    assert f"{failing[0]}: refused" in str(raised.value)
    assert f"{failing[1]}: refused" in str(raised.value)
    assert str(raised.value).startswith("2 keys fail")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(SRC)))
def test_every_refusal_names_a_literal_catalogued_key_with_its_parameters(path: Path) -> None:
    problems = []
    for site in _all_sites()[path]:
        if site.key is None:
            problems.append(f"{site.where}: the message key is not a string literal")
        elif site.key not in CATALOG:
            problems.append(f"{site.where}: {site.key!r} is not in the catalog")
        elif site.keywords is not None:
            missing = _placeholders(site.key)["en"] - site.keywords
            if missing:
                problems.append(f"{site.where}: {site.key} needs {sorted(missing)}")
    assert not problems, "\n".join(problems)


def test_the_scan_sees_the_error_classes_their_subclasses_and_key_forwarders() -> None:
    keyed, ruled = _error_classes()
    assert {"ShoeExhausted", "ShoeNotFinished", "CodecError"} <= keyed
    assert "RuleViolation" in ruled
    assert any(s.key == "core.bad_audience" for sites in _all_sites().values() for s in sites)
    tree = ast.parse(
        "def fail(key, /, **params):\n    return ConfigError(key, **params)\n"
        "class X:\n    def refuse(self, rule, key):\n        raise RuleViolation(rule, key)\n"
    )
    forwarders, forwarding = _forwarders({**_trees(), Path("example.py"): tree})
    assert forwarders["fail"] == 0 and forwarders["refuse"] == 1
    assert {(p, line) for p, line, _ in forwarding if p == Path("example.py")} == {
        (Path("example.py"), 2),
        (Path("example.py"), 5),
    }


PAGES = SRC / "server"
PAGE_SOURCES = sorted(
    [*(PAGES / "templates").rglob("*.html"), *(PAGES / "static").rglob("*.js")]
    if PAGES.is_dir()
    else []
)
PAGE_KEY = re.compile(r"""(?<=["'`])([a-z][a-z0-9_]*\.[a-z][a-z0-9_]*[a-z0-9])(?=["'`])""")
NAMESPACES = {key.partition(".")[0] for key in CATALOG}
FILE_SUFFIXES = {"js", "css", "html", "json", "toml", "py", "png", "svg"}


def _page_keys() -> dict[str, set[str]]:
    """The message keys written literally in the pages' templates and scripts (issue 11:
    ``t('pages.lobby_title')`` in a template, ``t("pages.loading")`` in a script), by file:
    quoted ``namespace.name`` literals of a catalog namespace (file names like ``"api.js"``
    left out)."""
    out: dict[str, set[str]] = {}
    for path in PAGE_SOURCES:
        text = path.read_text(encoding="utf-8")
        found = {
            key
            for key in PAGE_KEY.findall(text)
            if key.partition(".")[0] in NAMESPACES and key.partition(".")[2] not in FILE_SUFFIXES
        }
        out[str(path.relative_to(SRC.parent))] = found
    return out


PAGE_KEYS = _page_keys()


def test_every_key_of_a_page_is_catalogued() -> None:
    """A key a template or a script shows must be in the catalog (a typo would show the key)."""
    missing = sorted(
        f"{where}: {key}" for where, keys in PAGE_KEYS.items() for key in keys - set(CATALOG)
    )
    assert not missing, "\n".join(missing)


def test_the_scan_of_the_pages_sees_templates_and_scripts() -> None:
    if not PAGE_SOURCES:
        pytest.skip("no pages yet")
    found = set().union(*PAGE_KEYS.values())
    assert "pages.site_name" in found  # base.html
    assert "pages.network_error" in found  # static/js/api.js
    files = set().union(*(PAGE_KEY.findall(t) for t in ('"api.js"', "'site.css'")))
    assert all(k.partition(".")[2] in FILE_SUFFIXES for k in files)


def test_the_catalog_has_no_unused_key() -> None:
    """A key counts as used when some string literal of ``src`` is exactly the key (a raise
    site, or a table of keys), or when a page's template or script names it literally
    (issue 11)."""
    literals = {
        node.value
        for path in SOURCES
        for node in _nodes(path)[ast.Constant]
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    literals |= set().union(*PAGE_KEYS.values()) if PAGE_KEYS else set()
    unused = sorted(set(CATALOG) - literals)
    assert not unused, f"keys no code uses: {unused}"


def test_errors_carry_key_params_english_and_chinese() -> None:
    err = RuleViolation(
        "CSP-13",
        "core.approval_not_yet_effective",
        option="'x'",
        value="1",
        opening_date="2025-01-01",
        records="R1",
    )
    assert err.message.startswith("option 'x' = 1: approval not yet effective on 2025-01-01")
    assert str(err) == f"[CSP-13] {err.message}"
    assert "尚未生效" in err.text("zh-Hant") and err.text("fr") == err.message
    assert err.to_dict()["key"] == "core.approval_not_yet_effective"
    assert err.to_dict("zh-Hant")["message"] == err.text("zh-Hant")


KEYS = st.one_of(st.sampled_from(sorted(CATALOG)), st.text(max_size=12))
PARAMS = st.dictionaries(
    st.text(max_size=6), st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=6))
)


@given(KEYS, PARAMS, st.sampled_from([*messages.LANGUAGES, "fr", ""]))
def test_render_never_raises(key: str, params: dict[str, object], language: str) -> None:
    assert isinstance(messages.render(key, params, language), str)
    assert isinstance(MacauTablesError(key, **{k: v for k, v in params.items() if k}).message, str)


def test_a_refusal_naming_another_error_shows_it_in_the_reader_s_language() -> None:
    """A refusal that carries another refusal as its detail (an unreadable card, CSP-1; a stored
    value its class refuses) shows that detail in the language asked for. Old behaviour: the
    Chinese text embedded the inner error's English sentence (「無法識別的牌 'zz'：not a card:
    'zz' (expected a rank …)」)."""
    import pickle

    from macau_tables import codec
    from macau_tables.caribbean import commands as actions
    from macau_tables.errors import CodecError, ParseError
    from tests.caribbean.support import new_round

    r = new_round()
    r, _ = r.apply(actions.PlaceAnte(1, "p1", 100))
    r, _ = r.apply(actions.CloseBetting())
    for bad in ("zz", 5, None):
        err = r.check(actions.DealCard(bad))  # type: ignore[arg-type]
        assert isinstance(err, RuleViolation) and (err.rule, err.key) == (
            "CSP-1",
            "caribbean.unknown_card",
        )
        assert "not a card" in err.message  # English stays English
        zh = err.text("zh-Hant")
        assert "not a card" not in zh and "expected" not in zh and "不是一張牌" in zh, zh
        again = pickle.loads(pickle.dumps(err))  # the detail survives pickling
        assert again.text("zh-Hant") == zh and again.message == err.message
    with pytest.raises(CodecError) as exc:
        codec.decode({"type": "core.Meter", "v": 1, "amount": -1, "seed": 0})
    zh = exc.value.text("zh-Hant")
    assert "must be" not in zh and "got" not in zh, zh
    inner = ParseError("core.card_too_short", text="'z'")
    outer = CodecError("core.codec_refused", path="$", type="x", detail=inner)
    assert outer.params["detail"] == inner.message
    assert outer.text("zh-Hant").endswith(inner.text("zh-Hant"))


def test_codec_refusals_show_the_value_received_as_json() -> None:
    """The value a codec refusal shows (``got``) reads the same in every language: its JSON
    text, not an English kind word (old: 「收到 text 'x'」, 「收到 boolean True」)."""
    from macau_tables import codec
    from macau_tables.errors import CodecError

    for payload, got in [
        ("x", '"x"'),
        (None, "null"),
        ([], "[]"),
        ({"type": "core.Meter", "v": 1, "amount": True, "seed": 1}, "true"),
        ({"type": "core.Meter", "v": 1, "amount": 1.5, "seed": 1}, "1.5"),
        ({"type": "core.Meter", "v": 1, "amount": "7", "seed": 1}, '"7"'),
    ]:
        with pytest.raises(CodecError) as exc:
            codec.decode(payload)
        assert exc.value.params["got"] == got, exc.value.params
        zh = exc.value.text("zh-Hant")
        assert not re.search(r"\b(text|boolean|array|null None|number)\b", zh.replace(got, "")), zh


def test_a_stored_result_that_does_not_balance_is_refused_in_both_languages() -> None:
    """A stored wager result, posting or baccarat settlement whose own check fails (a tampered
    payload) is refused with a catalogued key, so the Chinese text has no English sentence in
    it (old: 「core.WagerResult 不接受這些值：ValueError: wager result of 'p' on ante does not
    balance」)."""
    from macau_tables import codec
    from macau_tables.baccarat.settlement import RoundSettlement
    from macau_tables.errors import CodecError, ConfigError
    from macau_tables.ledger import Account, AccountKind, Posting, Reason
    from macau_tables.rounds import Outcome, WagerResult

    won = WagerResult("p", "box 1", "ante", 100, Outcome.WON, paid=200, house=-100)
    posting = Posting(Account(AccountKind.IN_PLAY), 5, Reason.STAKE)
    settled = RoundSettlement((won,), (1,))
    for value, field, bad in (
        (won, "paid", 300),
        (posting, "amount", None),
        (settled, "wager_ids", [1, 2]),
    ):
        payload = codec.encode(value)
        payload[field] = bad
        with pytest.raises(CodecError) as exc:
            codec.decode(payload)
        inner = exc.value.nested.get("detail")
        if field == "amount":  # the codec refuses the field itself
            assert exc.value.key == "core.codec_wrong_value"
            continue
        assert isinstance(inner, ConfigError) and inner.key in messages.catalog(), exc.value
        zh = exc.value.text("zh-Hant")
        for value in (*exc.value.params.values(), *inner.params.values()):
            zh = zh.replace(str(value), "")
        assert not re.search(r"[A-Za-z]{4,}", zh), zh
    with pytest.raises(ValueError, match="does not balance"):  # still a ValueError
        WagerResult("p", "box 1", "ante", 100, Outcome.WON, paid=300)
    with pytest.raises(ConfigError, match="stake must be an int of minor units"):
        WagerResult("p", "box 1", "ante", 1.5, Outcome.WON)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="minor units"):
        Posting(Account(AccountKind.IN_PLAY), 1.5, Reason.STAKE)  # type: ignore[arg-type]


def test_the_game_s_own_words_are_translated_in_chinese_refusals() -> None:
    """A refusal's parameters that are the game's vocabulary — a wager kind, a side, a phase, a
    supervisor's action, a tie option, a position at the table, the dealer, a jackpot
    combination — read in Chinese in the Chinese text (SPEC vocabulary: 閒 player, 莊 banker,
    原注 ante, 門 box, 莊荷 dealer …) and stay as they are in English. Old behaviour:
    「player 投注 20 不是投注單位 100 的整數倍」, 「這張牌應派給 box 1」, 「ante必須大於零」."""
    from dataclasses import replace

    from macau_tables.baccarat.bets import seat
    from macau_tables.baccarat.commands import (
        Correct,
        CorrectionAction,
        DealCard,
        PlaceWager,
        Reveal,
        RevealPart,
        Settle,
    )
    from macau_tables.baccarat.rules import WagerKind
    from macau_tables.baccarat.sides import Side
    from macau_tables.caribbean import commands as actions
    from macau_tables.rounds import DEALER
    from tests.baccarat.support import RULES, open_round
    from tests.caribbean.support import new_round

    b = open_round(live=True)
    holding = open_round(replace(RULES, card_holding=True))
    for card in ("2s", "3h", "Ac", "Kd"):
        holding, _ = holding.apply(DealCard(card))
    c = new_round()
    c, _ = c.apply(actions.PlaceAnte(1, "p1", 100))
    dealing, _ = c.apply(actions.CloseBetting())
    cases = [
        (b, PlaceWager("alice", seat(1), WagerKind.BANKER_PAIR, 100_000), "莊對子", "banker pair"),
        (b, PlaceWager("alice", seat(1), WagerKind.PLAYER, 30), "閒", "player"),
        (b, PlaceWager("alice", seat(1), "dragon", 100), "投注種類", "wager"),
        (b, Settle(), "投注中", "betting"),
        (b, Correct("sup", "why", CorrectionAction.REASSIGN), "重新分配", "reassign"),
        (holding, DealCard("5c"), "閒", "player"),
        (holding, Reveal(Side.PLAYER, RevealPart.FIRST_TWO, "carol"), "莊荷", "dealer"),
        (holding, Reveal(Side.BANKER, RevealPart.FIRST_TWO, DEALER), "應開閒", "player"),
        (c, actions.PlaceAnte(2, "p2", 0), "原注", "ante"),
        (dealing, actions.DealCard("As", DEALER), "第 1 門", "box 1"),
    ]
    for r, command, chinese, english in cases:
        err = r.check(command)
        assert isinstance(err, RuleViolation), command
        zh = err.text("zh-Hant")
        assert chinese in zh and english not in zh, (err.key, zh)
        assert english in err.message, err.message  # English in its own words (the glossary)
    two, _ = c.apply(actions.PlaceAnte(2, "p2", 100))
    two, _ = two.apply(actions.CloseBetting())
    for card in ("2s", "3s", "4s", "5s", "6s"):  # the shuffling machine: five to box 1
        two, _ = two.apply(actions.DealCard(card))
    err = two.check(actions.DealCard("7h", 1))
    assert isinstance(err, RuleViolation) and err.key == "caribbean.sixth_card_to"
    assert "第 1 門" in err.text("zh-Hant") and "box" not in err.text("zh-Hant")
    err = two.check(actions.DealCard("7h", DEALER))
    assert isinstance(err, RuleViolation) and err.key == "caribbean.wrong_dealing_order"
    assert "第 2 門" in err.text("zh-Hant")


def test_a_refusal_renders_its_text_when_asked_the_same_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 21 (item 5): constructing a refusal renders nothing; ``message``, ``str`` and
    ``text`` then give exactly what rendering the catalog at once gives, in every language
    (every key of the catalog)."""
    rendered: list[str] = []
    real = messages.render

    def counting(k: str, p: object, language: str = messages.DEFAULT_LANGUAGE) -> str:
        rendered.append(k)
        return real(k, p, language)  # type: ignore[arg-type]

    monkeypatch.setattr(messages, "render", counting)

    def renders_when_asked(key: str) -> None:
        names = messages.placeholders(CATALOG[key]["en"])
        params: dict[str, object] = {name: f"v{i}" for i, name in enumerate(sorted(names))}
        eager = {lang: real(key, params, lang) for lang in messages.LANGUAGES}
        rendered.clear()
        err = MacauTablesError(key, **params)
        rule = RuleViolation("CSP-1", key, **params)
        assert rendered == []
        assert err.message == str(err) == eager["en"]
        assert str(rule) == f"[CSP-1] {eager['en']}" and rule.message == eager["en"]
        assert repr(err) == f"MacauTablesError({eager['en']!r})"
        for lang in messages.LANGUAGES:
            assert err.text(lang) == rule.text(lang) == eager[lang]
            assert err.to_dict(lang)["message"] == eager[lang]

    _every_key(renders_when_asked)


def test_a_money_placeholder_reads_minor_units_in_major_units_and_keeps_the_int() -> None:
    """An amount's parameter stays an int; its text reads in major units in every language."""
    err = MacauTablesError("money.stake_off_unit", what="ante", amount=500, unit=1000)
    assert err.params == {"what": "ante", "amount": 500, "unit": 1000}
    assert err.text("en") == "ante 5.00 is not a whole multiple of the bet unit 10.00"
    assert "5.00" in err.text("zh-Hant") and "10.00" in err.text("zh-Hant")
    assert "500" not in err.text("zh-Hant").replace("5.00", "")
    # a value that is not an amount (a refused "abc") is shown as it came, never a fallback
    assert messages.render("money.stake_not_positive", {"what": "ante", "amount": "abc"}) == (
        "ante must be positive, got abc"
    )
    assert messages.render("money.stake_not_positive", {"what": "ante", "amount": -123456}) == (
        "ante must be positive, got -1,234.56"
    )
