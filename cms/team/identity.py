"""Names that travel: the machine id, a project's team key and the user tier's key.

A project is keyed by its repository's root commit (the first commit, found with git), which
every clone has whatever its folder, remote name or host; a folder outside git, or a repository
without a commit yet, has no team key and is not synced. Runs git, so it is for the worker and
the CLI, never for a hook.
"""

from __future__ import annotations

import os
import subprocess
import uuid

from cms import paths, privatefile

MACHINE_FILE = "machine-id"


def machine_id() -> str:
    """This CMS_HOME's id (made once: a random hex string in $CMS_HOME/machine-id)."""
    path = os.path.join(paths.cms_home(), MACHINE_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            found = handle.read().strip()
        if found:
            return found
    except OSError:
        pass
    made = uuid.uuid4().hex[:16]
    privatefile.write_atomically(path, (made + "\n").encode("utf-8"))
    return made


def _git(cwd: str, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", cwd, *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def project_key(root: str) -> str | None:
    """`git:<root commit>` of the repository at root (the smallest, if history has several
    roots), or None outside git or before the first commit."""
    found = _git(root, "rev-list", "--max-parents=0", "HEAD")
    roots = sorted(line for line in (found or "").split() if line)
    return f"git:{roots[0]}" if roots else None


def user_key(configured: str) -> str | None:
    """The user tier's key on the server: `[team] user`, else git's global user.email."""
    name = configured.strip() or (_git(os.getcwd(), "config", "--global", "user.email") or "")
    return f"user:{name.strip().lower()}" if name.strip() else None
