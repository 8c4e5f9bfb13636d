"""Capture: redaction, dedup and supersession, branch/commit recording, map promotion."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms.language.factkinds import guess_kind, importance_of_fact, kind_of_fact
from cms.map.model import CorrelationMap, Planet, Satellite, Sun
from cms.observations.access import open_project_memory
from cms.observations.capture import (
    capture_observations,
    capture_with_outcomes,
    observations_from_map,
    offline_kind,
)
from cms.observations.model import NewObservation
from cms.observations.upkeep import archive_stale

from .gitrepo import commit_file, git, make_repo, memory

SECRET = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    folder = tmp_path / "plain"
    folder.mkdir()
    return folder


def test_secrets_are_redacted_before_they_reach_the_store(plain: Path) -> None:
    with memory(plain) as mem:
        capture_observations(
            mem.store,
            [
                NewObservation(
                    "command",
                    f"Call the API with {SECRET}",
                    f"export KEY={SECRET}",
                    (f"{SECRET}.txt",),
                )
            ],
            session="s",
            agent="claude",
            cwd=plain,
        )
    raw = b"".join(p.read_bytes() for p in Path(mem.store.path).parent.glob("observations.db*"))
    assert SECRET.encode() not in raw
    with memory(plain) as mem:
        obs = mem.store.list_observations()[0]
    assert "[REDACTED:" in obs.title and "[REDACTED:" in obs.body and "[REDACTED:" in obs.files[0]


def test_same_kind_and_title_on_the_same_branch_supersedes(plain: Path) -> None:
    with memory(plain) as mem:
        first = capture_observations(
            mem.store,
            [NewObservation("decision", "Database", "sqlite for now")],
            session="s1",
            agent="a",
            cwd=plain,
        )
        second = capture_observations(
            mem.store,
            [NewObservation("decision", "database.", "postgres since the load test")],
            session="s2",
            agent="a",
            cwd=plain,
        )
        live = mem.store.list_observations()
        old = mem.store.get(first[0])
    assert [o.id for o in live] == second
    assert old is not None and old.superseded_by == second[0]


def test_the_agents_narration_never_replaces_a_decision_but_a_later_decision_does(
    plain: Path,
) -> None:
    def capture(kind: str, body: str, session: str) -> int:
        with memory(plain) as mem:
            new = NewObservation(kind, "Port > Pgbouncer", body, source=f"{session}/F3")
            return capture_observations(mem.store, [new], session=session, agent="a", cwd=plain)[0]

    decided = capture("decision", "We switched to port 6543 (pgbouncer) for the database.", "c1")
    capture("learning", "I updated app/db.py to use port 6543 through pgbouncer.", "c1b")
    with memory(plain) as mem:
        kept = mem.store.get(decided)
    assert kept is not None and kept.superseded_by is None
    later = capture("decision", "We switched to port 6600 (pgbouncer) for the database.", "c2")
    with memory(plain) as mem:
        replaced = mem.store.get(decided)
    assert replaced is not None and replaced.superseded_by == later


def test_a_near_identical_body_is_skipped_and_keeps_the_higher_importance(plain: Path) -> None:
    body = "The refresh loop came from comparing token.exp with Date.now() in milliseconds."
    with memory(plain) as mem:
        kept = capture_observations(
            mem.store,
            [NewObservation("bugfix", "Refresh loop", body, importance=2)],
            session="s1",
            agent="a",
            cwd=plain,
        )
        outcomes = capture_with_outcomes(
            mem.store,
            [
                NewObservation(
                    "learning",
                    "JWT exp is in seconds",
                    body.replace("milliseconds", "milliseconds!"),
                    importance=4,
                )
            ],
            session="s2",
            agent="a",
            cwd=plain,
        )
        assert [(o.id, o.status) for o in outcomes] == [(kept[0], "duplicate")]
        assert (
            capture_observations(
                mem.store,
                [NewObservation("bugfix", "Refresh loop", body)],
                session="s3",
                agent="a",
                cwd=plain,
            )
            == []
        )
        stored = mem.store.list_observations()
    assert [o.id for o in stored] == kept
    assert stored[0].importance == 4


def test_a_candidate_matching_an_archived_one_brings_it_back(plain: Path) -> None:
    with memory(plain) as mem:
        old_id = mem.store.add(
            NewObservation(
                "learning", "Ruff config lives in pyproject", "the [tool.ruff] table", importance=1
            ),
            created_at=1.0,
        )
        archive_stale(mem.store, now=10 * 86400.0, stale_after_days=1, max_importance=2)
        assert mem.store.list_observations() == []
        outcomes = capture_with_outcomes(
            mem.store,
            [NewObservation("learning", "Ruff config lives in pyproject", "the [tool.ruff] table")],
            session="s",
            agent="a",
            cwd=plain,
        )
        assert outcomes[0].id == old_id and outcomes[0].status == "duplicate"
        assert [o.id for o in mem.store.list_observations()] == [old_id]


def test_candidates_without_a_title_are_dropped(plain: Path) -> None:
    with memory(plain) as mem:
        stored = capture_observations(
            mem.store,
            [NewObservation("other", "  ", "body"), NewObservation("other", "ok", "")],
            session="s",
            agent="a",
            cwd=plain,
        )
        assert len(stored) == 1


def test_capture_records_branch_and_commit_and_dedups_per_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    git(repo, "checkout", "-q", "-b", "feat")
    head = commit_file(repo, "f.txt", "f", "feature")
    with memory(repo) as mem:
        on_feat = capture_observations(
            mem.store,
            [NewObservation("decision", "State library", "zustand")],
            session="s",
            agent="codex",
            cwd=repo,
        )
    git(repo, "checkout", "-q", "main")
    with memory(repo) as mem:
        on_main = capture_observations(
            mem.store,
            [NewObservation("decision", "State library", "redux")],
            session="s",
            agent="codex",
            cwd=repo,
        )
        feat_obs, main_obs = mem.store.get(on_feat[0]), mem.store.get(on_main[0])
    assert feat_obs is not None and main_obs is not None
    assert (feat_obs.branch, feat_obs.commit, feat_obs.shared_commit) == ("feat", head, False)
    assert (main_obs.branch, main_obs.superseded_by, feat_obs.superseded_by) == ("main", None, None)
    assert (feat_obs.session, feat_obs.agent) == ("s", "codex")


def test_prompt_hook_open_does_not_create_a_store(tmp_path: Path) -> None:
    folder = tmp_path / "never-captured"
    folder.mkdir()
    assert open_project_memory(folder, create=False) is None
    assert open_project_memory(folder, create=False) is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("We decided to use pnpm instead of npm", "decision"),
        ("Chose SQLite over Postgres for local runs", "decision"),
        ("Fixed the refresh loop: exp is in seconds", "bugfix"),
        ("Tests error out when TZ is unset", "bugfix"),
        ("Run `pytest -q tests/map` before pushing", "command"),
        ("$ make release builds the wheel", "command"),
        ("The user prefers short answers", "preference"),
        ("Never commit generated files", "preference"),
        ("src/auth/refresh.ts holds the token refresh logic", "file_summary"),
        ("Turns out FTS5 bm25 is negative for better matches", "learning"),
        ("Note: the CI image has no git lfs", "learning"),
        ("The logo is blue", "other"),
    ],
)
def test_kind_is_guessed_from_the_wording(text: str, kind: str) -> None:
    assert guess_kind(text) == kind


def test_importance_comes_from_the_evidence_of_the_wording() -> None:
    rule = "I want you to always end function argument names with '_f'."
    assert kind_of_fact(rule) == "preference"
    assert importance_of_fact(rule, "preference") == 5
    assert importance_of_fact("The logo is blue", "other") == 2
    assert importance_of_fact("The logo is blue", "other", mass=8) == 3
    assert importance_of_fact("The logo is blue", "other", archived=True) == 1


def sat(n: int, text: str) -> Satellite:
    return Satellite(
        id=f"F{n}",
        text=text,
        created_at="2026-01-01T00:00:00Z",
        updated_at="2026-01-01T00:00:00Z",
        turn=n,
    )


def test_map_facts_become_one_observation_per_fact_with_provenance() -> None:
    stamp = "2026-01-01T00:00:00Z"
    planet = Planet(
        id="P2",
        title="Package manager",
        mass=4,
        created_at=stamp,
        updated_at=stamp,
        satellites=[
            sat(3, "Decided to use pnpm workspaces instead of npm"),
            sat(4, "npm hoisting broke the shared types bug"),
            sat(5, "Switched to pnpm after the type errors"),
            sat(6, "Open question: should we also drop yarn?"),
            sat(7, "Task: add the lint step"),
        ],
    )
    old = Planet(
        id="P7",
        title="Old notes",
        mass=1,
        created_at=stamp,
        updated_at=stamp,
        satellites=[sat(8, "pnpm-workspace.yaml lists apps/* and packages/*")],
        archived_at=stamp,
        sun_id="S1",
        sun_title="Tooling",
    )
    cmap = CorrelationMap(
        session_id="s",
        project="p",
        next_id=9,
        created_at=stamp,
        updated_at=stamp,
        suns=[Sun(id="S1", title="Tooling", created_at=stamp, planets=[planet])],
        archive=[old],
    )
    candidates = observations_from_map(cmap)
    assert [c.source for c in candidates] == ["s/F3", "s/F4", "s/F5", "s/F8"]  # no question, task
    by_source = {c.source: c for c in candidates}
    decision = by_source["s/F3"]
    assert decision.title == "Tooling: Package manager" and decision.kind == "decision"
    assert decision.body == "Decided to use pnpm workspaces instead of npm"
    assert decision.turn == 3 and decision.importance == 5  # a firm choice, a heavy subtopic
    archived = by_source["s/F8"]
    assert archived.kind == "file_summary" and archived.files == ("pnpm-workspace.yaml",)
    assert observations_from_map(cmap, kinds=("decision",), fact_ids=["F5"])[0].source == "s/F5"
    asked = observations_from_map(cmap, prompts={3: "Which package manager do we use?"})
    contexts = {c.source: c.context for c in asked}
    assert contexts["s/F3"] == "Which package manager do we use?"  # the prompt of its turn
    assert all(contexts[s] == "" for s in contexts if s != "s/F3" and by_source[s].turn != 3)


def test_a_fact_about_the_projects_code_with_no_other_cue_is_a_learning() -> None:
    # shapes from the labelled transcripts (tests/data/extractor_labels.json)
    assert kind_of_fact("The project already has `igniter` as a dependency") == "learning"
    assert kind_of_fact("TypeScript 5 with the app router") == "learning"
    assert kind_of_fact("What a lovely afternoon it has been.") == "other"


def test_a_facts_context_follows_its_subtopic_and_is_redacted(plain: Path) -> None:
    def fact(context: str) -> NewObservation:
        return NewObservation(
            "decision", "Auth: Sessions", "We keep sessions in Redis.", source="chat-1/F3",
            context=context,
        )  # fmt: skip

    with memory(plain) as mem:
        (first,) = capture_with_outcomes(
            mem.store, [fact("Tokens expire after an hour.")], session="chat-1", agent=None,
            cwd=plain,
        )  # fmt: skip
        (again,) = capture_with_outcomes(
            mem.store, [fact(f"Tokens expire after an hour. The key is {SECRET}")],
            session="chat-1", agent=None, cwd=plain,
        )  # fmt: skip
        assert again.status == "duplicate" and again.id == first.id
        stored = mem.store.get(first.id)
    assert stored is not None and stored.context.startswith("Tokens expire after an hour.")
    assert SECRET not in stored.context and "The key is" in stored.context


def test_offline_only_the_users_own_words_keep_a_standing_kind() -> None:
    prompt = "Rule for this repo:   never use print,\nalways the logging module. Thanks!"
    rule = "Never use print, always the logging module."
    assert offline_kind(rule, "preference", prompt) == "preference"
    narration = "Going forward, every endpoint returns errors as {error: {code, message}}."
    assert offline_kind(narration, "preference", prompt) == "learning"
    assert offline_kind(narration, "decision", "") == "learning"
    assert offline_kind("I added app/errors.py.", "bugfix", prompt) == "bugfix"


def test_a_fact_captured_again_after_it_left_force_stays_out_and_makes_no_copy(
    plain: Path,
) -> None:
    """SessionEnd captures every fact of the chat again: one taken out of force in between (by
    a later statement, or by an edit) is the same item, still out of force."""

    def capture(body: str, source: str) -> list[int]:
        with memory(plain) as mem:
            new = NewObservation("decision", "Port", body, source=source)
            return capture_observations(mem.store, [new], session="c1", agent="a", cwd=plain)

    old = capture("The staging database listens on port 5433.", "c1/F3")
    newer = capture("The staging database listens on port 6543 now.", "c1/F5")
    assert capture("The staging database listens on port 5433.", "c1/F3") == []
    with memory(plain) as mem:
        live = [o.id for o in mem.store.list_observations()]
        kept = mem.store.get(old[0])
    assert live == newer
    assert kept is not None and kept.superseded_by == newer[0]
    assert capture("The staging database listens on port 5433, the replica on 5434.", "c1/F3")
