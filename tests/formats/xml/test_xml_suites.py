"""seed_oss, step3, hy_v3 and poolside_v1 against their public suites.

Fixtures copied from vLLM ``tests/tool_parsers/`` (Apache-2.0, Copyright contributors to
the vLLM project): ``test_seed_oss_tool_parser.py``, ``test_step3_tool_parser.py``,
``test_hy_v3_tool_parser.py``, ``test_hy_truncated_stream.py`` and
``test_poolside_v1_tool_parser.py``; the code is ours. Every case runs through
``check_format`` (whole, 1-char, 7-char and random chunkings).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.output import output_parser, parse_output
from support import check_format, random_chunkings, summary

Calls = list[tuple[str, dict[str, Any]]]


def calls_of(items: list[testing.Item]) -> list[testing.Call]:
    return [v for k, v in items if k == "call" and isinstance(v, testing.Call)]


# --- seed_oss ---------------------------------------------------------------------------

SEED_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"location": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["location"],
            },
        },
    }
]
SEED_CALL = (
    "<seed:tool_call>\n<function=get_weather>\n"
    "<parameter=location>Barcelona, Spain</parameter>\n</function>\n</seed:tool_call>"
)
SEED_CALL_UNIT = (
    "<seed:tool_call>\n<function=get_weather>\n<parameter=location>"
    "Barcelona, Spain</parameter>\n<parameter=unit>celsius</parameter>\n</function>\n"
    "</seed:tool_call>"
)
SEED_THINK_512 = (
    "<seed:think>The user's current thinking budget is 512.</seed:cot_budget_reflect>\n"
    "Let me analyze the question. \n<seed:cot_budget_reflect>I have used 131 tokens, and "
    "there are 381 tokens remaining for use.</seed:cot_budget_reflect>\n The unit parameter "
    "can be omitted since it's optional.</seed:think>\n"
)
SEED_THINK_WITH_LITERAL_CALL = (
    "<seed:think>\nGot it, let's see. The format is <seed:tool_call>\n<function=get_weather>\n"
    "<parameter=location>Barcelona, Spain</parameter>\n<parameter=unit>celsius</parameter>\n"
    "</function>\n</seed:tool_call>. Let me go with that.</seed:think>"
)


@given(data=st.data())
def test_seed_no_tools(data: st.DataObject) -> None:
    text = "This is a test response without any tool calls"
    assert check_format("seed_oss", text, data, SEED_TOOLS) == [("text", text)]


@given(data=st.data())
def test_seed_zero_thinking_budget(data: st.DataObject) -> None:
    content, calls = summary(check_format("seed_oss", SEED_CALL, data, SEED_TOOLS))
    assert content == ""
    assert calls == [("get_weather", {"location": "Barcelona, Spain"})]


@pytest.mark.parametrize(
    ("think", "call", "args"),
    [
        (SEED_THINK_512, SEED_CALL, {"location": "Barcelona, Spain"}),
        # The thinking quotes a whole tool call; it is reasoning, not a call.
        (
            SEED_THINK_WITH_LITERAL_CALL,
            SEED_CALL_UNIT,
            {"location": "Barcelona, Spain", "unit": "celsius"},
        ),
    ],
)
@given(data=st.data())
def test_seed_with_thinking(
    think: str, call: str, args: dict[str, Any], data: st.DataObject
) -> None:
    # vLLM's tool parser alone returns the thinking as content; with the seed_oss
    # reasoning parser in front (as a server runs it) it is reasoning.
    text = think + call
    testing.check_chunkings(
        lambda: output_parser(
            tools=SEED_TOOLS, tool_format="seed_oss", reasoning_format="seed_oss"
        ),
        text,
        random_chunkings(data, text),
    )
    parsed = parse_output(
        text, tools=SEED_TOOLS, tool_format="seed_oss", reasoning_format="seed_oss"
    )
    assert parsed.content.strip() == ""
    assert "<seed:tool_call>" not in parsed.content
    assert [(c.name, c.args) for c in parsed.tool_calls] == [("get_weather", args)]


@pytest.mark.parametrize(
    ("think", "call", "args"),
    [
        (SEED_THINK_512, SEED_CALL, {"location": "Barcelona, Spain"}),
        (
            SEED_THINK_WITH_LITERAL_CALL,
            SEED_CALL_UNIT,
            {"location": "Barcelona, Spain", "unit": "celsius"},
        ),
    ],
)
@given(data=st.data())
def test_seed_tool_parser_alone_skips_calls_drafted_while_thinking(
    think: str, call: str, args: dict[str, Any], data: st.DataObject
) -> None:
    """With no reasoning parser, the think block is text, the call it quotes included;
    only the call after it counts (vLLM's tool parser alone does the same)."""
    items = check_format("seed_oss", think + call, data, SEED_TOOLS)
    assert summary(items) == (think, [("get_weather", args)])
    assert [c.incomplete for c in calls_of(items)] == [False]


@pytest.mark.parametrize(
    ("text", "content", "names"),
    [
        # a think block that never closes: all text, the drafted call too
        (SEED_THINK_WITH_LITERAL_CALL[: -len("</seed:think>")], None, []),
        (SEED_THINK_WITH_LITERAL_CALL[:-4], None, []),  # its closer cut
        (SEED_THINK_WITH_LITERAL_CALL[:40], None, []),  # cut inside the drafted call
        ("<seed:thi", None, []),
        # a call, then a think block (blanks before it stay text), then another call
        (SEED_CALL + "\n<seed:think>again " + SEED_CALL + "</seed:think>" + SEED_CALL,
         "\n<seed:think>again " + SEED_CALL + "</seed:think>", ["get_weather"] * 2),
        # a closer with no opener is text, and the call before it counts
        (SEED_CALL + "done</seed:think>", "done</seed:think>", ["get_weather"]),
    ],
)  # fmt: skip
@given(data=st.data())
def test_seed_think_spans_in_every_chunking(
    text: str, content: str | None, names: list[str], data: st.DataObject
) -> None:
    items = check_format("seed_oss", text, data, SEED_TOOLS)
    got_content, calls = summary(items)
    assert got_content == (text if content is None else content)
    assert [name for name, _ in calls] == names


# --- step3 ------------------------------------------------------------------------------

B, E = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
CB, CE = "<｜tool_call_begin｜>", "<｜tool_call_end｜>"


def step_param(k: str, v: str) -> str:
    return f'<steptml:parameter name="{k}">{v}</steptml:parameter>'


STEP_CASES: list[tuple[str, str, Calls]] = [
    (
        "This is a regular response without any tool calls.",
        "This is a regular response without any tool calls.",
        [],
    ),
    (
        f'{B}{CB}<steptml:invoke name="get_weather">{step_param("city", "Tokyo")}</steptml:invoke>{CE}{E}',
        "",
        [("get_weather", {"city": "Tokyo"})],
    ),
    (  # parallel calls with the <｜tool_sep｜> between them
        f'{B}{CB}<steptml:invoke name="get_weather">{step_param("city", "Tokyo")}</steptml:invoke>'
        f'{CE}<｜tool_sep｜>{CB}<steptml:invoke name="get_time">'
        f"{step_param('timezone', 'Asia/Tokyo')}</steptml:invoke>{CE}{E}",
        "",
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
    ),
    (  # various data types (no schema: the documented first-character rule)
        B
        + CB
        + '<steptml:invoke name="test_function">'
        + step_param("string_field", "hello")
        + step_param("int_field", "42")
        + step_param("float_field", "3.14")
        + step_param("bool_field", "true")
        + step_param("null_field", "null")
        + step_param("array_field", '["a", "b", "c"]')
        + step_param("object_field", '{"nested": "value"}')
        + "</steptml:invoke>"
        + CE
        + E,
        "",
        [
            (
                "test_function",
                {
                    "string_field": "hello",
                    "int_field": 42,
                    "float_field": 3.14,
                    "bool_field": True,
                    "null_field": None,
                    "array_field": ["a", "b", "c"],
                    "object_field": {"nested": "value"},
                },
            )
        ],
    ),
    (f'{B}{CB}<steptml:invoke name="refresh"></steptml:invoke>{CE}{E}', "", [("refresh", {})]),
    (
        "Let me check the weather for you.\n\n"
        f'{B}{CB}<steptml:invoke name="get_weather">{step_param("city", "Tokyo")}</steptml:invoke>{CE}{E}'
        "\n\nI'll get that information.",
        "Let me check the weather for you.\n\n\n\nI'll get that information.",
        [("get_weather", {"city": "Tokyo"})],
    ),
    (
        B
        + CB
        + '<steptml:invoke name="test_function">'
        + step_param("quoted", 'He said "hello"')
        + step_param("path", "C:\\\\Users\\\\file.txt")
        + step_param("newline", "line1\nline2")
        + "</steptml:invoke>"
        + CE
        + E,
        "",
        [
            (
                "test_function",
                {
                    "quoted": 'He said "hello"',
                    "path": "C:\\\\Users\\\\file.txt",
                    "newline": "line1\nline2",
                },
            )
        ],
    ),
    # malformed: without the block marker the invoke is text
    (
        f'{CB}<steptml:invoke name="func"></steptml:invoke>{CE}',
        f'{CB}<steptml:invoke name="func"></steptml:invoke>{CE}',
        [],
    ),
]


@pytest.mark.parametrize(("text", "content", "calls"), STEP_CASES)
@given(data=st.data())
def test_step3_suite(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format("step3", text, data))
    assert got_content == content
    assert got_calls == calls


@given(data=st.data())
def test_step3_malformed_unclosed_invoke_is_reported(data: st.DataObject) -> None:
    text = f'{B}{CB}<steptml:invoke name="func">'
    items = check_format("step3", text, data)
    assert [(c.name, c.arguments, c.incomplete) for c in calls_of(items)] == [("func", "{}", True)]


WS_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "edit_file",
            "parameters": {
                "type": "object",
                "properties": {
                    "old_string": {"type": "string"},
                    "indent": {"type": "integer"},
                    "enabled": {"type": "boolean"},
                },
            },
        },
    }
]


