"""Changing a table's configuration: a new stored version, only between rounds.

A table's rules (:class:`~macau_tables.baccarat.rules.BaccaratRules`,
:class:`~macau_tables.caribbean.rules.CaribbeanRules`) and their regulator approvals
(CSP-13, BAC-19: :class:`~macau_tables.approvals.Approval`) are stored once per version,
referenced by id and SHA-256, never changed in place: the events of past rounds name the version
they ran under, so verification still resolves it after a change.

:func:`change_table_config` applies field changes and new approval records to the table's
current rules, lets the rules class validate the result (its own refusal: a ``ConfigError``
naming the field, or the codec's for a value of the wrong shape), stores it as a new version
``<table>-<first 12 hex digits of its SHA-256>`` and points the table at it, audited by the store
(``table_config``: who, why, from, to). The serving :class:`~.service.TableService` is reloaded by
the caller (:meth:`~.service.TableService.reconfigure`), so the change takes effect from the next
round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from .. import codec
from ..approvals import Approval
from ..errors import CodecError, ConfigError, MacauTablesError
from ..store import TableStatus, Tx
from .clock import opening_date
from .model import TableError
from .storage import read_table

__all__ = ["FIXED_FIELDS", "ConfigChange", "change_table_config", "rules_with_changes"]

FIXED_FIELDS: Final = frozenset({"type", "v", "approvals"})
"""What ``changes`` may not name: the payload's tag and version, and the approvals (added as
records, never overwritten)."""


@dataclass(frozen=True, slots=True)
class ConfigChange:
    """What :func:`change_table_config` did: the table, its old and new configuration ids, the
    new version's SHA-256, the fields changed and how many approval records were added."""

    table_id: str
    old_config_id: str
    new_config_id: str
    sha256: str
    fields: tuple[str, ...]
    approvals_added: int


def rules_with_changes(
    rules: Any, changes: Mapping[str, Any], approvals: Iterable[Approval] = ()
) -> tuple[Any, int]:
    """``rules`` with ``changes`` (field name -> value in the codec's JSON form) and the
    ``approvals`` records added (one already there is not added twice), validated by the rules
    class; and how many records were added. Refuses, as :func:`change_table_config` says: a
    fixed field (``tables.config_field_fixed``), an unknown field or a value of the wrong shape
    (the codec's ``CodecError``), a value the rules refuse (their own ``ConfigError``)."""
    payload = codec.encode(rules)
    for name in sorted(changes):
        if name in FIXED_FIELDS:
            raise ConfigError("tables.config_field_fixed", field=name)
        payload[name] = changes[name]
    have = list(rules.approvals)
    added = 0
    for a in approvals:
        if a not in have:
            have.append(a)
            added += 1
    payload["approvals"] = [codec.encode(a) for a in have]
    try:
        new: Any = codec.decode(payload)  # the rules class validates (its __post_init__)
    except CodecError as exc:
        own = exc.nested.get("detail")
        if isinstance(own, MacauTablesError):  # the rules' own refusal, not the codec's
            raise own from None
        raise
    return new, added


def change_table_config(
    tx: Tx,
    table_id: str,
    *,
    changes: Mapping[str, Any],
    approvals: Iterable[Approval] = (),
    actor: str,
    reason: str,
) -> ConfigChange:
    """Run ``table_id`` from its next round under its current rules with ``changes`` (field
    name -> value in the codec's JSON form, e.g. ``{"royal_flush_odds": 80}``) and the
    ``approvals`` records added (one already there is not added twice). In ``tx``; the caller
    reloads the table's service.

    Refuses, nothing written: a round in progress with a wager in it or past its betting
    (``tables.config_round_open``: finish or void it first; an empty round taking bets keeps
    its rules and the change applies from the next); new shoe settings while a shoe is in
    play (``tables.config_shoe_in_play``: a shoe runs under the settings it opened with,
    BAC-1); a field that is not changed this way
    (``tables.config_field_fixed``); an unknown field or a value of the wrong shape (the
    codec's ``CodecError``); a value the rules refuse (their ``ConfigError``, e.g.
    ``caribbean.royal_odds_range``); no change at all (``tables.config_unchanged``); at an open
    table, an option without a valid, effective approval today (``RuleViolation`` CSP-13 /
    BAC-19); a table that would not load under the new version (e.g.
    ``tables.meter_seed_mismatch``: the meter restarts from the seed it has)."""
    loaded = read_table(tx, table_id)
    if loaded.state.round_at_stake:
        raise TableError("tables.config_round_open", table=table_id)
    rules: Any = loaded.state.rules
    setup = loaded.state.setup
    new, added = rules_with_changes(rules, changes, approvals)
    digest = codec.sha256(new)
    if digest == codec.sha256(rules):
        raise ConfigError("tables.config_unchanged", table=table_id)
    shoe: Any = getattr(loaded.state.deal, "shoe", None)  # a baccarat shoe in play (BAC-1)
    if (
        shoe is not None
        and shoe.phase != "finished"
        and getattr(rules, "shoe", None) != getattr(new, "shoe", None)
    ):
        raise TableError("tables.config_shoe_in_play", table=table_id, shoe=shoe.shoe_id)
    if loaded.status is TableStatus.OPEN:  # the next round opens under it (CSP-13, BAC-19)
        new.check_approvals(opening_date(tx.now()))
    config_id = f"{table_id}-{digest[:12]}"
    tx.put_config(setup.game, config_id, new)  # once per version: the same rules, the same id
    tx.set_table_config(table_id, config_id, actor=actor, reason=reason)
    read_table(tx, table_id)  # it loads under the new version, or nothing is written
    return ConfigChange(table_id, setup.config_id, config_id, digest, tuple(sorted(changes)), added)
