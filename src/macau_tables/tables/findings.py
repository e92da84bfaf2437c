"""What a verification found: the first record that does not hold.

One shape for every check of ``macau-tables verify`` — the store's (hash chains, ledger,
meters, shoes: :mod:`macau_tables.store.verify`), the re-derivation of every round by its rules
(:mod:`.rederive`) and the offline check of an audit archive (:mod:`.archive`) — so that the
command line names the failing table and record the same way whatever failed. That shape is
the store verifier's :class:`~macau_tables.store.verify.Failure`; :data:`Finding` names it here.
"""

from __future__ import annotations

from ..errors import json_param
from ..store.verify import Failure

__all__ = ["Finding", "finding", "from_store"]

Finding = Failure
"""A verification finding (the store's :class:`~macau_tables.store.verify.Failure`)."""


def finding(
    check: str, relation: str, record: str, table_id: str | None, key: str, /, **params: object
) -> Finding:
    """A :class:`Finding` with its params made JSON-ready."""
    return Failure(
        check, relation, record, table_id, key, {k: json_param(v) for k, v in params.items()}
    )


def from_store(failure: Failure) -> Finding:
    """The store verifier's failure as a finding (the same value: one shape)."""
    return failure