@pytest.mark.parametrize(
    "value",
    ["    if x:", "return 1\n", "    if x:\n        return 1\n", "hello ", "hello\u00a0", "hello"],
)
@given(data=st.data())
def test_step3_string_whitespace_is_data(value: str, data: st.DataObject) -> None:
    text = (
        f"{B}{CB}function<｜tool_sep｜>edit_file\n"
        f'<steptml:invoke name="edit_file">{step_param("old_string", value)}'
        f"{step_param('indent', ' 4 ')}{step_param('enabled', ' true ')}"
        f"</steptml:invoke>{CE}{E}"
    )
    content, calls = summary(check_format("step3", text, data, WS_TOOLS))
    assert content == ""
    assert calls == [("edit_file", {"old_string": value, "indent": 4, "enabled": True})]


# --- hy_v3 ------------------------------------------------------------------------------

HY_TOOLS = [
    {"type": "function", "function": {"name": "get_current_date", "parameters": {}}},
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "date": {"type": "string"}},
            },
        },
    },
]
BJ = {"city": "Beijing", "date": "2026-03-30"}
HY_MULTI = (
    "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing"
    "</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2026-03-30</arg_value>\n</tool_call>\n"
    "<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Hangzhou</arg_value>\n"
    "<arg_key>date</arg_key>\n<arg_value>2026-03-30</arg_value>\n</tool_call>\n</tool_calls>"
)
HY_CASES: list[tuple[str, str, Calls]] = [
    ("This is a plain response.", "This is a plain response.", []),
    (
        "<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>",
        "",
        [("get_current_date", {})],
    ),
    (
        "<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>",
        "",
        [("get_current_date", {})],
    ),
    (
        "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Beijing"
        "</arg_value><arg_key>date</arg_key><arg_value>2026-03-30</arg_value></tool_call></tool_calls>",
        "",
        [("get_weather", BJ)],
    ),
    (
        "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing"
        "</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2026-03-30</arg_value>\n</tool_call>\n</tool_calls>",
        "",
        [("get_weather", BJ)],
    ),
    (
        "Checking.<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>",
        "Checking.",
        [("get_current_date", {})],
    ),
    (HY_MULTI, "", [("get_weather", BJ), ("get_weather", {**BJ, "city": "Hangzhou"})]),
]


