"""One plug-in per game (:mod:`macau_tables.plugin`, :mod:`macau_tables.games`).

The table service, the store and the server know a game only through its plug-in: they import
no game package and compare no game name (the scans below, with the offending lines); each game
package names the same roles alike; and a third game is one more registration — a plug-in
registered at run time is dealt, played by the bots, persisted, verified, stored in the codec
under its own namespace and opened by ``casino init``, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path

import pytest

from macau_tables import codec, games, messages
from macau_tables.caribbean.demo import demo_rules
from macau_tables.caribbean.plugin import PLUGIN as CARIBBEAN
from macau_tables.games import GAMES, REGISTERED, UnknownGame
from macau_tables.plugin import Demonstration, DemoTableSpec, GamePlugin
from macau_tables.rounds import Round, TableMode, accepts
from macau_tables.store import Store
from macau_tables.tables.adapters import dealing_for
from macau_tables.tables.audit import verify_database
from macau_tables.tables.bots import Bots
from macau_tables.tables.casino import create_demo_casino
from macau_tables.tables.model import TableError
from tests.sources import SRC, tree_of

from .tables.support import service

SERVICE_PACKAGES = ("tables", "store", "server")
GAME_NAMES = tuple(GAMES)


def _py_files() -> list[Path]:
    return sorted(p for pkg in SERVICE_PACKAGES for p in (SRC / pkg).rglob("*.py"))


def _page_files() -> list[Path]:
    """The server's templates and scripts, except each game's own page (``tables/<game>.html``,
    ``js/<game>.js``: the page the server picks by the table's game)."""
    own = {f"{name}.html" for name in GAME_NAMES} | {f"{name}.js" for name in GAME_NAMES}
    files = [*(SRC / "server").rglob("*.html"), *(SRC / "server").rglob("*.js")]
    return sorted(p for p in files if p.name not in own)


def _module_of(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every module ``path`` imports (absolute names; ``from x import y`` gives ``x.y`` too)."""
    package = _module_of(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def _docstrings(tree: ast.AST) -> set[int]:
    """The string statements of ``tree`` (docstrings of modules, classes, functions and
    constants): prose, not code."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


_NAME = re.compile(r"\b(" + "|".join(map(re.escape, GAME_NAMES)) + r")\b")


def _where(path: Path, line: int) -> str:
    text = path.read_text(encoding="utf-8").splitlines()[line - 1].strip()
    return f"{path.relative_to(SRC.parent)}:{line}: {text}"


def test_tables_store_and_server_import_no_game_package() -> None:
    game_packages = tuple(f"macau_tables.{name}" for name in GAME_NAMES)
    offending = [
        _where(path, line)
        for path in _py_files()
        for line, module in _imported(path, tree_of(path))
        if module in game_packages or module.startswith(tuple(f"{p}." for p in game_packages))
    ]
    assert not offending, "imports of a game package:\n" + "\n".join(sorted(set(offending)))


def test_tables_store_and_server_code_names_no_game() -> None:
    """No string in their code (docstrings aside) names a game: no ``== "caribbean"``, no dict
    keyed by ``"baccarat"``, no ``"baccarat.RoundSettled"``."""
    offending = []
    for path in _py_files():
        tree = tree_of(path)
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and _NAME.search(node.value)
            ):
                offending.append(_where(path, node.lineno))
    assert not offending, "game names in code:\n" + "\n".join(sorted(set(offending)))


_COMMENTS = re.compile(r"\{#.*?#\}|<!--.*?-->|/\*.*?\*/|(?<![:\"'])//[^\n]*", re.DOTALL)


def test_the_server_s_pages_and_scripts_name_no_game_but_the_game_s_own_page() -> None:
    """Templates and scripts (comments aside) are the same for every game; only each game's own
    page (``tables/<game>.html`` and its script) is the game's."""
    offending = []
    for path in _page_files():
        text = path.read_text(encoding="utf-8")
        code = _COMMENTS.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        for number, line in enumerate(code.splitlines(), start=1):
            if _NAME.search(line):
                offending.append(_where(path, number))
    assert not offending, "game names in pages:\n" + "\n".join(offending)


def test_the_scans_find_what_they_look_for() -> None:
    """The scans see an import of a game package, a game name in code and in a page."""
    tree = ast.parse(
        "from ..baccarat.roads import x\nimport macau_tables.caribbean\nif g == 'caribbean': pass\n"
    )
    fake = SRC / "server" / "example.py"
    found = {m for _, m in _imported(fake, tree)}
    assert {"macau_tables.baccarat.roads", "macau_tables.caribbean"} <= found
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert any(_NAME.search(s) for s in strings)
    page = "{# baccarat #}<p>{{ t({'baccarat': 'x'}[g]) }}</p> // caribbean"
    assert _NAME.search(_COMMENTS.sub("", page)) and not _NAME.search(
        _COMMENTS.sub("", "{# baccarat #} // caribbean")
    )


ROLES = (
    "plugin",
    "round",
    "rules",
    "commands",
    "events",
    "view",
    "dealing",
    "audit",
    "bots",
    "demo",
)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_package_names_the_same_roles_alike(name: str) -> None:
    missing = [role for role in ROLES if not (SRC / name / f"{role}.py").is_file()]
    assert not missing, f"{name} has no module for {missing}"


def test_every_registered_game_is_one_line_and_satisfies_the_contract() -> None:
    assert len(REGISTERED) == len(GAMES) == len(set(REGISTERED))
    for name, plugin in GAMES.items():
        assert isinstance(plugin, GamePlugin) and plugin.name == name
        # the codec stores the game's types under its name
        for cls in plugin.codec_types:
            if not issubclass(cls, Enum):
                assert codec.type_name(cls) == f"{name}.{cls.__name__}"
        assert plugin.messages == f"{name}." and messages.render(plugin.term, {}) != plugin.term
        # the modes: a virtual table takes fewer of its commands than a live one (no card entry)
        virtual, live = plugin.accepted(TableMode.VIRTUAL), plugin.accepted(TableMode.LIVE)
        assert plugin.commands and set(virtual) < set(plugin.commands)
        assert all(accepts(TableMode.LIVE, c) for c in live)
    with pytest.raises(TableError) as refused:
        dealing_for("roulette", live=False)
    assert refused.value.key == "tables.unknown_game"
    assert all(n in refused.value.message for n in GAME_NAMES)  # the games it does run


def test_a_rules_object_names_its_game_by_the_plug_ins_rules_class() -> None:
    """``games.of_rules`` (the analysis worker's figures are a game's): each game's rules name
    it; rules of no game are refused naming their type and the games that are run."""
    for name, plugin in GAMES.items():
        assert games.of_rules(plugin.demo().rules) == name
    with pytest.raises(UnknownGame) as refused:
        games.of_rules(Note("not rules"))
    assert refused.value.key == "tables.unknown_game"
    assert "Note" in refused.value.message
    assert all(n in refused.value.message for n in GAME_NAMES)


# -- a third game: one registration --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Note:
    """A third game's own codec type (stored as ``toy.Note``)."""

    text: str


def _toy_demo() -> Demonstration:
    rules = demo_rules()
    return Demonstration(
        rules,
        "m-toy",
        {"contribution": str(rules.jackpot_contribution), "wager": rules.jackpot_wager},
        (DemoTableSpec("toy-1", "Toy 1 (virtual deck)", False, "toy-v1"),),
    )


TOY = replace(
    CARIBBEAN,
    name="toy",
    codec_types=(Note,),
    demo=_toy_demo,
    words=("toyland",),
    read_models={},
)
"""A third game: Caribbean Stud's round, dealing and bots under another name, with one codec
type of its own and its own demonstration table — what a new package's ``PLUGIN`` would be."""


@pytest.fixture
def toy() -> Iterator[GamePlugin]:
    games.register(TOY)
    try:
        yield TOY
    finally:
        games.unregister("toy")


def test_a_third_game_is_one_registration(toy: GamePlugin, store: Store) -> None:
    assert games.game("toy") is toy and "toy" in games.names()
    assert isinstance(dealing_for("toy", live=True), type(dealing_for("caribbean", live=True)))
    # the codec takes its types under its own namespace
    assert codec.encode(Note("hi"))["type"] == "toy.Note"
    assert codec.decode(codec.encode(Note("hi"))) == Note("hi")
    # casino init opens its table on its meter, with the other games'
    made = create_demo_casino(store)
    toy_tables = [t for t in made.tables if t.game == "toy"]
    assert [(t.table_id, t.meter_id) for t in toy_tables] == [("toy-1", "m-toy")]
    assert ("m-toy", "toy", toy.demo().rules.jackpot_seed) in made.meters
    assert {t.game for t in made.tables} == {*GAME_NAMES, "toy"}
    # the table service deals it, the bots play it, verify re-derives it
    svc = service(store, "toy-1")
    played = Bots(svc, ["alice", "bruno"], seed=5).play(3)
    assert played.rounds == 3
    assert isinstance(svc.round, Round) and svc.round.is_over
    assert verify_database(store).ok
    # and once unregistered, the service no longer runs it
    games.unregister("toy")
    with pytest.raises(UnknownGame):
        games.game("toy")
    games.register(toy)


FIRST_IMPORTS = (
    *(f"macau_tables.{name}" for name in GAME_NAMES),
    *(f"macau_tables.{name}.plugin" for name in GAME_NAMES),
    "macau_tables.tables",
    "macau_tables.server.app",
)


FIRST_IMPORT_CHECK = """
import os, sys, traceback

def check(module):
    __import__(module)
    import macau_tables.server.app
    from macau_tables import codec
    from macau_tables.games import GAMES
    assert all(GAMES[name].name == name for name in GAMES)
    codec.default_registry()

def say(write, text):
    with os.fdopen(write, "wb") as out:
        out.write(text.encode())

def fork(job):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a package never imported in this process
        os.close(read)
        status = 0
        try:
            job(write)
        except BaseException:
            say(write, traceback.format_exc())
            status = 1
        os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as out:
        said = out.read().decode()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), said

def first(module, write):
    check(module)
    names = [n for n in sys.modules if n != "macau_tables" and not n.startswith("macau_tables.")]
    say(write, "\\n".join(names))

failed = 0
for i, module in enumerate(sys.argv[1:]):
    if i == 0:  # also says which third-party modules the package imports, in their order
        code, said = fork(lambda write: first(module, write))
    else:
        code, said = fork(lambda write, module=module: check(module))
    if code:
        failed = 1
        print(f"import {module} first:\\n{said}")
    elif i == 0:  # imported here once: the next children have them already
        for name in said.split("\\n"):
            try:
                __import__(name)
            except Exception:
                pass
        assert not [n for n in sys.modules if n.startswith("macau_tables")], "the package came"
sys.exit(failed)
"""
"""Run by :func:`test_any_module_can_be_imported_first` in one new interpreter: it forks one
child per first import, each importing the package for the first time; after the first child
(which also says which third-party modules the package imported) it imports those itself, so
the next children find them loaded."""


def test_any_module_can_be_imported_first() -> None:
    """No import cycle between the games and the service: whichever module a program imports
    first (each of :data:`FIRST_IMPORTS`), the rest follows (the registry loads the plug-ins on
    first use). Each first import runs in a process that never imported the package — a fork
    of one interpreter that holds only its third-party modules (:data:`FIRST_IMPORT_CHECK`), not
    a new interpreter each, which imported those again."""
    done = subprocess.run(
        [sys.executable, "-c", FIRST_IMPORT_CHECK, *FIRST_IMPORTS],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
