"""The dealing adapter of each game (:mod:`.dealing`): its plug-in's ``dealing``
(:data:`macau_tables.games.GAMES`)."""

from __future__ import annotations

from ..games import GAMES, UnknownGame
from .dealing import Dealing
from .model import TableError

__all__ = ["dealing_for"]


def dealing_for(game: str, *, live: bool) -> Dealing:
    """The dealing adapter of ``game`` in live or virtual mode; ``TableError``
    (``tables.unknown_game``) for a game this service does not run."""
    try:
        plugin = GAMES[game]
    except UnknownGame:
        raise TableError("tables.unknown_game", game=game, games=", ".join(GAMES)) from None
    return plugin.dealing(live=live)
