"""Shared test material: real tool-call documents and a prefix-stability checker."""

from __future__ import annotations

import json
from typing import Any

# Tool-call JSON as models and providers actually write it: OpenAI (string arguments),
# Anthropic (input object), the generic tool/args shape, pretty-printed and compact, with
# non-ASCII text, escapes, surrogate pairs, numbers of every form and nesting.
REAL_DOCS: list[str] = [
    '{"tool":"search","args":{"from":"北京","to":"上海"}}',
    '{"name": "get_weather", "arguments": "{\\"location\\": \\"Paris, FR\\", \\"unit\\": \\"celsius\\"}"}',
    json.dumps(
        {
            "name": "write_file",
            "input": {
                "path": "src/main.py",
                "content": 'def f(x):\n\treturn "\\\\" + x  # ☃ 😀\n',
                "mode": 420,
                "overwrite": True,
                "backup": None,
            },
        },
        indent=2,
    ),
    json.dumps(
        {
            "type": "function",
            "function": {
                "name": "book_flight",
                "arguments": json.dumps(
                    {"passengers": [{"name": "Zoë", "age": 34}, {"name": "李雷", "age": 7}]}
                ),
            },
        }
    ),
    json.dumps(
        {
            "tool": "calc",
            "args": {
                "values": [0, -1, 2.5, -3.25e-7, 1e21, 123456789012345678901234567890],
                "flags": [True, False, None],
                "nested": {"a": {"b": {"c": []}}, "d": {}},
                "emoji": "\U0001f600\U0001f680",
            },
        },
        ensure_ascii=True,
    ),
    '{"name":"run_sql","parameters":{"query":"SELECT * FROM t WHERE name = \'O\\"Brien\' AND x < 5;","limit":100}}',
]


def assert_prefix_compatible(partial: Any, final: Any, *, top: bool = True) -> None:
    """Everything complete in `partial` equals the same thing in `final`; the rest is a start.

    In any container of a JSON prefix, every entry but the last is followed by a comma, so
    is complete: it must equal the final entry at the same place. The last entry may still
    be growing: a key cut short (with a null value), a string prefix, a number cut short, a
    null for a value not yet written, or a container that is compatible in turn.
    """
    while True:
        if partial == final:
            return
        if top and partial == {}:
            return  # R0: nothing of the document yet
        top = False
        if partial is None:
            return  # R3/R5: a value not written yet
        if isinstance(final, str):
            assert isinstance(partial, str) and final.startswith(partial), (partial, final)
            return
        if isinstance(final, (int, float)) and not isinstance(final, bool):
            assert isinstance(partial, (int, float)) and not isinstance(partial, bool)
            return
        if isinstance(final, bool):
            raise AssertionError((partial, final))
        if isinstance(final, list):
            assert isinstance(partial, list) and len(partial) <= len(final), (partial, final)
            if not partial:
                return
            assert partial[:-1] == final[: len(partial) - 1], (partial, final)
            partial, final = partial[-1], final[len(partial) - 1]
            continue
        assert isinstance(final, dict) and isinstance(partial, dict), (partial, final)
        pitems = list(partial.items())
        fitems = list(final.items())
        assert len(pitems) <= len(fitems), (partial, final)
        if not pitems:
            return
        assert pitems[:-1] == fitems[: len(pitems) - 1], (partial, final)
        key, value = pitems[-1]
        fkey, fvalue = fitems[len(pitems) - 1]
        if key != fkey:
            assert fkey.startswith(key) and value is None, (partial, final)
            return
        partial, final = value, fvalue
