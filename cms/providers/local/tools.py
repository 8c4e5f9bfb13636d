"""What the local extractor keeps from tool calls: commands that matter, changed files, todo lists.

Shell commands become facts only when they build, test, check, migrate, install or run
something (never `ls` or `cat`), and errors only when the last run of a command failed; written
files are named relative to the project. Pure rules on one exchange: no map, no I/O.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from cms.providers.local.sentences import Candidate, strip_markdown, trim_fact
from cms.textindex import tokenize
from cms.transcripts.exchange import Exchange, ToolCall

_SHELL_TOOLS = frozenset(
    re.findall(
        r"\S+",
        """bash shell exec_command local_shell
    run_shell_command shell_command execute_command terminal run_terminal_cmd""",
    )
)
_WRITE_TOOLS = frozenset({"write", "create_file", "write_file"})
_EDIT_TOOLS = frozenset(
    re.findall(
        r"\S+",
        """edit multiedit notebookedit str_replace_editor
    edit_file apply_patch str_replace_based_edit_tool replace patch""",
    )
)
PLAN_TOOLS = frozenset({"todowrite", "update_plan"})
_REJECTED = re.compile(
    r"doesn't want to proceed|tool use was rejected|permission|interrupted", re.I
)
_VIEWERS = frozenset(
    re.findall(
        r"\S+",
        """head tail grep rg less more tee wc sort uniq cat jq sed
    awk cut tr column true""",
    )
)
_ROOTS = frozenset(
    re.findall(
        r"\S+",
        """src lib app apps tests test spec config docs doc scripts
    bin cmd pkg internal assets priv public components pages types hooks packages crates
    migrations db web server client api include examples bench tools .github""",
    )
)

_COMMAND_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "test",
        re.compile(
            r"^(?:python3?\s+-m\s+)?(?:pytest|tox|nox|jest|vitest|rspec|phpunit|ctest)\b|"
            r"^(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|^(?:mix|cargo|go|deno|dotnet|gradle|mvn|"
            r"make|bun)\s+test\b|^bundle\s+exec\s+rspec\b|^npx\s+(?:jest|vitest|playwright)\b|"
            r"^\./gradlew\s+test\b|^(?:\./)?scripts/test\b"
        ),
    ),
    (
        "check",
        re.compile(
            r"^(?:python3?\s+-m\s+)?(?:ruff|mypy|flake8|black|pylint|isort)\b|^(?:npx\s+)?(?:eslint|"
            r"tsc|prettier|biome)\b|^golangci-lint\b|^cargo\s+(?:clippy|fmt|check)\b|^mix\s+(?:credo|"
            r"dialyzer|format|quality|deps\.audit)\b|^(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:lint|"
            r"typecheck|format|check)\b|^pre-commit\b|^make\s+(?:lint|check|fmt)\b"
        ),
    ),
    (
        "migrate",
        re.compile(
            r"^alembic\b|^mix\s+ecto\.|^(?:bin/)?(?:rails|rake)\s+db:|manage\.py\s+(?:migrate|"
            r"makemigrations)\b|^(?:npx\s+)?prisma\s+(?:migrate|db)\b|^(?:npx\s+)?knex\s+migrate|"
            r"^flyway\b|^sqlx\s+migrate\b|^diesel\s+migration\b"
        ),
    ),
    (
        "build",
        re.compile(
            r"^(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?build\b|^cargo\s+build\b|^go\s+build\b|"
            r"^mix\s+compile\b|^docker(?:\s+compose|-compose)?\s+build\b|^make(?:\s+[\w-]+)?$|"
            r"^(?:gradle|\./gradlew)\s+build\b|^mvn\s+(?:package|install|compile)\b|"
            r"^python3?\s+-m\s+build\b|^cmake\b|^tsc\s+-b\b"
        ),
    ),
    (
        "install",
        re.compile(
            r"^(?:python3?\s+-m\s+)?pip3?\s+install\b|^uv\s+(?:add|sync|pip\s+install)\b|"
            r"^poetry\s+(?:add|install)\b|^(?:npm|pnpm)\s+(?:install|i|ci|add)\b|^yarn(?:\s+(?:add|"
            r"install)\b|$)|^mix\s+(?:deps\.get|igniter\.install)\b|^cargo\s+add\b|"
            r"^go\s+(?:get|mod\s+tidy)\b|^bundle\s+install\b|^gem\s+install\b|"
            r"^(?:sudo\s+)?(?:apt|apt-get|brew)\s+install\b|^npx\s+create-"
        ),
    ),
    (
        "run",
        re.compile(
            r"^(?:npm|pnpm|yarn|bun)\s+(?:start|dev|run\s+[\w:-]+)\b|^mix\s+(?:phx\.server|run)\b|"
            r"^iex\s+-S\s+mix\b|^cargo\s+run\b|^go\s+run\b|^python3?\s+(?:-m\s+[\w.]+|[\w./-]+\.py)|"
            r"^node\s+[\w./-]+|^(?:uvicorn|gunicorn|hypercorn)\b|^flask\s+run\b|"
            r"manage\.py\s+runserver\b|^(?:bin/)?rails\s+(?:s|server)\b|"
            r"^docker(?:\s+compose|-compose)\s+up\b|^docker\s+run\b|^deno\s+run\b|"
            r"^\./[\w./-]+|^(?:bin|scripts)/[\w./-]+"
        ),
    ),
)
_TEMPLATES = {
    "test": "Run the tests with `{}`",
    "check": "Check the code with `{}`",
    "migrate": "Run migrations with `{}`",
    "build": "Build with `{}`",
    "install": "Install dependencies with `{}`",
    "run": "Run with `{}`",
}
_COMMAND_SCORE = {
    "test": 4.0,
    "migrate": 4.0,
    "build": 3.5,
    "run": 3.5,
    "check": 3.0,
    "install": 3.0,
}


# -- commands ------------------------------------------------------------------------------------


_STEP_SEPARATOR = re.compile(r"\s*(;|&&)\s*")
_PRINTED = re.compile(r"(?:echo|printf|clear|true)\b")


def clean_command(command: str) -> str:
    """The command without `cd dir &&` prefixes, output plumbing and trailing pagers."""
    line = command.strip().splitlines()[0] if command.strip() else ""
    line = re.sub(r"<<-?\s*['\"]?\w+['\"]?.*$", "", line)
    line = re.sub(r"^(?:\$\s+)?(?:cd\s+\S+\s*(?:&&|;)\s*)+", "", line.strip())
    segments = [s.strip() for s in re.split(r"\s+\|\s+|\s*\|\|\s*", line)]
    kept = [segments[0]]
    for segment in segments[1:]:
        if segment.split(" ")[0] in _VIEWERS:
            break
        kept.append(segment)
    line = " | ".join(kept)
    line = re.sub(r"\s*(?:2>&1|>\s*/dev/null|2>\s*/dev/null|&)\s*$", "", line)
    line = re.sub(r"\s*(?:2>&1|>\s*/dev/null)\s*", " ", line)
    steps = _STEP_SEPARATOR.split(line)  # a separator printed between steps is no step
    while len(steps) > 1 and _PRINTED.match(steps[-1] or "echo"):
        steps = steps[:-2]
    for i in range(len(steps) - 3, -1, -2):
        if _PRINTED.match(steps[i]):
            del steps[i : i + 2]
    return re.sub(r"\s+", " ", " ".join(steps)).strip()


def command_kind(command: str) -> str | None:
    """test, check, migrate, build, install or run; None for commands not worth keeping."""
    for part in re.split(r"\s*(?:&&|;)\s*", clean_command(command)):
        part = re.sub(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+", "", part)
        for kind, pattern in _COMMAND_KINDS:
            if pattern.search(part):
                return kind
    return None


def command_candidate(
    command: str, order: int, runs: int = 1, from_text: bool = False
) -> Candidate | None:
    """`Run the tests with `pytest -q``, or None for a command that does not matter."""
    kind = command_kind(command)
    if kind is None:
        return None
    shown = trim_fact(clean_command(command), 150)
    score = _COMMAND_SCORE[kind] + 0.3 * min(runs - 1, 3) - (0.5 if from_text else 0.0)
    return Candidate(_TEMPLATES[kind].format(shown), "command", score, order)


def _fields(raw: str) -> dict[str, Any]:
    """The tool input as a dict; from truncated JSON, the string fields that survived."""
    text = raw.strip()
    if not text.startswith("{"):
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        return data
    found: dict[str, Any] = {}
    for key in ("command", "cmd", "file_path", "path", "notebook_path", "content", "workdir"):
        match = re.search(rf'"{key}"\s*:\s*"((?:[^"\\]|\\.)*)', text)
        if match:
            try:
                found[key] = json.loads(f'"{match.group(1)}"')
            except ValueError:
                found[key] = match.group(1)
    return found


def tool_command(tool: ToolCall) -> str | None:
    """The shell command a tool call ran, when it is a shell tool."""
    name = tool.name.lower()
    if name not in _SHELL_TOOLS and "bash" not in name:
        return None
    data = _fields(tool.input)
    value = data.get("command", data.get("cmd")) if data else tool.input
    if isinstance(value, list):
        words = [str(v) for v in value]
        value = words[-1] if len(words) == 3 and words[1] in ("-lc", "-c") else " ".join(words)
    return value.strip() if isinstance(value, str) and value.strip() else None


# -- files --------------------------------------------------------------------------------------


def tool_paths(tool: ToolCall) -> list[str]:
    """Files a write or edit tool call changed (empty for other tools)."""
    name = tool.name.lower()
    if name not in _WRITE_TOOLS and name not in _EDIT_TOOLS:
        return []
    patched = re.findall(r"\*\*\* (?:Add|Update|Delete) File: (\S+)", tool.input)
    patched = patched or re.findall(r"(?:^|,\s*)(?:Add|Update|Delete) (\S+?)(?=,|$)", tool.input)
    if patched:
        return list(dict.fromkeys(patched))
    data = _fields(tool.input)
    for key in ("file_path", "path", "notebook_path", "filename"):
        if isinstance(data.get(key), str) and data[key].strip():
            return [data[key].strip()]
    first = tool.input.strip().splitlines()[0] if tool.input.strip() else ""
    return [first] if re.fullmatch(r"[\w~./\\:-]+\.\w{1,8}", first) else []


def edited_paths(exchange: Exchange) -> list[str]:
    return list(dict.fromkeys(p for t in exchange.tools if not t.is_error for p in tool_paths(t)))


_DOC_LINE = re.compile(
    r'@moduledoc\s+"""\s*\n\s*(.+)|^\s*(?:"""|\'\'\')\s*(.+)|^\s*(?://+|#+|/\*+|\*)\s*(.+)', re.M
)


def _purpose(tool: ToolCall) -> str:
    """The first docstring or comment line of a written file's content."""
    content = _fields(tool.input).get("content")
    if not isinstance(content, str):
        return ""
    for match in _DOC_LINE.finditer(content[:1500]):
        line = next(g for g in match.groups() if g).strip().rstrip('"*/ ').strip()
        if len(tokenize(line)) >= 3 and not line.startswith(("!", "-*-", "@")):
            return trim_fact(line, 110)
    return ""


class PathNamer:
    """Project-relative display names for the absolute paths seen in one exchange."""

    def __init__(self, exchange: Exchange) -> None:
        cwd = exchange.extra.get("cwd", "")
        roots = [cwd] if cwd else []
        for tool in exchange.tools:  # `cd <root> && ...` and Codex `workdir`
            data = _fields(tool.input)
            if isinstance(data.get("workdir"), str):
                roots.append(data["workdir"])
            command = tool_command(tool) or ""
            roots += re.findall(r"^\s*cd\s+(/\S+)\s*(?:&&|;)", command)
        prefixes: Counter[str] = Counter()
        for path in [*edited_paths(exchange), *exchange.files]:
            segs = path.replace("\\", "/").split("/")
            for i, seg in enumerate(segs[1:-1], start=1):
                if seg in _ROOTS:
                    prefixes["/".join(segs[:i]) + "/"] += 1
                    break
        ordered = [r.rstrip("/") + "/" for r in roots if r.strip("/")]
        ordered += sorted(prefixes, key=lambda p: (len(p), p))  # the shortest root is the project
        self.prefixes = list(dict.fromkeys(ordered))

    def name(self, path: str) -> str:
        path = path.replace("\\", "/")
        for prefix in self.prefixes:
            if path.startswith(prefix) and len(path) > len(prefix):
                return path[len(prefix) :]
        return path.rsplit("/", 1)[-1] if path.startswith(("/", "~")) else path

    def project_words(self) -> set[str]:
        """Words of the project's own folder names (bad topic titles: they name everything)."""
        words = {"home", "users", "tmp", "projects", "repos", "src"}
        for prefix in self.prefixes:
            for seg in prefix.lower().strip("/").split("/")[-2:]:
                words.add(seg)
                words.update(w for w in re.split(r"[_.-]+", seg) if w)
        return words

    def shorten(self, text: str) -> str:
        for prefix in self.prefixes:
            text = text.replace(prefix, "")
        return text


# -- all tool facts --------------------------------------------------------------------------------


def _error_line(output: str) -> str:
    for line in output.splitlines():
        line = line.strip()
        wrong = re.search(
            r"error|exception|failed|fatal|traceback|cannot|undefined|not found", line, re.I
        )
        if wrong and not line.lower().startswith("exit code"):
            return trim_fact(strip_markdown(line), 110)
    return ""


def _command_facts(exchange: Exchange, start: int) -> list[Candidate]:
    runs: Counter[str] = Counter()
    last: dict[str, tuple[int, ToolCall]] = {}  # the last run of each command decides
    for order, tool in enumerate(exchange.tools, start=start):
        command = tool_command(tool)
        if command is None or (tool.is_error and _REJECTED.search(tool.output)):
            continue
        if command_kind(command):
            key = clean_command(command)
            runs[key] += 1
            last[key] = (order, tool)
    out: list[Candidate] = []
    for key, (order, tool) in last.items():
        if not tool.is_error and _variant_of_better(key, runs, last):
            continue
        if not tool.is_error:
            cand = command_candidate(key, order, runs[key])
            out += [cand] if cand else []
        elif line := _error_line(tool.output):
            out.append(
                Candidate(trim_fact(f"`{trim_fact(key, 80)}` failed: {line}"), "error", 4.0, order)
            )
    return out


def _variant_of_better(key: str, runs: Counter[str], last: dict[str, tuple[int, ToolCall]]) -> bool:
    """Another successful command of the same kind and program ran more often this turn (ties:
    the shorter one, the plain form): `mix test --seed 0` is a variant of `mix test`. One fact
    says how the project runs its tests, not one per flag tried."""

    def head(command: str) -> tuple[str | None, tuple[str, ...]]:
        return command_kind(command), tuple(command.split()[:2])

    mine = head(key)
    return any(
        other != key
        and not tool.is_error
        and head(other) == mine
        and (runs[other], -len(other)) > (runs[key], -len(key))
        for other, (_, tool) in last.items()
    )


def _file_facts(exchange: Exchange, namer: PathNamer, start: int) -> list[Candidate]:
    """A created file whose content opens with a docstring or header comment: what it is for
    ("Created src/billing/tax.py: VAT rules per country for invoices."). A bare list of the
    files a turn edited is not kept: it says nothing the repository's history does not."""
    written: dict[str, tuple[str, str, int]] = {}  # name -> (verb, purpose, order)
    for order, tool in enumerate(exchange.tools, start=start):
        if tool.is_error:
            continue
        for path in tool_paths(tool):
            name = namer.name(path)
            verb, purpose, first = written.get(name, ("", "", order))
            if tool.name.lower() in _WRITE_TOOLS and "updated" not in tool.output.lower():
                verb = verb or "Created"
            written[name] = (verb or "Edited", purpose or _purpose(tool), first)
    return [
        Candidate(trim_fact(f"{verb} {name}: {purpose}"), "file", 3.5, order)
        for name, (verb, purpose, order) in written.items()
        if purpose
    ]


_PLAN_ITEM = re.compile(
    r'"(?:content|step)"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"status"\s*:\s*"(\w+)"'
)


def plan_items(tool: ToolCall) -> list[tuple[str, str]]:
    """The (text, status) items of a todo-list call (a PLAN_TOOLS tool), in the list's order."""
    data = _fields(tool.input)
    items = data.get("todos", data.get("plan"))
    if isinstance(items, list):
        return [
            (str(i.get("content", i.get("step", ""))), str(i.get("status", "")))
            for i in items
            if isinstance(i, dict)
        ]
    found = [(m.group(1), m.group(2)) for m in _PLAN_ITEM.finditer(tool.input)]
    return found or re.findall(r"\s*([^;]+?)\s+\[(\w+)\](?:;|$)", tool.input)


def _plan_facts(exchange: Exchange, start: int) -> list[Candidate]:
    """Open items of the agent's last todo list become TODO facts; finished ones retire them."""
    plans = [t for t in exchange.tools if t.name.lower() in PLAN_TOOLS and not t.is_error]
    if not plans:
        return []
    out: list[Candidate] = []
    items = sorted(plan_items(plans[-1]), key=lambda item: item[1] != "in_progress")
    for order, (text, status) in enumerate(items, start=start):
        text = strip_markdown(text)
        if len(tokenize(text)) < 2:
            continue
        if status == "completed":
            out.append(Candidate(trim_fact(text), "done", 0.0, order, revert=True))
        elif sum(c.kind == "todo" for c in out) < 3:
            out.append(Candidate(trim_fact("TODO: " + text), "todo", 3.0, order))
    return out


def tool_candidates(exchange: Exchange, namer: PathNamer, start: int) -> list[Candidate]:
    """Command, error, file and todo facts of the exchange's tool calls."""
    return (
        _command_facts(exchange, start)
        + _file_facts(exchange, namer, start)
        + _plan_facts(exchange, start + 2 * len(exchange.tools) + 1)
    )
