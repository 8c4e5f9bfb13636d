"""Usage accounting and the daily token budget (dates injected, never slept through)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from cms import paths
from cms.errors import BudgetExhaustedError, StoreError
from cms.providers.anthropic_api import AnthropicProvider
from cms.providers.model_calls import ask_for_ops
from cms.providers.usage import check_budget, record_usage, summarize_usage, tokens_spent
from tests.fakes.anthropic_server import FakeAnthropicServer, FakeReply

from .conftest import log_lines, make_config

DAY1 = datetime(2026, 3, 1, 23, 50, tzinfo=UTC)
DAY2 = datetime(2026, 3, 2, 0, 5, tzinfo=UTC)


def test_budget_stops_calls_once_spent_logs_once_and_resumes_the_next_utc_day(
    api_env: FakeAnthropicServer,
) -> None:
    api_env.push(*[FakeReply('{"ops": []}', input_tokens=40, output_tokens=20) for _ in range(3)])
    config = make_config(daily_token_budget=100)
    provider = AnthropicProvider(config.provider)
    now = DAY1

    def ask() -> object:
        return ask_for_ops(
            provider,
            config,
            map_view="",
            exchange_text="x",
            reasons=None,
            project="p",
            clock=lambda: now,
        )

    assert ask() == {"ops": []}  # 0 spent -> 60
    assert ask() == {"ops": []}  # 60 spent (< 100) -> 120
    for _ in range(3):
        with pytest.raises(BudgetExhaustedError, match="100"):
            ask()
    assert len(api_env.message_requests) == 2
    assert len(log_lines("budget_exhausted")) == 1
    assert log_lines("provider_error") == []

    now = DAY2
    assert ask() == {"ops": []}
    assert len(api_env.message_requests) == 3
    assert tokens_spent(DAY2.date()) == 60


def test_a_zero_budget_means_no_limit() -> None:
    record_usage(
        provider="anthropic",
        model="m",
        project="p",
        purpose="update",
        input_tokens=10**9,
        output_tokens=1,
        when=DAY1,
    )
    check_budget(make_config(daily_token_budget=0), today=DAY1.date())


def test_the_budget_notice_is_logged_once_per_day() -> None:
    config = make_config(daily_token_budget=10)
    for when in (DAY1, DAY2):
        record_usage(
            provider="claude_cli",
            model="m",
            project="p",
            purpose="search",
            input_tokens=8,
            output_tokens=5,
            when=when,
        )
    for day in (DAY1.date(), DAY1.date(), DAY2.date(), DAY2.date()):
        with pytest.raises(BudgetExhaustedError):
            check_budget(config, today=day)
    assert len(log_lines("budget_exhausted")) == 2


def test_summary_groups_by_day_project_model_and_purpose() -> None:
    rows = [
        ("a", "update", "m1", 10, 1, DAY1),
        ("a", "search", "m1", 20, 2, DAY2),
        ("b", "update", "m2", 30, 3, DAY2),
    ]
    for project, purpose, model, tin, tout, when in rows:
        record_usage(
            provider="anthropic",
            model=model,
            project=project,
            purpose=purpose,
            input_tokens=tin,
            output_tokens=tout,
            when=when,
        )
    summary = summarize_usage(make_config(daily_token_budget=100), today=date(2026, 3, 2))
    assert summary["total"] == {"calls": 3, "input_tokens": 60, "output_tokens": 6}
    assert summary["today"]["calls"] == 2 and summary["today"]["day"] == "2026-03-02"
    assert [d["day"] for d in summary["by_day"]] == ["2026-03-02", "2026-03-01"]
    assert {p["project"]: p["calls"] for p in summary["by_project"]} == {"a": 2, "b": 1}
    assert {m["model"]: m["input_tokens"] for m in summary["by_model"]} == {"m1": 30, "m2": 30}
    assert summary["budget"] == {"daily_tokens": 100, "spent_today": 55, "remaining_today": 45}


def test_summary_of_nothing_creates_no_file() -> None:
    summary = summarize_usage()
    assert summary["total"]["calls"] == 0
    assert not Path(paths.usage_path()).exists()


def test_a_corrupt_usage_file_never_blocks_calls_but_stats_report_it() -> None:
    Path(paths.usage_path()).parent.mkdir(parents=True, exist_ok=True)
    Path(paths.usage_path()).write_bytes(b"this is not a database" * 100)
    record_usage(
        provider="x", model="m", project="p", purpose="update", input_tokens=1, output_tokens=1
    )
    check_budget(make_config(daily_token_budget=5))
    assert len(log_lines("usage_error")) == 2
    with pytest.raises(StoreError):
        summarize_usage()


def test_usage_rows_are_real_sqlite_rows() -> None:
    record_usage(
        provider="anthropic",
        model="m",
        project="p",
        purpose="observe",
        input_tokens=-5,
        output_tokens=7,
        when=DAY1,
    )
    with sqlite3.connect(paths.usage_path()) as conn:
        rows = conn.execute(
            "SELECT day, purpose, input_tokens, output_tokens FROM calls"
        ).fetchall()
    assert rows == [("2026-03-01", "observe", 0, 7)]
