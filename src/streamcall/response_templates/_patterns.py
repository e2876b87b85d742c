"""The regular-expression engine response templates are compiled with.

transformers compiles every template pattern (anchors, ``tag_pattern``, the ``json``
dialect rewrites, the transform placeholder) with the third-party ``regex`` package and
``DOTALL``. When ``regex`` is installed (``pip install 'streamcall[templates]'``, and
always beside transformers, which depends on it) streamcall compiles with it too, so a
template means exactly what it means there. Without it, Python's ``re`` is used: it reads
the same syntax for everything the ecosystem's templates use, but a pattern written in
``regex``'s own syntax (``\\p{L}``, ``(?|...)``, variable-length lookbehind) does not
compile, and a few Unicode classes differ (``regex``'s ``\\w`` also matches combining marks
and superscript digits; its ``\\s`` leaves out U+001C..U+001F). docs/response-templates.md
lists these.

Only complete matches are needed here (``search``, ``match``, ``finditer``, ``sub``): a
one-shot parse decides every anchor on the whole text. Partial matching at a buffer's
edge is the streaming parser's concern.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
from types import ModuleType
from typing import Any

__all__ = ["EXTRA_HINT", "REGEX_INSTALLED", "PatternError", "compile_pattern", "engine", "escape"]

EXTRA_HINT = "pip install 'streamcall[templates]'"

# Whether ``regex`` is installed; it is imported on the first compile only.
REGEX_INSTALLED: bool = importlib.util.find_spec("regex") is not None
# Set by tests to run the stdlib path where ``regex`` is installed.
_use_regex: bool = REGEX_INSTALLED


@functools.cache
def _regex() -> ModuleType:
    return importlib.import_module("regex")


class PatternError(ValueError):
    """A pattern that does not compile (the engine's message, and a hint when ``re`` was
    the engine and ``regex`` might have read it)."""


def engine() -> str:
    """``"regex"`` or ``"re"``: the engine new templates are compiled with."""
    return "regex" if _use_regex else "re"


def compile_pattern(source: Any) -> re.Pattern[str]:
    """``source`` compiled with ``DOTALL`` by the current engine.

    A source that does not compile raises :class:`PatternError` with the engine's message;
    a non-string raises ``TypeError`` as both engines do."""
    if _use_regex:
        engine = _regex()
        try:
            compiled: re.Pattern[str] = engine.compile(source, engine.DOTALL)
        except engine.error as exc:
            raise PatternError(str(exc)) from exc
        return compiled
    try:
        return re.compile(source, re.DOTALL)
    except re.error as exc:
        raise PatternError(
            f"{exc} (compiled with Python's re; a pattern in the regex package's own syntax "
            f"needs it: {EXTRA_HINT})"
        ) from exc


def escape(literal: str) -> str:
    """``literal`` as a pattern that matches exactly it."""
    return re.escape(literal)


def uses_search_start(pattern: re.Pattern[str]) -> bool:
    """Whether the pattern's matches depend on where a search starts (``regex``'s ``\\G``),
    so that a match found from an earlier position cannot be reused from a later one."""
    return "\\G" in pattern.pattern
