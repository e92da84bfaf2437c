"""The round contract over REST (issue 10, "API" and "Bad input"): whole rounds of both games
through /api/tables, who may issue what (rounds.Issuer), idempotency, refusals as 4xx JSON."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.db_fixtures import on_sqlite_first_on_both
from tests.server.support import cycle_step, login, refused

from macau_tables.messages.terms import TERMS, term
from macau_tables.server.auth import endpoint_rules
from macau_tables.server.i18n import terms_for
from macau_tables.server.runtime import Runtime

Json = dict[str, Any]


def _balance(runtime: Runtime, player: str) -> int:
    return int(runtime.store.read(lambda tx: tx.player(player).balance))


class Table:
    """A client of one table: who sends, a fresh idempotency key per request."""

    def __init__(self, client: TestClient, table_id: str) -> None:
        self.client = client
        self.table_id = table_id
        self.headers: dict[str, dict[str, str]] = {}
        self.n = 0

    def as_(self, name: str) -> dict[str, str]:
        if name not in self.headers:
            self.headers[name] = login(self.client, name)
        return self.headers[name]

    def send(self, name: str, command: Json, *, key: str | None = None) -> Any:
        self.n += 1
        body = {"idempotency_key": key or f"k{self.n}", "command": command}
        return self.client.post(
            f"/api/tables/{self.table_id}/commands", json=body, headers=self.as_(name)
        )

    def ok(self, name: str, command: Json) -> Json:
        response = self.send(name, command)
        assert response.status_code == 200, response.text
        result: Json = response.json()
        assert result["type"] == "tables.Submitted"
        return result

    def dealer(self, command: Json) -> Json:
        """The dealer's open or close at a live table; at a virtual table its round cycle's
        step, run at once (:func:`tests.server.support.cycle_step`)."""
        if self.table_id.endswith("live"):
            return self.ok("dealer", command)
        return cycle_step(self.client, self.table_id, command)

    def refused(self, name: str, command: Json, status: int, key: str) -> Json:
        response = self.send(name, command)
        assert response.status_code == status, response.text
        error: Json = response.json()["error"]
        assert error["key"] == key, error
        return error

    def show(self, name: str | None = None) -> Json:
        headers = self.as_(name) if name else {}
        response = self.client.get(f"/api/tables/{self.table_id}", headers=headers)
        assert response.status_code == 200, response.text
        shown: Json = response.json()
        return shown


def _wager(player: str, seat: int, kind: str, amount: int) -> Json:
    return {
        "type": "baccarat.PlaceWager",
        "player": player,
        "area": {"type": "baccarat.Area", "seated": True, "number": seat},
        "kind": kind,
        "amount": amount,
    }


OPEN_BACCARAT: Json = {"type": "tables.OpenRound", "seated": [[1, "alice"], [2, "bruno"]]}


def test_the_tables_are_listed_publicly(client: TestClient) -> None:
    response = client.get("/api/tables")
    assert response.status_code == 200, response.text
    rows = {r["table_id"]: r for r in response.json()}
    assert set(rows) == {"bac-1", "bac-live", "bac-squeeze", "csp-1"}
    assert rows["bac-live"]["mode"] == "live" and rows["bac-1"]["mode"] == "virtual"
    assert rows["csp-1"]["game"] == "caribbean" and rows["csp-1"]["status"] == "open"
    assert rows["bac-1"]["meter_id"] == "m-baccarat" and rows["bac-1"]["meter_amount"] > 0
    assert rows["csp-1"]["rules"]["ante_minimum"] == 1_000  # the limits, from the configuration
    assert rows["bac-1"]["rules"]["seats"] >= 7
    assert rows["bac-1"]["shoe"] == {"shoes": 0, "shoe_id": None}  # no shoe opened yet


def test_a_whole_baccarat_round_through_the_api(client: TestClient, runtime: Runtime) -> None:
    t = Table(client, "bac-1")
    alice, bruno = _balance(runtime, "alice"), _balance(runtime, "bruno")
    opened = t.dealer(OPEN_BACCARAT)
    assert opened["phase"] == "betting"
    shown = t.show("alice")
    assert shown["expected"]["phase"] == "betting"
    assert "baccarat.PlaceWager" in shown["expected"]["commands"]
    assert shown["audience"] == {
        "type": "core.Audience",
        "v": 1,
        "role": "player",
        "player": "alice",
    }
    t.ok("alice", _wager("alice", 1, "banker", 1_000))
    t.ok("bruno", _wager("bruno", 2, "player", 2_000))
    assert _balance(runtime, "alice") == alice - 1_000  # the stake left the wallet
    done = t.dealer({"type": "baccarat.CloseBetting"})
    # virtual shoe: the service deals, the virtual dealer reveals, the round settles (BAC-7, 17)
    assert done["phase"] == "settled"
    assert "baccarat.RoundSettled" in done["events"]
    late = t.send("bruno", _wager("bruno", 2, "player", 1_000))  # after the close
    assert late.status_code == 409 and late.json()["error"]["rule"], late.text
    after = t.show("alice")
    assert after["expected"]["commands"] == [] and after["seq"] == done["last_seq"]
    results = {r["player"]: r for r in after["view"]["results"]}
    assert set(results) == {"alice"}  # a player sees their own wagers only
    assert _balance(runtime, "alice") == alice - 1_000 + results["alice"]["paid"]
    assert _balance(runtime, "bruno") != bruno
    public = t.show()
    assert public["audience"]["role"] == "public"
    # the shoe's progress (BAC-2, BAC-3): its published commitment and cards out, no card
    shoe = {r["table_id"]: r for r in client.get("/api/tables").json()}["bac-1"]["shoe"]
    assert shoe["cards"] == 8 * 52 and shoe["out"] > 8 and shoe["commitment"]
    assert shoe["remaining"] == shoe["cards"] - shoe["out"] and shoe["rounds"] == 2
    assert public["shoe"] == shoe


def test_a_whole_caribbean_round_through_the_api(client: TestClient, runtime: Runtime) -> None:
    t = Table(client, "csp-1")
    alice = _balance(runtime, "alice")
    t.dealer({"type": "tables.OpenRound"})
    for box, amount in ((9, 1_000), (0, 1_000), (1, 1), (1, 10**9)):  # no such box; limits
        ante = {"type": "caribbean.PlaceAnte", "box": box, "player": "alice", "amount": amount}
        response = t.send("alice", ante)
        assert response.status_code == 409 and response.json()["error"]["rule"], response.text
    assert _balance(runtime, "alice") == alice
    t.ok("alice", {"type": "caribbean.PlaceAnte", "box": 1, "player": "alice", "amount": 1_000})
    t.ok("bruno", {"type": "caribbean.PlaceAnte", "box": 2, "player": "bruno", "amount": 2_000})
    dealt = t.dealer({"type": "caribbean.CloseBetting"})
    assert dealt["phase"] == "deciding"
    due = t.show("alice")["expected"]["due"]
    # CSP-12: a player reads who is due in their own box only (the view names no other player)
    assert [(d["kind"], d["position"], d["player"]) for d in due] == [
        ("decision", 1, "alice"),
        ("decision", 2, None),
    ]
    due = t.show("dealer")["expected"]["due"]
    assert [d["player"] for d in due] == ["alice", "bruno"]  # staff act on who is due
    assert [d["player"] for d in t.show()["expected"]["due"]] == [None, None]  # the public
    # CSP-6.5: a player sees their own five cards and the dealer's up card, not another box
    shown = t.show("alice")
    view = shown["view"]
    assert view["box"] == 1 and len(view["cards"]) == 5 and None not in view["cards"]
    assert view["dealer_cards"][:4] == [None] * 4 and view["dealer_cards"][4] is not None
    assert shown["can_issue"] == ["caribbean.Raise", "caribbean.Fold"]
    assert "caribbean.Raise" not in t.show("dealer")["can_issue"]
    assert t.show()["can_issue"] == []
    t.ok("alice", {"type": "caribbean.Raise", "box": 1, "player": "alice", "amount": 2_000})
    settled = t.ok("bruno", {"type": "caribbean.Fold", "box": 2, "player": "bruno"})
    assert settled["phase"] == "settled"  # the showdown is the service's (CSP-6.8)
    assert _balance(runtime, "alice") != alice
    assert t.show("supervisor")["expected"]["due"] == []


@pytest.mark.parametrize("decision", ["clear", "void"])
def test_a_dealers_fault_report_holds_the_round_and_a_supervisor_decides_BAC_10_CSP_11_4(
    client: TestClient, runtime: Runtime, decision: str
) -> None:
    """Dealers report, supervisors decide: a dealer's ReportFault during the decisions at csp-1
    voids nothing and moves no money (a dealer who saw a bad hand gets no re-deal); nothing but
    the supervisor is taken; the supervisor's ClearFault resumes the round where it stood, or
    the supervisor's Void (on a legal ground the report shows, with its reason) voids it."""
    t = Table(client, "csp-1")
    t.dealer({"type": "tables.OpenRound"})
    t.ok("alice", {"type": "caribbean.PlaceAnte", "box": 1, "player": "alice", "amount": 1_000})
    assert t.dealer({"type": "caribbean.CloseBetting"})["phase"] == "deciding"
    alice = _balance(runtime, "alice")
    held = t.ok("dealer", {"type": "tables.ReportFault", "reason": "a card may be exposed"})
    assert held["events"] == ["tables.TableFaulted"] and held["phase"] == "deciding"
    assert _balance(runtime, "alice") == alice  # no money moved
    shown = t.show("supervisor")
    assert shown["fault"] is not None and shown["expected"]["phase"] == "deciding"
    raise_ = {"type": "caribbean.Raise", "box": 1, "player": "alice", "amount": 2_000}
    t.refused("alice", raise_, 409, "tables.in_fault")
    void = {
        "type": "caribbean.Void",
        "supervisor": "supervisor",
        "reason": "two cards exposed in error",
        "ground": "exposures",
    }
    t.refused("dealer", void, 403, "api.role_cannot_issue")
    if decision == "clear":
        clear = {"type": "tables.ClearFault", "supervisor": "supervisor", "reason": "no exposure"}
        t.ok("supervisor", clear)
        assert t.show("alice")["fault"] is None
        settled = t.ok("alice", raise_)  # the round goes on from where it stood
        assert settled["phase"] == "settled" and "caribbean.RoundSettled" in settled["events"]
    else:
        t.refused(
            "supervisor",
            {"type": "caribbean.Void", "supervisor": "supervisor", "reason": "exposed"},
            409,
            "voids.needs_ground",  # CSP-11.1, CSP-11.4: a void names its legal ground
        )
        t.refused("supervisor", {**void, "reason": ""}, 409, "voids.reason_required")
        after_the_deal = {**void, "ground": "shuffler_failure"}  # CSP-11.4: during the deal only
        t.refused("supervisor", after_the_deal, 409, "voids.ground_not_now")
        voided = t.ok("supervisor", void)
        assert voided["phase"] == "void"
        assert _balance(runtime, "alice") == alice + 1_000  # the ante returned
        assert t.show()["fault"] is not None  # the table stays stopped until cleared
        clear = {"type": "tables.ClearFault", "supervisor": "supervisor", "reason": "checked"}
        t.ok("supervisor", clear)
        t.dealer({"type": "tables.OpenRound"})


