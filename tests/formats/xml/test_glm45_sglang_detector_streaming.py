"""glm45 and glm47 against SGLang's GLM streaming-equivalence suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_glm_detector_streaming.py``
(Apache-2.0, copyright the SGLang project): the tools (one typed, one without a schema),
the arguments and both detectors' text builders; the code is ours. SGLang checks that
1-character streaming gives the one-shot arguments, types included; every text here goes
through ``check_format`` (whole, 1-char, 7-char and random chunkings, equal to the
one-shot result) and the arguments are asserted as well. No deliberate differences.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support import check_format, summary


def _tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": props}},
    }


TOOLS = [
    _tool(
        "typed",
        {
            "s": {"type": "string"},
            "n": {"type": "number"},
            "b": {"type": "boolean"},
            "o": {"type": "object"},
            "a": {"type": "array"},
        },
    ),
    _tool("untyped", {}),
]


def _glm45(name: str, pairs: list[tuple[str, str]]) -> str:
    body = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in pairs)
    return f"<tool_call>{name}\n{body}</tool_call>"


def _glm47(name: str, pairs: list[tuple[str, str]]) -> str:
    body = "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in pairs)
    return f"<tool_call>{name}{body}</tool_call>"


CASES: list[tuple[str, list[tuple[str, str]], dict[str, Any]]] = [
    ("typed", [("s", "hello")], {"s": "hello"}),
    ("typed", [("n", "42")], {"n": 42}),
    ("typed", [("n", "-7")], {"n": -7}),
    ("typed", [("n", "3.14")], {"n": 3.14}),
    ("typed", [("b", "true")], {"b": True}),
    ("typed", [("a", "[1, 2]")], {"a": [1, 2]}),
    ("typed", [("s", "")], {"s": ""}),
    ("typed", [("s", "abc"), ("n", "5")], {"s": "abc", "n": 5}),
    ("typed", [("o", '{"k": 1}')], {"o": {"k": 1}}),
    ("untyped", [("x", "123")], {"x": 123}),
    ("untyped", [("x", "-123")], {"x": -123}),
    ("untyped", [("x", "1.5")], {"x": 1.5}),
    ("untyped", [("x", "true")], {"x": True}),
    ("untyped", [("x", "hello world")], {"x": "hello world"}),
    ("untyped", [("x", "123abc")], {"x": "123abc"}),
    ("untyped", [("x", '{"k": 1}')], {"x": {"k": 1}}),
    ("untyped", [("x", "[1, 2]")], {"x": [1, 2]}),
    ("untyped", [("x", "")], {"x": ""}),
    ("untyped", [("x", "北京")], {"x": "北京"}),
    ("untyped", [("x", "7"), ("y", "text")], {"x": 7, "y": "text"}),
]


@pytest.mark.parametrize(("fmt", "build"), [("glm45", _glm45), ("glm47", _glm47)])
@pytest.mark.parametrize(("name", "pairs", "args"), CASES)
@given(data=st.data())
def test_streaming_matches_one_shot(
    fmt: str,
    build: Any,
    name: str,
    pairs: list[tuple[str, str]],
    args: dict[str, Any],
    data: st.DataObject,
) -> None:
    items = check_format(fmt, build(name, pairs), data, TOOLS)
    got = summary(items)
    assert got == ("", [(name, args)])
    for key, value in args.items():
        assert type(got[1][0][1][key]) is type(value)
