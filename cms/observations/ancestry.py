"""Whether one commit is an ancestor of another (DESIGN.md section 5), cached per project.

Owns the JSON cache of answers, the walk up loose commits and `git merge-base --is-ancestor` on
a miss; must not read refs or decide visibility (scope.py does).
"""

from __future__ import annotations

import os

from cms import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cms.paths import StrPath

CACHE_LIMIT = 4096
GIT_TIMEOUT = 10.0  # seconds any git command of the scope may take


def _loose_parents(common_dir: str, sha: str) -> list[str] | None:
    """The parents of a commit stored as a loose object, or None when it is packed/unreadable."""
    import zlib  # only when the ancestry cache misses

    try:
        with open(os.path.join(common_dir, "objects", sha[:2], sha[2:]), "rb") as handle:
            raw = zlib.decompress(handle.read())
    except (OSError, zlib.error, ValueError):
        return None
    header, _, body = raw.partition(b"\0")
    if not header.startswith(b"commit "):
        return None
    parents = []
    for line in body.split(b"\n"):
        if not line:
            break
        if line.startswith(b"parent "):
            parents.append(line[7:].decode("ascii", "replace").strip())
    return parents


class AncestryCache:
    """Answers "is commit an ancestor of head", remembering answers in a JSON file.

    A (commit, head) answer never changes, so entries need no invalidation, only a size cap.
    When HEAD is a new single-parent loose commit, the answer is derived from its parent's
    cached one without running git (the common case right after `git commit`).
    """

    def __init__(self, root: StrPath, common_dir: StrPath, path: StrPath | None) -> None:
        self.root = os.fspath(root)
        self.common_dir = os.fspath(common_dir)
        self.path = None if path is None else os.fspath(path)
        self._answers: dict[str, bool] | None = None
        self._git_missing = False
        self.git_calls = 0

    def _load(self) -> dict[str, bool]:
        if self._answers is None:
            self._answers = {}
            if self.path is not None:
                try:
                    with open(self.path, encoding="utf-8") as handle:
                        data = jsonio.loads(handle.read())
                    answers = data.get("ancestry", {}) if isinstance(data, dict) else {}
                    self._answers = {str(k): bool(v) for k, v in answers.items()}
                except (OSError, ValueError, AttributeError):
                    pass
        return self._answers

    def _save(self) -> None:
        answers = self._load()
        if self.path is None:
            return
        if len(answers) > CACHE_LIMIT:
            for key in list(answers)[: len(answers) - CACHE_LIMIT // 2]:
                del answers[key]
        from cms.privatefile import write_atomically  # folders 0700, file 0600, no symlink

        data = jsonio.dumps({"version": 1, "ancestry": answers}).encode("utf-8")
        try:  # noqa: SIM105 - no contextlib on the hook path
            write_atomically(self.path, data)
        except OSError:
            pass

    def _derived(self, commit: str, head: str) -> bool | None:
        answers = self._load()
        current = head
        for _ in range(32):
            parents = _loose_parents(self.common_dir, current)
            if parents is None or len(parents) != 1:
                return None
            current = parents[0]
            if current == commit:
                return True
            known = answers.get(f"{commit}..{current}")
            if known is not None:
                return known
        return None

    def is_ancestor(self, commit: str, head: str) -> bool:
        if commit == head:
            return True
        answers = self._load()
        key = f"{commit}..{head}"
        if key in answers:
            return answers[key]
        answer = self._derived(commit, head)
        if answer is None:
            if self._git_missing:
                return False
            self.git_calls += 1
            import subprocess  # only when the cache cannot answer

            try:
                done = subprocess.run(
                    ["git", "-C", self.root, "merge-base", "--is-ancestor", commit, head],
                    capture_output=True,
                    timeout=GIT_TIMEOUT,
                    check=False,
                )
            except (OSError, subprocess.SubprocessError):
                self._git_missing = True
                return False
            if done.returncode not in (0, 1, 128):
                return False
            answer = done.returncode == 0  # 128: the commit is gone (rebased away): not merged
        answers[key] = answer
        self._save()
        return answer
