"""``macau-tables verify`` finds tampering (issue 9, items 7 and 8): one row changed in SQL
behind the service's back makes ``verify`` exit 1 naming the table and the record; a log and
ledger rewritten consistently (every hash and digest recomputed) are still caught, because
each round is re-derived through its rules; a changed or truncated audit archive is refused
naming what failed."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy

from macau_tables.cards import Card
from macau_tables.rng import verify_order

from .tables_support import (
    canonical,
    played,
    rewrite_events,
    rewrite_transaction,
    run,
    session,
    sql,
    today,
)

__all__ = ["played", "session"]  # the fixtures, imported for the tests below


def verify_fails(url: str) -> str:
    result = run("verify", "--database", url, "--jobs", "1")
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("verify: FAILED")
    assert "Traceback" not in result.output
    return str(result.stdout)


def settled_seq(url: str, table_id: str, *, with_wagers: bool = False) -> int:
    """The first settlement of ``table_id`` (``with_wagers``: one that paid a wager, not a
    baccarat demonstration round)."""
    rows = sql(
        url,
        lambda c: c.execute(
            sqlalchemy.text(
                "SELECT seq, payload FROM events WHERE table_id = :t "
                "AND type LIKE '%RoundSettled' ORDER BY seq"
            ),
            {"t": table_id},
        ).all(),
    )
    for seq, payload in rows:
        lines = json.loads(payload)["settlement"].get("lines") or []
        if not with_wagers or any(line["paid"] > 0 for line in lines):
            return int(seq)
    raise AssertionError(f"no settlement at {table_id}")


def test_a_changed_event_is_named_by_table_and_record(played: str) -> None:
    seq = settled_seq(played, "csp-1")
    sql(
        played,
        lambda c: c.execute(
            sqlalchemy.text(
                "UPDATE events SET payload = replace(payload, :a, :b) "
                "WHERE table_id = 'csp-1' AND seq = :s"
            ),
            {"s": seq, "a": '"v":1', "b": '"v": 1'},
        ),
    )
    out = verify_fails(played)
    assert f"table csp-1, record csp-1#{seq}" in out and "changed after it was recorded" in out


def test_a_changed_posting_is_named_by_its_transaction(played: str) -> None:
    tx_id = sql(
        played,
        lambda c: c.execute(
            sqlalchemy.text("SELECT max(tx_id) FROM transactions WHERE table_id = 'bac-1'")
        ).scalar_one(),
    )
    sql(
        played,
        lambda c: c.execute(
            sqlalchemy.text(
                "UPDATE postings SET amount = amount + 100 WHERE tx_id = :i AND line = 0"
            ),
            {"i": tx_id},
        ),
    )
    out = verify_fails(played)
    assert f"record tx {tx_id}" in out and "table bac-1" in out


def test_a_changed_balance_is_found_though_the_ledger_no_longer_sums_to_zero(played: str) -> None:
    """The start-up check refuses such a database (exit 2, the other commands); ``verify`` and
    ``audit export`` still read it, and ``verify`` names the account."""
    sql(
        played,
        lambda c: c.execute(
            sqlalchemy.text(
                "UPDATE accounts SET balance = balance + 1 WHERE account_id = 'wallet:alice'"
            )
        ),
    )
    out = verify_fails(played)
    assert "record wallet:alice" in out and "postings sum to" in out
    refused = run("report", "--day", today(), "--database", played)
    assert refused.exit_code == 2 and "ledger sums to 1" in refused.stderr
    assert run("recall", "--table", "bac-1", "--database", played).exit_code == 2


def test_a_changed_meter_row_is_found(played: str) -> None:
    sql(played, lambda c: c.execute(sqlalchemy.text("UPDATE meters SET hits = hits + 1")))
    out = verify_fails(played)
    assert "meter" in out and "m-baccarat" in out


def test_a_rewritten_log_whose_cards_no_longer_give_its_settlement_is_found(played: str) -> None:
    """An insider swaps a box's card with the dealer's in a round — each with its committed
    leaf, so that every card still proves against the shoe's root — and recomputes every hash
    after them: the chain holds, the ledger is untouched, but the recorded settlement is not
    what the rules derive from the cards now in the log. Swapping the cards alone is found
    at once: the card no longer hashes to its leaf (Common rules "Randomness")."""
    rows = sql(
        played,
        lambda c: c.execute(
            sqlalchemy.text(
                "SELECT seq, payload FROM events WHERE table_id = 'csp-1' "
                "AND round_id = 'csp-1-2' AND type = 'caribbean.CardDealt' ORDER BY seq"
            )
        ).all(),
    )
    dealt = [(seq, json.loads(payload)) for seq, payload in rows]
    box = next((seq, d["card"], d["leaf"]) for seq, d in dealt if d["to"] == 1)
    dealer = next((seq, d["card"], d["leaf"]) for seq, d in dealt if d["to"] == "dealer")
    swapped = {box[0]: dealer[1:], dealer[0]: box[1:]}

    def swap_cards(seq: int, data: dict[str, Any]) -> bool:
        if seq not in swapped:
            return False
        data["card"] = swapped[seq][0]
        return True

    assert rewrite_events(played, "csp-1", swap_cards) == box[0]
    out = verify_fails(played)
    assert "table csp-1, record csp-1#" in out and "do not hash to the leaf" in out

    def swap(seq: int, data: dict[str, Any]) -> bool:
        if seq not in swapped:
            return False
        data["card"], data["leaf"] = swapped[seq]
        return True

    assert rewrite_events(played, "csp-1", swap) == box[0]
    out = verify_fails(played)
    assert "table csp-1, record csp-1#" in out
    assert "round csp-1-2" in out and "not what its rules derive" in out


def test_a_payout_rewritten_in_log_and_ledger_alike_is_found_by_the_rules(played: str) -> None:
    """An insider pays a player 100.00 more: the settlement event (hash chain recomputed) and
    its transaction (postings, digest and balances) are changed consistently, so every hash,
    digest and balance holds; re-deriving the settlement from the round's cards does not."""
    seq = settled_seq(played, "bac-1", with_wagers=True)
    bonus = 10_000
    found: dict[str, Any] = {}

    def pay_more(s: int, data: dict[str, Any]) -> bool:
        if s != seq:
            return False
        line = next(x for x in data["settlement"]["lines"] if x["paid"] > 0)
        line["paid"] += bonus
        line["house"] -= bonus
        found["player"] = line["player"]
        return True

    assert rewrite_events(played, "bac-1", pay_more) == seq
    tx_id = sql(
        played,
        lambda c: c.execute(
            sqlalchemy.text(
                "SELECT tx_id FROM transactions WHERE table_id = 'bac-1' AND event_seq = :s"
            ),
            {"s": seq},
        ).scalar_one(),
    )
    rewrite_transaction(
        played, tx_id, {f"wallet:{found['player']}": bonus, "table_bank:bac-1": -bonus}
    )
    out = verify_fails(played)
    assert f"table bac-1, record bac-1#{seq}" in out
    assert "is not what its rules derive from its events" in out


