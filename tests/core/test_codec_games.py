"""Storable events of both games (issue 8, "Storable events"), over random rounds:

* ``decode(encode(x)) == x`` for every command applied and every event it produced (through a
  JSON text, with the table's rules given back by configuration id);
* ``canonical_bytes`` is stable: re-encoding the decoded value gives the same bytes;
* a replay of the decoded events equals the live round;
* the rules travel by reference (``RoundOpened`` holds ``{config_id, sha256}``) and a changed
  configuration is refused; the rules themselves encode and decode whole.

The random rounds reuse the games' own round-property drivers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from macau_tables import codec
from macau_tables.errors import CodecError
from macau_tables.jackpot import Meter
from macau_tables.rounds import Audience

CONFIG = "table-7"


def _round_trip(values: Iterable[object], rules: object) -> list[Any]:
    """Each value through encode → JSON text → decode; checks equality and stable bytes."""
    out = []
    for value in values:
        payload = codec.encode(value)
        text = json.dumps(payload, ensure_ascii=False)
        back = codec.decode(json.loads(text), rules={CONFIG: rules})
        assert back == value, (value, payload)
        assert codec.canonical_bytes(back) == codec.canonical_bytes(value)
        out.append(back)
    return out


# -- Caribbean Stud ---------------------------------------------------------------------------

from tests.caribbean import test_round_properties as caribbean_props  # noqa: E402
from tests.caribbean.test_round_support import UNIT as CSP_UNIT  # noqa: E402
from tests.caribbean.test_round_support import new_round as caribbean_new_round  # noqa: E402
from tests.caribbean.test_round_support import player as caribbean_player  # noqa: E402


def _drive_caribbean(fault: str, stage: str, s: Any) -> tuple[Any, list[object]]:
    from macau_tables.caribbean.settlement import CarriedWager

    rules = caribbean_props.RULES[s.procedure]
    carried = [CarriedWager(b, caribbean_player(b), CSP_UNIT) for b in s.carried]
    r = caribbean_new_round(rules, carried=carried, config_id=CONFIG)
    applied: list[object] = []
    for i, cmd in enumerate(caribbean_props.commands(s, Meter(s.meter, caribbean_props.SEED))):
        if i == s.fault_at[stage]:
            for fc in caribbean_props.fault_commands(r, fault, s):
                if r.can_apply(fc):
                    r, _ = r.apply(fc)
                    applied.append(fc)
        if r.is_over:
            break
        r, _ = r.apply(cmd)
        applied.append(cmd)
    return r, applied


@pytest.mark.parametrize("stage", ["betting", "dealing"])
@pytest.mark.parametrize("fault", ["none", "void", "expose1", "dead"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(caribbean_props.scripts())
def test_caribbean_commands_and_events_round_trip_and_replay(
    fault: str, stage: str, s: Any
) -> None:
    from macau_tables.caribbean import CaribbeanRound

    r, applied = _drive_caribbean(fault, stage, s)
    _round_trip(applied, r.rules)
    events = _round_trip(r.events, r.rules)
    assert CaribbeanRound.replay(events) == r
    _round_trip([r.expected_next(), r.view(Audience.public()), r.view(Audience.dealer())], r.rules)
    _round_trip([r.view(Audience.of_player(caribbean_player(b))) for b in range(1, 8)], r.rules)
    _round_trip([w for e in r.events for w in _results(e)], r.rules)
    _round_trip([p for e in r.events for p in r.postings(e)], r.rules)


def _results(event: object) -> tuple[object, ...]:
    settlement = getattr(event, "settlement", None)
    return tuple(getattr(settlement, "wagers", ())) if settlement is not None else ()


def test_caribbean_rules_are_stored_by_reference_and_whole() -> None:
    from macau_tables.caribbean import CaribbeanRound

    rules = caribbean_props.RULES[next(iter(caribbean_props.RULES))]
    r = CaribbeanRound.new(rules, "r9", caribbean_new_round().opening_date, config_id=CONFIG)
    opened = codec.encode(r.events[0])
    assert opened["rules"] == {"config_id": CONFIG, "sha256": codec.sha256(rules)}
    assert codec.rules_ref(rules, CONFIG).matches(rules)
    assert codec.decode(codec.encode(rules)) == rules
    assert codec.is_rules_type(type(rules))
    with pytest.raises(CodecError, match="rules of configuration"):
        codec.decode(opened)
    other = caribbean_props.RULES[list(caribbean_props.RULES)[-1]]
    if other != rules:
        with pytest.raises(CodecError, match="tampered"):
            codec.decode(opened, rules={CONFIG: other})
    assert codec.decode(opened, rules={CONFIG: rules}) == r.events[0]
