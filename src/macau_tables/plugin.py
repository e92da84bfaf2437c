"""What a game brings to the table service, the server and the pages: one :class:`GamePlugin`.

Each game package builds one plug-in in its ``plugin`` module (``PLUGIN``) from modules that have
the same name and the same role in every game package:

* ``round`` — the round (:class:`macau_tables.rounds.Round`), ``rules`` — the table's rules,
  ``commands`` / ``events`` / ``view`` — what the round takes (each command class says the
  table modes that accept it, ``MODES``: :meth:`GamePlugin.accepted`), records and shows, and
  the package's ``CODEC_TYPES`` (the codec namespace is the plug-in's ``name``);
* ``dealing`` — how the table service deals a round (the
  :class:`macau_tables.tables.dealing.Dealing` adapter, virtual or live), recovers a round left
  open, and runs the game's time-outs;
* ``audit`` — how a closed round is closed again for ``verify`` (:data:`Closer`);
* ``bots`` — the simulated players' choices (:class:`BotPolicy`);
* ``demo`` — the demonstration tables and rules it contributes to ``casino init``
  (:class:`Demonstration`);
* its read-models (:class:`ReadModel`, e.g. baccarat's roads), its message terms (the game's
  name, the catalog namespace ``<name>.``) and the words a password must not lean on.

:mod:`macau_tables.games` registers each plug-in once; the table service, the store's checks,
the server and the pages look a game up there and use only what this module declares. This
module imports no game package.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .facts import SettlementFacts
from .jackpot import Meter
from .rounds import Due, Round, TableMode, accepts, is_command

if TYPE_CHECKING:  # pragma: no cover
    from .tables.dealing import Dealing

__all__ = [
    "Answer",
    "BotPolicy",
    "Closer",
    "Closing",
    "DemoTableSpec",
    "Demonstration",
    "GamePlugin",
    "ReadModel",
]


@dataclass(frozen=True, slots=True)
class Closing:
    """How a round was closed: the ``command`` that closes the round as it stood before its
    closing event, the ``meter`` it was given when jackpot wagers were in play (so it must be
    the ledger's), and whether the whole event must come out again (``whole``: a settlement)
    or only its money (a void, whichever fault voided it)."""

    command: object
    meter: Meter | None
    whole: bool
    derive: Callable[[Any], tuple[object, ...]] | None = None
    """For a void recorded before voids carried a ground (version 1): the void's events worked
    out from the round before it without the law's checks of today (it verifies as it did
    then: its money only)."""


Closer = Callable[[object, Callable[[], Any]], Closing | None]
"""``(event, before)`` → how ``event`` closed its round, or ``None`` when it does not close it;
``before()`` replays the round as it stood before ``event`` (only when needed)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A bot's answer to what the round waits for: ``command`` submitted as ``actor``;
    ``fallback`` (a fold, say) submitted instead when the table or the wallet refuses it —
    answers with a fallback may go in one request (a batch), the others go one by one."""

    command: object
    actor: str
    fallback: object | None = None


class BotPolicy(Protocol):
    """A game's simulated players (:class:`macau_tables.tables.bots.Bots` drives them through
    the table service; ``rnd`` is the bots' own seeded random source, never the cards')."""

    def seating(self, players: Sequence[str]) -> tuple[tuple[int, str], ...]:
        """The seating the round is opened with (``()``: the game seats nobody)."""
        ...

    def wagers(
        self, rnd: random.Random, state: Any, players: Sequence[str]
    ) -> list[tuple[object, str]]:
        """The wagers ``(command, player)`` the players place in a new round of the table
        (``state``: the table's :class:`~macau_tables.tables.engine.TableState`)."""
        ...

    def close(self) -> object:
        """The command that closes the betting."""
        ...

    def filler(self, state: Any, player: str) -> object | None:
        """The smallest wager that puts ``player`` in the table's open round when the round
        cannot close its betting without one (``None``: it can)."""
        ...

    def answers(self, rnd: random.Random, round_: Any, due: Sequence[Due]) -> list[Answer]:
        """The players' answers to what ``round_`` waits for (``due``); ``[]`` when it is not
        the players' to answer."""
        ...


class ReadModel(Protocol):
    """A view of a table's log the pages read (e.g. baccarat's roads), kept up to date by
    following the log's records one by one (their codec type name and JSON payload)."""

    def take(self, kind: str, round_id: str | None, data: Mapping[str, Any]) -> None:
        """Follow one recorded event."""
        ...

    def json(self) -> dict[str, Any]:
        """What the model shows, JSON-ready (public: nothing hidden by the law)."""
        ...


@dataclass(frozen=True, slots=True)
class DemoTableSpec:
    """A demonstration table: its id, name, whether it is live (cards from its dealer
    console) or virtual (a CSPRNG shoe), and the id of the configuration it is opened with;
    ``rules``: that configuration when it is not the game's demonstration rules (a table with
    card holding on, BAC-16), every option approved as theirs are (``None``: the game's)."""

    table_id: str
    name: str
    live: bool
    config_id: str
    rules: Any = None


@dataclass(frozen=True, slots=True)
class Demonstration:
    """What a game contributes to ``casino init``: its ``rules`` (every option approved), the
    progressive meter its tables share (``meter_id``, seeded at the rules' ``jackpot_seed``,
    with ``meter_params``) and its ``tables``."""

    rules: Any
    meter_id: str
    meter_params: Mapping[str, Any]
    tables: tuple[DemoTableSpec, ...]


def _no_facts(event: object) -> SettlementFacts | None:
    """A game that records no settlement facts (none of its events settles a round)."""
    return None


def _nothing_to_prepare() -> None:
    """A game whose rules build nothing on first use."""


@dataclass(frozen=True, slots=True)
class GamePlugin:
    """Everything the table service, the server and the pages know of one game.

    ``name``: the game's name (tables' ``game``, the codec namespace, the message catalog's
    namespace); ``round_class`` / ``rules_class``: its round and rules; ``codec_types``: the
    types the codec registers under ``name``; ``dealing``: the dealing adapter's factory (called
    with ``live=``); ``closer``: how ``verify`` closes a round again; ``bots``: the simulated
    players; ``demo``: its part of the demonstration casino; ``term``: the message key of the
    game's name, ``pages.game_<name>`` (the pages' scripts name a game by that key);
    ``words``: its words a password must not lean on; ``read_models``: name → a new
    :class:`ReadModel` (none: the game offers none); ``settling`` / ``facts``: the events
    that settle a round and the settlement facts of one (:mod:`macau_tables.facts`)."""

    name: str
    round_class: type[Round]
    rules_class: type
    codec_types: tuple[type, ...]
    dealing: Callable[..., Dealing]
    closer: Closer
    bots: BotPolicy
    demo: Callable[[], Demonstration]
    term: str
    words: tuple[str, ...] = ()
    read_models: Mapping[str, Callable[[], ReadModel]] = field(default_factory=dict)
    settling: tuple[type, ...] = ()
    """The game's events that settle a round whole (each carries its settlement's
    :class:`~macau_tables.rounds.WagerResult` lines): what :attr:`facts` reads."""
    facts: Callable[[object], SettlementFacts | None] = _no_facts
    """The settlement facts (:mod:`macau_tables.facts`) of the round ``event`` settled, from
    the event alone; ``None`` when ``event`` settles no round (a void, any other event). The
    table service records them after the event (when a wager was settled); ``verify``
    derives them again."""
    fold: Callable[[Any, Any], Any] | None = None
    """One step of the round class's ``replay``: ``fold(round, event)`` is ``round`` with one
    more recorded ``event`` (``replay(events[: n + 1]) == fold(replay(events[:n]),
    events[n])``), so ``verify`` has every prefix of a round from one replay; ``None``: the
    game gives none (``verify`` replays a round's prefix again before its closing event)."""
    prepare: Callable[[], None] = _nothing_to_prepare
    """Build now what the game's rules build on their first use in a process (Caribbean Stud:
    the hand evaluator's tables, ~0.3 s of CPU). ``verify --jobs`` calls it in the process its
    workers are forked from, so that each worker has it rather than building it again."""

    def replay(self, events: Sequence[object]) -> Any:
        """The round its recorded ``events`` make (the round class's ``replay``)."""
        return self.round_class.replay(events)

    @property
    def commands(self) -> tuple[type, ...]:
        """The game's command classes (those of its codec types that declare an issuer)."""
        return tuple(c for c in self.codec_types if is_command(c))

    def accepted(self, mode: TableMode) -> tuple[type, ...]:
        """The game's commands a table of ``mode`` accepts (each command's ``MODES``)."""
        return tuple(c for c in self.commands if accepts(mode, c))

    @property
    def messages(self) -> str:
        """The prefix of the game's keys in the message catalog (``"<name>."``)."""
        return f"{self.name}."