def test_a_ledger_transaction_the_rules_did_not_derive_is_found(played: str) -> None:
    """A posting moved to another player's wallet (digest and balances recomputed): the store's
    checks hold, the event's derived postings do not."""
    tx_id, account = sql(
        played,
        lambda c: c.execute(
            sqlalchemy.text(
                "SELECT p.tx_id, p.account_id FROM postings p JOIN transactions t "
                "ON t.tx_id = p.tx_id WHERE t.table_id = 'csp-1' AND p.reason = 'stake' "
                "AND p.account_id LIKE 'wallet:%' ORDER BY p.tx_id LIMIT 1"
            )
        ).one(),
    )
    other = "wallet:grace" if account != "wallet:grace" else "wallet:alice"

    def move(c: sqlalchemy.Connection) -> None:
        amount = c.execute(
            sqlalchemy.text("SELECT amount FROM postings WHERE tx_id = :i AND account_id = :a"),
            {"i": tx_id, "a": account},
        ).scalar_one()
        c.execute(
            sqlalchemy.text(
                "UPDATE postings SET account_id = :o WHERE tx_id = :i AND account_id = :a"
            ),
            {"o": other, "i": tx_id, "a": account},
        )
        c.execute(
            sqlalchemy.text("UPDATE accounts SET balance = balance - :x WHERE account_id = :a"),
            {"x": amount, "a": account},
        )
        c.execute(
            sqlalchemy.text("UPDATE accounts SET balance = balance + :x WHERE account_id = :o"),
            {"x": amount, "o": other},
        )

    sql(played, move)
    rewrite_transaction(played, tx_id, {})  # the digest over the moved posting
    out = verify_fails(played)
    assert f"table csp-1, record tx {tx_id}" in out
    assert "does not record what the rules derive" in out


