"""deepseek_v32 / deepseek_v4 / deepseek_v41 (DSML).

Fixtures copied from vLLM ``tests/tool_parsers/test_deepseekv32_tool_parser.py``
(Apache-2.0, Copyright contributors to the vLLM project); the code is ours.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support import check_format, summary

VARIANTS = {
    "deepseek_v32": ("<｜DSML｜", "</｜DSML｜", "function_calls"),
    "deepseek_v4": ("<｜DSML｜", "</｜DSML｜", "tool_calls"),
    "deepseek_v41": ("<｜DSML｜ ", "</｜DSML｜ ", "calls"),
}


def build(fmt: str, calls: list[tuple[str, list[tuple[str, str | None, str]]]]) -> str:
    p, q, block = VARIANTS[fmt]
    body = ""
    for name, params in calls:
        body += f'{p}invoke name="{name}">\n'
        for key, flag, value in params:
            attr = f' string="{flag}"' if flag is not None else ""
            body += f'{p}parameter name="{key}"{attr}>{value}{q}parameter>\n'
        body += f"{q}invoke>\n"
    return f"{p}{block}>\n{body}{q}{block}>"


def tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": props}},
    }


CASES: list[tuple[list[Any], list[dict[str, Any]], dict[str, Any]]] = [
    ([("get_time", [])], [], {}),
    (
        [("get_weather", [("location", "true", "SF"), ("date", "true", "2024-01-16")])],
        [],
        {"location": "SF", "date": "2024-01-16"},
    ),
    (
        [("toggle", [("enabled", "false", "true"), ("count", "false", "42")])],
        [tool("toggle", {"enabled": {"type": "boolean"}, "count": {"type": "integer"}})],
        {"enabled": True, "count": 42},
    ),
    (
        [("score", [("value", "true", "42")])],
        [tool("score", {"value": {"type": "integer"}})],
        {"value": 42},
    ),
    (
        [("score", [("value", "false", "42")])],
        [tool("score", {"value": {"type": "integer"}})],
        {"value": 42},
    ),
    (
        [
            (
                "set_timer",
                [
                    ("wait", "false", '{"type":"for","minutes":2880}'),
                    ("patches", "false", '[{"op":"replace","path":"/schedule","value":"quiet"}]'),
                ],
            )
        ],
        [
            tool(
                "set_timer",
                {
                    "wait": {
                        "anyOf": [
                            {"type": "object", "properties": {"minutes": {"type": "number"}}},
                            {"type": "object"},
                        ]
                    },
                    "patches": {
                        "oneOf": [{"type": "array", "items": {"type": "object"}}, {"type": "null"}]
                    },
                },
            )
        ],
        {
            "wait": {"type": "for", "minutes": 2880},
            "patches": [{"op": "replace", "path": "/schedule", "value": "quiet"}],
        },
    ),
    (
        [("set_timer", [("wait", "true", '{"type":"for","minutes":2880}')])],
        [tool("set_timer", {"wait": {"anyOf": [{"type": "object"}, {"type": "null"}]}})],
        {"wait": {"type": "for", "minutes": 2880}},
    ),
    (
        [("update", [("tags", "false", '["a", "b"]'), ("meta", "false", '{"k": 1}')])],
        [tool("update", {"tags": {"type": "array"}, "meta": {"type": "object"}})],
        {"tags": ["a", "b"], "meta": {"k": 1}},
    ),
    (
        [("measure", [("ratio", "false", "3.14")])],
        [tool("measure", {"ratio": {"type": "number"}})],
        {"ratio": 3.14},
    ),
    # no schema: the flag decides
    (
        [("f", [("n", "false", "7"), ("s", "true", "7"), ("x", None, "7")])],
        [],
        {"n": 7, "s": "7", "x": 7},
    ),
]


@pytest.mark.parametrize("fmt", list(VARIANTS))
@pytest.mark.parametrize(("calls", "tools", "args"), CASES)
@given(data=st.data())
def test_vllm_cases(
    fmt: str,
    calls: list[Any],
    tools: list[dict[str, Any]],
    args: dict[str, Any],
    data: st.DataObject,
) -> None:
    text = "Sure, let me check! " + build(fmt, calls)
    content, got = summary(check_format(fmt, text, data, tools))
    assert content == "Sure, let me check! "
    assert got == [(calls[0][0], args)]


@pytest.mark.parametrize("fmt", list(VARIANTS))
@given(data=st.data())
def test_multiple_invokes(fmt: str, data: st.DataObject) -> None:
    text = build(
        fmt,
        [
            ("get_weather", [("location", "true", "SF")]),
            ("get_weather", [("location", "true", "NYC")]),
        ],
    )
    _, got = summary(check_format(fmt, text, data))
    assert got == [("get_weather", {"location": "SF"}), ("get_weather", {"location": "NYC"})]


@given(data=st.data())
def test_other_variants_markers_are_text(data: st.DataObject) -> None:
    # V4's block token is text to V3.2, but the invoke inside it is a bare call (a bare
    # invoke is a call in every DSML variant, as in SGLang's detectors).
    text = build("deepseek_v4", [("f", [("a", "true", "x")])])
    assert summary(check_format("deepseek_v32", text, data)) == (
        "<｜DSML｜tool_calls>\n\n</｜DSML｜tool_calls>",
        [("f", {"a": "x"})],
    )
    # V4.1's spaced tags are not V4's, nor the other way round.
    spaced = build("deepseek_v41", [("f", [("a", "true", "x")])])
    assert check_format("deepseek_v4", spaced, data) == [("text", spaced)]
    assert check_format("deepseek_v41", text, data) == [("text", text)]


@pytest.mark.parametrize("fmt", list(VARIANTS))
@given(data=st.data())
def test_bare_invoke_without_block_is_a_call(fmt: str, data: st.DataObject) -> None:
    """DeepSeek-V4 often opens with a bare invoke, the block token dropped (SGLang)."""
    p, q, _block = VARIANTS[fmt]
    invoke = f'{p}invoke name="f">{p}parameter name="a" string="true">x{q}parameter>{q}invoke>'
    text = "Checking.\n" + invoke + "\n" + invoke + " done"
    assert summary(check_format(fmt, text, data)) == (
        "Checking.\n done",
        [("f", {"a": "x"}), ("f", {"a": "x"})],
    )


# Issue 40: a value written with string="false" is JSON, so a JSON string is the string it
# encodes, as vLLM's DSML converter (json.loads of the value, then the schema's coercion)
# has it, whether the schema types the key as a string or says nothing; a string property
# written as a JSON number stays the string of it.
FLAGGED = [
    ([("say", [("text", "false", '"hello"')])], [], {"text": "hello"}),
    (
        [("say", [("text", "false", '"hello \\"you\\""'), ("n", "false", "2")])],
        [tool("say", {"text": {"type": "string"}, "n": {"type": "integer"}})],
        {"text": 'hello "you"', "n": 2},
    ),
    (
        [("say", [("text", "false", "2"), ("raw", "true", '"kept"')])],
        [tool("say", {"text": {"type": "string"}, "raw": {"type": "string"}})],
        {"text": "2", "raw": '"kept"'},
    ),
    (
        [("say", [("text", "false", '"not closed')])],
        [tool("say", {"text": {"type": "string"}})],
        {"text": '"not closed'},
    ),
]


@pytest.mark.parametrize("fmt", [*VARIANTS, "gigachat35"])
@pytest.mark.parametrize(("calls", "tools", "args"), FLAGGED)
@given(data=st.data())
def test_a_string_false_value_is_json(
    fmt: str,
    calls: list[Any],
    tools: list[dict[str, Any]],
    args: dict[str, Any],
    data: st.DataObject,
) -> None:
    if fmt == "gigachat35":
        text = build("deepseek_v4", calls).replace("｜DSML｜", "｜GCML｜")
    else:
        text = build(fmt, calls)
    content, got = summary(check_format(fmt, text, data, tools))
    assert content == ""
    assert got == [(calls[0][0], args)]
