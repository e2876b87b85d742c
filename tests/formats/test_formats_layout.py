"""The formats package's layout: the engines in ``formats/engines``, each at most 750
lines; beside them, format declarations (each with ``FORMATS``) and the four modules the
formats share: the registry and its classes, sniffing (``auto``), schema typing and the ``hf`` wrapper."""

from __future__ import annotations

import ast
from pathlib import Path

import streamcall

FORMATS_DIR = Path(streamcall.__file__).parent / "formats"
SHARED = {"__init__", "registry", "classes", "auto", "schema", "hf"}


def _top_level_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def test_no_engine_file_is_over_750_lines() -> None:
    engines = sorted((FORMATS_DIR / "engines").glob("*.py"))
    assert len(engines) >= 7
    for path in engines:
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines <= 750, f"formats/engines/{path.name} has {lines} lines"


def test_the_formats_directory_holds_declarations_and_the_shared_modules() -> None:
    for path in sorted(FORMATS_DIR.glob("*.py")):
        if path.stem in SHARED:
            continue
        assert not path.stem.startswith("_"), f"formats/{path.name}: an engine belongs in engines/"
        assert "FORMATS" in _top_level_names(path), f"formats/{path.name} declares no FORMATS"


def test_no_engine_declares_a_format() -> None:
    for path in sorted((FORMATS_DIR / "engines").glob("*.py")):
        assert "FORMATS" not in _top_level_names(path), path.name
