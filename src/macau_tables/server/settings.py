"""The server's settings: one TOML file, the environment, the command line.

:class:`Settings` holds every setting with its default. :meth:`Settings.load` reads them in
this order, each later source overriding the earlier:

1. the defaults below;
2. the TOML file (``--config FILE`` or ``MACAU_TABLES_CONFIG``), its keys at the top level or
   in a ``[server]`` table, named as the fields (``port = 8001``, ``tables = ["bac-1"]``);
3. the environment: ``MACAU_TABLES_<FIELD>`` (``MACAU_TABLES_PORT=8001``,
   ``MACAU_TABLES_DATABASE=postgresql://…``, ``MACAU_TABLES_TABLES=bac-1,bac-live``);
4. the command line's options (given as keyword overrides).

An unknown key, or a value of the wrong kind, is refused (``ConfigError``
``server.settings_unknown`` / ``server.settings_invalid``) naming where it came from: a typo in
a casino's configuration must not pass silently. ``docs/server.example.toml`` shows every key.

>>> s = Settings.load(env={}, port=8001)
>>> s.host, s.port, s.tables
('127.0.0.1', 8001, None)
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Final, get_type_hints

from ..errors import ConfigError

__all__ = ["ENV_PREFIX", "Settings"]

ENV_PREFIX: Final = "MACAU_TABLES_"


@dataclass(frozen=True, slots=True)
class Settings:
    """Every setting of one server process (see the module docstring for where they come
    from; ``docs/server.md`` explains each)."""

    host: str = "127.0.0.1"
    """The address to listen on (``0.0.0.0``: every interface, behind the casino's network)."""
    port: int = 8000
    database: str | None = None
    """The store's URL (``None``: ``MACAU_TABLES_DATABASE`` or ``sqlite:///macau-tables.db``)."""
    tables: tuple[str, ...] | None = None
    """The tables this process serves (``None``: every table of the casino)."""
    workers: int = 1
    """Server processes on this machine sharing the port (``serve --workers N``; PostgreSQL
    only — SQLite has one writer, it is served by one process). Each takes its share of the
    tables by their lease; a request or socket for a table another worker holds is forwarded
    to it over a private local socket (docs/server.md, "Several workers")."""
    lease_seconds: float = 30.0
    """How long a table's lease runs without renewal: another process takes the table over
    this long after its holder died (a holder killed on the same host: at once)."""
    tick_seconds: float = 0.5
    """How often the clock's work runs (time-outs CSP-6.4 and BAC-16, leases, take-overs);
    ``0`` disables the tick thread (tests call :meth:`Runtime.tick` themselves)."""
    session_seconds: int = 8 * 3600
    """How long a session cookie or bearer token stays valid."""
    session_check_seconds: float = 5.0
    """How often an open table stream asks the store whether its session or token still stands
    (signed out, its user disabled, on any server process): it is closed (4401) at most this
    long after (``0``: only its expiry is checked)."""
    login_attempts: int = 5
    """Failed logins of a name from one address (or of any names from one address) before
    each further try from there waits 1, 2, 4 … up to 300 seconds; and of a name from every
    address before its logins are slowed down (a few seconds at most, never refused)."""
    login_window_seconds: int = 3600
    """How long a failed login counts."""
    idempotency_days: int = 7
    """How long a command's first result is kept for its retries (its idempotency record):
    older records are pruned about once an hour by the clock's work, so the table does not grow
    for ever; a retry older than this would run as a new command. ``0`` keeps them all."""
    trusted_proxies: tuple[str, ...] = ()
    """The addresses or networks (``10.0.0.5``, ``10.0.0.0/24``) of the reverse proxies in front
    of this server (a TLS terminator, a load balancer) whose ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` are believed: a request coming through one of them is then from the
    client those headers name (login throttling per address, the per-client socket cap) over
    the scheme they name (``Secure`` cookies). Empty: no proxy is trusted, the TCP peer is the
    client and the headers are ignored — behind a proxy every client would then share one
    address's limits."""
    audit_sign_key: str | None = None
    """The private key file (``macau-tables audit keygen``) that signs the audit archives the
    reports page hands out (``None``: they are not signed). Read when the server starts: a file
    that holds no such key stops it."""
    body_limit_bytes: int = 64 * 1024
    """The largest request body (or WebSocket message) accepted."""
    max_websockets: int = 4000
    """The most WebSocket connections served at once: 1,000 players each with a table page
    and the lobby open, twice over, with the staff's and the displays' (each socket costs a
    file descriptor: the process's ``ulimit -n`` must exceed it)."""
    max_websockets_per_client: int = 32
    """The most WebSocket connections one client holds at once: a signed-in user by name
    (wherever they connect from: a thousand players behind one address, a load generator on
    loopback, each have their own), anyone else by address."""
    websocket_queue: int = 256
    """The messages other than views (meters, hits, pongs, command answers) one WebSocket may
    have waiting before it is closed as too slow (views are coalesced: only the newest waits)."""
    websocket_commands: int = 16
    """The commands one table socket may have in flight (sent, not yet answered; at least 1):
    one more closes it (4429, a flood). Its commands run in the order sent, one at a time."""
    jackpot_supervisor_threshold: int = 10_000_000
    """A jackpot payment of at least this (minor units) needs a supervisor's authorisation."""
    secure_cookies: bool | None = None
    """Mark cookies ``Secure`` (``None``: when the request came over TLS)."""
    spread_openings: bool = True
    """When this process begins to serve virtual tables whose next round is due at once (a
    casino's first start, a restart after their result pauses ran out), their first openings
    are spread evenly over a round's cycle (``betting_seconds`` + ``result_seconds``) instead
    of all at the same instant: identical tables opened together would close, deal, settle
    and open again together for ever, each time a burst of commits and views that delays the
    bets arriving then. The first of them opens at once; a round's countdown, result pause
    and every rule are unchanged (a table only waits before its first round here)."""
    group_cycle_steps: bool = True
    """The round cycle's steps due at one tick at several virtual tables (their openings, their
    closes) committed in one transaction, at the tick's time (``true``, the default), or each
    in its own, one after another (``false``). Grouped, they take less CPU (one commit, tables
    aligned for ever after) and every table's players then bet at the same instant, their bets
    committed together: in the 200-player burst, with the table sockets' commands going to the
    group commit with no thread waiting, about 2.1-2.4 ms of server CPU a bet against
    3.3-3.7 ms one after another, the bets answered at 0.59-0.72 of the in-process grouped
    rate against 0.45-0.56, the last of 200 bets (p99) in 170-215 ms — under the 250 ms goal
    — against 40-120 ms (docs/benchmarks.md, "socket commands on the group commit"). One
    after another, the tables open over about a second and their bets are answered as they
    come: the lower p99 for a casino whose tables' CPU matters less than the last bet's
    wait."""
    switch_interval_ms: float = 1.0
    """How long a Python thread may hold the interpreter while another waits for it
    (``sys.setswitchinterval``; Python's default is 5 ms; ``0`` leaves it). The event loop
    sending views and the threads running requests share the interpreter: a request's thread
    coming back from the database waits this long at most, not 5 ms, at each of its
    statements while the loop is busy — under load the table's commits queue much less."""
    gc_freeze: bool = True
    """When the app starts, move the objects made so far out of the cyclic garbage
    collector's sight (``gc.freeze``, once per process): its full collections then take
    milliseconds instead of stalling every request for ~150 ms."""
    gc_full_every: int = 100
    """How many collections of the garbage collector's middle generation pass between two
    chances of a full collection (``gc.set_threshold``'s third value, set when the app starts;
    Python's default is 10; ``0`` leaves it). A full collection scans every object made since
    the start's freeze — with a thousand sockets open, 100-300 ms with every request stalled —
    and at Python's default it comes whenever the long-lived objects grew by a quarter: every
    few seconds while players connect. At 100 it comes ten times less often (a thousand players
    connecting, then betting for 30 s: none from the start's freeze to the end, against three
    of 40-135 ms at 10); cyclic garbage that lived long waits longer for it."""
    log_requests: bool = True
    """One JSON line per request (method, path, status, ms, user) on the ``macau_tables.server``
    logger."""
    demo_users: bool = True
    """On first start, create the one-time users (admin, supervisor, dealer, two players)."""

    @classmethod
    def load(
        cls,
        config: str | Path | None = None,
        *,
        env: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> Settings:
        """The settings from the defaults, the TOML file ``config`` (else the environment's
        ``MACAU_TABLES_CONFIG``), the environment ``env`` (default ``os.environ``) and
        ``overrides`` (``None`` values are ignored: an option not given)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}
        path = config if config is not None else env.get(ENV_PREFIX + "CONFIG")
        if path:
            for name, value in _from_toml(Path(path)).items():
                values[name], sources[name] = value, str(path)
        for f in fields(cls):
            variable = ENV_PREFIX + f.name.upper()
            raw = env.get(variable)
            if raw is not None and raw != "":
                where = f"environment {variable}"
                values[f.name], sources[f.name] = _parse_env(f.name, raw, where), where
        for name, value in overrides.items():
            if value is None:
                continue
            values[name], sources[name] = value, "command line"
        return cls.of(values, sources=sources)

    @classmethod
    def of(
        cls,
        values: Mapping[str, Any],
        *,
        source: str = "settings",
        sources: Mapping[str, str] | None = None,
    ) -> Settings:
        """Settings from ``values`` (field names to values), checked; a refusal names where
        the value came from (``sources[name]``, else ``source``)."""
        known = {f.name for f in fields(cls)}
        hints = get_type_hints(cls)
        checked: dict[str, Any] = {}
        for name, value in values.items():
            where = (sources or {}).get(name, source)
            if name not in known:
                raise ConfigError("server.settings_unknown", name=name, source=where)
            checked[name] = _check(name, hints[name], value, where)
            if name == "port" and checked[name] > 65535:
                raise ConfigError("server.settings_invalid", name=name, source=where, value=value)
            if name == "trusted_proxies":
                for entry in checked[name]:
                    if not _is_network(entry):
                        raise ConfigError(
                            "server.settings_invalid", name=name, source=where, value=entry
                        )
        return dataclasses.replace(cls(), **checked)

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` (checked like :meth:`of`)."""
        return Settings.of({**dataclasses.asdict(self), **changes})

    def serves(self, table_id: str) -> bool:
        """Whether this process is configured to serve ``table_id``."""
        return self.tables is None or table_id in self.tables


def _is_network(text: str) -> bool:
    """Whether ``text`` is an IP address or network with no host bits set (``10.0.0.0/24``,
    not ``10.0.0.5/24``): what the proxy headers' middleware can match (it would take anything
    else as a name no client ever has, silently)."""
    try:
        ipaddress.ip_network(text, strict=True)
    except ValueError:
        return False
    return True


def _from_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError("server.settings_file", path=str(path), reason=exc.strerror) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("server.settings_file", path=str(path), reason=str(exc)) from exc
    section = data.pop("server", {})
    if not isinstance(section, dict):
        raise ConfigError("server.settings_invalid", name="server", source=str(path), value="")
    return {**data, **section}


_BOOLS: Final = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def _parse_env(name: str, raw: str, source: str) -> Any:
    hint = get_type_hints(Settings)[name]
    text = raw.strip()
    if "tuple" in str(hint):
        return tuple(t.strip() for t in text.split(",") if t.strip())
    if "bool" in str(hint):
        if text.lower() in _BOOLS:
            return _BOOLS[text.lower()]
        if "None" in str(hint) and text.lower() in ("", "auto", "none"):
            return None
        raise ConfigError("server.settings_invalid", name=name, source=source, value=raw)
    if hint is int or hint is float:
        try:
            return hint(text)
        except ValueError:
            raise ConfigError(
                "server.settings_invalid", name=name, source=source, value=raw
            ) from None
    return text


def _check(name: str, hint: Any, value: Any, source: str) -> Any:
    def bad() -> ConfigError:
        return ConfigError("server.settings_invalid", name=name, source=source, value=str(value))

    text = str(hint)
    if value is None:
        if "None" in text:
            return None
        raise bad()
    if "tuple" in text:
        if isinstance(value, str):
            value = [t.strip() for t in value.split(",") if t.strip()]
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise bad()
        return tuple(value)
    if "bool" in text:
        if not isinstance(value, bool):
            raise bad()
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad()
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise bad()
        return float(value)
    if not isinstance(value, str):
        raise bad()
    return value
