"""The games this project runs, by name: each one's round class satisfies the round contract.

The table service, the server and the pages look a game up here and then use only the contract
(:class:`macau_tables.rounds.Round`); a third game would be one more entry, not a new service.
The annotation makes mypy check that both classes satisfy the protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .baccarat.round import BaccaratRound
from .caribbean.round import CaribbeanRound
from .rounds import Round

__all__ = ["GAMES"]

GAMES: Final[Mapping[str, type[Round]]] = {
    "baccarat": BaccaratRound,
    "caribbean": CaribbeanRound,
}
"""Game name → round class (the names the codec uses as namespaces)."""
