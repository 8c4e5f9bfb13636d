"""A real PostgreSQL server for the team tests, started from Debian's `postgresql` binaries
(initdb and pg_ctl) in a temporary folder, as the `postgres` user (or `nobody`) when the tests
run as root. Password logins over TCP on 127.0.0.1 (scram-sha-256), as a managed server has."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROLE = "cms_team"
PASSWORD = "pw-Kq7-team-test"  # a test server's login, not a secret of anyone's


def find_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """initdb into a fresh folder; start(), stop(), and a new database per test."""

    def __init__(self) -> None:
        initdb, pg_ctl = find_binary("initdb"), find_binary("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise FileNotFoundError("PostgreSQL's initdb and pg_ctl (Debian package postgresql)")
        self.pg_ctl = pg_ctl
        self.folder = Path(tempfile.mkdtemp(prefix="cms-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.user: str | None = None
        if os.geteuid() == 0:
            names = {p.pw_name for p in pwd.getpwall()}
            self.user = "postgres" if "postgres" in names else "nobody"
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        os.chmod(self.folder, 0o700)
        secret = self.folder / "pw"
        secret.write_text(PASSWORD + "\n", encoding="utf-8")
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chown(secret, entry.pw_uid, entry.pw_gid)
        self._run(
            [initdb, "-D", str(self.data), "-U", ROLE, f"--pwfile={secret}", "-E", "UTF8",
             "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync", "--no-instructions"]
        )  # fmt: skip
        self.databases = 0
        self.start()

    def _run(self, argv: Sequence[str]) -> None:
        command = list(argv)
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=120, cwd=self.folder
        )
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {done.stdout}\n{done.stderr}")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off"
        )
        log = self.folder / "server.log"
        self._run([self.pg_ctl, "-D", str(self.data), "-o", options, "-l", str(log), "-w", "start"])

    def stop(self) -> None:
        self._run([self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"])

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{ROLE}:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh empty database; its URL."""
        import psycopg

        self.databases += 1
        name = f"team_{os.getpid()}_{self.databases}_{int(time.time() * 1000) % 100000}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, subprocess.SubprocessError):
            self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
