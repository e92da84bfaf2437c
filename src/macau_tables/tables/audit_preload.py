"""What the fork server of ``verify --jobs`` imports before it forks a worker
(:func:`macau_tables.tables.audit._pool_context`): the audit module, every game's plug-in, and
what each game builds on its first use (:attr:`~macau_tables.plugin.GamePlugin.prepare`), so
that each worker it forks starts with them rather than importing and building them again.
Importing this module prepares the games; nothing else imports it."""

from __future__ import annotations

from ..games import GAMES
from . import audit  # noqa: F401 (the module the workers run)

for _plugin in GAMES.values():
    _plugin.prepare()
