"""Every `cms` command ends in one line and an exit code, never a traceback on the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

import cms.cli
from cms import paths
from cms.errors import CmsError


def run_with(monkeypatch: pytest.MonkeyPatch, body: object, args: list[str]) -> int:
    """Run the real CLI boundary on an app whose one command runs body."""

    def build() -> typer.Typer:
        app = typer.Typer(pretty_exceptions_enable=False, add_completion=False)

        @app.command()
        def act(name: str = "x") -> None:
            body()  # type: ignore[operator]

        @app.command()
        def other() -> None:
            pass

        return app

    monkeypatch.setattr(cms.cli, "build_app", build)
    with pytest.raises(SystemExit) as done:
        cms.cli.run_cli(args)
    return int(done.value.code or 0)


def fail_unexpectedly() -> None:
    raise RuntimeError("disk said no\nsecond line")


def test_an_unexpected_error_is_one_line_naming_the_log_that_holds_its_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_with(monkeypatch, fail_unexpectedly, ["act"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "RuntimeError: disk said no second line" in err and paths.log_path() in err
    logged = Path(paths.log_path()).read_text(encoding="utf-8")
    assert "unexpected_error Traceback" in logged and "fail_unexpectedly" in logged


def test_a_cms_error_is_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse() -> None:
        raise CmsError("the map is not valid JSON")

    assert run_with(monkeypatch, refuse, ["act"]) == 1
    assert capsys.readouterr().err == "cms: error: the map is not valid JSON\n"


def test_ctrl_c_exits_130_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted() -> None:
        raise KeyboardInterrupt

    assert run_with(monkeypatch, interrupted, ["act"]) == 130
    assert "Traceback" not in capsys.readouterr().err


def test_usage_errors_and_chosen_exit_codes_keep_their_codes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def chosen() -> None:
        raise typer.Exit(4)

    assert run_with(monkeypatch, chosen, ["act"]) == 4
    assert run_with(monkeypatch, chosen, ["act", "--no-such-option"]) == 2
    assert "No such option" in capsys.readouterr().err
    assert run_with(monkeypatch, chosen, ["other"]) == 0


def test_the_search_command_has_the_same_boundary(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import cms.search.command as command

    def broken(*_args: object, **_kw: object) -> None:
        raise ValueError("unexpected")

    def interrupted(*_args: object, **_kw: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "print_search", broken)
    assert command.run_search_argv(["database port"]) == 3
    assert "ValueError: unexpected" in capsys.readouterr().err
    monkeypatch.setattr(command, "print_search", interrupted)
    assert command.run_search_argv(["database port"]) == 130
    assert capsys.readouterr().err == "cms: interrupted\n"