def test_a_virtual_table_offers_and_takes_no_physical_act_CSP_11(
    client: TestClient, runtime: Runtime
) -> None:
    """CSP-11.1, CSP-11.2, Common rules "Hidden information": at csp-1 (virtual) the dealer's
    exposure report of a card not in play and of a hole card used to answer differently (an
    oracle on the hole cards; an accepted one turned the card up for every player) and a
    misdeal voided a round the players had seen. Now each is 409 ``tables.mode_refuses`` with
    the same text whatever the card, nothing changes, and neither ``expected`` nor
    ``can_issue`` offers them."""
    t = Table(client, "csp-1")
    t.dealer({"type": "tables.OpenRound"})
    t.ok("alice", {"type": "caribbean.PlaceAnte", "box": 1, "player": "alice", "amount": 1_000})
    t.dealer({"type": "caribbean.CloseBetting"})
    seq = t.show("dealer")["seq"]
    r = runtime.service("csp-1").state.round
    hole = str(r.dealer_cards[0])
    dealt = {str(c) for c in (*r.dealer_cards, *r.box(1).cards)}
    absent = next(
        f"{rank}{suit}"
        for rank in "23456789TJQKA"
        for suit in "shdc"
        if f"{rank}{suit}" not in dealt
    )
    texts = set()
    for card in (hole, absent):
        for lang in ("en", "zh-Hant"):
            response = t.client.post(
                "/api/tables/csp-1/commands",
                json={
                    "idempotency_key": f"x-{card}-{lang}",
                    "command": {"type": "caribbean.ReportExposedCard", "card": card},
                },
                headers={**t.as_("dealer"), "Accept-Language": lang},
            )
            assert response.status_code == 409, response.text
            error = response.json()["error"]
            assert error["key"] == "tables.mode_refuses", error
            texts.add((lang, error["text"], str(error["params"])))
    assert len(texts) == 2  # one per language, the same whatever the card
    t.refused(
        "dealer",
        {"type": "caribbean.ReportMisdeal", "reason": "re-deal"},
        409,
        "tables.mode_refuses",
    )
    t.refused("supervisor", {"type": "caribbean.ShufflerFailure"}, 409, "tables.mode_refuses")
    shown = t.show("dealer")
    assert shown["seq"] == seq and shown["expected"]["phase"] == "deciding"
    assert shown["view"]["dealer_cards"][:4] == [None] * 4  # the hole cards stay face down
    physical = {
        "caribbean.ReportExposedCard",
        "caribbean.ReportMisdeal",
        "caribbean.DealtToEmptyBox",
        "caribbean.ShufflerFailure",
        "caribbean.DealCard",
    }
    for who in ("dealer", "supervisor"):
        offered = t.show(who)
        assert not physical & set(offered["expected"]["commands"]), offered["expected"]
        assert not physical & set(offered["can_issue"])
    assert "caribbean.Void" in t.show("supervisor")["can_issue"]


