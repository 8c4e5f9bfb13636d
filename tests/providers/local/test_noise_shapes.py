"""Each class of noise the hand labels found (issue 12), in the shapes real sessions wrote it,
is left out by the offline extractor, while the statement next to it is kept whole."""

from __future__ import annotations

from cms.language.shapes import (
    is_appraisal,
    is_cheer,
    is_code_line,
    is_encouragement,
    is_menu_item,
    is_verdict_cell,
    refers_to_rule,
)
from cms.map.model import new_map
from cms.map.ops import apply_answer
from cms.providers.local import extract_ops
from cms.transcripts.exchange import Exchange, ToolCall


def stored(user: str, assistant: str = "") -> list[str]:
    cmap = new_map("chat", "proj")
    answer = extract_ops(cmap, Exchange(user=user, assistant=assistant, tools=()))
    assert apply_answer(cmap, answer, turn=1).rejected == []
    return [s.text for p in cmap.planets() for s in p.satellites]


def test_a_code_line_in_the_answer_is_not_filed_as_a_fix() -> None:
    line = "} catch (error) { logger.error('[SessionOrchestrator] Failed to start session', error);"
    assert is_code_line(line)
    assert not is_code_line("The fix wraps `startSession()` in a try/catch and logs the error.")
    facts = stored("Why does the session crash?", f"The handler now reads:\n\n{line}\n")
    assert not any("SessionOrchestrator" in f for f in facts)


def test_menu_options_and_checklist_items_are_not_results() -> None:
    assert is_menu_item("[b] Begin Development (implement the adapter now)")
    assert is_menu_item("- [ ] End-to-end test passes")
    assert is_verdict_cell("Streaming support \u2026 \u274c No")
    answer = (
        "What next?\n\n[a] Review the spec again\n[b] Begin Development (implement the adapter "
        "now)\n\n## Acceptance criteria\n\n- End-to-end test passes\n- Adapter registered\n"
    )
    facts = stored("Write the adapter spec.", answer)
    assert not any("Begin Development" in f or "End-to-end test passes" in f for f in facts)


def test_cheers_and_praise_are_not_memory() -> None:
    assert is_cheer("The spec is now ready for development! \U0001f680")
    assert is_cheer("Voting is a fantastic idea, Jacob!")
    assert is_appraisal("Linters are a great tool, not just for catching errors.")
    assert is_appraisal("This helps ensure that your code is robust and errors are managed.")
    assert not is_appraisal("It's important to run the migrations before the deploy.")
    facts = stored("Great work!", "The spec is now ready for development! \U0001f680")
    assert facts == []


def test_a_rule_pointed_at_or_announced_is_left_for_the_rule_itself() -> None:
    assert refers_to_rule("Remember to always follow this convention in your Python code.")
    assert refers_to_rule(
        "From now on, I need you to start all your function names with a specific prefix."
    )
    assert not refers_to_rule("From now on, start all your function names with 'c_'.")


def test_a_filler_opening_is_dropped_and_everything_after_it_kept() -> None:
    facts = stored(
        "One more thing: we never use an ORM in this repo. We write raw SQL with psycopg 3.",
        "Understood.",
    )
    assert "We never use an ORM in this repo." in facts
    assert "We write raw SQL with psycopg 3." in facts


def test_a_coding_rule_without_a_cue_word_is_a_fact() -> None:
    facts = stored(
        "When naming function arguments from now on, I want you to start the variable name "
        "with 'j_'.",
        "Got it.",
    )
    assert any("'j_'" in f for f in facts)


def test_a_long_answer_that_settles_several_things_keeps_each_of_them() -> None:
    answer = "\n".join(
        f"- Created `lib/part_{i}.ex` with the {name} handler"
        for i, name in enumerate(
            "join input resize stream close open flush retry drain reset ping trace".split()
        )
    )
    facts = stored("Implement the terminal channel handlers.", "Summary of changes:\n\n" + answer)
    assert sum("lib/part_" in f for f in facts) == 12


def test_encouragement_hedged_opinions_and_open_options_are_not_memory() -> None:
    assert is_encouragement("Don't be afraid to speak up and share your thoughts.")
    assert is_encouragement(
        "I also think it might help us feel more connected as a team, especially if we use "
        "video conferencing for those meetings."
    )
    assert is_appraisal("It's all part of making sure the team is happy and productive.")
    assert is_appraisal(
        'Google\'s famous "20% time" policy, which allowed employees to work on personal '
        "projects, is a great example of this."
    )
    assert refers_to_rule("I'll keep these points in mind as I continue my work here.")
    facts = stored(
        "We can also use fitness trackers or even have folks self-report their steps if they "
        "prefer privacy.",
        "Sounds good.",
    )
    assert facts == []


def test_a_request_done_in_its_own_turn_is_not_kept_as_a_task() -> None:
    answer = "Updated CLAUDE.md with the current project structure and the new test commands."
    facts = stored("update CLAUDE.md for current changes", answer)
    assert not any(f.startswith("Task:") for f in facts)
    assert stored("Investigate why mix phx.server does not start.", "Sure.") == [
        "Task: Investigate why mix phx.server does not start."
    ]


