"""The two hands of baccarat (BAC-6) and the three outcomes of a round (BAC-11, BAC-12)."""

from __future__ import annotations

from enum import Enum


class Side(Enum):
    """``PLAYER`` (閒), ``BANKER`` (莊) or, as an outcome only, ``TIE`` (和)."""

    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"

    @property
    def chinese(self) -> str:
        return {"player": "閒", "banker": "莊", "tie": "和"}[self.value]

    @property
    def letter(self) -> str:
        """``'P'``, ``'B'`` or ``'T'`` (as roadmaps and logs print outcomes)."""
        return {"player": "P", "banker": "B", "tie": "T"}[self.value]
