"""Caribbean Stud Poker's plug-in (:class:`macau_tables.plugin.GamePlugin`), registered in
:mod:`macau_tables.games`."""

from __future__ import annotations

from typing import Final

from ..plugin import GamePlugin
from . import CODEC_TYPES, audit, bots, demo
from .dealing import CaribbeanDealing
from .round import CaribbeanRound
from .rules import CaribbeanRules

__all__ = ["PLUGIN"]

PLUGIN: Final = GamePlugin(
    name="caribbean",
    round_class=CaribbeanRound,
    rules_class=CaribbeanRules,
    codec_types=CODEC_TYPES,
    dealing=CaribbeanDealing,
    closer=audit.close,
    bots=bots.POLICY,
    demo=demo.demonstration,
    term="pages.game_caribbean",
    words=("stud", "poker"),
)
"""Caribbean Stud Poker, as the table service, the server and the pages know it."""
