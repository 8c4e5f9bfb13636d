"""The offline extractor reads an answer's markdown structure as a reader would: code fenced
inside a blockquote is code, a bold lead-in introduces the items below it, a bold numbered line
is one list item, and the headings above an item say whether it is planned or done (issue 12;
the shapes are those of a real planning answer, spotter/subagent.jsonl)."""

from __future__ import annotations

from cms.map.model import new_map
from cms.map.ops import apply_answer
from cms.providers.local import extract_ops
from cms.providers.local.sentences import text_units
from cms.transcripts.exchange import Exchange

PLAN = """## Proposed Beads

### Task 1: Install quality tools and configure Credo

> Install Credo, Dialyxir, and mix_audit via Igniter.
>
> **Output files:**
> - `mix.exs` — updated with three new dependencies
> - `.credo.exs` — generated Credo configuration
>
> Dependencies to add:
> ```elixir
> {:credo, "~> 1.7", only: [:dev, :test], runtime: false}
> ```
>
> **Definition of Done:**
> - `.credo.exs` exists with defaults
"""


def stored(user: str, assistant: str) -> list[str]:
    cmap = new_map("chat", "proj")
    answer = extract_ops(cmap, Exchange(user=user, assistant=assistant, tools=()))
    assert apply_answer(cmap, answer, turn=1).rejected == []
    return [s.text for p in cmap.planets() for s in p.satellites]


def test_code_fenced_inside_a_blockquote_is_not_a_sentence() -> None:
    texts = [u.text for u in text_units(PLAN, "assistant")]
    assert not any("runtime: false" in t for t in texts)


def test_a_bold_lead_in_and_the_headings_above_give_an_item_its_context() -> None:
    units = {u.text: u for u in text_units(PLAN, "assistant")}
    item = units["`mix.exs` — updated with three new dependencies"]
    assert item.context == "output files:"
    assert item.outline == "proposed beads / task 1: install quality tools and configure credo"
    assert item.item


def test_file_lines_and_done_criteria_of_a_proposed_plan_are_not_stored_as_results() -> None:
    facts = stored("Draft the beads for the quality tools.", PLAN)
    assert not any("mix.exs" in f or ".credo.exs" in f for f in facts)


def test_file_lines_of_a_change_summary_are_still_kept() -> None:
    answer = "## Summary\n\nChanged files:\n- `mix.exs` — adds credo and dialyxir as dev deps\n"
    assert "`mix.exs` — adds credo and dialyxir as dev deps" in stored("Add credo.", answer)


def test_a_bold_numbered_line_is_one_item_not_a_sentence_cut_after_its_number() -> None:
    answer = (
        "**1. Configure opentelemetry_ash trace types in config.exs** (the ash tracer is "
        "already configured)\n"
    )
    texts = [u.text for u in text_units(answer, "assistant")]
    assert texts == [
        "Configure opentelemetry_ash trace types in config.exs (the ash tracer is already "
        "configured)"
    ]


def test_only_the_last_sentence_before_a_colon_is_a_lead_in_the_ones_before_it_are_kept() -> None:
    answer = (
        "Now let me run the tests:\n\n309 tests (was 297), all passing. Let me run the full "
        "quality gate:\n\nAll done. The entire **spotter-4te** epic (End-to-end OpenTelemetry "
        "tracing) is complete. Here's a summary of what was accomplished:\n\n- a thing\n"
    )
    units = text_units(answer, "assistant")
    texts = [u.text for u in units if not u.lead]
    assert "309 tests (was 297), all passing." in texts
    assert "The entire spotter-4te epic (End-to-end OpenTelemetry tracing) is complete." in texts
    leads = [u.text for u in units if u.lead]
    assert leads == [
        "Now let me run the tests",
        "Let me run the full quality gate",
        "Here's a summary of what was accomplished",
    ]


def test_things_counted_in_one_sentence_and_named_in_the_next_make_one_rule() -> None:
    facts = stored(
        "Good. From now on, I want you to always import two specific modules in every file, "
        "even if you don't use them. These are the 'mailbox' module and the 'locale' module. "
        "The first helps with notifications.",
        "Understood.",
    )
    joined = [f for f in facts if "always import two specific modules" in f]
    assert joined and "'mailbox' module and the 'locale' module" in joined[0]


def test_a_counted_sentence_is_not_joined_with_a_next_one_that_names_nothing() -> None:
    facts = stored(
        "We benchmarked two different serializers for the cache layer in staging. "
        "They are both slower than msgpack on large payloads.",
        "Noted.",
    )
    assert not any(": both slower" in f for f in facts)


def test_two_rules_joined_by_and_are_stored_apart_so_each_can_change_alone() -> None:
    facts = stored(
        "Onto our coding standards. End all attribute names with '_j' and start all method "
        "names with 'a_'. This keeps the team consistent.",
        "Understood.",
    )
    assert any(f.endswith("attribute names with '_j'") for f in facts)
    assert any(f.startswith("Start all method names with 'a_'") for f in facts)
    assert not any("'_j'" in f and "'a_'" in f for f in facts)


def test_a_second_rule_that_points_back_stays_joined_to_the_first() -> None:
    facts = stored(
        "From now on, I want you to start all function argument names with 'e_', and end them "
        "with '_g'.",
        "Understood.",
    )
    assert any("'e_'" in f and "'_g'" in f for f in facts)
