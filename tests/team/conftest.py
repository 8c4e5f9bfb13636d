"""The PostgreSQL server of the team tests: started once per run, a fresh database per test.
Without PostgreSQL's binaries or psycopg the tests are skipped, unless CMS_REQUIRE_POSTGRES=1
(CI installs both) makes that a failure."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.team.pgserver import PostgresServer


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    try:
        import psycopg  # noqa: F401

        server = PostgresServer()
    except (ImportError, FileNotFoundError) as exc:
        if os.environ.get("CMS_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL is required here: {exc}")
        pytest.skip(f"no PostgreSQL: {exc}")
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def team_url(postgres: PostgresServer) -> str:
    """A fresh team database on the test server (its URL holds the login's password)."""
    return postgres.new_database()
