"""Signed audit archives (STANDARDS "Recall": everything needed to recreate play can be exported
for the regulator; the archive says who exported it): ``audit keygen``, ``audit export
--sign-key``, ``verify --archive --public-key``. A signature holds for the whole archive; a
changed manifest or signature, another key, or no signature when one is asked for, is a
finding (exit 1); bad keys are refused (exit 2). On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import stat
import zipfile
from pathlib import Path

import pytest

from macau_tables.tables.archive_check import verify_archive
from macau_tables.tables.signing import SIGNATURE, fingerprint

from .tables_support import played, run, session, today

__all__ = ["played", "session"]  # the fixtures, imported for the tests below


def keygen(folder: Path, name: str = "operator.key") -> tuple[Path, str]:
    key = folder / name
    made = run("audit", "keygen", "-o", str(key))
    assert made.exit_code == 0, made.output
    public = (folder / f"{name}.pub").read_text().strip()
    assert public in made.stdout and fingerprint(public) in made.stdout
    return key, public


def export(session: str, path: Path, *extra: str) -> None:
    done = run("audit", "export", "--day", today(), "-o", str(path), *extra, "--database", session)
    assert done.exit_code == 0, done.output


def rewrite(source: Path, target: Path, change: dict[str, bytes]) -> None:
    """Copy the archive ``source`` to ``target`` with the members of ``change`` replaced."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, change.get(info.filename, zin.read(info.filename)))


def test_a_signed_archive_verifies_against_its_public_key(session: str, tmp_path: Path) -> None:
    key, public = keygen(tmp_path)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600  # the private key: its owner's only
    archive = tmp_path / "day.zip"
    export(session, archive, "--sign-key", str(key))
    for given in (public, str(tmp_path / "operator.key.pub")):
        checked = run("verify", "--archive", str(archive), "--public-key", given)
        assert checked.exit_code == 0, checked.output
        assert f"signed by {fingerprint(public)}" in checked.stdout
    as_json = run("verify", "--archive", str(archive), "--format", "json")
    assert json.loads(as_json.stdout)["signed_by"]["public_key"] == public


def test_another_key_or_no_signature_is_a_finding(session: str, tmp_path: Path) -> None:
    key, _ = keygen(tmp_path)
    _, other = keygen(tmp_path, "other.key")
    signed, plain = tmp_path / "signed.zip", tmp_path / "plain.zip"
    export(session, signed, "--sign-key", str(key))
    export(session, plain)
    wrong = run("verify", "--archive", str(signed), "--public-key", other)
    assert wrong.exit_code == 1 and "not by" in wrong.stdout, wrong.output
    unsigned = run("verify", "--archive", str(plain), "--public-key", other)
    assert unsigned.exit_code == 1 and "not signed" in unsigned.stdout, unsigned.output
    assert run("verify", "--archive", str(plain)).exit_code == 0  # no key asked: still checked


def test_a_changed_manifest_or_signature_breaks_the_signature(session: str, tmp_path: Path) -> None:
    key, public = keygen(tmp_path)
    archive = tmp_path / "day.zip"
    export(session, archive, "--sign-key", str(key))
    with zipfile.ZipFile(archive) as zf:
        manifest = zf.read("manifest.json")
        signature = json.loads(zf.read(SIGNATURE))
    # one byte of the manifest (a chain head published to the regulator, say)
    changed = tmp_path / "changed.zip"
    rewrite(archive, changed, {"manifest.json": manifest.replace(b'"database"', b'"Database"')})
    found = verify_archive(changed, public_key=public).finding
    assert found is not None and found.key == "operations.archive_signature_bad"
    # the signature itself changed
    forged = tmp_path / "forged.zip"
    signature["signature"] = signature["signature"][::-1]
    rewrite(archive, forged, {SIGNATURE: json.dumps(signature).encode()})
    found = verify_archive(forged).finding
    assert found is not None and found.key == "operations.archive_signature_bad"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["verify", "--public-key", "ed25519:AAAA"], "--archive"),
        (["audit", "keygen"], "--output"),
    ],
)
def test_bad_key_options_are_refused_with_exit_2(args: list[str], said: str) -> None:
    done = run(*args)
    assert done.exit_code == 2, done.output
    assert said in done.output


def test_bad_keys_are_refused_with_exit_2_and_nothing_written(session: str, tmp_path: Path) -> None:
    key, _ = keygen(tmp_path)
    again = run("audit", "keygen", "-o", str(key))
    assert again.exit_code == 2 and "already exists" in again.output
    not_a_key = tmp_path / "notes.txt"
    not_a_key.write_text("hello")
    archive = tmp_path / "day.zip"
    bad = run(
        "audit",
        "export",
        "--day",
        today(),
        "-o",
        str(archive),
        "--sign-key",
        str(not_a_key),
        "--database",
        session,
    )
    assert bad.exit_code == 2 and "signing key" in bad.output and not archive.exists()
    export(session, archive)
    for public in ("ed25519:AAAA", "rsa:xyz", str(not_a_key)):
        refused = run("verify", "--archive", str(archive), "--public-key", public)
        assert refused.exit_code == 2 and "not a public key" in refused.output, refused.output