def test_a_live_baccarat_round_with_a_wrong_card(client: TestClient, runtime: Runtime) -> None:
    t = Table(client, "bac-live")
    t.ok("dealer", {"type": "tables.OpenShoe"})
    t.ok(
        "dealer",
        {"type": "baccarat.Cut", "cutter": "dealer", "cutter_id": "dealer", "position": 100},
    )
    t.ok("dealer", {"type": "baccarat.Burn", "cards": [None] * 8})  # BAC-2.1: one per deck
    t.dealer(OPEN_BACCARAT)  # the demonstration round (BAC-2.2): cards, no wagers
    for card in ("2s", "3s", "4s", "5s"):
        t.ok("dealer", {"type": "baccarat.DealCard", "card": card})
    t.dealer(OPEN_BACCARAT)
    t.ok("alice", _wager("alice", 1, "banker", 1_000))
    t.dealer({"type": "baccarat.CloseBetting"})
    # BAC-10: a card to the wrong slot is refused and flagged; a supervisor must act
    flagged = t.ok("dealer", {"type": "baccarat.DealCard", "card": "2h", "slot": "B3"})
    assert flagged["events"] == ["baccarat.CardRefused"]
    assert [d["kind"] for d in t.show("dealer")["expected"]["due"]] == ["supervisor"]
    correct = {"type": "baccarat.Correct", "supervisor": "supervisor", "reason": "wrong slot"}
    t.refused("dealer", {**correct, "action": "withdraw"}, 403, "api.role_cannot_issue")
    other = {**correct, "supervisor": "someone-else", "action": "withdraw"}
    t.refused("supervisor", other, 403, "api.acts_for_another")
    t.ok("supervisor", {**correct, "action": "withdraw"})
    assert [d["kind"] for d in t.show("dealer")["expected"]["due"]] == ["card"]
    # an unreadable card never reaches the round (the codec refuses it, BAC-1)
    t.refused("dealer", {"type": "baccarat.DealCard", "card": "Zz"}, 422, "core.codec_bad_card")
    recalled = client.get("/api/tables/bac-live/recall?last=2", headers=t.as_("supervisor"))
    assert recalled.status_code == 200, recalled.text
    assert [r["state"] for r in recalled.json()] == ["demonstration", "open"]
    # the supervisor's correction is in the audit log: who, why, what
    entries = runtime.store.read(lambda tx: list(tx.audit_entries()))
    (entry,) = [e for e in entries if e.action == "command baccarat.Correct"]
    assert entry.actor == "supervisor" and entry.reason == "wrong slot"


