"""The house's layout (DESIGN.md section 9): no module under cms/ grows past MAX_LINES lines."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 450


def count_lines(path: Path) -> int:
    with path.open(encoding="utf-8") as handle:
        return sum(1 for _ in handle)


def test_no_module_under_cms_exceeds_the_line_limit() -> None:
    modules = sorted((ROOT / "cms").rglob("*.py"))
    assert modules, "no module found under cms/"
    too_long = {
        path.relative_to(ROOT).as_posix(): lines
        for path in modules
        if (lines := count_lines(path)) > MAX_LINES
    }
    named = ", ".join(f"{name} ({lines} lines)" for name, lines in too_long.items())
    assert not too_long, f"modules over {MAX_LINES} lines (split them by responsibility): {named}"
