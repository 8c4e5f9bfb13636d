"""Drive cms as a black box for the quality benchmarks: projects, chats, hooks, search.

Everything goes through the hook protocol (`cms hook EVENT`, JSON on stdin) and the CLI, in a
throw-away data folder (`CMS_HOME`), `HOME` and git repository per project, with the local
provider and `CMS_SYNC=1` (hooks run the queued update inline, so results do not depend on a
detached worker's timing). Used by bench/memorycode_bench.py and bench/newchat_bench.py.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.timing import ROOT, bench_env, cms_command

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}
HOOK_TIMEOUT = 300.0
CC_VERSION = "2.1.332"


def session_id(*parts: object) -> str:
    """A stable UUID-shaped session id, as Claude Code uses."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "cms-bench/" + "/".join(map(str, parts))))


@dataclass
class Exchange:
    prompt: str
    answer: str


class TranscriptWriter:
    """A Claude Code JSONL transcript written record by record, as the CLI grows it."""

    def __init__(self, path: Path, session: str, cwd: Path) -> None:
        self.path = path
        self.session = session
        self.cwd = str(cwd)
        self.parent: str | None = None
        self.count = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")

    def _base(self, kind: str) -> dict[str, Any]:
        self.count += 1
        uid = session_id(self.session, "record", self.count)
        record: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": CC_VERSION,
            "gitBranch": "main",
            "type": kind,
            "uuid": uid,
            "timestamp": f"2026-01-01T{self.count // 3600 % 24:02d}:"
            f"{self.count // 60 % 60:02d}:{self.count % 60:02d}.000Z",
        }
        self.parent = uid
        return record

    def _write(self, record: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    def add(self, exchange: Exchange) -> None:
        user = self._base("user")
        user["message"] = {"role": "user", "content": exchange.prompt}
        self._write(user)
        reply = self._base("assistant")
        reply["requestId"] = f"req_{self.count:06d}"
        reply["message"] = {
            "id": f"msg_{self.count:06d}",
            "type": "message",
            "role": "assistant",
            "model": "claude-bench",
            "content": [{"type": "text", "text": exchange.answer}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10},
        }
        self._write(reply)


def search_command(injected: str, query: str) -> str | None:
    """The injected search command with the query filled in (shell-quoted), or None.

    The command is the text after "run:" on the last line that has it; the placeholder
    `"<query>"` (any quotes) is replaced, else the query is appended.
    """
    found = None
    for line in injected.splitlines():
        if "run:" in line:
            found = line.split("run:", 1)[1]
    if found is None:
        return None
    command = found.replace("</cms-memory>", "").strip().rstrip(".").strip()
    if not command:
        return None
    quoted = shlex.quote(query)
    for placeholder in ('"<query>"', "'<query>'", "<query>", '"<QUERY>"', "<QUERY>"):
        if placeholder in command:
            return command.replace(placeholder, quoted, 1)
    return f"{command} {quoted}"


@dataclass
class NewChat:
    injected: str  # SessionStart + UserPromptSubmit contexts
    command: str | None  # the injected search command, filled with the query
    search_output: str = ""
    search_failed: bool = False


@dataclass
class Project:
    """One project: a git repository, its own CMS_HOME and HOME, chats replayed into it."""

    name: str
    root: Path = field(init=False)
    repo: Path = field(init=False)
    env: dict[str, str] = field(init=False)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=f"cms-bench-{self.name}-"))
        self.repo = self.root / self.name
        home = self.root / "home"
        for folder in (self.repo, home):
            folder.mkdir(parents=True)
        git_env = {**os.environ, **GIT_ENV}
        for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "init"]):
            subprocess.run(["git", *args], cwd=self.repo, env=git_env, check=True)
        self.env = bench_env(
            {
                "CMS_HOME": str(self.root / "cms-home"),
                "CMS_PROVIDER": "local",
                "CMS_SYNC": "1",
                "HOME": str(home),
                **GIT_ENV,
            }
        )
        for name in ("CMS_CONFIG", "CMS_DISABLE", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
            self.env.pop(name, None)
        self.env["PYTHONPATH"] = str(ROOT)

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def transcript_path(self, session: str) -> Path:
        munged = re.sub(r"[^A-Za-z0-9]", "-", str(self.repo))
        return self.root / "home" / ".claude" / "projects" / munged / f"{session}.jsonl"

    # ------------------------------------------------------------------ processes

    def run_cms(
        self, args: Sequence[str], stdin: bytes = b""
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [*cms_command(), *args],
            input=stdin,
            capture_output=True,
            env=self.env,
            cwd=self.repo,
            timeout=HOOK_TIMEOUT,
            check=False,
        )

    def hook(self, event: str, session: str, **fields: Any) -> str:
        """Run one hook; returns its additionalContext ("" when it replied nothing)."""
        payload = {
            "session_id": session,
            "transcript_path": str(self.transcript_path(session)),
            "cwd": str(self.repo),
            "hook_event_name": event,
            **fields,
        }
        done = self.run_cms(["hook", event], json.dumps(payload).encode("utf-8"))
        if done.returncode != 0 or done.stderr.strip():
            self.errors.append(f"{event}: exit {done.returncode} {done.stderr[-300:]!r}")
        out = done.stdout.decode("utf-8", "replace").strip()
        if not out:
            return ""
        try:
            reply = json.loads(out)
            context = reply["hookSpecificOutput"]["additionalContext"]
        except (ValueError, KeyError, TypeError):
            self.errors.append(f"{event}: unusable reply {out[:200]!r}")
            return ""
        return context if isinstance(context, str) else ""

    def drain(self) -> None:
        """`cms worker` drains every queue (a safety net: CMS_SYNC=1 should leave none)."""
        done = self.run_cms(["worker"])
        text = done.stdout.decode("utf-8", "replace")
        match = re.search(r"applied (\d+) job", text)
        if match and match.group(1) != "0":
            self.errors.append(f"worker found {match.group(1)} queued job(s) after CMS_SYNC hooks")

    # ------------------------------------------------------------------ chats

    def chat_by_hooks(self, session: str, exchanges: Sequence[Exchange]) -> None:
        """A chat as Claude Code runs it: the transcript grows, Stop after every answer,
        SessionEnd at the end."""
        writer = TranscriptWriter(self.transcript_path(session), session, self.repo)
        for exchange in exchanges:
            writer.add(exchange)
            self.hook(
                "Stop",
                session,
                permission_mode="default",
                stop_hook_active=False,
                last_assistant_message=exchange.answer,
            )
        self.hook("SessionEnd", session, reason="other")

    def chat_by_replay(self, session: str, exchanges: Sequence[Exchange]) -> None:
        """The same chat written whole, then `cms replay` (map turn by turn, then capture)."""
        writer = TranscriptWriter(self.transcript_path(session), session, self.repo)
        for exchange in exchanges:
            writer.add(exchange)
        self.replay_file(writer.path, session)

    def replay_file(self, transcript: Path, session: str) -> None:
        done = self.run_cms(
            ["replay", str(transcript), "--session", session, "--cwd", str(self.repo), "--json"]
        )
        if done.returncode != 0:
            self.errors.append(f"replay: exit {done.returncode} {done.stderr[-300:]!r}")

    def chat(self, session: str, exchanges: Sequence[Exchange], via: str) -> None:
        if via == "hooks":
            self.chat_by_hooks(session, exchanges)
        else:
            self.chat_by_replay(session, exchanges)

    def new_chat(self, session: str, prompt: str, search: bool = True) -> NewChat:
        """A new chat: SessionStart (startup), the prompt, then the injected search command run
        once with the prompt as query (bash, in the project, same environment)."""
        start = self.hook("SessionStart", session, source="startup", model="claude-bench")
        submit = self.hook("UserPromptSubmit", session, prompt=prompt, permission_mode="default")
        injected = "\n".join(part for part in (start, submit) if part)
        command = search_command(injected, prompt)
        chat = NewChat(injected, command)
        if search and command:
            done = subprocess.run(
                ["bash", "-c", command],
                capture_output=True,
                env=self.env,
                cwd=self.repo,
                timeout=HOOK_TIMEOUT,
                check=False,
            )
            chat.search_output = done.stdout.decode("utf-8", "replace")
            chat.search_failed = done.returncode != 0
            if chat.search_failed:
                self.errors.append(f"search: exit {done.returncode} {done.stderr[-300:]!r}")
        return chat


def cms_has_replay() -> bool:
    done = subprocess.run(
        [*cms_command(), "replay", "--help"], capture_output=True, env=bench_env(), check=False
    )
    return done.returncode == 0


def ratio(hits: int, total: int) -> str:
    return f"{hits / total:.3f}" if total else "  -  "


# ----------------------------------------------------------------------------- baseline


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


class BM25:
    """Plain BM25 (k1=1.2, b=0.75, lower-cased words) over raw texts: the benches' baseline."""

    def __init__(self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = list(docs)
        self.k1, self.b = k1, b
        self.tfs = [Counter(tokens(d)) for d in self.docs]
        self.lens = [sum(tf.values()) for tf in self.tfs]
        self.avg = (sum(self.lens) / len(self.lens)) if self.lens else 1.0
        df: Counter[str] = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def top(self, query: str, k: int = 5) -> list[str]:
        terms = [t for t in set(tokens(query)) if t in self.idf]
        scored = []
        for i, (tf, length) in enumerate(zip(self.tfs, self.lens, strict=True)):
            score = 0.0
            for t in terms:
                f = tf.get(t, 0)
                if f:
                    norm = self.k1 * (1 - self.b + self.b * length / self.avg)
                    score += self.idf[t] * f * (self.k1 + 1) / (f + norm)
            if score > 0:
                scored.append((-score, i))
        scored.sort()
        return [self.docs[i] for _, i in scored[:k]]