def test_bac_live_ends_its_shoe_with_the_cut_cards_round_only_as_the_count_allows_BAC_3_1(
    client: TestClient, runtime: Runtime
) -> None:
    """BAC-3.1 at ``bac-live`` (8 decks, cut card 14 from the end: the count puts it after card
    402): the dealer's cut-card report at card 36 is refused (409, the rule, what to do), a
    dealer cannot confirm it, the supervisor's ``ConfirmCutCardOut`` (audited) makes it take
    effect; the round in progress finishes, then ``OpenRound`` is refused (BAC-3.1) until the
    shoe is changed. Old behaviour: the dealer's report at card 36 ended the shoe at once."""
    import random

    from macau_tables.baccarat.tableau import deal_round
    from macau_tables.cards import new_shoe

    order = list(new_shoe(8))
    random.Random(11).shuffle(order)
    t = Table(client, "bac-live")
    t.ok("dealer", {"type": "tables.OpenShoe"})
    cut = {"type": "baccarat.Cut", "cutter": "dealer", "cutter_id": "dealer", "position": 90}
    t.ok("dealer", cut)
    t.ok("dealer", {"type": "baccarat.Burn", "cards": [None] * 8})

    def deal(start: int = 0, stop: int | None = None) -> None:
        """The round's cards ``start:stop`` (the shoe counts a round's cards when it ends)."""
        out = t.show("dealer")["shoe"]["out"]
        for card in deal_round(order[out:]).cards_in_order[start:stop]:
            t.ok("dealer", {"type": "baccarat.DealCard", "card": str(card)})

    while t.show("dealer")["shoe"]["out"] < 34:
        t.dealer(OPEN_BACCARAT)
        deal()
    t.dealer(OPEN_BACCARAT)
    deal(0, 2)
    out = t.show("dealer")["shoe"]["out"] + 2
    report = {"type": "baccarat.CutCardOut"}
    error = t.refused("dealer", report, 409, "shoe.cut_card_out_of_place")
    assert error["rule"] == "BAC-3.1" and error["params"]["out"] == out
    assert error["params"]["counted"] == 402 and "confirms the cut card out" in error["text"]
    assert t.show("dealer")["shoe"]["last_round"] is None  # nothing written
    confirm = {
        "type": "baccarat.ConfirmCutCardOut",
        "supervisor": "supervisor",
        "reason": "cut card placed short",
    }
    t.refused("dealer", confirm, 403, "api.role_cannot_issue")
    done = t.ok("supervisor", confirm)
    assert done["events"] == ["baccarat.CutCardConfirmed", "baccarat.CutCardCameOut"]
    entries = runtime.store.read(lambda tx: list(tx.audit_entries()))
    (entry,) = [e for e in entries if e.action == "command baccarat.ConfirmCutCardOut"]
    assert entry.actor == "supervisor" and entry.reason == "cut card placed short"
    deal(2)  # the round in progress finishes
    shoe = t.show("dealer")["shoe"]
    assert shoe["phase"] == "finished" and shoe["last_round"] == shoe["rounds"]
    refused = t.refused("dealer", OPEN_BACCARAT, 409, "shoe.finished")
    assert refused["rule"] == "BAC-3.1" and "open a new shoe" in refused["text"]
    t.ok("dealer", {"type": "tables.OpenShoe"})  # the shoe changed: cut, burn, rounds again
    t.ok("dealer", cut)
    t.ok("dealer", {"type": "baccarat.Burn", "cards": [None] * 8})
    t.dealer(OPEN_BACCARAT)


