"""Model-id routing: an ordered table of patterns, the first that matches an id wins.

Both routing tables (``formats.registry.ROUTES`` for tool calls,
``reasoning.REASONING_ROUTES`` for reasoning) are read here. A pattern is a
case-insensitive substring of the model id (``qwen3-coder``), or several substrings that
must occur in that order, joined by ``*`` (``qwen3*instruct``: a Qwen3 id naming an
instruct variant, ``Qwen3-4B-Instruct-2507``, ``Qwen3-VL-8B-Instruct``). ``*`` is the
one way to say that a family's variants differ: sizes and dates sit between the family's
name and the variant's, so one pattern covers all of them.
"""

from __future__ import annotations

__all__ = ["Routes", "pattern_matches", "route"]

Routes = tuple[tuple[str, str], ...]


def pattern_matches(pattern: str, lowered: str) -> bool:
    """Whether ``pattern`` matches the lower-cased model id ``lowered``."""
    if "*" not in pattern:
        return pattern in lowered
    at = 0
    for part in pattern.split("*"):
        found = lowered.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


def route(table: Routes, model_id: str) -> str | None:
    """The name the first matching pattern of ``table`` gives ``model_id``; None if none."""
    lowered = model_id.lower()
    for pattern, name in table:
        if pattern_matches(pattern, lowered):
            return name
    return None
