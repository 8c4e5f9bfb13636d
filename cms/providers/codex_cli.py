"""The `codex_cli` provider: one `codex exec` run in cms's sandbox folder, for Codex-only users.

`codex exec --ephemeral` (no session file left), read-only sandbox, no git check, JSON events on
stdout, the instructions and the exchange on stdin; the child runs with CMS_DISABLE=1 (our
hooks never recurse) in its own process group, killed whole on timeout. Never logs and never
records usage (providers/model_calls.py does both).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cms import paths
from cms.config import ProviderConfig
from cms.errors import ProviderError
from cms.privatefile import make_dirs
from cms.providers.base import Completion
from cms.providers.cli_process import one_line, run_cli


def read_events(stdout: str) -> tuple[str | None, dict[str, Any], str | None]:
    """(the last agent message, the turn's usage, an error message) from `codex exec --json`."""
    text: str | None = None
    usage: dict[str, Any] = {}
    error: str | None = None
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        item = event.get("item")
        if kind == "item.completed" and isinstance(item, dict):
            if item.get("type") == "agent_message" and isinstance(item.get("text"), str):
                text = item["text"]
        elif kind == "turn.completed" and isinstance(event.get("usage"), dict):
            usage = event["usage"]
        elif kind in ("turn.failed", "error"):
            detail = event.get("error") if kind == "turn.failed" else event
            message = detail.get("message") if isinstance(detail, dict) else None
            error = str(message or kind)
    return text, usage, error


def _count(usage: Mapping[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class CodexCliProvider:
    """Runs the user's `codex` CLI (their ChatGPT plan or key) for one completion."""

    name = "codex_cli"

    def __init__(self, config: ProviderConfig, env: Mapping[str, str] | None = None) -> None:
        self._config = config
        self._env = dict(os.environ if env is None else env)

    def executable(self) -> str | None:
        return shutil.which(self._config.codex_cli_path, path=self._env.get("PATH"))

    def command(self, executable: str, sandbox: Path) -> list[str]:
        model = ["--model", self._config.codex_model] if self._config.codex_model else []
        return [
            executable,
            "exec",
            "--ephemeral",
            "--skip-git-repo-check",
            "--sandbox",
            "read-only",
            "--color",
            "never",
            "--json",
            "--cd",
            str(sandbox),
            *model,
            "-",  # the prompt is read from stdin
        ]

    def complete(self, *, system: str, prompt: str, model: str, max_tokens: int) -> Completion:
        """One completion; `model` (a Claude model id) does not apply: codex_model does."""
        executable = self.executable()
        if executable is None:
            raise ProviderError(f"codex CLI not found on PATH: {self._config.codex_cli_path}")
        sandbox = Path(paths.sandbox_dir())
        try:
            make_dirs(str(sandbox))  # 0700, whatever the umask
        except OSError as exc:
            raise ProviderError(f"cannot create sandbox {sandbox}: {exc.strerror}") from None
        env = {**self._env, "CMS_DISABLE": "1"}
        request = f"{system}\n\nAnswer with the JSON asked for and nothing else.\n\n{prompt}"
        code, out, err = run_cli(
            "codex",
            self.command(executable, sandbox),
            request.encode("utf-8"),
            sandbox,
            env,
            self._config.timeout_seconds,
        )
        text, usage, error = read_events(out)
        if error is not None or code != 0:
            detail = error or one_line(err or out) or "no output"
            raise ProviderError(f"codex CLI failed (code {code}): {one_line(detail)}")
        if text is None:
            raise ProviderError(f"codex CLI gave no answer: {one_line(out) or 'empty'}")
        return Completion(
            text=text,
            input_tokens=_count(usage, "input_tokens"),
            output_tokens=_count(usage, "output_tokens"),
            model=self._config.codex_model or "codex",
        )
