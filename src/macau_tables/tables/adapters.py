"""The dealing adapter of each game (:mod:`.dealing`), by the names of
:data:`macau_tables.games.GAMES`."""

from __future__ import annotations

from .dealing import Dealing
from .model import TableError

__all__ = ["dealing_for"]


def dealing_for(game: str, *, live: bool) -> Dealing:
    """The dealing adapter of ``game`` in live or virtual mode; ``TableError`` for a game
    this service does not run."""
    # imported here: each game's adapter imports this package (its dealing protocol)
    from ..baccarat.dealing import BaccaratDealing
    from ..caribbean.dealing import CaribbeanDealing

    make = {"baccarat": BaccaratDealing, "caribbean": CaribbeanDealing}.get(game)
    if make is None:
        raise TableError("tables.unknown_game", game=game)
    return make(live=live)
