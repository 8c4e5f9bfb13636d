"""The schema of an observation store as named, append-only migrations, and how to apply them.

Owns the list of (name, sql) steps and the `migrations` table that records which ran. A step is
never edited or removed once released: changes are new steps appended to the list. Knows nothing
of rows, ranking or git; the caller provides the connection and the transaction.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

KINDS = ("decision", "learning", "bugfix", "command", "file_summary", "preference", "other")

_KIND_CHECK = ", ".join(f"'{k}'" for k in KINDS)

MIGRATIONS: list[tuple[str, str]] = [
    (
        "001_observations",
        f"""
        CREATE TABLE observations (
            id INTEGER PRIMARY KEY,
            project TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ({_KIND_CHECK})),
            title TEXT NOT NULL,
            title_key TEXT NOT NULL,
            body TEXT NOT NULL DEFAULT '',
            files TEXT NOT NULL DEFAULT '[]',
            importance INTEGER NOT NULL DEFAULT 3 CHECK (importance BETWEEN 1 AND 5),
            branch TEXT,
            "commit" TEXT,
            shared_commit INTEGER NOT NULL DEFAULT 0,
            session TEXT,
            agent TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            last_recalled_at REAL,
            superseded_by INTEGER,
            archived_at REAL
        );
        CREATE INDEX observations_identity ON observations (kind, title_key, branch);
        CREATE INDEX observations_branch ON observations (branch);
        CREATE INDEX observations_session ON observations (session);
        CREATE INDEX observations_briefing ON observations (importance DESC, updated_at DESC);
        CREATE INDEX observations_recent ON observations (updated_at DESC);
        """,
    ),
    (
        "002_observations_fts",
        """
        CREATE VIRTUAL TABLE observations_fts USING fts5(
            title, body, files,
            content='observations', content_rowid='id',
            tokenize='porter unicode61'
        );
        CREATE TRIGGER observations_fts_insert AFTER INSERT ON observations BEGIN
            INSERT INTO observations_fts (rowid, title, body, files)
            VALUES (new.id, new.title, new.body, new.files);
        END;
        CREATE TRIGGER observations_fts_delete AFTER DELETE ON observations BEGIN
            INSERT INTO observations_fts (observations_fts, rowid, title, body, files)
            VALUES ('delete', old.id, old.title, old.body, old.files);
        END;
        CREATE TRIGGER observations_fts_update AFTER UPDATE OF title, body, files
        ON observations BEGIN
            INSERT INTO observations_fts (observations_fts, rowid, title, body, files)
            VALUES ('delete', old.id, old.title, old.body, old.files);
            INSERT INTO observations_fts (rowid, title, body, files)
            VALUES (new.id, new.title, new.body, new.files);
        END;
        """,
    ),
    (
        "003_observations_vocab",
        """
        CREATE VIRTUAL TABLE observations_vocab USING fts5vocab(observations_fts, 'row');
        """,
    ),
    (
        "004_observation_source",
        """
        ALTER TABLE observations ADD COLUMN source TEXT;
        ALTER TABLE observations ADD COLUMN turn INTEGER;
        CREATE INDEX observations_source ON observations (source);
        """,
    ),
    (
        "005_facts",
        """
        CREATE TABLE facts (
            id INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            fact_id TEXT NOT NULL,
            sun TEXT NOT NULL DEFAULT '',
            planet TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'other',
            turn INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            archived INTEGER NOT NULL DEFAULT 0,
            superseded_by INTEGER,
            UNIQUE (session, fact_id)
        );
        CREATE INDEX facts_superseded ON facts (superseded_by);
        CREATE VIRTUAL TABLE facts_fts USING fts5(
            text, sun, planet,
            content='facts', content_rowid='id',
            tokenize='porter unicode61'
        );
        CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
            INSERT INTO facts_fts (rowid, text, sun, planet)
            VALUES (new.id, new.text, new.sun, new.planet);
        END;
        CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
            INSERT INTO facts_fts (facts_fts, rowid, text, sun, planet)
            VALUES ('delete', old.id, old.text, old.sun, old.planet);
        END;
        CREATE TRIGGER facts_fts_update AFTER UPDATE OF text, sun, planet ON facts BEGIN
            INSERT INTO facts_fts (facts_fts, rowid, text, sun, planet)
            VALUES ('delete', old.id, old.text, old.sun, old.planet);
            INSERT INTO facts_fts (rowid, text, sun, planet)
            VALUES (new.id, new.text, new.sun, new.planet);
        END;
        """,
    ),
    (
        "006_facts_vocab",
        """
        CREATE VIRTUAL TABLE facts_vocab USING fts5vocab(facts_fts, 'row');
        """,
    ),
    (
        "007_observations_in_force",
        """
        CREATE INDEX observations_in_force ON observations (importance DESC, updated_at DESC)
        WHERE archived_at IS NULL AND superseded_by IS NULL
        AND kind IN ('preference', 'decision');
        """,
    ),
    (
        "008_chat_maps",
        """
        CREATE TABLE chat_maps (session TEXT PRIMARY KEY, digest TEXT NOT NULL);
        """,
    ),
    (
        "009_term_counts",
        """
        CREATE TABLE term_counts (
            vocab TEXT NOT NULL, term TEXT NOT NULL, doc INTEGER NOT NULL,
            PRIMARY KEY (vocab, term)
        ) WITHOUT ROWID;
        CREATE TABLE term_counts_state (vocab TEXT PRIMARY KEY, rows INTEGER NOT NULL);
        """,
    ),
    (
        "010_observation_context",
        """
        ALTER TABLE observations ADD COLUMN context TEXT NOT NULL DEFAULT '';
        DROP TABLE observations_vocab;
        DROP TRIGGER observations_fts_insert;
        DROP TRIGGER observations_fts_delete;
        DROP TRIGGER observations_fts_update;
        DROP TABLE observations_fts;
        CREATE VIRTUAL TABLE observations_fts USING fts5(
            title, body, files, context,
            content='observations', content_rowid='id',
            tokenize='porter unicode61'
        );
        INSERT INTO observations_fts (observations_fts) VALUES ('rebuild');
        CREATE TRIGGER observations_fts_insert AFTER INSERT ON observations BEGIN
            INSERT INTO observations_fts (rowid, title, body, files, context)
            VALUES (new.id, new.title, new.body, new.files, new.context);
        END;
        CREATE TRIGGER observations_fts_delete AFTER DELETE ON observations BEGIN
            INSERT INTO observations_fts (observations_fts, rowid, title, body, files, context)
            VALUES ('delete', old.id, old.title, old.body, old.files, old.context);
        END;
        CREATE TRIGGER observations_fts_update AFTER UPDATE OF title, body, files, context
        ON observations BEGIN
            INSERT INTO observations_fts (observations_fts, rowid, title, body, files, context)
            VALUES ('delete', old.id, old.title, old.body, old.files, old.context);
            INSERT INTO observations_fts (rowid, title, body, files, context)
            VALUES (new.id, new.title, new.body, new.files, new.context);
        END;
        CREATE VIRTUAL TABLE observations_vocab USING fts5vocab(observations_fts, 'row');
        DELETE FROM term_counts WHERE vocab = 'observations_vocab';
        DELETE FROM term_counts_state WHERE vocab = 'observations_vocab';
        """,
    ),
    (
        "011_vectors",
        """
        CREATE TABLE vectors (
            item TEXT NOT NULL, model TEXT NOT NULL, digest TEXT NOT NULL, vec BLOB NOT NULL,
            PRIMARY KEY (model, item)
        ) WITHOUT ROWID;
        """,
    ),
    (
        "012_observation_use",
        """
        ALTER TABLE observations ADD COLUMN use_count INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        "013_observation_summary",
        """
        ALTER TABLE observations ADD COLUMN summarised_into INTEGER;
        CREATE INDEX observations_summarised ON observations (summarised_into)
        WHERE summarised_into IS NOT NULL;
        """,
    ),
    (
        "014_branch_overrides",
        """
        CREATE TABLE overrides (
            older INTEGER NOT NULL, newer INTEGER NOT NULL, PRIMARY KEY (older, newer)
        ) WITHOUT ROWID;
        CREATE INDEX overrides_newer ON overrides (newer);
        """,
    ),
    (
        "015_meanings",
        """
        ALTER TABLE facts ADD COLUMN meaning BLOB;
        ALTER TABLE observations ADD COLUMN meaning BLOB;
        CREATE INDEX facts_meaning_pending ON facts (id) WHERE meaning IS NULL;
        CREATE INDEX observations_meaning_pending ON observations (id) WHERE meaning IS NULL;
        CREATE TRIGGER facts_meaning_stale AFTER UPDATE OF text ON facts BEGIN
            UPDATE facts SET meaning = NULL WHERE id = new.id;
        END;
        CREATE TRIGGER observations_meaning_stale AFTER UPDATE OF title, body ON observations
        BEGIN
            UPDATE observations SET meaning = NULL WHERE id = new.id;
        END;
        """,
    ),
    (
        "016_fact_place",
        """
        ALTER TABLE facts ADD COLUMN branch TEXT;
        ALTER TABLE facts ADD COLUMN "commit" TEXT;
        ALTER TABLE facts ADD COLUMN shared_commit INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        "017_supersede_reasons",
        """
        CREATE TABLE supersede_reasons (older INTEGER PRIMARY KEY, reason TEXT NOT NULL);
        """,
    ),
    (
        "018_file_marks",
        """
        CREATE TABLE file_marks (
            observation INTEGER NOT NULL, path TEXT NOT NULL, blob TEXT NOT NULL,
            size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, PRIMARY KEY (observation, path)
        ) WITHOUT ROWID;
        """,
    ),
    (
        "019_team_sync",
        """
        ALTER TABLE observations ADD COLUMN uid TEXT;
        CREATE UNIQUE INDEX observations_uid ON observations (uid) WHERE uid IS NOT NULL;
        ALTER TABLE facts ADD COLUMN origin TEXT;
        CREATE TABLE team_outbox (
            item TEXT PRIMARY KEY, seq INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE TABLE team_gone (uid TEXT PRIMARY KEY, seq INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE TABLE team_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        """,
    ),
    (
        "020_live_recent",
        """
        CREATE INDEX observations_live_recent ON observations (updated_at DESC, id DESC)
        WHERE superseded_by IS NULL AND archived_at IS NULL AND source IS NULL;
        CREATE INDEX facts_live_recent ON facts (updated_at DESC, id DESC)
        WHERE superseded_by IS NULL AND archived = 0 AND kind != 'passage';
        """,
    ),
    (
        "021_value_changes",
        """
        CREATE TABLE value_changes (
            id INTEGER PRIMARY KEY, session TEXT NOT NULL, turn INTEGER NOT NULL,
            removed TEXT NOT NULL, added TEXT NOT NULL, branch TEXT, created_at REAL NOT NULL
        );
        """,
    ),
]

SCHEMA_VERSION = len(MIGRATIONS)


def split_statements(sql: str) -> list[str]:
    """The complete statements of a script (trigger bodies kept whole), without executescript.

    executescript() commits the open transaction first, so migrations run statement by statement
    inside the caller's BEGIN IMMEDIATE instead.
    """
    import sqlite3  # only when a store is created or upgraded

    statements: list[str] = []
    pending = ""
    for piece in sql.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n\t;"):
                statements.append(pending.strip())
            pending = ""
    return statements


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
    )
    return [row[0] for row in conn.execute("SELECT name FROM migrations ORDER BY rowid")]


def apply_migrations(conn: sqlite3.Connection) -> list[str]:
    """Run the steps not yet recorded, in order; the caller holds a write transaction.

    Returns the names applied now. PRAGMA user_version mirrors the count so that opening an
    up-to-date store costs one pragma read.
    """
    done = set(applied_migrations(conn))
    ran: list[str] = []
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        for statement in split_statements(sql):
            conn.execute(statement)
        conn.execute("INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (name, time.time()))
        ran.append(name)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return ran
