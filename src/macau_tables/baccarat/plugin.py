"""Baccarat's plug-in (:class:`macau_tables.plugin.GamePlugin`), registered in
:mod:`macau_tables.games`."""

from __future__ import annotations

from typing import Final

from ..facts import SettlementFacts, settlement_facts
from ..plugin import GamePlugin
from . import CODEC_TYPES, audit, bots, demo, read_models
from .dealing import BaccaratDealing
from .events import RoundSettled
from .round import BaccaratRound
from .rules import BaccaratRules

__all__ = ["PLUGIN", "facts"]


def facts(event: object) -> SettlementFacts | None:
    """The settlement facts of the round ``event`` settled (its settlement's lines, per
    position and wager kind); ``None`` for any other event (a void moves the stakes back:
    no fact)."""
    if isinstance(event, RoundSettled):
        return settlement_facts(event.settlement.lines)
    return None


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
    settling=(RoundSettled,),
    facts=facts,
    fold=BaccaratRound.folded,
)
"""Baccarat, as the table service, the server and the pages know it."""
