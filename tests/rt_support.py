"""Shared helpers for the response-template tests (tests/response_templates/)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from reference import transformers_ref as ref
from streamcall.response_templates import _patterns, parse_response

ENGINES = ("regex", "re")


def engine_params() -> list[Any]:
    """The two pattern engines as pytest params; ``regex`` is skipped where it is not
    installed (it is in the test extra)."""
    regex_missing = not _patterns.REGEX_INSTALLED
    return [
        pytest.param(
            "regex",
            marks=pytest.mark.skipif(regex_missing, reason="the regex package is not installed"),
        ),
        "re",
    ]


@contextmanager
def pattern_engine(name: str) -> Iterator[None]:
    """Compile (and match content patterns) with ``name`` for the duration."""
    saved = _patterns._use_regex
    _patterns._use_regex = name == "regex"
    try:
        yield
    finally:
        _patterns._use_regex = saved


def ours(template: Any, text: Any, *, prefix: str | None = "", tools: Any = None) -> ref.Outcome:
    """streamcall's ``parse_response`` as an ``Outcome`` (a value, or the exception's type
    name and message), to compare with the reference's."""
    try:
        value = parse_response(text, template, prefix=prefix, tools=tools)
    except Exception as exc:
        return ref.Outcome(error=type(exc).__name__, message=str(exc))
    return ref.Outcome(value=value)
