"""Helpers for the reasoning tests: feed a case in every chunking, compare the result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from streamcall import reasoning_parser, testing
from streamcall.output import output_parser
from support import random_chunkings


def split(items: list[testing.Item]) -> tuple[str, str]:
    """(reasoning, text) of coalesced items."""
    reasoning = "".join(v for k, v in items if k == "reasoning" and isinstance(v, str))
    text = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    return reasoning, text


def check_reasoning(
    name: str,
    text: str,
    reasoning: str | None,
    content: str | None,
    data: st.DataObject | None = None,
    *,
    prompt_opened: bool | None = None,
) -> list[testing.Item]:
    """Whole, 1-char, 7-char and random chunkings agree and give the expected split.

    ``None`` expectations (vLLM's "no reasoning"/"no content") compare as ``""``.
    """
    chunkings = random_chunkings(data, text) if data is not None else []
    items = testing.check_chunkings(
        lambda: reasoning_parser(name, prompt_opened=prompt_opened), text, chunkings
    )
    got = split(items)
    assert got == (reasoning or "", content or ""), (name, text, got)
    return items


def check_output(
    text: str,
    data: st.DataObject | None = None,
    **kwargs: Any,
) -> list[testing.Item]:
    """The combined parser over every chunking."""
    chunkings = random_chunkings(data, text) if data is not None else []
    make: Callable[[], Any] = lambda: output_parser(**kwargs)  # noqa: E731
    return testing.check_chunkings(make, text, chunkings)
