"""The marker + JSON formats of the JSON-call engine against the contract: internlm, jamba,
hunyuan_a13b, phi4_mini_json, gigachat3, cohere_command3/4, minimax (M1) and apertus.

Cases are taken from vLLM's ``tests/tool_parsers/`` suites (Apache-2.0, copyright the vLLM
project): ``test_internlm2_tool_parser.py``, ``test_jamba_tool_parser.py``,
``test_hunyuan_a13b_tool_parser.py``, ``test_phi4mini_tool_parser.py``,
``test_gigachat3_tool_parser.py``, ``test_cohere_command_tool_parser.py``,
``test_minimax_tool_parser.py`` and ``test_apertus_tool_parser.py``. Content differs from
vLLM where streamcall keeps text that vLLM drops (text after the calls).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import ToolCallStart
from streamcall.formats.registry import parse_tool_calls, parser_class, tool_parser
from support import VLLM_ESCAPED_ARGS as ESCAPED
from support import VLLM_VARIOUS_ARGS as VARIOUS
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]

DALLAS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
ORLANDO = {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}
SF = {"city": "San Francisco", "metric": "celsius"}
USER = {
    "name": "John Doe",
    "age": 37,
    "address": {"city": "San Francisco", "state": "CA"},
    "role": None,
    "passed_test": True,
    "aliases": ["John", "Johnny"],
}
GIGA_SIMPLE = {"action": "create", "id": "preferences"}
GIGA_COMPLEX = {
    "action": "create",
    "id": "preferences",
    "content": {
        "short_answers": True,
        "hate_emojis": True,
        "english_ui": False,
        "russian_math_explanations": True,
    },
}


def giga(args: dict[str, Any]) -> str:
    return json.dumps({"name": "manage_user_memory", "arguments": args}, ensure_ascii=False)


A_START, A_END = "<|action_start|><|plugin|>", "<|action_end|>"
GIGA3 = "<|message_sep|>\n\nfunction call<|role_sep|>\n"
GIGA31 = "<|function_call|>"
COHERE_ONE = (
    "<|START_ACTION|>\n[\n"
    '    {"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "query1"}}\n]\n<|END_ACTION|>'
)
COHERE_TWO = (
    "<|START_ACTION|>\n[\n"
    '    {"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "query1"}},\n'
    '    {"tool_call_id": "1", "tool_name": "bar", "parameters": {"x": 42}}\n]\n<|END_ACTION|>'
)

CASES: list[tuple[str, str, Calls, str]] = [
    # internlm (common-tests config)
    (
        "internlm",
        "This is a regular response without any tool calls.",
        [],
        "This is a regular response without any tool calls.",
    ),
    (
        "internlm",
        f'{A_START}{{"name": "get_weather", "parameters": {{"city": "Tokyo"}}}}{A_END}',
        [("get_weather", {"city": "Tokyo"})],
        "",
    ),
    (
        "internlm",
        f'{A_START}{{\n  "name": "test_function",\n  "parameters": {VARIOUS}\n}}{A_END}',
        [("test_function", json.loads(VARIOUS))],
        "",
    ),
    (
        "internlm",
        f'{A_START}{{"name": "refresh", "parameters": {{}}}}{A_END}',
        [("refresh", {})],
        "",
    ),
    (
        "internlm",
        f'Let me check the weather for you. {A_START}{{"name": "get_weather", "parameters": {{"city": "Tokyo"}}}}{A_END}',
        [("get_weather", {"city": "Tokyo"})],
        "Let me check the weather for you. ",
    ),
    (
        "internlm",
        f'{A_START}{{\n  "name": "test_function",\n  "parameters": {ESCAPED}\n}}{A_END}',
        [("test_function", json.loads(ESCAPED))],
        "",
    ),
    (
        "internlm",
        f'{A_START}{{"name": "func", "parameters": "not a dict"}}{A_END}',
        [],
        f'{A_START}{{"name": "func", "parameters": "not a dict"}}{A_END}',
    ),
    ("internlm", f"{A_START}not json{A_END}", [], f"{A_START}not json{A_END}"),
    ("internlm", A_START, [], A_START),
    ("internlm", '<|action_start|>{"name": "func"}', [], '<|action_start|>{"name": "func"}'),
    # jamba
    ("jamba", "This is a test", [], "This is a test"),
    (
        "jamba",
        ' <tool_calls>[\n    {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}\n]</tool_calls>',
        [("get_current_weather", DALLAS)],
        " ",
    ),
    (
        "jamba",
        ' Sure! let me call the tool for you.<tool_calls>[\n    {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}\n]</tool_calls>',
        [("get_current_weather", DALLAS)],
        " Sure! let me call the tool for you.",
    ),
    (
        "jamba",
        ' <tool_calls>[\n    {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}},\n'
        '    {"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}\n]</tool_calls>',
        [("get_current_weather", DALLAS), ("get_current_weather", ORLANDO)],
        " ",
    ),
    # hunyuan_a13b
    ("hunyuan_a13b", "How can I help you today?", [], "How can I help you today?"),
    (
        "hunyuan_a13b",
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}]</tool_calls>',
        [("get_weather", SF)],
        "",
    ),
    (
        "hunyuan_a13b",
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "San Francisco", "metric": "celsius"}}, '
        '{"name": "register_user", "arguments": {"name": "John Doe", "age": 37, "address": {"city": "San Francisco", "state": "CA"}, '
        '"role": null, "passed_test": true, "aliases": ["John", "Johnny"]}}]</tool_calls>',
        [("get_weather", SF), ("register_user", USER)],
        "",
    ),
    (
        "hunyuan_a13b",
        'I will call the tool now. <tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>',
        [("get_weather", {"city": "Boston"})],
        "I will call the tool now. ",
    ),
    (
        "hunyuan_a13b",
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Seattle"}}]</tool_calls>\nThank you!',
        [("get_weather", {"city": "Seattle"})],
        "\nThank you!",  # vLLM strips text after the calls
    ),
    (
        "hunyuan_a13b",
        '<tool_calls>[{"name": "complex_tool", "arguments": {"level1": {"level2": {"level3": {"value": 123}}}}}]</tool_calls>',
        [("complex_tool", {"level1": {"level2": {"level3": {"value": 123}}}})],
        "",
    ),
    (
        "hunyuan_a13b",
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "北京"}}]</tool_calls>',
        [("get_weather", {"city": "北京"})],
        "",
    ),
    (
        "hunyuan_a13b",
        '<tool_calls>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 42}}]</tool_calls>',
        [("a", {}), ("b", {"x": 42})],
        "",
    ),
    (
        "hunyuan_a13b",
        '<tool_calls>[{"name": "a", "arguments": {"x": 42}}, {"name": "b", "arguments": {}}]</tool_calls>',
        [("a", {"x": 42}), ("b", {})],
        "",
    ),
    # phi4_mini_json (common-tests config)
    (
        "phi4_mini_json",
        "This is a regular response without any tool calls.",
        [],
        "This is a regular response without any tool calls.",
    ),
    (
        "phi4_mini_json",
        'functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]',
        [("get_weather", {"city": "Tokyo"})],
        "",
    ),
    (
        "phi4_mini_json",
        'functools[\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n]',
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
        "",
    ),
    (
        "phi4_mini_json",
        f'functools[{{\n  "name": "test_function",\n  "arguments": {VARIOUS}\n}}]',
        [("test_function", json.loads(VARIOUS))],
        "",
    ),
    ("phi4_mini_json", 'functools[{"name": "refresh", "arguments": {}}]', [("refresh", {})], ""),
    (
        "phi4_mini_json",
        'Let me check the weather for you.\nfunctools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\nWould you like to know more?',
        [("get_weather", {"city": "Tokyo"})],
        "Let me check the weather for you.\n\nWould you like to know more?",
    ),
    (
        "phi4_mini_json",
        f'functools[{{\n  "name": "test_function",\n  "arguments": {ESCAPED}\n}}]',
        [("test_function", json.loads(ESCAPED))],
        "",
    ),
    (
        "phi4_mini_json",
        'functools[{"name": "func", "arguments": "not a dict"}]',
        [],
        'functools[{"name": "func", "arguments": "not a dict"}]',
    ),
    ("phi4_mini_json", 'functools{"name": "func"}', [("func", {})], ""),
    ("phi4_mini_json", 'functools[{"name": "func"}]', [("func", {})], ""),
    ("phi4_mini_json", "functools[] This is just text", [], "functools[] This is just text"),
    ("phi4_mini_json", "functools[ This is just text ]", [], "functools[ This is just text ]"),
    # gigachat3
    ("gigachat3", "How can I help you today?", [], "How can I help you today?"),
    ("gigachat3", GIGA3 + giga(GIGA_SIMPLE), [("manage_user_memory", GIGA_SIMPLE)], ""),
    ("gigachat3", GIGA3 + giga({}), [("manage_user_memory", {})], ""),
    ("gigachat3", GIGA3 + giga(GIGA_COMPLEX), [("manage_user_memory", GIGA_COMPLEX)], ""),
    (
        "gigachat3",
        "I'll check that for you." + GIGA3 + giga(GIGA_SIMPLE),
        [("manage_user_memory", GIGA_SIMPLE)],
        "I'll check that for you.",
    ),
    (
        "gigachat3",
        "I'll check that for you." + GIGA3 + giga(GIGA_SIMPLE) + "</s>",
        [("manage_user_memory", GIGA_SIMPLE)],
        "I'll check that for you.",
    ),
    ("gigachat3", GIGA31 + giga(GIGA_SIMPLE), [("manage_user_memory", GIGA_SIMPLE)], ""),
    ("gigachat3", GIGA31 + giga({}), [("manage_user_memory", {})], ""),
    ("gigachat3", GIGA31 + giga(GIGA_COMPLEX), [("manage_user_memory", GIGA_COMPLEX)], ""),
    (
        "gigachat3",
        "I'll check that for you." + GIGA31 + giga(GIGA_SIMPLE) + "</s>",
        [("manage_user_memory", GIGA_SIMPLE)],
        "I'll check that for you.",
    ),
    # cohere_command3 / 4 (the thinking part belongs to the reasoning parser)
    ("cohere_command3", COHERE_ONE, [("foo", {"query": "query1"})], ""),
    ("cohere_command4", COHERE_TWO, [("foo", {"query": "query1"}), ("bar", {"x": 42})], ""),
    (
        "cohere_command4",
        "<|START_RESPONSE|>foo bar<|END_RESPONSE|>",
        [],
        "<|START_RESPONSE|>foo bar<|END_RESPONSE|>",
    ),
    # minimax (M1)
    ("minimax", "This is a test", [], "This is a test"),
    (
        "minimax",
        '<tool_calls>\n{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}\n</tool_calls>',
        [("get_current_weather", DALLAS)],
        "",
    ),
    (
        "minimax",
        '<tool_calls>\n{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}\n'
        '{"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}\n</tool_calls>',
        [("get_current_weather", DALLAS), ("get_current_weather", ORLANDO)],
        "",
    ),
    (
        "minimax",
        "I'll help you check the weather. <tool_calls>\n"
        '{"name": "get_current_weather", "arguments": {"city": "Seattle", "state": "WA", "unit": "celsius"}}\n</tool_calls>',
        [("get_current_weather", {"city": "Seattle", "state": "WA", "unit": "celsius"})],
        "I'll help you check the weather. ",
    ),
    (
        "minimax",
        '<tool_calls>\n{"name": "get_current_weather", "arguments": {"city": "Boston", "state": "MA"}}',
        [("get_current_weather", {"city": "Boston", "state": "MA"})],
        "",
    ),
    # vLLM says multiline JSON is "not supported"; it is just JSON here
    (
        "minimax",
        '<tool_calls>\n{\n  "name": "get_current_weather",\n  "arguments": {\n    "city": "New York",\n    "state": "NY",\n    "unit": "celsius"\n  }\n}\n</tool_calls>',
        [("get_current_weather", {"city": "New York", "state": "NY", "unit": "celsius"})],
        "",
    ),
    # apertus
    ("apertus", "Hello, how can I help you today?", [], "Hello, how can I help you today?"),
    (
        "apertus",
        '<|tools_prefix|>[{"get_weather": {"location": "London"}}]<|tools_suffix|>',
        [("get_weather", {"location": "London"})],
        "",
    ),
    (
        "apertus",
        '<|tools_prefix|>[{"get_weather": {"location": "San Francisco", "unit": "celsius"}}]<|tools_suffix|>',
        [("get_weather", {"location": "San Francisco", "unit": "celsius"})],
        "",
    ),
    (
        "apertus",
        'Let me check the weather for you. <|tools_prefix|>[{"get_weather": {"location": "Paris"}}]<|tools_suffix|>',
        [("get_weather", {"location": "Paris"})],
        "Let me check the weather for you. ",
    ),
    (
        "apertus",
        '<|tools_prefix|>[{"get_weather": {"location": "London"}}, {"get_time": {"location": "London"}}]<|tools_suffix|>',
        [("get_weather", {"location": "London"}), ("get_time", {"location": "London"})],
        "",
    ),
    (
        "apertus",
        '<|tools_prefix|>[{"complex_function": {"nested": {"inner": "value"}, "list": ["a", "b"]}}]<|tools_suffix|>',
        [("complex_function", {"nested": {"inner": "value"}, "list": ["a", "b"]})],
        "",
    ),
    (
        "apertus",
        '<|tools_prefix|>[{"get_weather": {"location": "San Francisco", "unit": "celsius"}}]',
        [("get_weather", {"location": "San Francisco", "unit": "celsius"})],
        "",
    ),
    (
        "apertus",
        'Hi <|tools_prefix|>[{"get_weather": {"location": "London"}}]<|tools_suffix|> ',
        [("get_weather", {"location": "London"})],
        "Hi ",
    ),
    # ernie45 and longcat (Hermes-shaped)
    (
        "ernie45",
        'ok <tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>\n<tool_call>\n{"name": "g", "arguments": {}}\n</tool_call>',
        [("f", {"a": 1}), ("g", {})],
        "ok ",
    ),
    (
        "longcat",
        '<longcat_tool_call>{"name": "f", "arguments": {"a": "<b>"}}</longcat_tool_call> done',
        [("f", {"a": "<b>"})],
        " done",
    ),
]


@pytest.mark.parametrize(("fmt", "text", "calls", "content"), CASES)
@given(data=st.data())
def test_vllm_cases(fmt: str, text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format(fmt, text, data))
    assert got_calls == calls
    assert got_content == content


@pytest.mark.parametrize(
    ("fmt", "text", "args", "incomplete"),
    [
        ("internlm", f'{A_START}{{"name": "func", "parameters": {{', {}, True),  # vLLM malformed
        ("phi4_mini_json", 'functools[{"name": "func", "arguments": {', {}, True),
        # vLLM "incomplete": the arguments are whole, but the call object and the block
        # were cut, so the call is incomplete (as in every format)
        (
            "apertus",
            '<|tools_prefix|>[{"get_weather": {"location": "London"}',
            {"location": "London"},
            True,
        ),
        (
            "apertus",
            '<|tools_prefix|>[{"get_weather": {"location": "London"}}]',
            {"location": "London"},
            True,
        ),
        (
            "apertus",
            '<|tools_prefix|>[{"get_weather": {"location": "London"}}]<|tools_suffix|>',
            {"location": "London"},
            False,
        ),
    ],
)
def test_cut_off_calls_are_reported(
    fmt: str, text: str, args: dict[str, Any], incomplete: bool
) -> None:
    [call] = parse_tool_calls(text, fmt).tool_calls
    assert call.incomplete is incomplete
    assert call.args == args


@pytest.mark.parametrize(
    ("fmt", "deltas", "calls"),
    [
        (  # vLLM hunyuan streaming
            "hunyuan_a13b",
            [
                '<tool_calls>[{"name":',
                ' "get_weather",',
                ' "arguments":',
                ' {"city": "Boston"}',
                "}]",
                "</tool_calls>",
                "\n</answer>",
            ],
            [("get_weather", {"city": "Boston"})],
        ),
        (
            "hunyuan_a13b",
            [
                '<tool_calls>[{"name": "complex_tool",',
                ' "arguments": ',
                ' {"level1": {"level2": ',
                '{"level3": {"value": 123}}}}}',
                "]</tool_calls>",
            ],
            [
                ("complex_tool", {"level1": {"level2": {"level3": {"value": 123}}}})
            ],  # an xfail in vLLM
        ),
        (  # vLLM jamba: arguments whole in one coarse delta
            "jamba",
            [
                '<tool_calls>[{"name": "get_current_weather"',
                ",",
                ' "arguments": {"city": "Dallas", "state": "TX"}}]',
                "</tool_calls>",
            ],
            [("get_current_weather", {"city": "Dallas", "state": "TX"})],
        ),
        (  # vLLM apertus: partial tags
            "apertus",
            ["Content", "<|tools_", "prefix|>", '[{"f": {"a": 1}}]', "<|tools_suf", "fix|>"],
            [("f", {"a": 1})],
        ),
        (  # vLLM apertus: MTP chunks jumping over whole tools
            "apertus",
            [
                '<|tools_prefix|>[{"t1": {"a": 1}',
                '}, {"t2": {"b": 2}}, {"t3": {"c": 3',
                "}}]<|tools_suffix|>",
            ],
            [("t1", {"a": 1}), ("t2", {"b": 2}), ("t3", {"c": 3})],
        ),
        (  # vLLM gigachat3: large steps
            "gigachat3",
            [
                "I'l",
                "l ",
                "check that for you.",
                "<|message_sep|>\n\n",
                "function call<|role_sep|>\n",
                giga(GIGA_COMPLEX)[:40],
                giga(GIGA_COMPLEX)[40:-1],
                giga(GIGA_COMPLEX)[-1],
            ],
            [("manage_user_memory", GIGA_COMPLEX)],
        ),
    ],
)
def test_vllm_streaming_deltas(fmt: str, deltas: list[str], calls: Calls) -> None:
    items = testing.coalesce(testing.run(tool_parser(fmt), deltas))
    assert summary(items)[1] == calls


@pytest.mark.parametrize("chunk_size", [2, 3, 4, 6])
@pytest.mark.parametrize("fmt", ["cohere_command3", "cohere_command4"])
def test_cohere_multi_token_chunks_no_marker_leak(fmt: str, chunk_size: int) -> None:
    """vLLM TestSpeculativeDecodingMultiTokenDelta: no special token leaks anywhere."""
    items = testing.coalesce(
        testing.run(tool_parser(fmt), testing.chunk_every(COHERE_ONE, chunk_size))
    )
    content, calls = summary(items)
    assert calls == [("foo", {"query": "query1"})]
    assert "<|" not in content


def test_minimax_invalid_line_ends_the_block() -> None:
    """vLLM skips a bad line and goes on; here the rest of the block is text, not lost."""
    text = (
        '<tool_calls>\n{"name": "valid_tool", "arguments": {"city": "Seattle"}}\n{invalid json here}\n'
        '{"name": "another_valid_tool", "arguments": {"param": "value"}}\n</tool_calls>'
    )
    parsed = parse_tool_calls(text, "minimax")
    assert [c.name for c in parsed.tool_calls] == ["valid_tool"]
    assert "another_valid_tool" in parsed.content


FORMATS = [
    "internlm",
    "jamba",
    "hunyuan_a13b",
    "ernie45",
    "longcat",
    "phi4_mini_json",
    "gigachat3",
    "cohere_command3",
    "minimax",
    "apertus",
]


@pytest.mark.parametrize("fmt", FORMATS)
def test_several_calls_in_one_chunk_sglang_37634(fmt: str) -> None:
    calls = [(f"f{i}", {"i": i, "s": "x" * i, "o": {"k": [i]}}) for i in range(4)]
    if fmt == "gigachat3":
        calls = calls[:1]
    text = "Sure. " + parser_class(fmt).render(calls)
    items = testing.coalesce(testing.run(tool_parser(fmt), [text]))
    assert summary(items)[1] == calls


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_char_streaming_agrees_with_one_shot_sglang_35564(fmt: str) -> None:
    text = "Sure. " + parser_class(fmt).render([("a", {"x": '\\u00e9 " }'}), ("b", {})]) + " ok"
    one_char = testing.coalesce(testing.run(tool_parser(fmt), list(text)))
    assert one_char == testing.coalesce(testing.run(tool_parser(fmt), [text]))


# -- Cohere: the model's tool_call_id is the call id (ID_KEYS) ---------------------------


def _cohere(*objs: str) -> str:
    return "<|START_ACTION|>[" + ", ".join(objs) + "]<|END_ACTION|>"


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        (COHERE_TWO, ["0", "1"]),  # vLLM uses the model's id as the call id
        (  # a repeated id is made unique
            _cohere(
                '{"tool_call_id": "a", "tool_name": "f", "parameters": {}}',
                '{"tool_call_id": "a", "tool_name": "g", "parameters": {}}',
                '{"tool_call_id": "a", "tool_name": "h", "parameters": {}}',
            ),
            ["a", "a~2", "a~3"],
        ),
        (  # id after the name, still before the arguments: used
            _cohere('{"tool_name": "f", "tool_call_id": "x", "parameters": {"q": 1}}'),
            ["x"],
        ),
        (  # arguments before the name and the id: the call waits for the name, so the id
            # written before the name is used
            _cohere('{"parameters": {"q": 1}, "tool_call_id": "x", "tool_name": "f"}'),
            ["x"],
        ),
        (  # id after the arguments started streaming: too late, the generated id stays
            _cohere('{"tool_name": "f", "parameters": {"q": 1}, "tool_call_id": "x"}'),
            ["call_0"],
        ),
        (  # no id, a non-string id, an empty id: generated
            _cohere(
                '{"tool_name": "f", "parameters": {}}',
                '{"tool_call_id": 7, "tool_name": "f", "parameters": {}}',
                '{"tool_call_id": "", "tool_name": "f", "parameters": {}}',
            ),
            ["call_0", "call_1", "call_2"],
        ),
        (  # a model id equal to a generated one: the later one is suffixed
            _cohere(
                '{"tool_call_id": "call_1", "tool_name": "f", "parameters": {}}',
                '{"tool_name": "g", "parameters": {}}',
            ),
            ["call_1", "call_1~2"],
        ),
        (  # an escaped id is decoded
            _cohere('{"tool_call_id": "a\\"b\\u00e9", "tool_name": "f", "parameters": {}}'),
            ['a"bé'],
        ),
    ],
)
@given(data=st.data())
def test_cohere_model_call_ids(text: str, ids: list[str], data: st.DataObject) -> None:
    items = check_format("cohere_command4", text, data)
    got = [v.id for k, v in items if k == "call" and isinstance(v, testing.Call)]
    assert got == ids
    content, calls = summary(items)
    assert content == ""
    assert len(calls) == len(ids)


def test_cohere_call_waits_for_an_id_written_before_the_arguments() -> None:
    """Fed a character at a time, the start event carries the model's id: the call never
    starts before the id (written before the arguments) is known."""
    parser = tool_parser("cohere_command3")
    text = _cohere('{"tool_name": "f", "tool_call_id": "abc", "parameters": {"q": "x"}}')
    events = [ev for ch in text for ev in parser.feed(ch)] + parser.finish()
    starts = [ev for ev in events if isinstance(ev, ToolCallStart)]
    assert [(s.id, s.name) for s in starts] == [("abc", "f")]


def test_id_keys_is_off_by_default() -> None:
    """Other JSON formats ignore a tool_call_id key: it is skipped like any other key."""
    text = '<tool_calls>[{"tool_call_id": "x", "name": "f", "arguments": {}}]</tool_calls>'
    [call] = parse_tool_calls(text, "jamba").tool_calls
    assert call.id == "call_0"


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        (
            'x <|action_start|> <|plugin|>\n{"name": "get_weather", "arguments": '
            '{"city": "Paris"}}<|action_end|> y',
            "x  y",
            [("get_weather", {"city": "Paris"})],
        ),
        ("x <|action_start|> hello", "x <|action_start|> hello", []),
    ],
)
@given(data=st.data())
def test_internlm_spaced_start_marker(
    text: str, content: str, calls: Calls, data: st.DataObject
) -> None:
    """Detokenized with spaces between special tokens (vLLM's and SGLang's default) the
    start is "<|action_start|> <|plugin|>"; it was text (SGLang's InternLM suite)."""
    assert summary(check_format("internlm", text, data)) == (content, calls)
