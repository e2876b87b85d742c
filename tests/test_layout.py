"""The source tree's shape (issue 47): short modules, no import circle, short functions.

- No module under src/streamcall is over ``MAX_MODULE_LINES`` lines.
- No import circle among streamcall's modules. Every import counts: at module level,
  inside a function, and under ``if TYPE_CHECKING:`` (a circle a type checker sees is still
  a circle a reader must untangle). ``from streamcall.x import y`` is an edge to
  ``streamcall.x.y`` when that is a module, else to ``streamcall.x``; a package's
  ``__init__`` is not counted as imported by importing one of its modules.
- No function in src/streamcall/server/ or src/streamcall/cli/ (the proxy and the command
  line, the rooms a user meets first) is over ``MAX_FUNCTION_LINES`` lines.

The allow-lists name what is still to be fixed (on other branches, or next); each entry is removed when its
fix lands, and an entry that no longer applies fails ``test_allow_lists_are_current``.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "streamcall"

MAX_MODULE_LINES = 750
MAX_FUNCTION_LINES = 100

# Modules allowed over MAX_MODULE_LINES, as paths from the repository's root.
LONG_MODULES_ALLOWED: set[str] = set()
# Server and command-line functions allowed over MAX_FUNCTION_LINES, as "path:name".
LONG_FUNCTIONS_ALLOWED: set[str] = set()
# Import circles allowed, each as the modules of one circle.
CIRCLES_ALLOWED: set[frozenset[str]] = set()


def _modules() -> dict[str, Path]:
    """Every module of the package, by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imported(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The streamcall modules that ``name`` (at ``path``) imports, anywhere in it."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in modules:
                    yield submodule
                elif base in modules:
                    yield base


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: set(_imported(name, path, modules)) - {name} for name, path in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's DFS, iterative):
    each holds every module of one or more import circles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for child in edges:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


def _a_circle(graph: dict[str, set[str]], members: frozenset[str]) -> list[str]:
    """One circle through the component's first module, for the message (the shortest,
    by a breadth-first search back to it)."""
    start = min(members)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here != start and start in graph[here]:
            path = [here]
            while path[-1] != start:
                path.append(came_from[path[-1]])
            return [*reversed(path), start]
        for step in sorted(graph[here] & members):
            if step != start and step not in came_from:
                came_from[step] = here
                queue.append(step)
    return sorted(members)  # (not reached: a component's members reach each other)


def _long_functions() -> dict[str, int]:
    """Every function in server/ and cli/ over the limit, as "path:name" -> lines (``def``
    to its last line; a nested function counts in its own right too)."""
    found: dict[str, int] = {}
    paths = [*(PACKAGE / "server").rglob("*.py"), *(PACKAGE / "cli").rglob("*.py")]
    for path in sorted(paths):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found[f"{path.relative_to(SRC.parent)}:{node.name}"] = lines
    return found


def _line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_750_lines() -> None:
    too_long = [
        f"{path.relative_to(SRC.parent)}: {_line_count(path)} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        if _line_count(path) > MAX_MODULE_LINES
        and str(path.relative_to(SRC.parent)) not in LONG_MODULES_ALLOWED
    ]
    assert not too_long, f"modules over {MAX_MODULE_LINES} lines: {too_long}"


def test_no_import_circle() -> None:
    graph = _graph()
    circles = [c for c in _circles(graph) if c not in CIRCLES_ALLOWED]
    assert not circles, "import circles: " + "; ".join(
        " -> ".join(_a_circle(graph, c)) for c in circles
    )


def test_no_server_or_cli_function_is_over_100_lines() -> None:
    too_long = {
        name: lines
        for name, lines in _long_functions().items()
        if name not in LONG_FUNCTIONS_ALLOWED
    }
    assert not too_long, f"functions over {MAX_FUNCTION_LINES} lines: {too_long}"


def test_allow_lists_are_current() -> None:
    """An allowed exception that no longer occurs is removed from its list."""
    root = SRC.parent
    stale = [
        entry
        for entry in sorted(LONG_MODULES_ALLOWED)
        if not (root / entry).is_file() or _line_count(root / entry) <= MAX_MODULE_LINES
    ]
    stale += sorted(LONG_FUNCTIONS_ALLOWED - set(_long_functions()))
    circles = set(_circles(_graph()))
    stale += [" <-> ".join(sorted(c)) for c in CIRCLES_ALLOWED if c not in circles]
    assert not stale, f"no longer needed, remove from the allow-lists: {stale}"


def test_the_circle_finder_finds_circles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == [frozenset("abc")]
    assert _a_circle(graph, frozenset("abc")) == ["a", "b", "c", "a"]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_imports_are_read_everywhere_in_a_module(tmp_path: Path) -> None:
    """Function-level and TYPE_CHECKING imports count; ``from pkg import mod`` names the
    module, ``from pkg import name`` the package; relative imports resolve."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "from streamcall.partial import incremental\n"
        "from streamcall.partial import PartialJSON\n"
        "from . import stream\n"
        "if TYPE_CHECKING:\n"
        "    from streamcall.chunks.decode import ChunkDelta\n"
        "def f() -> None:\n"
        "    import streamcall.sse\n"
    )
    path = tmp_path / "module.py"
    path.write_text(source, encoding="utf-8")
    modules = dict.fromkeys(
        [
            "streamcall.partial",
            "streamcall.partial.incremental",
            "streamcall.chunks.decode",
            "streamcall.sse",
            "streamcall.response_templates.stream",
        ],
        path,
    )
    got = set(_imported("streamcall.response_templates.module", path, modules))
    assert got == set(modules)
