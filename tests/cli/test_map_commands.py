"""`cms show`, `cms ops apply` and `cms search` as a user runs them (real subprocesses)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "sample_ops.json"


def cms(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "cms", *args],
        input=stdin.decode() if stdin else None,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_ops_apply_prints_accepted_and_rejected_with_reasons(tmp_path: Path) -> None:
    map_file = tmp_path / "map.json"
    result = cms("ops", "apply", "--map", str(map_file), str(SAMPLE))
    assert result.returncode == 0, result.stderr
    assert "accepted #1 add_sun -> S1, P2, F3, P4, F5" in result.stdout
    assert "rejected #3 add_sat: unknown planet P99" in result.stdout
    assert "3 accepted, 1 rejected; map saved" in result.stdout


def test_ops_apply_json_output_is_machine_readable(tmp_path: Path) -> None:
    map_file = tmp_path / "map.json"
    result = cms("ops", "apply", "--map", str(map_file), str(SAMPLE), "--json")
    data = orjson.loads(result.stdout)
    assert [o["index"] for o in data["accepted"]] == [1, 2, 4]
    assert data["rejected"][0]["reason"] == "unknown planet P99"


def test_all_invalid_batch_leaves_file_byte_identical(tmp_path: Path) -> None:
    map_file = tmp_path / "map.json"
    cms("ops", "apply", "--map", str(map_file), str(SAMPLE))
    before = map_file.read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_text(
        orjson.dumps(
            {
                "ops": [
                    {"op": "add_sat", "planet": "P404", "text": "x"},
                    {"op": "nope"},
                    {"op": "add_sat", "planet": "P2", "text": "z" * 201},
                    {"op": "add_sat", "planet": "P2", "text": ""},
                    {"op": "add_sat", "planet": "P2", "text": ["list"]},
                    {
                        "op": "add_sat",
                        "planet": "P2",
                        "text": "Use Postgres 16, not DynamoDB: we need joins across orders and users",
                    },
                ]
            }
        ).decode(),
        encoding="utf-8",
    )
    result = cms("ops", "apply", "--map", str(map_file), str(bad))
    assert "0 accepted, 6 rejected; map unchanged" in result.stdout
    assert map_file.read_bytes() == before


def test_search_prints_facts_verbatim_with_id_and_path(tmp_path: Path) -> None:
    map_file = tmp_path / "map.json"
    cms("ops", "apply", "--map", str(map_file), str(SAMPLE))
    result = cms("search", "--map", str(map_file), "which database do we use?")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first == (
        "F3 [Storage > Database choice] "
        "Use Postgres 16, not DynamoDB: we need joins across orders and users"
    )
    data = orjson.loads(cms("search", "--map", str(map_file), "migrate", "--json").stdout)
    assert data["facts"][0]["id"] == "F5" and data["selector"] == "local"


def test_search_by_session_finds_the_chat_map_under_cms_home() -> None:
    home = Path(os.environ["CMS_HOME"])
    map_file = home / "chats" / "abc-123" / "map.json"
    cms("ops", "apply", "--map", str(map_file), str(SAMPLE))
    result = cms("search", "--session", "abc-123", "staging deploy")
    assert "F8 [Deployment > Staging]" in result.stdout
    shown = cms("show", "--session", "abc-123")
    assert "Database choice (mass 3, 1 fact)" in shown.stdout


def test_archived_facts_are_found_and_marked(tmp_path: Path) -> None:
    map_file = tmp_path / "map.json"
    cms("ops", "apply", "--map", str(map_file), str(SAMPLE))
    config = tmp_path / "cms.toml"
    config.write_text("[map]\nmax_planets = 1\n", encoding="utf-8")
    os.environ["CMS_CONFIG"] = str(config)
    try:
        cms("ops", "apply", "--map", str(map_file), "-", stdin=b'{"ops": []}')
        result = cms("search", "--map", str(map_file), "staging deploys")
    finally:
        del os.environ["CMS_CONFIG"]
    assert "(archived) Staging deploys from the main branch" in result.stdout


def test_corrupt_truncated_or_future_maps_give_one_line_errors_and_stay(tmp_path: Path) -> None:
    cases = {
        "truncated.json": b'{"version": 1, "session_id": "s", "suns": [',
        "future.json": b'{"version": 7, "suns": []}',
        "garbage.json": b"\x00\xff not json",
    }
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        for args in (
            ("show", "--map", str(path)),
            ("search", "--map", str(path), "q"),
            ("ops", "apply", "--map", str(path), str(SAMPLE)),
        ):
            result = cms(*args)
            assert result.returncode == 1, (name, args)
            assert result.stderr.startswith("cms: error: ") and result.stderr.count("\n") == 1
            assert "Traceback" not in result.stderr + result.stdout
        assert path.read_bytes() == content


def test_bad_ops_file_and_bad_config_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "ops.json"
    bad.write_text("{not json", encoding="utf-8")
    result = cms("ops", "apply", "--map", str(tmp_path / "m.json"), str(bad))
    assert result.returncode == 1 and "is not valid JSON" in result.stderr
    result = cms("ops", "apply", "--map", str(tmp_path / "m.json"), str(tmp_path / "missing"))
    assert result.returncode == 1 and "cannot read" in result.stderr
    config = tmp_path / "cms.toml"
    config.write_text("[map]\nmax_planets = 'many'\n", encoding="utf-8")
    os.environ["CMS_CONFIG"] = str(config)
    try:
        result = cms("ops", "apply", "--map", str(tmp_path / "m.json"), str(SAMPLE))
    finally:
        del os.environ["CMS_CONFIG"]
    assert result.returncode == 1
    assert result.stderr == "cms: error: map.max_planets: expected an integer, got 'many'\n"
    assert not (tmp_path / "m.json").exists()


def test_search_runs_without_importing_typer_or_jsonschema(tmp_path: Path) -> None:
    map_file = tmp_path / "map.json"
    cms("ops", "apply", "--map", str(map_file), str(SAMPLE))
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in ('typer', 'jsonschema', 'anthropic')"
        " if m in sys.modules), file=sys.stderr))\n"
        f"sys.argv = ['cms', 'search', '--map', {str(map_file)!r}, 'database']\n"
        "from cms.entry import main\n"
        "main()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False
    )
    assert result.stdout.startswith("F3 [Storage > Database choice]")
    assert result.stderr.strip() == "[]"


def _file_size_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:  # in the child: a write past `limit` fails with EFBIG, as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_ops_apply_on_a_full_disk_says_one_line_and_keeps_the_map(tmp_path: Path) -> None:
    map_file = tmp_path / "map.json"
    cms("ops", "apply", "--map", str(map_file), str(SAMPLE))
    big = {
        "ops": [
            {
                "op": "add_sat",
                "planet": "P2",
                "text": f"fact {i}: " + " ".join(f"word{i}{j}" for j in range(20)),
            }
            for i in range(10)
        ]
    }
    ops_file = tmp_path / "big.json"
    ops_file.write_bytes(orjson.dumps(big))
    before = map_file.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "cms", "ops", "apply", "--map", str(map_file), str(ops_file)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=60,
        check=False,
        preexec_fn=_file_size_limit(len(before) + 200),
    )
    assert done.returncode in (1, 3), done
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert map_file.read_bytes() == before
    left = {p.name for p in tmp_path.iterdir() if p.name.startswith("map.json")}
    assert left <= {"map.json", "map.json.lock"}  # no half-written temporary file


def test_show_on_a_fresh_install_says_no_chat_yet_and_exits_0() -> None:
    result = cms("show")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("No chat yet.") and "cms install" in result.stdout
    assert orjson.loads(cms("show", "--json").stdout) == {"chats": 0}


def test_help_cells_are_reflowed_not_broken_where_the_docstring_broke() -> None:
    out = cms("--help").stdout
    assert "shown to the agent, then every fact with its id (without --session" in " ".join(
        line.strip("│ ").strip() for line in out.splitlines()
    )
    for line in out.splitlines():  # no cell line ends far short of the table's width
        cell = line.strip().strip("│").rstrip()
        assert not (cell.endswith(" with") and len(cell) < 50), line


def test_show_and_chat_search_without_a_session_stay_in_this_folders_project(
    tmp_path: Path,
) -> None:
    from cms import paths
    from cms.map.model import new_map
    from cms.map.ops import apply_answer
    from cms.map.store import save_map
    from cms.project import identify_project

    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    cmap = new_map("chat-of-a", identify_project(first).id)
    ops = {
        "ops": [
            {"op": "add_sun", "title": "DB", "planets": [{"title": "Port", "sats": ["Port 5433"]}]}
        ]
    }
    apply_answer(cmap, ops)
    save_map(paths.map_path("chat-of-a"), cmap)

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return subprocess.run(
            [sys.executable, "-m", "cms", *args], capture_output=True, text=True, env=env,
            cwd=cwd, timeout=60, check=False,
        )  # fmt: skip

    other = run("show", cwd=second)
    assert other.returncode == 0 and other.stdout.startswith("No chat of this project yet")
    searched = run("search", "--chat-only", "port", cwd=second)
    assert searched.returncode == 1 and "Port 5433" not in searched.stdout + searched.stderr
    assert "no chat of project" in searched.stderr
    assert "Port 5433" in run("show", cwd=first).stdout
    assert "Port 5433" in run("search", "--chat-only", "port", cwd=first).stdout
