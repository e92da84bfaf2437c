"""The games this project runs: one plug-in (:class:`macau_tables.plugin.GamePlugin`) per game.

The table service, the store's checks, the server and the pages look a game up here and then use
only the plug-in and the round contract (:class:`macau_tables.rounds.Round`). A third game is a
new package with a ``plugin`` module and one line in :data:`REGISTERED`.

The plug-ins are imported on first use (a game's package imports the table service's modules,
which look games up here): ``GAMES`` is a read-only mapping, name → plug-in.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any, Final

from .errors import MacauTablesError
from .plugin import GamePlugin

__all__ = [
    "GAMES",
    "REGISTERED",
    "UnknownGame",
    "added",
    "game",
    "names",
    "of_rules",
    "register",
    "round_class",
    "unregister",
]

REGISTERED: Final = (
    "macau_tables.baccarat.plugin",
    "macau_tables.caribbean.plugin",
)
"""The modules whose ``PLUGIN`` is a game this project runs, one line per game."""


class UnknownGame(MacauTablesError):
    """A game no plug-in is registered for (``tables.unknown_game``, naming those that are)."""


class _Games(Mapping[str, GamePlugin]):
    """Name → plug-in, loaded from :data:`REGISTERED` on first use."""

    def __init__(self) -> None:
        self._by_name: dict[str, GamePlugin] | None = None
        self.added: dict[str, GamePlugin] = {}  # registered at run time

    def _loaded(self) -> dict[str, GamePlugin]:
        if self._by_name is None:
            by_name: dict[str, GamePlugin] = {}
            for module in REGISTERED:
                plugin: GamePlugin = importlib.import_module(module).PLUGIN
                by_name[plugin.name] = plugin
            self._by_name = by_name | self.added
        return self._by_name

    def __getitem__(self, name: str) -> GamePlugin:
        found = self._loaded().get(name)
        if found is None:
            raise UnknownGame("tables.unknown_game", game=name, games=", ".join(self))
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())

    def add(self, plugin: GamePlugin) -> None:
        self.added[plugin.name] = plugin
        if self._by_name is not None:
            self._by_name[plugin.name] = plugin

    def remove(self, name: str) -> None:
        self.added.pop(name, None)
        if self._by_name is not None:
            self._by_name.pop(name, None)


GAMES: Final = _Games()
"""Game name → its plug-in (the names tables carry and the codec uses as namespaces)."""


def game(name: str) -> GamePlugin:
    """The plug-in of game ``name``; ``UnknownGame`` (``tables.unknown_game``) for a game this
    project does not run."""
    return GAMES[name]


def names() -> tuple[str, ...]:
    """The games' names, in the order registered."""
    return tuple(GAMES)


def of_rules(rules: object) -> str:
    """The name of the game whose rules ``rules`` are (by each plug-in's ``rules_class``);
    ``UnknownGame`` (``tables.unknown_game``, naming the rules' type) for rules of no game."""
    for name, plugin in GAMES.items():
        if isinstance(rules, plugin.rules_class):
            return name
    raise UnknownGame("tables.unknown_game", game=type(rules).__name__, games=", ".join(GAMES))


def round_class(name: str) -> type[Any]:
    """The round class of game ``name``."""
    return GAMES[name].round_class


def added() -> tuple[GamePlugin, ...]:
    """The plug-ins :func:`register` added at run time (none of :data:`REGISTERED`)."""
    return tuple(GAMES.added.values())


def register(plugin: GamePlugin) -> None:
    """Run ``plugin``'s game too (its codec types registered under its name): for a game
    that is not in :data:`REGISTERED`, e.g. a test's."""
    from . import codec

    GAMES.add(plugin)
    codec.register(plugin.name, plugin.codec_types)


def unregister(name: str) -> None:
    """Stop running game ``name`` (a game :func:`register` added; its codec types stay known)."""
    GAMES.remove(name)
