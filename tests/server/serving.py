"""Running ``macau-tables serve`` as a child process in a test: free loopback ports, bounded
waits, the printed credentials, stopping it (SIGTERM, or SIGKILL for a holder that dies)."""

from __future__ import annotations

import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx

WAIT_SECONDS = 60.0
"""The longest any wait of these tests lasts (a bound, never an assertion on timing: generous,
for a machine busy with other work)."""

HTTP_SECONDS = 20.0
"""The time-out of one request to a child server."""

TLS = ssl.create_default_context()
"""The one TLS context of this process's requests (``verify=``): each request here is a new
client, which would otherwise load the CA certificates again (tens of ms of CPU: a wait for a
starting child polls every 50 ms, beside the child's own start). The URLs are plain HTTP."""

CHEAP_HASHES = (
    "import argon2; from macau_tables.server import auth; "
    "auth.PASSWORD_HASHER = argon2.PasswordHasher(time_cost=1, memory_cost=8, parallelism=1); "
)
"""Run first in a child server (``Server(cheap_hashes=True)``): argon2 with the smallest
parameters, as the in-process tests' ``cheap_password_hashes`` fixture has it (a first start
hashes five passwords). ``test_serve.py`` keeps the production parameters; a worker that
``serve --workers`` starts has them too (a login there re-hashes a cheap hash, as ever)."""


def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(what: str, check: Callable[[], Any], timeout: float = WAIT_SECONDS) -> Any:
    """Call ``check`` until it returns something true (returned), at most ``timeout`` s."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except (httpx.HTTPError, OSError) as exc:
            last = exc
        else:
            if last:
                return last
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what} after {timeout} s (last: {last!r})")


class Server:
    """One ``macau-tables serve`` child process on a free loopback port."""

    def __init__(
        self,
        workdir: Path,
        database: str,
        *,
        args: tuple[str, ...] = (),
        env: Mapping[str, str] | None = None,
        name: str = "serve",
        cheap_hashes: bool = False,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.out_path = workdir / f"{name}-{self.port}.out"
        self.err_path = workdir / f"{name}-{self.port}.err"
        child_env = {**os.environ, "MACAU_TABLES_TICK_SECONDS": "0.1", **(env or {})}
        child_env.pop("MACAU_TABLES_CONFIG", None)
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    (CHEAP_HASHES if cheap_hashes else "")
                    + "from macau_tables.cli.app import app; app()",
                    "serve",
                    "--port",
                    str(self.port),
                    "--database",
                    database,
                    *args,
                ],
                stdout=out,
                stderr=err,
                cwd=workdir,
                env=child_env,
            )

    @property
    def stdout(self) -> str:
        return self.out_path.read_text(encoding="utf-8")

    @property
    def stderr(self) -> str:
        return self.err_path.read_text(encoding="utf-8")

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.get(self.url + path, timeout=HTTP_SECONDS, verify=TLS, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        """POST as the server's own pages would: with their ``Origin`` (a cookie login or a
        cookie session's change needs it; a bearer request ignores it)."""
        headers = {"Origin": self.url, **kwargs.pop("headers", {})}
        return httpx.post(
            self.url + path, timeout=HTTP_SECONDS, verify=TLS, headers=headers, **kwargs
        )

    def wait_healthy(self) -> None:
        def healthy() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"serve exited {self.process.returncode}:\n{self.stderr}")
            return self.get("/healthz").status_code == 200

        wait_for(f"{self.url}/healthz", healthy)

    def ready(self) -> dict[str, Any]:
        """``/readyz``'s body (whatever its status)."""
        body: dict[str, Any] = self.get("/readyz").json()
        return body

    def credentials(self) -> dict[str, str]:
        """``{name: password}`` as printed on a first start."""
        found = re.findall(
            r"^\s+(admin|supervisor|dealer|player)\s+(\S+)\s+(\S+)$", self.stdout, re.M
        )
        return {name: password for _role, name, password in found}

    def meter(self, meter_id: str) -> int | None:
        """The meter's amount on ``/metrics`` (minor units), ``None`` when not shown."""
        text = self.get("/metrics").text
        found = re.search(rf'^macau_tables_meter_amount{{meter="{meter_id}"}} (\S+)$', text, re.M)
        return None if found is None else int(float(found.group(1)))

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Send ``sig`` and wait for the exit (bounded); returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=WAIT_SECONDS)
            raise AssertionError(f"serve did not stop on {sig}:\n{self.stderr}") from None

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT_SECONDS)