def test_nobody_acts_for_another(client: TestClient) -> None:
    t = Table(client, "csp-1")
    t.dealer({"type": "tables.OpenRound"})
    t.ok("bruno", {"type": "caribbean.PlaceAnte", "box": 2, "player": "bruno", "amount": 1_000})
    error = t.refused(
        "alice",
        {"type": "caribbean.PlaceAnte", "box": 3, "player": "bruno", "amount": 1_000},
        403,
        "api.acts_for_another",
    )
    assert error["params"]["other"] == "bruno"
    # another player's box: the round refuses it by the law (the box is bruno's)
    response = t.send(
        "alice", {"type": "caribbean.PlaceAnte", "box": 2, "player": "alice", "amount": 1_000}
    )
    assert response.status_code == 409 and response.json()["error"]["rule"]


def test_dealers_move_cards_never_money(client: TestClient) -> None:
    t = Table(client, "bac-1")
    t.dealer(OPEN_BACCARAT)
    t.refused("dealer", _wager("dealer", 1, "banker", 1_000), 403, "api.role_cannot_issue")
    t.refused("dealer", {"type": "baccarat.Settle"}, 403, "api.service_only")
    t.refused("supervisor", {"type": "baccarat.Settle"}, 403, "api.service_only")
    t.refused("admin", {"type": "baccarat.CloseBetting"}, 403, "api.role_cannot_issue")
    t.refused("alice", {"type": "baccarat.CloseBetting"}, 403, "api.role_cannot_issue")
    t.refused("admin", _wager("admin", 1, "banker", 1_000), 403, "api.role_cannot_issue")


def test_idempotency(client: TestClient, runtime: Runtime) -> None:
    t = Table(client, "bac-1")
    t.dealer(OPEN_BACCARAT)
    alice = _balance(runtime, "alice")
    first = t.send("alice", _wager("alice", 1, "banker", 1_000), key="slip-1")
    again = t.send("alice", _wager("alice", 1, "banker", 1_000), key="slip-1")
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    assert _balance(runtime, "alice") == alice - 1_000  # applied once
    altered = t.send("alice", _wager("alice", 1, "banker", 2_000), key="slip-1")
    assert altered.status_code == 409
    assert altered.json()["error"]["key"] == "tables.idempotency_mismatch"
    assert _balance(runtime, "alice") == alice - 1_000


def test_the_tick_prunes_idempotency_records_older_than_idempotency_days(
    runtime: Runtime,
) -> None:
    """A command's first answer is kept for its retries ``idempotency_days`` (default 7), then
    pruned by the clock's work (about once an hour, the first tick included), so the records do
    not grow for ever; ``0`` keeps them all. The age is the store's clock's."""
    store = runtime.store
    real = store.clock
    record = {"scope": "bac-1", "request_sha256": "ab" * 32, "response": {"ok": True}}
    store.clock = lambda: real() - timedelta(days=8)  # type: ignore[method-assign]
    store.run(lambda tx: tx.idempotency_put("api:alice:old", **record))
    store.clock = real  # type: ignore[method-assign]
    store.run(lambda tx: tx.idempotency_put("api:alice:new", **record))
    runtime.settings = runtime.settings.replace(idempotency_days=0)
    assert runtime.prune_idempotency() == 0  # kept for ever
    runtime.settings = runtime.settings.replace(idempotency_days=7)
    runtime.tick()  # the first tick prunes
    assert store.read(lambda tx: tx.idempotency_get("api:alice:old")) is None
    assert store.read(lambda tx: tx.idempotency_get("api:alice:new")) is not None
    assert runtime.prune_idempotency() == 0  # nothing left that old


def test_a_bet_slip_is_all_or_nothing(client: TestClient, runtime: Runtime) -> None:
    t = Table(client, "bac-1")
    t.dealer(OPEN_BACCARAT)
    alice = _balance(runtime, "alice")
    slip = [_wager("alice", 1, "banker", 1_000), _wager("alice", 1, "tie", 10**9)]
    body = {"idempotency_key": "slip", "commands": slip}
    refused = client.post("/api/tables/bac-1/commands", json=body, headers=t.as_("alice"))
    assert refused.status_code == 409, refused.text
    assert refused.json()["error"]["rule"]  # out of the table's limits
    assert _balance(runtime, "alice") == alice
    body = {"idempotency_key": "slip-2", "commands": slip[:1] * 2}
    accepted = client.post("/api/tables/bac-1/commands", json=body, headers=t.as_("alice"))
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["events"] == ["baccarat.WagerPlaced", "baccarat.WagerPlaced"]
    assert _balance(runtime, "alice") == alice - 2_000


