"""Every folder cms creates under CMS_HOME is 0700 and every file 0600 whatever the umask, and a
state file replaced by a symlink (the log, a lock, a map) is never written through."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cms import paths
from cms.errors import LockTimeoutError, StoreError
from cms.hooks import queue as hook_queue
from cms.hooks.statefile import write_state
from cms.locking import exclusive_lock
from cms.log import log_event
from cms.map.model import new_map
from cms.map.store import edit_map, save_map
from cms.observations.access import open_project_memory
from cms.observations.model import NewObservation
from cms.observations.store import ObservationStore
from cms.providers.usage import record_usage
from cms.worker import drain, queue
from tests.hooks.helpers import (
    ROOT,
    assert_clean_reply,
    hook_env,
    numbered_turn,
    run_hook_process,
    write_transcript,
)

SESSION = "chat-private-1"


def precious_file(folder: Path) -> Path:
    """A file outside CMS_HOME that a symlink under it points to: it must stay untouched."""
    target = folder / "elsewhere.txt"
    target.write_text("precious\n", encoding="utf-8")
    return target


@pytest.fixture
def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """CMS_HOME two levels below a folder that does not exist yet (cms makes all of it)."""
    home = tmp_path / "fresh" / "cms-home"
    monkeypatch.setenv("CMS_HOME", str(home))
    return home


@pytest.fixture(params=[0o022, 0o000], ids=["umask-022", "umask-000"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def modes_under(folder: Path) -> dict[str, str]:
    """Each folder and file under folder (folder included) with its permission bits."""
    found = {str(folder): oct(stat.S_IMODE(folder.stat().st_mode))}
    for path in folder.rglob("*"):
        found[str(path.relative_to(folder))] = oct(stat.S_IMODE(path.lstat().st_mode))
    return found


def assert_private(folder: Path) -> None:
    wrong = {}
    for name, mode in modes_under(folder).items():
        path = folder / name if name != str(folder) else folder
        expected = "0o700" if path.is_dir() else "0o600"
        if mode != expected:
            wrong[name] = mode
    assert not wrong, f"not private: {wrong}"


def test_every_folder_and_file_of_a_whole_session_is_private_whatever_the_umask(
    fresh_home: Path, tmp_path: Path, umask: int
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    transcript = write_transcript(tmp_path / "t.jsonl", [numbered_turn(SESSION, 1)])
    base = {"session_id": SESSION, "cwd": str(project), "transcript_path": str(transcript)}
    env = hook_env({"CMS_SYNC": "1"})
    for event, extra in (
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "we decided to use marker01 for postgres"}),
        ("Stop", {"stop_hook_active": False}),
        ("SessionEnd", {"reason": "other"}),
    ):
        payload = {**base, "hook_event_name": event, **extra}
        assert_clean_reply(run_hook_process(event, payload, env=env))
    queue.enqueue(SESSION, "map_update", {"exchange": {"user": "u", "assistant": "a"}})
    queue.set_aside(queue.list_jobs(SESSION)[0], "test")
    worker_lock = hook_queue.try_worker_lock(SESSION)
    assert worker_lock is not None
    worker_lock.release()
    record_usage(
        provider="anthropic",
        model="m",
        project="p",
        purpose="update",
        input_tokens=1,
        output_tokens=1,
    )
    memory = open_project_memory(project, create=True)
    assert memory is not None
    with memory:  # an open store: its -wal and -shm files exist while we look
        memory.store.add(NewObservation("decision", "Use Postgres", "for billing"))
        assert Path(paths.map_path(SESSION)).exists()
        assert any(p.name.endswith("-wal") for p in fresh_home.rglob("*"))
        assert_private(fresh_home)
    assert_private(fresh_home)
    assert stat.S_IMODE((tmp_path / "fresh").stat().st_mode) == 0o700  # made by cms as well


def test_a_file_left_readable_by_an_older_version_is_made_private_when_written(
    fresh_home: Path,
) -> None:
    log = Path(paths.log_path())
    log.parent.mkdir(parents=True)
    log.write_text("old line\n", encoding="utf-8")
    log.chmod(0o644)
    log_event("info", "test_event", "hello")
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert "hello" in log.read_text(encoding="utf-8")


def test_a_symlinked_log_file_is_not_written_through(fresh_home: Path, tmp_path: Path) -> None:
    target = precious_file(tmp_path)
    log = Path(paths.log_path())
    log.parent.mkdir(parents=True)
    log.symlink_to(target)
    log_event("error", "test_event", "must not land in the target")
    assert target.read_text(encoding="utf-8") == "precious\n"
    assert log.is_symlink()


def test_a_symlinked_map_lock_is_refused_and_its_target_untouched(
    fresh_home: Path, tmp_path: Path
) -> None:
    target = precious_file(tmp_path)
    map_path = Path(paths.map_path(SESSION))
    map_path.parent.mkdir(parents=True)
    (map_path.parent / "map.json.lock").symlink_to(target)
    with pytest.raises(LockTimeoutError):
        edit_map(map_path, lambda cmap: (None, True), session_id=SESSION, project="p")
    with pytest.raises(LockTimeoutError), exclusive_lock(map_path, timeout=0.5):
        pass
    assert target.read_text(encoding="utf-8") == "precious\n"
    assert stat.S_IMODE(target.stat().st_mode) != 0o600 or os.name == "nt"


def test_a_symlink_in_place_of_a_map_or_state_file_is_replaced_not_written_through(
    fresh_home: Path, tmp_path: Path
) -> None:
    target = precious_file(tmp_path)
    map_path = Path(paths.map_path(SESSION))
    map_path.parent.mkdir(parents=True)
    map_path.symlink_to(target)
    save_map(map_path, new_map(SESSION, "p"))
    state = map_path.parent / "injected.json"
    state.symlink_to(target)
    write_state(str(state), {"shown": []})
    assert target.read_text(encoding="utf-8") == "precious\n"
    assert not map_path.is_symlink() and not state.is_symlink()
    assert stat.S_IMODE(map_path.stat().st_mode) == 0o600


def test_a_symlinked_sqlite_store_is_refused(fresh_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.db"
    target.write_bytes(b"")
    db = fresh_home / "observations.db"
    fresh_home.mkdir(parents=True)
    db.symlink_to(target)
    with pytest.raises(StoreError, match="cannot open observation store"):
        ObservationStore(db, "p")
    assert target.read_bytes() == b""


def test_the_worker_drains_into_private_files(fresh_home: Path, umask: int, tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path / "t.jsonl", [numbered_turn(SESSION, 1)])
    payload = hook_queue.turn_payload(
        transcript=str(transcript),
        end=transcript.stat().st_size,
        agent="claude_code",
        last_message="",
        prompt="",
        project="p",
        cwd=str(tmp_path),
    )
    queue.enqueue(SESSION, hook_queue.MAP_UPDATE, payload)
    drain.drain_chat(SESSION, idle=0.0)
    assert Path(paths.map_path(SESSION)).exists()
    assert_private(fresh_home)


def test_the_temp_file_of_a_killed_writer_is_removed_by_the_next_writer(tmp_path: Path) -> None:
    from cms.privatefile import write_atomically

    target = tmp_path / "map.json"
    killed = (
        "import os, signal, sys\n"
        "import cms.privatefile as files\n"
        "os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n"
        "files.write_atomically(sys.argv[1], b'half a map')\n"
    )
    done = subprocess.run([sys.executable, "-c", killed, str(target)], cwd=ROOT, check=False)
    assert done.returncode == -signal.SIGKILL
    (orphan,) = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    live = tmp_path / ".map.json.1.0.tmp"  # pid 1 runs: a writer still at work
    live.write_bytes(b"")
    write_atomically(str(target), b"{}")
    assert target.read_bytes() == b"{}"
    assert not orphan.exists() and live.exists()


def test_ensure_file_on_an_open_database_keeps_the_locks_sqlite_holds_on_it(
    tmp_path: Path,
) -> None:
    """Closing any descriptor of a database file drops every POSIX lock of the process on it:
    ensuring an existing database must not open it (a second store opened beside a reading one
    let another process take the file and corrupt it)."""
    import sqlite3

    from cms import privatefile

    path = tmp_path / "store.db"
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("CREATE TABLE t (x)")
    reader.execute("BEGIN")
    reader.execute("SELECT * FROM t").fetchall()  # a SHARED lock on the file (rollback journal)
    privatefile.ensure_file(str(path))
    other = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)\n"
        "try:\n    c.execute('BEGIN EXCLUSIVE'); print('took it')\n"
        "except sqlite3.OperationalError as e:\n    print(e)"
    )
    done = subprocess.run(
        [sys.executable, "-c", other, str(path)], capture_output=True, text=True, check=True
    )
    reader.execute("COMMIT")
    reader.close()
    assert done.stdout.strip() == "database is locked"
