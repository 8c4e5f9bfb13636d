"""Characters the hooks inject over a 30-turn session vs re-injecting the full index every turn.

Replays a synthetic 30-turn coding session (topics that come and go and come back, a compaction
at turn 20) through the real hooks in process: SessionStart, then per turn UserPromptSubmit and
Stop (jobs inline, local provider). The baseline is the full wrapped index before every prompt.
Target: ours at most a third of the baseline. Usage: python bench/injection_bench.py [--turns N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SESSION = "bench-injection"
TOPICS = [
    ("database", "We decided to use Postgres 16 for the orders service", "orders/db.py"),
    ("cache", "Sessions go to Redis 7 with a 30 minute TTL", "app/session.py"),
    (
        "deploy",
        "Deploys run through GitHub Actions to staging first",
        ".github/workflows/deploy.yml",
    ),
    ("auth", "Login uses OAuth with PKCE; refresh tokens rotate", "auth/oauth.py"),
    ("tests", "Run the suite with pytest -q -m 'not slow'", "tests/conftest.py"),
    ("logging", "Logs are JSON lines with a request id", "app/logging.py"),
    ("api", "The API returns ISO 8601 dates in UTC", "api/serializers.py"),
    ("queue", "Background jobs use a retry policy of 3 attempts", "worker/jobs.py"),
]
ORDER = [0, 1, 0, 2, 3, 1, 4, 0, 5, 6, 2, 7, 3, 0, 4, 1, 5, 6, 7, 2, 0, 3, 1, 4, 6, 5, 7, 0, 2, 1]


def turn_records(turn: int) -> list[dict[str, Any]]:
    name, decision, path = TOPICS[ORDER[(turn - 1) % len(ORDER)]]
    prompt = (
        f"Turn {turn}, about the {name}: {decision}. Also fix the bug number {turn} in "
        f"{path} and tell me what changed."
    )
    answer = (
        f"Fixed bug {turn} in {path}: the {name} code now checks its input (variant "
        f"{turn}). Decision kept: {decision.lower()}. Run pytest -q to verify."
    )
    parent = f"a{turn - 1}" if turn > 1 else None
    return [
        {
            "type": "user",
            "uuid": f"u{turn}",
            "parentUuid": parent,
            "sessionId": SESSION,
            "isSidechain": False,
            "message": {"role": "user", "content": prompt},
        },
        {
            "type": "assistant",
            "uuid": f"t{turn}",
            "parentUuid": f"u{turn}",
            "sessionId": SESSION,
            "isSidechain": False,
            "message": {
                "id": f"msg_t{turn}",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"toolu_{turn}",
                        "name": "Edit",
                        "input": {
                            "file_path": f"/repo/{path}",
                            "old_string": "a",
                            "new_string": "b",
                        },
                    }
                ],
            },
        },
        {
            "type": "user",
            "uuid": f"r{turn}",
            "parentUuid": f"t{turn}",
            "sessionId": SESSION,
            "isSidechain": False,
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_{turn}", "content": "ok"}
                ],
            },
        },
        {
            "type": "assistant",
            "uuid": f"a{turn}",
            "parentUuid": f"r{turn}",
            "sessionId": SESSION,
            "isSidechain": False,
            "message": {
                "id": f"msg_{turn}",
                "role": "assistant",
                "content": [{"type": "text", "text": answer}],
            },
        },
    ]


def context_length(reply: str | None) -> int:
    if reply is None:
        return 0
    return len(json.loads(reply)["hookSpecificOutput"]["additionalContext"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--compact-at", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(CMS_HOME=str(Path(tmp) / "home"), CMS_PROVIDER="local", CMS_SYNC="1")
        from cms.config import load_config
        from cms.hooks import inject
        from cms.hooks.indexview import load_index_view
        from cms.hooks.runner import handle_hook

        limit = inject.inject_limit(load_config().hooks.inject_max_chars)
        cwd = Path(tmp) / "project"
        cwd.mkdir()
        transcript = Path(tmp) / "session.jsonl"
        base = {"session_id": SESSION, "cwd": str(cwd), "transcript_path": str(transcript)}

        def hook(event: str, **extra: Any) -> str | None:
            return handle_hook(event, json.dumps({**base, **extra}).encode("utf-8"))

        def full_index() -> int:
            view = load_index_view(SESSION, inject.index_budget(limit))
            if view is None or not view.text:
                return 0
            return len(inject.compose_context([inject.index_section(view)], SESSION, limit))

        ours = baseline = prompts_with_output = 0
        ours += context_length(hook("SessionStart", source="startup"))
        with open(transcript, "w", encoding="utf-8") as handle:
            for turn in range(1, args.turns + 1):
                if turn == args.compact_at:
                    ours += context_length(hook("SessionStart", source="compact"))
                baseline += full_index()
                injected = context_length(hook("UserPromptSubmit", prompt=f"turn {turn}"))
                ours += injected
                prompts_with_output += injected > 0
                for record in turn_records(turn):
                    handle.write(json.dumps(record) + "\n")
                handle.flush()
                hook("Stop", stop_hook_active=False)
        ratio = ours / baseline if baseline else 0.0
        print(
            f"{args.turns} turns, compaction at turn {args.compact_at}; final index "
            f"{full_index()} characters"
        )
        print(f"full index before every prompt : {baseline:8d} characters")
        print(
            f"cms (start + changes only)     : {ours:8d} characters "
            f"({prompts_with_output} prompts got an injection)"
        )
        print(f"ratio                          : {ratio:8.2f} (target <= 0.33)")


if __name__ == "__main__":
    main()