def test_a_rule_restated_as_the_agents_commitment_and_a_choice_without_cue_words_are_kept() -> None:
    facts = stored(
        "Firstly, going forward, we'll be using GitHub as our main version control system.",
        "Okay, I'll make sure to include docstrings in all my methods from now on.",
    )
    assert "Going forward, we'll be using GitHub as our main version control system." in facts
    assert "I'll make sure to include docstrings in all my methods from now on." in facts
    assert stored("Hello!", "I'll take a look at the logs now.") == []


def test_the_importance_of_a_named_practice_is_the_rule_and_of_a_vague_one_is_not() -> None:
    assert not refers_to_rule("I want to emphasize the importance of docstrings in our functions.")
    assert not refers_to_rule(  # the practice named a few words after "of"
        "Additionally, I want to emphasize the importance of always using annotations for your "
        "methods."
    )
    assert refers_to_rule(
        "As you begin your work here, I want to emphasize the importance of consistent coding "
        "practices."
    )


def test_titles_name_the_subject_never_a_sentence_opener_or_a_tool() -> None:
    cmap = new_map("chat", "proj")
    exchange = Exchange(
        user="Additionally, the compaction threshold must be 0.9 in the generated OpenCode config.",
        assistant="Firstly, the OpenCode config now sets compaction threshold 0.9.",
        tools=(ToolCall("multi_tool_use.parallel", "{}", ""),),
    )
    apply_answer(cmap, extract_ops(cmap, exchange), turn=1)
    titles = [s.title for s in cmap.suns] + [p.title for p in cmap.planets()]
    assert titles
    assert not any(t.split()[0] in ("Additionally", "Firstly") for t in titles)
    assert not any("multi_tool_use" in t for t in titles)


def test_an_open_task_closed_in_a_later_turn_is_no_longer_kept_as_open() -> None:
    cmap = new_map("chat", "proj")
    first = Exchange(
        user="Work on the tracing epic.",
        assistant="### Next Steps\nThe remaining tasks are:\n"
        "- spotter-4te.4: Enable opentelemetry_ash and trace async enrichment\n"
        "- spotter-4te.5: Trace LiveView and TerminalChannel\n",
        tools=(),
    )
    apply_answer(cmap, extract_ops(cmap, first), turn=1)
    assert any("spotter-4te.4" in s.text for p in cmap.planets() for s in p.satellites)
    second = Exchange(
        user="Continue.",
        assistant="Both are finished.",
        tools=(
            ToolCall(
                "Bash", '{"command": "bd close spotter-4te.4"}', "Closed spotter-4te.4: Closed"
            ),
        ),
    )
    apply_answer(cmap, extract_ops(cmap, second), turn=2)
    texts = [s.text for p in cmap.planets() for s in p.satellites]
    assert not any("spotter-4te.4" in t for t in texts)
    assert any("spotter-4te.5" in t for t in texts)  # still open: it was not closed


def test_a_list_item_takes_its_kind_from_the_heading_above_it() -> None:
    answer = (
        "## Out of scope\n\n- No CI integration for the quality checks yet\n\n"
        "## Tech Stack\n\n- Next.js 15.5.2 with the App Router\n- Tailwind CSS 4\n"
    )
    facts = stored("Write the plan for the quality tools.", answer)
    assert "No CI integration for the quality checks yet" in facts
    assert "Next.js 15.5.2 with the App Router" in facts


def test_office_talk_with_a_company_name_or_a_verb_that_looks_like_code_is_not_memory() -> None:
    # MemoryCode mentor shapes: a company's name at the end, "commit to" as a verb, an idiom
    # behind a fronted phrase, a quotation whose closing mark ends the sentence
    facts = stored(
        "We're a team, and we want to make sure you have the best experience possible as a new "
        "member of ORBIT. I want you to commit to taking at least seven days of vacation per "
        "year. As for stability, we can never be too thorough in our testing.",
        "As Edison said, \"I've just found 10,000 ways that won't work.\" It's all about "
        "reframing our perspective on failure.",
    )
    assert facts == []


def test_error_handling_as_a_feature_is_not_a_problem_seen() -> None:
    facts = stored(
        "Build the TODO app.", "## Features\n- Complete CRUD operations with error handling"
    )
    assert facts == []
    assert stored("Why is it broken?", "The `fetchTodos()` call throws an error on an empty list.")


def test_emphasising_the_value_of_a_quality_announces_no_rule_even_with_apostrophes() -> None:
    # "we're ... it's" once read as a quoted literal ('re using ... it'), which exempted it
    assert refers_to_rule(
        "As we're using agile methodologies, I think it's important to emphasize the value of "
        "adaptability and quick response to change."
    )
    assert not refers_to_rule("From now on, start all your function names with 'c_'.")


def test_a_feature_line_ending_in_a_noun_spelled_like_a_verb_is_not_a_learning() -> None:
    # "support" or "return" ending a line names a thing ("Full TypeScript support"), while a
    # learning verb with what it says after it, or a two-word cue ending it, is a statement
    answer = "## Highlights\n- \u2705 Full GraphQL support\n- \u2705 Offline mode\n"
    assert stored("Build the notes app.", answer) == []
    facts = stored(
        "Why is the token empty?",
        "`load_token()` returns an empty string when `TOKEN_FILE` is unset. "
        "The `.envrc` file in `src/` is ignored.",
    )
    assert any("returns an empty string" in f for f in facts)
    assert any(".envrc" in f and "ignored" in f for f in facts)