# -- archives --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def archive(session: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The audit archive of today's session (one per module and backend: only read)."""
    path = tmp_path_factory.mktemp("archive") / "day.zip"
    result = run("audit", "export", "--day", today(), "-o", str(path), "--database", session)
    assert result.exit_code == 0, result.output
    return path


def _rewrite(path: Path, target: Path, change: Any, *, manifest: bool = False) -> None:
    """Copy the archive with ``change(name, bytes) -> bytes`` applied to its members; with
    ``manifest`` the manifest's digests are recomputed too (a forger's archive)."""
    import hashlib

    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    for name in list(members):
        if name != "manifest.json":
            members[name] = change(name, members[name])
    if manifest:
        data = json.loads(members["manifest.json"])
        for name, entry in data["members"].items():
            entry["sha256"] = hashlib.sha256(members[name]).hexdigest()
            entry["bytes"] = len(members[name])
        members["manifest.json"] = json.dumps(data).encode()
    with zipfile.ZipFile(target, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def archive_refused(path: Path) -> str:
    result = run("verify", "--archive", str(path))
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("verify: FAILED") and "Traceback" not in result.output
    return str(result.stdout)


def test_a_truncated_archive_is_refused(archive: Path, tmp_path: Path) -> None:
    data = archive.read_bytes()
    for cut in (len(data) // 2, len(data) - 10):
        short = tmp_path / f"short-{cut}.zip"
        short.write_bytes(data[:cut])
        assert "not a readable audit archive" in archive_refused(short)


def test_a_changed_member_is_refused_by_its_digest(archive: Path, tmp_path: Path) -> None:
    forged = tmp_path / "forged.zip"

    def change(name: str, data: bytes) -> bytes:
        if name != "transactions.jsonl":
            return data
        return data.replace(b'"round"', b'"rounD"', 1)

    _rewrite(archive, forged, change)
    assert "transactions.jsonl does not match its SHA-256" in archive_refused(forged)


def test_a_truncated_member_is_refused(archive: Path, tmp_path: Path) -> None:
    forged = tmp_path / "forged.zip"
    _rewrite(
        archive,
        forged,
        lambda n, d: d[: len(d) // 2] if n == "events.jsonl" else d,
    )
    assert "events.jsonl holds" in archive_refused(forged)


def test_a_forged_archive_with_recomputed_digests_is_refused_at_the_record(
    archive: Path, tmp_path: Path
) -> None:
    """The forger also rewrites the manifest's digests: the event's own chain hash gives the
    change away, naming the table and the record."""
    forged = tmp_path / "forged.zip"

    def change(name: str, data: bytes) -> bytes:
        if name != "events.jsonl":
            return data
        lines = data.decode().splitlines()
        for i, line in enumerate(lines):
            row = json.loads(line)
            if row["table_id"] == "csp-1" and row["type"].endswith("AntePlaced"):
                payload = json.loads(row["payload"])
                payload["amount"] += 1000
                row["payload"] = canonical(payload)
                lines[i] = canonical(row)
                break
        return ("\n".join(lines) + "\n").encode()

    _rewrite(archive, forged, change, manifest=True)
    out = archive_refused(forged)
    assert "table csp-1, record csp-1#" in out and "changed after it was recorded" in out


def test_an_archive_with_a_member_added_is_refused(archive: Path, tmp_path: Path) -> None:
    forged = tmp_path / "forged.zip"
    _rewrite(archive, forged, lambda n, d: d)
    with zipfile.ZipFile(forged, "a") as zf:
        zf.writestr("extra.jsonl", b"{}\n")
    assert "extra.jsonl" in archive_refused(forged)


def test_the_days_audit_entries_are_in_the_archive_and_checked(archive: Path) -> None:
    """Archive version 2: the day's audit log entries (privileged actions and faults), an
    unbroken piece of the log's hash chain named by the manifest."""
    with zipfile.ZipFile(archive) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        entries = [json.loads(line) for line in zf.read("audit.jsonl").splitlines()]
    assert manifest["version"] == 2 and entries
    segment = manifest["audit_chain"]
    assert (segment["first_id"], segment["last_id"]) == (entries[0]["id"], entries[-1]["id"])
    assert segment["end_hash"] == entries[-1]["hash"]
    assert {"meter_create", "table_status"} & {e["action"] for e in entries}
    result = run("verify", "--archive", str(archive))
    assert result.exit_code == 0, result.output
    assert f"{len(entries)} audit entries" in result.stdout


def test_an_audit_entry_changed_in_a_forged_archive_is_named(archive: Path, tmp_path: Path) -> None:
    forged = tmp_path / "forged.zip"

    def change(name: str, data: bytes) -> bytes:
        if name != "audit.jsonl":
            return data
        lines = data.decode().splitlines()
        row = json.loads(lines[-1])
        row["reason"] = "nothing happened"
        lines[-1] = canonical(row)
        return ("\n".join(lines) + "\n").encode()

    _rewrite(archive, forged, change, manifest=True)
    out = archive_refused(forged)
    assert "audit_log" not in out and "audit.jsonl" in out and "is broken" in out


def test_an_audit_entry_removed_from_a_forged_archive_is_found(
    archive: Path, tmp_path: Path
) -> None:
    forged = tmp_path / "forged.zip"

    def drop_last(name: str, data: bytes) -> bytes:
        return b"".join(data.splitlines(keepends=True)[:-1]) if name == "audit.jsonl" else data

    _rewrite(archive, forged, drop_last, manifest=True)
    with zipfile.ZipFile(forged) as zf:  # the forger fixes the record count too
        members = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(members["manifest.json"])
    manifest["members"]["audit.jsonl"]["records"] -= 1
    members["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(forged, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    assert "do not match the manifest's audit_chain" in archive_refused(forged)


def test_an_archive_of_version_1_is_still_checked(archive: Path, tmp_path: Path) -> None:
    """What a regulator took away before the audit log was in the archive still verifies."""
    older = tmp_path / "v1.zip"
    with zipfile.ZipFile(archive) as zf:
        members = {n: zf.read(n) for n in zf.namelist() if n != "audit.jsonl"}
    manifest = json.loads(members["manifest.json"])
    manifest["version"] = 1
    del manifest["audit_chain"], manifest["members"]["audit.jsonl"]
    members["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(older, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    result = run("verify", "--archive", str(older))
    assert result.exit_code == 0, result.output
    assert "audit entries" not in result.stdout


def test_every_leaf_with_its_salt_is_in_the_archive_and_checked(
    archive: Path, tmp_path: Path
) -> None:
    """Common rules "Randomness": the archive carries every ended shoe's whole order with a
    salt per position (``events.jsonl``: ``tables.ShoeRevealed``) — for the staff and the
    regulator only — and each shoe's leaves (``shoes.jsonl``); the offline check verifies them
    against the Merkle roots, and a changed leaf is named by its shoe."""
    with zipfile.ZipFile(archive) as zf:
        events = [json.loads(line) for line in zf.read("events.jsonl").decode().splitlines()]
        shoes = [json.loads(line) for line in zf.read("shoes.jsonl").decode().splitlines()]
    reveals = [json.loads(r["payload"]) for r in events if r["type"] == "tables.ShoeRevealed"]
    assert reveals
    for r in reveals:
        order = [Card.parse(c) for c in r["order"]]
        assert len(r["salts"]) == len(order) and verify_order(r["commitment"], order, r["salts"])
    openings = [s for s in shoes if (s["revealed"] or {}).get("type") == "core.ShoeOpening"]
    assert openings and all("order" not in s["revealed"] for s in openings)
    forged = tmp_path / "forged.zip"
    target = openings[0]

    def change(name: str, data: bytes) -> bytes:
        if name != "shoes.jsonl":
            return data
        rows = [json.loads(line) for line in data.decode().splitlines()]
        for row in rows:
            if (row["table_id"], row["shoe_no"]) == (target["table_id"], target["shoe_no"]):
                row["revealed"]["leaves"][0] = "00" * 32
        return ("\n".join(canonical(row) for row in rows) + "\n").encode()

    _rewrite(archive, forged, change, manifest=True)
    out = archive_refused(forged)
    assert f"shoe {target['shoe_no']}" in out and "Merkle root" in out