@pytest.mark.parametrize(("text", "content", "calls"), HY_CASES)
@given(data=st.data())
def test_hy_v3_suite(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format("hy_v3", text, data, HY_TOOLS))
    assert got_content == content
    assert got_calls == calls


HY3_OPEN = "<tool_calls>\n<tool_call>get_weather<tool_sep>\n"
HY3_ARGS = "<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (HY3_OPEN + HY3_ARGS + "\n</tool_call>\n</tool_calls>", [{"city": "Beijing"}]),
        (HY3_OPEN + HY3_ARGS, [{"city": "Beijing"}]),
        (HY3_OPEN + HY3_ARGS + "\n", [{"city": "Beijing"}]),
        (HY3_OPEN + HY3_ARGS + "\n\n", [{"city": "Beijing"}]),
        (
            HY3_OPEN + HY3_ARGS + "\n<arg_key>date</arg_key>\n<arg_value>2026",
            [{"city": "Beijing", "date": "2026"}],
        ),
        (HY3_OPEN + "<arg_key>city</arg_key>", [{}]),
        (
            "<tool_calls>\n<tool_call>get_weather<tool_sep>\n" + HY3_ARGS + "\n</tool_call>\n"
            "<tool_call>get_weather<tool_sep>\n<arg_key>date</arg_key>\n<arg_value>2026",
            [{"city": "Beijing"}, {"date": "2026"}],
        ),
    ],
)
@given(data=st.data())
def test_hy_v3_truncated_stream_ends_with_parseable_arguments(
    text: str, expected: list[dict[str, Any]], data: st.DataObject
) -> None:
    # vLLM test_hy_truncated_stream.py: a stream cut before </tool_call> must still end
    # every call with arguments that load.
    calls = calls_of(check_format("hy_v3", text, data, HY_TOOLS))
    assert [c.name for c in calls] == ["get_weather"] * len(expected)
    assert [json.loads(c.arguments) for c in calls] == expected


