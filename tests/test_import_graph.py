"""No import cycle inside cms: every module's imports (at any depth, including those inside
functions, but not those under `if TYPE_CHECKING:`) read with ast, relative imports resolved."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from cms.hooks.runner import HANDLER_MODULES

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cms"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import under node, skipping the bodies of `if TYPE_CHECKING:` (not their else)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and is_type_checking(child.test):
            for other in child.orelse:
                yield from import_nodes(ast.Module(body=[other], type_ignores=[]))
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        yield from import_nodes(child)


def imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The cms modules that module `name` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in import_nodes(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            targets = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                for alias in node.names
            ]
        found.update(t for t in targets if t in modules and t != name)
    return found


def import_graph() -> dict[str, set[str]]:
    """Each cms module and the cms modules it imports; the hook runner's event table imports
    its handler modules by name, so those edges are added from the table."""
    modules = all_modules()
    graph = {name: imported(name, path, modules) for name, path in modules.items()}
    graph["cms.hooks.runner"] |= {f"cms.hooks.{name}" for name in HANDLER_MODULES.values()}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as [a, b, ..., a], or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        path = [start]
        stack = [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            step = next(stack[-1], None)
            if step is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(step) == 1:
                return [*path[path.index(step) :], step]
            elif not state.get(step):
                state[step] = 1
                path.append(step)
                stack.append(iter(sorted(graph[step])))
    return None


def test_the_graph_is_read() -> None:
    graph = import_graph()
    assert "cms.paths" in graph["cms.config"]  # `from cms import paths` names the module
    assert "cms.entry" in graph and len(graph) > 50
    assert all(f"cms.hooks.{name}" in graph for name in HANDLER_MODULES.values())  # real modules


def test_the_cycle_finder_names_the_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_inside_cms() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_room_that_reads_english_stands_under_everything_that_asks_it() -> None:
    """cms.language (DESIGN.md section 9) imports only itself and plain helpers: never the
    store, the map, providers, hooks or the CLI that ask it what text says."""
    plain = {"cms", "cms.errors", "cms.jsonio", "cms.lazypattern", "cms.log", "cms.textindex"}
    graph = import_graph()
    above = {
        name: sorted(t for t in targets if not t.startswith("cms.language") and t not in plain)
        for name, targets in graph.items()
        if name.startswith("cms.language")
    }
    assert not {name: found for name, found in above.items() if found}
    assert {"cms.language.subject", "cms.language.wording", "cms.language.factkinds"} <= set(graph)