@on_sqlite_first_on_both(
    "body,status,key",
    [
        ({"idempotency_key": "a"}, 422, "api.command_or_commands"),
        ({"command": {"type": "tables.OpenShoe"}}, 422, "server.invalid_request"),
        (
            {"idempotency_key": "a", "command": {"type": "nope.Nope"}},
            422,
            "core.codec_unknown_type",
        ),
        ({"idempotency_key": "a", "command": {"type": "core.Meter"}}, 400, "core.not_a_command"),
        (
            {"idempotency_key": "a", "command": {"type": "caribbean.Showdown"}},
            403,
            "api.service_only",
        ),
        (
            {"idempotency_key": "a", "command": {"type": "tables.OpenRound", "zz": 1}},
            422,
            "core.codec_extra_field",
        ),
        (
            {"idempotency_key": "a", "command": {"type": "tables.ReportFault"}},
            422,
            "core.codec_missing_field",
        ),
        (
            {"idempotency_key": "a", "command": {"type": "tables.ReportFault", "reason": 5}},
            422,
            "core.codec_wrong_value",
        ),
        (
            {"idempotency_key": "", "command": {"type": "tables.OpenShoe"}},
            422,
            "server.invalid_request",
        ),
        ([1, 2], 422, "server.invalid_request"),
    ],
)
def test_bad_input_is_a_4xx_json(client: TestClient, body: Any, status: int, key: str) -> None:
    headers = login(client, "dealer")
    response = client.post("/api/tables/bac-1/commands", json=body, headers=headers)
    assert response.status_code == status, response.text
    assert response.json()["error"]["key"] == key


def test_malformed_json_unknown_table_and_anonymous(client: TestClient) -> None:
    headers = {**login(client, "dealer"), "Content-Type": "application/json"}
    response = client.post("/api/tables/bac-1/commands", content=b"{not json", headers=headers)
    assert response.status_code == 422 and response.json()["error"]["key"]
    body = {"idempotency_key": "a", "command": {"type": "tables.OpenRound"}}
    response = client.post("/api/tables/nowhere/commands", json=body, headers=headers)
    assert response.status_code == 404 and response.json()["error"]["key"]
    assert client.get("/api/tables/nowhere").status_code == 404
    response = client.post("/api/tables/bac-1/commands", json=body)
    assert response.status_code == 401
    response = client.get("/api/tables/bac-1/recall", headers=login(client, "alice"))
    assert response.status_code == 403


def test_a_commands_token_is_checked_in_its_own_thread_at_every_request(
    client: TestClient, runtime: Runtime
) -> None:
    """The commands' rule (``auth.require_in_thread``) looks the token up in the request's
    worker thread: a token signed out, a disabled user's or an unknown one is refused (401) at
    its next command with nothing written, as on every other route."""
    t = Table(client, "bac-1")
    t.dealer(OPEN_BACCARAT)
    alice = _balance(runtime, "alice")
    t.ok("alice", _wager("alice", 1, "banker", 1_000))
    assert client.post("/api/auth/logout", headers=t.as_("alice")).status_code == 200
    t.refused("alice", _wager("alice", 1, "banker", 1_000), 401, "auth.session_unknown")
    del t.headers["alice"]
    admin = login(client, "admin")
    t.ok("alice", _wager("alice", 1, "player", 1_000))
    disabled = client.post(
        "/api/admin/users/alice/disable", json={"reason": "self-exclusion"}, headers=admin
    )
    assert disabled.status_code == 200
    t.refused("alice", _wager("alice", 1, "banker", 1_000), 401, "auth.session_unknown")
    t.headers["alice"] = {"Authorization": "Bearer not-a-token"}
    t.refused("alice", _wager("alice", 1, "banker", 1_000), 401, "auth.session_unknown")
    t.headers["alice"] = {"Authorization": "Basic abc"}
    t.refused("alice", _wager("alice", 1, "banker", 1_000), 401, "auth.unauthenticated")
    assert _balance(runtime, "alice") == alice - 2_000  # the two accepted wagers only


def test_open_and_close_are_a_supervisors_and_audited(client: TestClient, runtime: Runtime) -> None:
    sup = login(client, "supervisor")
    t = Table(client, "csp-1")
    before = runtime.store.read(lambda tx: len(tx.audit_entries()))
    assert (
        client.post(
            "/api/tables/csp-1/close", json={"reason": "x"}, headers=t.as_("dealer")
        ).status_code
        == 403
    )
    response = client.post("/api/tables/csp-1/close", json={"reason": "break"}, headers=sup)
    assert response.status_code == 200 and response.json()["status"] == "closed"
    t.refused("dealer", {"type": "tables.OpenRound"}, 409, "tables.cycle_owns")
    assert runtime.service("csp-1").cycle_step() is None  # a closed table opens no round
    assert (
        client.post("/api/tables/csp-1/open", json={"reason": ""}, headers=sup).status_code == 422
    )
    response = client.post("/api/tables/csp-1/open", json={"reason": "back"}, headers=sup)
    assert response.status_code == 200 and response.json()["status"] == "open"
    t.dealer({"type": "tables.OpenRound"})
    entries = runtime.store.read(lambda tx: tx.audit_entries())[before:]
    # each change listed once (the API's own entry once doubled the store's), with why
    assert [(e.action, e.actor, e.reason) for e in entries] == [
        ("table_closed", "supervisor", "break"),
        ("table_open", "supervisor", "back"),
    ]