# --- poolside_v1 ------------------------------------------------------------------------

WRITE_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"content": {"type": "string"}, "mode": {"type": "integer"}},
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    },
]

POOLSIDE_CASES: list[tuple[str, str, Calls]] = [
    (  # string values are kept verbatim: indent and trailing newline
        "<tool_call>write_file\n<arg_key>content</arg_key>\n"
        "<arg_value>    def f():\n        return 1\n</arg_value>\n</tool_call>",
        "",
        [("write_file", {"content": "    def f():\n        return 1\n"})],
    ),
    (
        "<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>  x = 1\n</arg_value>\n</tool_call>",
        "",
        [("write_file", {"content": "  x = 1\n"})],
    ),
    (
        "<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>hi</arg_value>\n"
        "<arg_key>mode</arg_key>\n<arg_value> 420 </arg_value>\n</tool_call>",
        "",
        [("write_file", {"content": "hi", "mode": 420})],
    ),
    (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
        "",
        [("get_weather", {"city": "Paris"})],
    ),
    (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
        "",
        [("get_weather", {"city": "Paris"})],
    ),
    # whitespace-only name: no call, the text is kept
    ("<tool_call>   </tool_call>", "<tool_call>   </tool_call>", []),
    # a name with inner whitespace
    (
        "<tool_call>  get weather  <arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
        "",
        [("get weather", {"city": "Paris"})],
    ),
]


@pytest.mark.parametrize(("text", "content", "calls"), POOLSIDE_CASES)
@given(data=st.data())
def test_poolside_suite(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format("poolside_v1", text, data, WRITE_TOOLS))
    assert got_content == content
    assert got_calls == calls


def test_poolside_whitespace_padded_block_is_linear() -> None:
    # vLLM's regex backtracked for minutes on this; it must be plain text, quickly.
    text = "<tool_call>" + " " * 4096 + "<x</tool_call>"
    items = testing.coalesce(
        testing.run(__import__("streamcall").tool_parser("poolside_v1"), [text])
    )
    assert summary(items)[1] == []
    assert summary(items)[0] == text
