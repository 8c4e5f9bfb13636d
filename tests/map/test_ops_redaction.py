"""Every text an op carries is redacted before it reaches the map or the report, whoever wrote
the op (a model's answer, `cms ops apply`, the local extractor)."""

from __future__ import annotations

from cms.map.model import new_map
from cms.map.ops import apply_answer

GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
ANTHROPIC = "sk-ant-api03-" + "Qw3rTy8uIoPaSdFgHjKl" * 2


def test_secrets_in_op_titles_and_facts_never_reach_the_map_or_the_report() -> None:
    cmap = new_map("chat-redact", "project")
    answer = {
        "ops": [
            {
                "op": "add_sun",
                "title": f"Deploy with {GITHUB}",
                "planets": [{"title": "Keys", "sats": [f"the API key is {ANTHROPIC}"]}],
            },
            {"op": "add_sun", "title": "Database", "planets": [{"title": "Access"}]},
        ]
    }
    report = apply_answer(cmap, answer)
    assert len(report.accepted) == 2
    planet = cmap.suns[1].planets[0]
    more = {"ops": [{"op": "add_sat", "planet": planet.id, "text": "mysql -u root -pHunt3rTwo db"}]}
    report_two = apply_answer(cmap, more)
    stored = repr(cmap.to_dict()) + repr(report.to_dict()) + repr(report_two.to_dict())
    for secret in (GITHUB, ANTHROPIC, "Hunt3rTwo"):
        assert secret not in stored
    assert "[REDACTED:github_token]" in cmap.suns[0].title
    assert cmap.suns[0].planets[0].satellites[0].text == "the API key is [REDACTED:anthropic_key]"
    fact = planet.satellites[0]
    assert fact.text == "mysql -u root -p[REDACTED:password] db"
    replace = {"ops": [{"op": "replace_sat", "sat": fact.id, "text": f"use {GITHUB} now"}]}
    apply_answer(cmap, replace)
    assert fact.text == "use [REDACTED:github_token] now"
