"""What an agent's edits replaced, from the calls' structure: Codex apply_patch hunks (the
Claude Code Edit and MultiEdit inputs are read in test_claude_code)."""

from __future__ import annotations

from cms.transcripts.edits import patch_pairs


def test_apply_patch_keeps_what_each_hunk_replaced() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: config/staging.env\n@@\n host=db\n-port=5433\n"
        "+port=6543\n user=app\n@@\n-a\n-b\n+c\n*** Add File: src/new.ts\n+x\n*** End Patch"
    )
    assert patch_pairs(patch) == [("port=5433", "port=6543"), ("a\nb", "c")]
    assert patch_pairs("-a\n+b") == []  # not a patch
