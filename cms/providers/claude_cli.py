"""The `claude_cli` provider: one `claude -p --output-format json` run in cms's sandbox folder.

The child runs with CMS_DISABLE=1 (our hooks never recurse), no settings, tools, MCP servers or
slash commands, in its own process group (killed whole on timeout), and any transcript it leaves
under ~/.claude/projects/<slug of the sandbox>/ is deleted. It never touches other projects'
folders, never logs and never records usage (providers/model_calls.py does both).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cms import paths
from cms.config import ProviderConfig
from cms.errors import ProviderError
from cms.privatefile import make_dirs
from cms.providers.base import Completion
from cms.providers.cli_process import one_line, run_cli

_SLUG_MAX = 200
_STALE_SECONDS = 3600.0  # leftovers older than this in our own slug folder are ours to remove


def project_slug(folder: str) -> str:
    """Claude Code's transcript folder name for a working folder: non-alphanumerics become '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", folder)


def transcript_dirs(folder: Path, env: Mapping[str, str]) -> list[Path]:
    """The folders where a `claude` run in `folder` may write its transcripts."""
    base = env.get("CLAUDE_CONFIG_DIR") or str(Path(env.get("HOME") or Path.home()) / ".claude")
    projects = Path(base).expanduser() / "projects"
    found: list[Path] = []
    for variant in dict.fromkeys((str(folder), os.path.realpath(folder))):
        slug = project_slug(variant)
        if len(slug) <= _SLUG_MAX:
            found.append(projects / slug)
            continue
        # Long names are cut to 200 characters plus a hash we do not reproduce: match the prefix.
        with contextlib.suppress(OSError):
            found += [p for p in projects.iterdir() if p.name.startswith(slug[:_SLUG_MAX])]
    return list(dict.fromkeys(found))


def _listing(folder: Path) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()


def remove_transcripts(
    folders: list[Path], before: dict[Path, set[str]], session_id: str | None
) -> None:
    """Delete what a call left in our slug folders: its session's files, new and stale entries."""
    now = time.time()
    for folder in folders:
        for name in _listing(folder):
            entry = folder / name
            ours = bool(session_id) and name in (session_id, f"{session_id}.jsonl")
            new = name not in before.get(folder, set())
            try:
                stale = now - entry.lstat().st_mtime > _STALE_SECONDS
            except OSError:
                continue
            if ours or new or stale:
                _remove(entry)
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty


def parse_result(stdout: str) -> dict[str, Any] | None:
    """The result object of `--output-format json` (also from a list of events), else None."""
    text = stdout.strip()
    if not text:
        return None
    candidates = [text, *reversed(text.splitlines())]
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, list):
            results = [d for d in data if isinstance(d, dict) and d.get("type") == "result"]
            data = results[-1] if results else None
        if isinstance(data, dict) and ("result" in data or "is_error" in data):
            return data
    return None


def _tokens(usage: Any) -> tuple[int, int]:
    if not isinstance(usage, dict):
        return 0, 0

    def number(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    tokens_in = (
        number("input_tokens")
        + number("cache_creation_input_tokens")
        + number("cache_read_input_tokens")
    )
    return tokens_in, number("output_tokens")


class ClaudeCliProvider:
    """Runs the user's `claude` CLI (their subscription) for one completion."""

    name = "claude_cli"

    def __init__(self, config: ProviderConfig, env: Mapping[str, str] | None = None) -> None:
        self._config = config
        self._env = dict(os.environ if env is None else env)

    def executable(self) -> str | None:
        return shutil.which(self._config.claude_cli_path, path=self._env.get("PATH"))

    def command(self, executable: str, *, system: str, model: str) -> list[str]:
        return [
            executable,
            "-p",
            "--output-format",
            "json",
            "--model",
            model,
            "--system-prompt",
            system,
            "--setting-sources",
            "",
            "--no-session-persistence",
            "--disable-slash-commands",
            "--strict-mcp-config",
            "--tools",
            "",
        ]

    def complete(self, *, system: str, prompt: str, model: str, max_tokens: int) -> Completion:
        executable = self.executable()
        if executable is None:
            raise ProviderError(f"claude CLI not found on PATH: {self._config.claude_cli_path}")
        sandbox = Path(paths.sandbox_dir())
        try:
            make_dirs(str(sandbox))  # 0700, whatever the umask
        except OSError as exc:
            raise ProviderError(f"cannot create sandbox {sandbox}: {exc.strerror}") from None
        env = dict(self._env)
        env.update(
            CMS_DISABLE="1",
            CLAUDE_CODE_SKIP_PROMPT_HISTORY="1",
            CLAUDE_CODE_MAX_OUTPUT_TOKENS=str(max_tokens),
        )
        folders = transcript_dirs(sandbox, env)
        before = {folder: _listing(folder) for folder in folders}
        result: dict[str, Any] | None = None
        try:
            code, out, err = run_cli(
                "claude",
                self.command(executable, system=system, model=model),
                prompt.encode("utf-8"),
                sandbox,
                env,
                self._config.timeout_seconds,
            )
            result = parse_result(out)
        finally:
            session = result.get("session_id") if result else None
            remove_transcripts(
                transcript_dirs(sandbox, env), before, session if isinstance(session, str) else None
            )
        return self._completion(code, out, err, result, model)

    def _completion(
        self, code: int, out: str, err: str, result: dict[str, Any] | None, model: str
    ) -> Completion:
        if result is None:
            if code != 0:
                detail = one_line(err or out) or "no output"
                raise ProviderError(f"claude CLI exited with code {code}: {detail}")
            raise ProviderError(f"claude CLI output is not JSON: {one_line(out) or 'empty'}")
        if result.get("is_error") or code != 0:
            detail = result.get("result") or result.get("subtype") or one_line(err)
            raise ProviderError(
                f"claude CLI reported an error (code {code}): {one_line(str(detail))}"
            )
        text = result.get("result")
        if not isinstance(text, str):
            raise ProviderError("claude CLI result has no text")
        tokens_in, tokens_out = _tokens(result.get("usage"))
        used = result.get("modelUsage")
        if isinstance(used, dict) and len(used) == 1:
            model = str(next(iter(used)))
        return Completion(text=text, input_tokens=tokens_in, output_tokens=tokens_out, model=model)
