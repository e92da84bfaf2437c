"""The table server: FastAPI on uvicorn over the table service.

Modules (each owns one concern; the routers never branch on the game):

* :mod:`.settings` — the server's settings (one TOML file, environment, command line);
* :mod:`.runtime` — the casino in this process: the store, one :class:`TableService` per table
  this process holds the lease of, the clock's ticks, the meters' fan-out;
* :mod:`.principal` — who is asking (:class:`Principal`, :class:`UserRole`);
* :mod:`.auth` — users, argon2 passwords, sessions and bearer tokens, CSRF, throttling, the
  role rule of every endpoint;
* :mod:`.api_tables` — the round contract's commands over REST, views, recall;
* :mod:`.api_admin` — cashier, users, tables and approvals, verify, report, audit archive;
* :mod:`.streams` — the WebSocket views per table and audience, and the jackpot stream;
* :mod:`.app` — the application factory :func:`create_app`, errors, health, metrics.
"""

from __future__ import annotations

__all__: list[str] = []
