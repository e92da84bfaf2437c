"""Caribbean Stud Poker's plug-in (:class:`macau_tables.plugin.GamePlugin`), registered in
:mod:`macau_tables.games`."""

from __future__ import annotations

from typing import Final

from ..facts import SettlementFacts, settlement_facts
from ..plugin import GamePlugin
from . import CODEC_TYPES, audit, bots, demo, hands
from .dealing import CaribbeanDealing
from .events import RoundSettled
from .round import CaribbeanRound
from .rules import CaribbeanRules

__all__ = ["PLUGIN", "facts"]


def facts(event: object) -> SettlementFacts | None:
    """The settlement facts of the round ``event`` settled (its settlement's lines, per
    position and wager kind); ``None`` for any other event (a void moves the stakes back:
    no fact)."""
    if isinstance(event, RoundSettled):
        return settlement_facts(event.settlement.wagers)
    return None


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
    settling=(RoundSettled,),
    facts=facts,
    fold=CaribbeanRound.folded,
    prepare=hands.prepare,
)
"""Caribbean Stud Poker, as the table service, the server and the pages know it."""
