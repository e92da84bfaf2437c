"""What a verification found: the first record that does not hold.

One shape for every check of ``macau-tables verify`` — the store's (hash chains, ledger,
meters, shoes: :mod:`macau_tables.store.verify`), the re-derivation of every round by its rules
(:mod:`.rederive`) and the offline check of an audit archive (:mod:`.archive`) — so that the
command line names the failing table and record the same way whatever failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import messages
from ..errors import Param, json_param

__all__ = ["Finding", "finding", "from_store"]


@dataclass(frozen=True, slots=True)
class Finding:
    """The first record that does not hold: ``check`` (what broke: ``chain``, ``transaction``,
    ``settlement``, ``archive``, …), ``relation`` (the database table or archive member),
    ``record`` (``"bac-1#17"``, ``"tx 42"``, ``"wallet:alice"``), ``table_id`` (the casino
    table, if any) and the message ``key`` with its ``params``."""

    check: str
    relation: str
    record: str
    table_id: str | None
    key: str
    params: Mapping[str, Param] = field(default_factory=dict)

    @property
    def message(self) -> str:
        """The English sentence."""
        return self.text()

    def text(self, language: str = messages.DEFAULT_LANGUAGE) -> str:
        """The sentence in ``language``."""
        return messages.render(self.key, self.params, language)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "check": self.check,
            "relation": self.relation,
            "record": self.record,
            "table_id": self.table_id,
            "key": self.key,
            "params": dict(self.params),
            "message": self.message,
        }

    def __str__(self) -> str:
        where = f"table {self.table_id}, " if self.table_id else ""
        return f"{where}{self.relation} {self.record}: {self.message}"


def finding(
    check: str, relation: str, record: str, table_id: str | None, key: str, /, **params: object
) -> Finding:
    """A :class:`Finding` with its params made JSON-ready."""
    return Finding(
        check, relation, record, table_id, key, {k: json_param(v) for k, v in params.items()}
    )


def from_store(failure: Any) -> Finding:
    """The store verifier's :class:`~macau_tables.store.verify.Failure` as a finding."""
    return Finding(
        str(failure.check),
        failure.relation,
        failure.record,
        failure.table_id,
        failure.key,
        dict(failure.params),
    )
