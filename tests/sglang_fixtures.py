"""Fixtures shared by the SGLang suite ports (tests/formats/test_sglang_*.py).

SGLang's function-call unit tests (Apache-2.0, copyright the SGLang project) declare the
same two tools in many of its per-detector files; they live here once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from streamcall.aliases import SGLANG_DIFFERENT, SGLANG_NOT_SUPPORTED

WEATHER_AND_SEARCH: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            },
        },
    },
]


def function_tool(
    name: str, props: dict[str, Any], required: list[str] | None = None
) -> dict[str, Any]:
    """An OpenAI function tool with these parameter ``properties`` (SGLang's suites build
    their schemas this way)."""
    params: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        params["required"] = required
    return {"type": "function", "function": {"name": name, "parameters": params}}


def assert_each_name_listed_once(kind: str, names: Iterable[str], table: Mapping[str, Any]) -> None:
    """Each of SGLang's ``kind`` names (``tool`` or ``reasoning``) is in exactly one of
    streamcall's tables: an alias in ``table``, a name meaning something else, or one not
    supported."""
    for name in names:
        listed = [
            name in table,
            (kind, name) in SGLANG_DIFFERENT,
            (kind, name) in SGLANG_NOT_SUPPORTED,
        ]
        assert sum(listed) == 1, (kind, name, listed)