def test_the_round_cycle_is_paused_and_resumed_by_a_supervisor_only_and_audited(
    client: TestClient, runtime: Runtime
) -> None:
    """``PauseCycle`` / ``ResumeCycle`` (tables/cycle.py) go where the supervisor's commands
    go (``/commands``): a dealer or a player is refused (403), a supervisor's is recorded in
    the audit log with the reason; a dealer's open or close at a virtual table is refused
    (409 ``tables.cycle_owns``, naming what to do instead)."""
    t = Table(client, "bac-1")
    runtime.tick()  # the cycle opens bac-1's first round
    assert t.show("alice")["cycle"]["step"] == "close"
    pause = {"type": "tables.PauseCycle", "supervisor": "supervisor", "reason": "screen check"}
    t.refused("dealer", {**pause, "supervisor": "dealer"}, 403, "api.role_cannot_issue")
    t.refused("alice", {**pause, "supervisor": "alice"}, 403, "api.role_cannot_issue")
    t.refused("supervisor", {**pause, "supervisor": "someone"}, 403, "api.acts_for_another")
    error = t.refused("dealer", {"type": "baccarat.CloseBetting"}, 409, "tables.cycle_owns")
    assert "pauses the cycle" in error["text"]
    t.ok("supervisor", pause)
    assert t.show()["cycle"] == {"step": None, "at": None, "idle": False, "paused": True}
    t.refused("supervisor", pause, 409, "tables.cycle_paused_already")
    runtime.clock.advance(3600)  # type: ignore[attr-defined]
    assert all(done.table_id != "bac-1" for done in runtime.tick())  # bac-1 stands still
    resume = {"type": "tables.ResumeCycle", "supervisor": "supervisor", "reason": "all fine"}
    t.ok("supervisor", resume)
    assert t.show()["cycle"]["step"] == "close"
    entries = runtime.store.read(lambda tx: list(tx.audit_entries(table_id="bac-1")))
    done = {(e.action, e.actor, e.reason) for e in entries}
    assert ("command tables.PauseCycle", "supervisor", "screen check") in done
    assert ("command tables.ResumeCycle", "supervisor", "all fine") in done


def test_the_openapi_document_describes_every_command(client: TestClient) -> None:
    from macau_tables import codec
    from macau_tables.server.schemas import client_commands, component_name

    spec = client.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    for cls in client_commands():
        name = codec.type_name(cls)
        schema = components[component_name(name)]
        assert schema["properties"]["type"]["const"] == name
        assert schema["additionalProperties"] is False
    place = components["BaccaratPlaceWager"]
    assert place["properties"]["kind"]["enum"][:2] == ["player", "banker"]
    assert place["properties"]["area"]["properties"]["seated"] == {"type": "boolean"}
    assert "CaribbeanShowdown" not in components  # the service's own: no client sends it
    body = spec["paths"]["/api/tables/{table_id}/commands"]["post"]["requestBody"]
    assert body["required"] is True


@on_sqlite_first_on_both("depth", [200, 900, 5_000, 30_000])
def test_deeply_nested_bodies_are_refused_not_crashed(client: TestClient, depth: int) -> None:
    headers = {**login(client, "dealer"), "Content-Type": "application/json"}
    seated = "[" * depth + "]" * depth
    body = '{"idempotency_key": "deep", "command": {"type": "tables.OpenRound", "seated": %s}}'
    response = client.post(
        "/api/tables/bac-1/commands", content=(body % seated).encode(), headers=headers
    )
    assert 400 <= response.status_code < 500, response.text
    assert response.json()["error"]["key"]


