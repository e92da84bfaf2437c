"""The dealing adapter of each game (:mod:`.dealing`), by the names of
:data:`macau_tables.games.GAMES`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from .dealing import Dealing
from .dealing_baccarat import BaccaratDealing
from .dealing_caribbean import CaribbeanDealing
from .model import TableError

__all__ = ["DEALINGS", "dealing_for"]

DEALINGS: Final[Mapping[str, Callable[..., Dealing]]] = {
    "baccarat": BaccaratDealing,
    "caribbean": CaribbeanDealing,
}
"""Game name → the adapter's class (called with ``live=``)."""


def dealing_for(game: str, *, live: bool) -> Dealing:
    """The dealing adapter of ``game`` in live or virtual mode; ``TableError`` for a game
    this service does not run."""
    make = DEALINGS.get(game)
    if make is None:
        raise TableError("tables.unknown_game", game=game)
    return make(live=live)
