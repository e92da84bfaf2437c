"""Baccarat's plug-in (:class:`macau_tables.plugin.GamePlugin`), registered in
:mod:`macau_tables.games`."""

from __future__ import annotations

from typing import Final

from ..plugin import GamePlugin
from . import CODEC_TYPES, audit, bots, demo, read_models
from .dealing import BaccaratDealing
from .round import BaccaratRound
from .rules import BaccaratRules

__all__ = ["PLUGIN"]

PLUGIN: Final = GamePlugin(
    name="baccarat",
    round_class=BaccaratRound,
    rules_class=BaccaratRules,
    codec_types=CODEC_TYPES,
    dealing=BaccaratDealing,
    closer=audit.close,
    bots=bots.POLICY,
    demo=demo.demonstration,
    term="pages.game_baccarat",
    words=("punto", "banco", "banker", "player"),
    read_models=read_models.READ_MODELS,
)
"""Baccarat, as the table service, the server and the pages know it."""