def test_a_body_nested_30000_deep_is_a_4xx_on_every_route_that_reads_one(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Every route taking a body, sent one nested 30,000 deep (as an admin, as the public):
    never a 5xx — a 4xx in the one shape (a route that reads no body may answer as usual) —
    nothing logged with a traceback."""
    deep = ("[" * 30_000 + "]" * 30_000).encode()
    wrapped = ('{"idempotency_key": "k", "reason": ' + "[" * 30_000 + "]" * 30_000 + "}").encode()
    admin = login(client, "admin")
    routes = [
        (method, re.sub(r"\{[^}]+\}", "csp-1", path))
        for method, path in sorted(endpoint_rules(client.app))  # type: ignore[arg-type]
        if method in ("POST", "PUT", "PATCH")
    ]
    assert len(routes) > 10
    for method, path in routes:
        for headers in ({}, admin) if not path.endswith("/logout") else ({},):
            for body in (deep, wrapped):
                response = client.request(
                    method,
                    path,
                    content=body,
                    headers={**headers, "Content-Type": "application/json"},
                )
                assert response.status_code < 500, (method, path, response.text[:200])
                if response.status_code >= 400:
                    assert response.json()["error"]["key"], (method, path)
    assert not [r for r in caplog.records if r.exc_info], caplog.records[:1]


def test_an_oversized_body_is_413(client: TestClient, runtime: Runtime) -> None:
    headers = login(client, "dealer")
    reason = "x" * (runtime.settings.body_limit_bytes + 10)
    body = {"idempotency_key": "big", "command": {"type": "tables.ReportFault", "reason": reason}}
    response = client.post("/api/tables/bac-1/commands", json=body, headers=headers)
    assert response.status_code == 413
    assert response.json()["error"]["key"] == "server.body_too_large"
    assert client.get("/api/tables/bac-1").json()["fault"] is None  # nothing changed


def test_a_text_with_nul_is_refused_on_every_database(client: TestClient) -> None:
    dealer, sup = login(client, "dealer"), login(client, "supervisor")
    for body in (
        {"idempotency_key": "a\u0000b", "command": {"type": "tables.OpenRound"}},
        {"idempotency_key": "k", "command": {"type": "tables.ReportFault", "reason": "x\u0000"}},
        {
            "idempotency_key": "k",
            "commands": [{"type": "tables.OpenRound", "seated": [[1, "a\u0000"]]}],
        },
    ):
        response = client.post("/api/tables/bac-1/commands", json=body, headers=dealer)
        assert response.status_code == 422, response.text
        assert response.json()["error"]["key"] == "api.nul_text"
    response = client.post("/api/tables/bac-1/close", json={"reason": "a\u0000"}, headers=sup)
    assert response.status_code == 422
    assert client.get("/api/tables/bac%00").status_code == 422
    assert client.get("/api/tables/bac-1").json()["status"] == "open"  # nothing changed


def test_a_refusal_is_in_the_pages_language_game_words_too(client: TestClient) -> None:
    """A refusal's ``text`` is in the page's language — ``Accept-Language`` (what ``api.js``
    sends) or the page's language cookie, which wins over the browser's own header — the
    games' words in it translated (``{kind:term}``: 莊對子, not ``banker_pair``)."""
    t = Table(client, "bac-1")
    t.dealer(OPEN_BACCARAT)
    odd = _wager("alice", 1, "banker_pair", 1_001)  # not a multiple of the bet unit
    texts = {}
    for name, extra, cookie in (
        ("header", {"Accept-Language": "zh-Hant"}, None),
        ("browser", {"Accept-Language": "zh-TW,zh;q=0.9,en;q=0.8"}, None),
        ("cookie", {"Accept-Language": "en-US,en;q=0.9"}, "zh-Hant"),
        ("english", {"Accept-Language": "en-US"}, None),
    ):
        client.cookies.clear()
        if cookie:
            client.cookies.set("macau_lang", cookie)
        response = client.post(
            "/api/tables/bac-1/commands",
            json={"idempotency_key": f"zh-{name}", "command": odd},
            headers={**t.as_("alice"), **extra},
        )
        assert response.status_code in (400, 409, 422), response.text
        error = response.json()["error"]
        assert error["params"]["kind"] == "banker_pair"
        texts[name] = error["text"]
    client.cookies.clear()
    for name in ("header", "browser", "cookie"):
        assert "莊對子" in texts[name] and "banker_pair" not in texts[name], texts[name]
        assert not any("a" <= ch <= "z" for ch in texts[name]), texts[name]  # nothing English
    assert "banker pair" in texts["english"] and "banker_pair" not in texts["english"]


def test_the_pages_get_the_game_words_for_their_scripts() -> None:
    """``i18n.js`` fills ``{kind:term}`` from ``terms_for`` as ``messages.terms.term`` does."""
    zh = terms_for("zh-Hant")
    assert zh["words"] == dict(TERMS["zh-Hant"]) and zh["locale"] == "zh-Hant-MO"
    for value in ("box 3", "seat 12", "standing 2"):
        pattern, template = next(
            (p, tpl)
            for p, tpl in zh["places"]
            if re.fullmatch(p, value)  # type: ignore[attr-defined]
        )
        match = re.fullmatch(pattern, value)
        assert match and template.format(*match.groups()) == term(value, "zh-Hant")
    english = terms_for("en")  # English has its words too: no page shows a raw value
    assert english["words"]["banker_pair"] == "banker pair" and english["locale"] == "en-GB"
    assert [p for p, _ in english["places"]] == [p for p, _ in zh["places"]]


def test_a_refusal_about_the_request_names_the_field_in_words_and_keeps_the_path(
    client: TestClient,
) -> None:
    """Issue 22: a dealer's refused card read 「$.card：不是一張牌」. The text names the field
    with the glossary's word (牌 / "the card") and a command's type in words; the JSON path
    stays in the refusal's params, for machines."""
    t = Table(client, "bac-live")
    for language, word in (("zh-Hant", "牌"), ("en", "the card")):
        response = client.post(
            "/api/tables/bac-live/commands",
            json={
                "idempotency_key": f"path-{language}",
                "command": {"type": "baccarat.DealCard", "card": 5},
            },
            headers={**t.as_("dealer"), "Accept-Language": language},
        )
        error = refused(response, 422)
        assert error["params"]["path"].startswith("$"), error
        assert "$" not in error["text"] and word in error["text"], error["text"]
        missing = client.post(
            "/api/tables/bac-live/commands",
            json={"idempotency_key": f"type-{language}", "command": {"type": "baccarat.DealCard"}},
            headers={**t.as_("dealer"), "Accept-Language": language},
        )
        error = refused(missing, 422)
        assert error["params"]["type"] == "baccarat.DealCard", error
        assert "DealCard" not in error["text"] and "$" not in error["text"], error["text"]
        unread = client.post(
            "/api/tables/bac-live/commands",
            json={"command": {"type": "baccarat.DealCard", "card": "As"}},
            headers={**t.as_("dealer"), "Accept-Language": language},
        )
        error = refused(unread, 422, "server.invalid_request")
        assert (
            error["params"]["problem"] == "missing"
            and "idempotency_key" in error["params"]["where"]
        )
        assert "idempotency_key" not in error["text"] and "Field required" not in error["text"]
