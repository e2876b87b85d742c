"""The recorded model outputs bundled under ``streamcall/examples/`` (package data).

``examples/index.json`` lists each file with the model that wrote it, the tool-call format
and the reasoning format to read it with. The command line reads them by name
(``streamcall parse examples/hermes_think.txt`` works from any directory), and the proxy's
built-in upstream replays them. This module only reads files; it holds no state beyond a
cached index.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

__all__ = ["Example", "example_dir", "examples", "find_example", "resolve_path"]


@dataclass(frozen=True, slots=True)
class Example:
    """One bundled recording."""

    file: str
    model: str
    format: str | None
    reasoning: str | None
    about: str
    path: Path

    @property
    def is_sse(self) -> bool:
        """An SSE capture (bytes as a server sent them), not raw model text."""
        return self.file.endswith(".sse")

    def read_bytes(self) -> bytes:
        return self.path.read_bytes()


def example_dir() -> Path:
    """Where the bundled examples live (inside the installed package)."""
    return Path(str(resources.files("streamcall") / "examples"))


@lru_cache(maxsize=1)
def examples() -> tuple[Example, ...]:
    """Every bundled example, in index order; empty if the package data is missing."""
    base = example_dir()
    try:
        index = json.loads((base / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    out: list[Example] = []
    for entry in index.get("examples", []):
        out.append(
            Example(
                file=entry["file"],
                model=entry["model"],
                format=entry.get("format"),
                reasoning=entry.get("reasoning"),
                about=entry.get("about", ""),
                path=base / entry["file"],
            )
        )
    return tuple(out)


def find_example(name: str) -> Example | None:
    """The example whose file name or model id is ``name`` (model ids case-insensitive)."""
    lowered = name.lower()
    for ex in examples():
        if ex.file == name or ex.model.lower() == lowered:
            return ex
    return None


def resolve_path(path: str) -> Path | None:
    """``path`` if it exists; else, for ``examples/NAME``, the bundled copy; else None.

    Only the ``examples/`` prefix reaches the bundled copies: a bare name that is not in
    the current folder (``tools.json``) is missing, not silently another file."""
    p = Path(path)
    if p.exists():
        return p
    parts = p.parts
    if len(parts) == 2 and parts[0] == "examples":
        candidate = example_dir() / parts[-1]
        if candidate.is_file():
            return candidate
    return None
