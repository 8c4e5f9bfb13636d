"""Asking an installed `cms` how it is: the hook self-check after an install (in a throwaway
data folder) and `cms doctor --json`'s provider for --status.

Runs the given executable as a subprocess; it never changes a settings file.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from cms.install.hook_entries import hook_command
from cms.install.places import is_executable

SELF_CHECK_SESSION = "cms-selfcheck"


def self_check(cms: Path, timeout: float = 60.0) -> tuple[bool, str]:
    """Run `cms hook UserPromptSubmit` through `sh -c` on a sample payload in a throwaway home.

    Passes when the command exits 0 and prints nothing or valid JSON.
    """
    with tempfile.TemporaryDirectory(prefix="cms-selfcheck-") as scratch:
        work = Path(scratch) / "project"
        home = Path(scratch) / "cms-home"
        work.mkdir()
        home.mkdir()
        payload = {
            "session_id": SELF_CHECK_SESSION,
            "transcript_path": str(Path(scratch) / "transcript.jsonl"),
            "cwd": str(work),
            "hook_event_name": "UserPromptSubmit",
            "permission_mode": "default",
            "prompt": "cms install self-check",
        }
        env = {k: v for k, v in os.environ.items() if k not in ("CMS_DISABLE", "CMS_CONFIG")}
        env["CMS_HOME"] = str(home)
        command = hook_command(cms, "UserPromptSubmit", home)
        argv = ["sh", "-c", command] if os.name != "nt" else [str(cms), "hook", "UserPromptSubmit"]
        try:
            done = subprocess.run(
                argv,
                input=json.dumps(payload) + "\n",
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=timeout,
                cwd=work,
                env=env,
            )
        except subprocess.TimeoutExpired:
            return False, f"the hook did not answer within {timeout:.0f} s"
        except OSError as exc:
            return False, f"the hook could not start: {exc}"
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or [""])[-1][:200]
        return False, f"the hook exited with code {done.returncode}: {detail}".rstrip(": ")
    if done.stdout.strip():
        try:
            json.loads(done.stdout)
        except json.JSONDecodeError:
            return False, f"the hook printed something that is not JSON: {done.stdout[:120]!r}"
    return True, "ok"


def provider_now(cms: Path | None, env: dict[str, str]) -> tuple[str, str]:
    """What `auto` would pick now and why, from `cms doctor --json`; ("unknown", why) on failure."""
    if cms is None or not is_executable(cms):
        return "unknown", "no installed cms to ask"
    try:
        done = subprocess.run(
            [str(cms), "doctor", "--json"],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=60,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        report = json.loads(done.stdout)
        provider = report["provider"]
        reason = report.get("provider_reason", "")
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        return "unknown", "`cms doctor --json` did not answer"
    return str(provider), str(reason)
