"""step3p5 (StepFun Step-3.5) against vLLM's suite.

Cases are taken from vLLM's ``tests/tool_parsers/test_step3p5_tool_parser.py``
(Apache-2.0, copyright the vLLM project): the model outputs, the tool schemas and the
expected calls and content are copied; the code is ours. Every text goes through
``check_format``, so each vLLM case runs whole, one character at a time, in 7-character
pieces and in random chunkings; the specific chunkings vLLM pins (MTP chunks, a
boundary inside one multi-token chunk) are replayed as given too.

Where vLLM's expectation differs on purpose, we assert ours and say why:
- vLLM reports content ``None`` when there is no text; here it is ``""``.
- Text between blocks is kept: the newline between ``</tool_call>`` and the next
  ``<tool_call>`` is text in the XML family (vLLM drops it).
- Text before a call is kept as written: the newline between ``for you:`` and
  ``<tool_call>`` is text (vLLM's tests only check the sentence is ``in`` the content).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qwen3_coder_cases import WEATHER_DALLAS
from streamcall import testing
from streamcall.events import ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats.registry import tool_parser
from streamcall.text import fast
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]

FMT = "step3p5"

SAMPLE_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_current_weather",
            "description": "Get the current weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city name"},
                    "state": {"type": "string", "description": "The state code"},
                    "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]},
                },
                "required": ["city", "state"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "calculate_area",
            "description": "Calculate area of a shape",
            "parameters": {
                "type": "object",
                "properties": {
                    "shape": {"type": "string"},
                    "dimensions": {"type": "object"},
                    "precision": {"type": "integer"},
                },
            },
        },
    },
]
TYPES_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "test_types",
            "parameters": {
                "type": "object",
                "properties": {
                    "int_param": {"type": "integer"},
                    "float_param": {"type": "float"},
                    "bool_param": {"type": "boolean"},
                    "str_param": {"type": "string"},
                    "obj_param": {"type": "object"},
                },
            },
        },
    }
]

DALLAS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
DALLAS_TX = {"city": "Dallas", "state": "TX"}
ORLANDO_F = {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}
ORLANDO_C = {"city": "Orlando", "state": "FL", "unit": "celsius"}
RECT_5 = {"shape": "rectangle", "dimensions": {"width": 10, "height": 5}}


WEATHER_ORLANDO_F = WEATHER_DALLAS.replace("Dallas", "Orlando").replace("TX", "FL")
WEATHER_ORLANDO_C = WEATHER_ORLANDO_F.replace("fahrenheit", "celsius")
AREA_RECT = (
    """<tool_call>
<function=calculate_area>
<parameter=shape>
rectangle
</parameter>
<parameter=dimensions>
{"width": 10,"""
    + " "  # vLLM's fixture has a trailing space here
    + """
 "height": 20}
</parameter>
<parameter=precision>
2
</parameter>
</function>
</tool_call>"""
)
AREA_CIRCLE = """Let me calculate that area for you.<tool_call>
<function=calculate_area>
<parameter=shape>
circle
</parameter>
<parameter=dimensions>
{"radius": 15.5}
</parameter>
<parameter=precision>
3
</parameter>
</function>
</tool_call>"""
WEATHER_DALLAS_TX = """<tool_call>
<function=get_current_weather>
<parameter=city>
Dallas
</parameter>
<parameter=state>
TX
</parameter>
</function>
</tool_call>"""
AREA_RECT_5 = """<tool_call>
<function=calculate_area>
<parameter=shape>
rectangle
</parameter>
<parameter=dimensions>
{"width": 10, "height": 5}
</parameter>
</function>
</tool_call>"""
MISSING_CLOSE = """Let me check the weather for you:
<tool_call>
<function=get_current_weather>
<parameter=city>
Dallas
<parameter=state>
TX
</parameter>
<parameter=unit>
fahrenheit
</parameter>
</function>
</tool_call>"""

# (model output, expected calls, expected content); test_extract_tool_calls and
# test_extract_tool_calls_streaming (the union of both parametrizations).
CASES: list[tuple[str, Calls, str]] = [
    (  # no_tools
        "This is a test response without any tool calls",
        [],
        "This is a test response without any tool calls",
    ),
    ("This is a test without tools", [], "This is a test without tools"),
    (WEATHER_DALLAS, [("get_current_weather", DALLAS)], ""),  # single_tool
    (  # single_tool_with_content
        "Sure! Let me check the weather for you." + WEATHER_DALLAS,
        [("get_current_weather", DALLAS)],
        "Sure! Let me check the weather for you.",
    ),
    (  # single_tool_multiline_param
        AREA_RECT,
        [
            (
                "calculate_area",
                {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": 2},
            )
        ],
        "",
    ),
    # parallel_tools: vLLM drops the newline between the two blocks; the XML family
    # keeps text between blocks as text, as test_qwen3_coder.py pins for qwen3_coder.
    (  # parallel_tools (non-streaming variant)
        WEATHER_DALLAS + "\n" + WEATHER_ORLANDO_F,
        [("get_current_weather", DALLAS), ("get_current_weather", ORLANDO_F)],
        "",
    ),
    (  # parallel_tools (streaming variant)
        WEATHER_DALLAS + "\n" + WEATHER_ORLANDO_C,
        [("get_current_weather", DALLAS), ("get_current_weather", ORLANDO_C)],
        "",
    ),
    (  # tool_with_typed_params
        AREA_CIRCLE,
        [("calculate_area", {"shape": "circle", "dimensions": {"radius": 15.5}, "precision": 3})],
        "Let me calculate that area for you.",
    ),
    (  # test_extract_tool_calls_streaming_incremental
        "I'll check the weather." + WEATHER_DALLAS_TX,
        [("get_current_weather", DALLAS_TX)],
        "I'll check the weather.",
    ),
    (  # test_extract_tool_calls_fallback_no_tags: a bare <function=...> is a call
        WEATHER_DALLAS_TX.removeprefix("<tool_call>\n").removesuffix("\n</tool_call>"),
        [("get_current_weather", DALLAS_TX)],
        "",
    ),
    (  # missing </parameter>: the next <parameter= ends the value (vLLM tolerates it)
        MISSING_CLOSE,
        [("get_current_weather", DALLAS)],
        "Let me check the weather for you:\n",
    ),
    (  # mixed content and multiple tool calls (streaming, non-streaming, whole delta)
        "hello" + WEATHER_DALLAS_TX + "hi" + AREA_RECT_5,
        [("get_current_weather", DALLAS_TX), ("calculate_area", RECT_5)],
        "hellohi",
    ),
    (  # multiple tool calls with no content between them
        "hello" + WEATHER_DALLAS_TX + AREA_RECT_5,
        [("get_current_weather", DALLAS_TX), ("calculate_area", RECT_5)],
        "hello",
    ),
]


@pytest.mark.parametrize(("text", "calls", "content"), CASES)
@given(data=st.data())
def test_vllm_cases(text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format(FMT, text, data, SAMPLE_TOOLS))
    assert got_calls == calls
    assert got_content == content


@pytest.mark.parametrize(
    ("text", "args"),
    [
        (  # test_extract_tool_calls_type_conversion ("float" is not a JSON-schema type)
            "<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n"
            "<parameter=float_param>\n3.14\n</parameter>\n<parameter=bool_param>\ntrue\n"
            "</parameter>\n<parameter=str_param>\nhello world\n</parameter>\n"
            '<parameter=obj_param>\n{"key": "value"}\n</parameter>\n</function>\n</tool_call>',
            {
                "int_param": 42,
                "float_param": 3.14,
                "bool_param": True,
                "str_param": "hello world",
                "obj_param": {"key": "value"},
            },
        ),
        (  # test_extract_tool_calls_complex_type_with_single_quote: a Python literal
            "<tool_call>\n<function=test_types>\n<parameter=obj_param>\n{'key': 'value'}\n"
            "</parameter>\n</function>\n</tool_call>",
            {"obj_param": {"key": "value"}},
        ),
    ],
)
@given(data=st.data())
def test_vllm_type_conversion(text: str, args: dict[str, Any], data: st.DataObject) -> None:
    content, calls = summary(check_format(FMT, text, data, TYPES_TOOLS))
    assert calls == [("test_types", args)]
    assert content == ""
    # the float and the bool are JSON numbers and literals, not strings
    assert isinstance(calls[0][1].get("float_param", 0.0), float)


@pytest.mark.parametrize(
    ("deltas", "calls"),
    [
        (  # test_extract_tool_calls_streaming_multi_token_chunk_boundary
            [
                "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nSys",
                "\n</parameter>\n</function>\n",
                "</tool_call><tool_call>\n<",
                "function=calculate_area>\n<parameter=shape>\nrectangle",
                "</parameter>\n</function>\n</tool_call>",
            ],
            [("get_current_weather", {"city": "Sys"}), ("calculate_area", {"shape": "rectangle"})],
        ),
        (  # test_streaming_mtp_variable_chunks (PR #33690)
            [
                "<tool_call>\n<function=get_current_weather>\n<parameter=city>\n",
                "Dallas\n</parameter>\n<parameter=state>\nTX",
                "\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>",
                "\n</function>\n</tool_call>",
            ],
            [("get_current_weather", DALLAS)],
        ),
        (  # test_streaming_multi_token_per_step (PR #33690)
            [
                "<tool_call>\n<function=get_current_weather>\n"
                "<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX",
                "\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n"
                "</function>\n</tool_call>\n<tool_call>\n<function=get_current_weather>\n"
                "<parameter=city>\nOrlando\n</parameter>\n<parameter=state>\nFL\n</parameter>\n"
                "<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>",
            ],
            [("get_current_weather", DALLAS), ("get_current_weather", ORLANDO_C)],
        ),
    ],
)
@given(data=st.data())
def test_vllm_pinned_chunkings(deltas: list[str], calls: Calls, data: st.DataObject) -> None:
    items = testing.coalesce(testing.run(tool_parser(FMT, tools=SAMPLE_TOOLS), deltas))
    assert summary(items)[1] == calls
    # ... and the same as any other chunking of the same text
    assert items == check_format(FMT, "".join(deltas), data, SAMPLE_TOOLS)


def test_vllm_streaming_is_incremental() -> None:
    """test_extract_tool_calls_streaming_incremental: content first, then the call's
    start (with its name) before its arguments, which arrive in more than one piece."""
    text = "I'll check the weather." + WEATHER_DALLAS_TX
    parser = tool_parser(FMT, tools=SAMPLE_TOOLS)
    events = [ev for ch in text for ev in parser.feed(ch)] + parser.finish()
    kinds = [type(ev).__name__ for ev in events]
    assert kinds[0] == "Text"
    start = kinds.index("ToolCallStart")
    first_args = kinds.index("ToolCallArgs")
    assert start < first_args
    starts = [ev for ev in events if isinstance(ev, ToolCallStart)]
    assert [(s.name, bool(s.id)) for s in starts] == [("get_current_weather", True)]
    deltas = [ev.delta for ev in events if isinstance(ev, ToolCallArgs)]
    assert len(deltas) > 1
    [end] = [ev for ev in events if isinstance(ev, ToolCallEnd)]
    assert "".join(deltas) == end.arguments
    assert json.loads(end.arguments) == DALLAS_TX


def test_vllm_whole_input_in_one_delta() -> None:
    """test_extract_tool_calls_streaming_full_input_mixed_content_and_multiple_tool_calls."""
    text = "hello" + WEATHER_DALLAS_TX + "hi" + AREA_RECT_5
    items = testing.coalesce(testing.run(tool_parser(FMT, tools=SAMPLE_TOOLS), [text]))
    content, calls = summary(items)
    assert calls == [("get_current_weather", DALLAS_TX), ("calculate_area", RECT_5)]
    assert content == "hellohi"
    assert "<function=" not in content


# -- SGLang's test/registered/unit/function_call/test_step3p5_detector.py ---------------
# (Apache-2.0, copyright the SGLang project). SGLang's Step3p5Detector is our step3p5.
# Its own check, "every one- and two-piece split gives the same result", is what
# check_format does for every case (and ``test_sglang_step3p5_repairs`` replays it
# literally). Its repairs of malformed tags are ours too: ``<function bash>`` and
# ``<functionbash>`` for a declared tool, a ``>`` missing before a newline, and
# ``<parameter=parameter=``. Not ported: the swallowing of a stray ``</tool_call>`` after
# a bare call (it stays text here, which loses nothing).


def _tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": props}},
    }


SG_TOOLS = [
    _tool(
        "bash",
        {
            "command": {"type": "string"},
            "items": {"type": "array"},
            "options": {"type": "object"},
            "timeout": {"type": "integer"},
        },
    ),
    _tool("weather", {"city": {"type": "string"}, "state": {"type": "string"}}),
]
SG_BASH = "<tool_call><function=bash><parameter=command>pwd</parameter></function></tool_call>"
SG_WEATHER = "<tool_call><function=weather><parameter=city>Paris</parameter></function></tool_call>"
PWD = ("bash", {"command": "pwd"})
PARIS = ("weather", {"city": "Paris"})

SG_CASES: list[tuple[str, Calls, str]] = [
    (  # canonical XML, as the Qwen parser reads it
        "prefix<tool_call><function=bash><parameter=command>pwd</parameter>"
        "<parameter=timeout>5</parameter></function></tool_call>",
        [("bash", {"command": "pwd", "timeout": 5})],
        "prefix",
    ),
    ("<function=bash><parameter=command>pwd</parameter></function>", [PWD], ""),
    (
        "<tool_call><function=weather><parameter=city>Dallas"
        "<parameter=state>TX</parameter></function></tool_call>",
        [("weather", {"city": "Dallas", "state": "TX"})],
        "",
    ),
    ("<tool_call><function=bash><parameter=command>pwd</tool_call>", [PWD], ""),
    (SG_BASH + SG_WEATHER, [PWD, PARIS], ""),
    ("hello" + SG_BASH + "between" + SG_WEATHER + "bye", [PWD, PARIS], "hellobetweenbye"),
    (
        "<tool_call><function=bash><parameter=options>{'check': True}</parameter>"
        "<parameter=items>[1, 2]</parameter></function></tool_call>",
        [("bash", {"options": {"check": True}, "items": [1, 2]})],
        "",
    ),
    (  # an unknown function with a malformed tag: text, no call (SGLang drops it)
        "<tool_call><function unknown><parameter=command>pwd</parameter></function></tool_call>",
        [],
        "<tool_call><function unknown><parameter=command>pwd</parameter></function></tool_call>",
    ),
    # Repairs, for a declared tool: the '=' left out, a '>' missing before a newline, a
    # doubled 'parameter='.
    (
        "<tool_call><function bash><parameter=command>pwd</parameter></function></tool_call>",
        [PWD],
        "",
    ),
    (
        "<tool_call><functionbash><parameter=command>pwd</parameter></function></tool_call>",
        [PWD],
        "",
    ),
    (
        "<tool_call><function=bash\n<parameter=command\npwd</parameter></function></tool_call>",
        [PWD],
        "",
    ),
    (
        "<tool_call><function=bash><parameter=parameter=command\npwd</parameter>"
        "</function></tool_call>",
        [PWD],
        "",
    ),
    # SGLang keeps a bare call to an unknown tool as text; streamcall does not check names
    # against the tools list, so it is a call.
    (
        "prefix<function=unknown><parameter=command>pwd</parameter></function>suffix",
        [("unknown", {"command": "pwd"})],
        "prefixsuffix",
    ),
    (
        "intro<functions>x</functions><function_name>y</function_name>" + SG_BASH,
        [PWD],
        "intro<functions>x</functions><function_name>y</function_name>",
    ),
    ("This uses <functionality in prose", [], "This uses <functionality in prose"),
    ("This uses <functionbashful in prose", [], "This uses <functionbashful in prose"),
    ("This uses <function unknown in prose", [], "This uses <function unknown in prose"),
    ("This discusses <parameterization forever", [], "This discusses <parameterization forever"),
    ("a</function>b</parameter>c</tool_call>d", [], "a</function>b</parameter>c</tool_call>d"),
    (
        "prefix\ue000step3p5-literal-lt\ue001suffix",
        [],
        "prefix\ue000step3p5-literal-lt\ue001suffix",
    ),
    ("a<</function>b" + SG_BASH, [PWD], "a<</function>b"),
    # cut off in a value: SGLang closes the call; so do we (reported incomplete)
    ("<tool_call><function=bash><parameter=command>pwd", [PWD], ""),
    ("<tool_call><function=bash", [], "<tool_call><function=bash"),
    # SGLang keeps all of it as text; here the call had started (its header was whole),
    # so it is reported, incomplete with {}, and the cut parameter tag is text.
    ("<tool_call><function=bash><parameter=command", [("bash", {})], "<parameter=command"),
    (SG_BASH + "<tool_call><function=weather", [PWD], "<tool_call><function=weather"),
    ("<function=bash></function>\n", [("bash", {})], ""),
    # SGLang drops the whole call when an object value does not convert; streamcall
    # falls back to the string, as documented in engines/xml_args.py.
    (
        "<tool_call><function=bash><parameter=options>{1, 2}</parameter></function></tool_call>",
        [("bash", {"options": "{1, 2}"})],
        "",
    ),
    (
        "<tool_call><function=bash><parameter=command>printf '&lt;function bash&gt;'"
        "</parameter></function></tool_call>",
        [("bash", {"command": "printf '&lt;function bash&gt;'"})],
        "",
    ),
]


@pytest.mark.parametrize(("text", "calls", "content"), SG_CASES)
@given(data=st.data())
def test_sglang_step3p5_cases(text: str, calls: Calls, content: str, data: st.DataObject) -> None:
    got_content, got_calls = summary(check_format(FMT, text, data, SG_TOOLS))
    assert got_calls == calls
    assert got_content == content


# The repaired forms: SGLang's check (whole, 1-char, every two-piece split), and the
# general path of the XML engine (its shortcuts off) gives the same.
REPAIRS = [
    "<tool_call><function bash><parameter=command>pwd</parameter></function></tool_call>",
    "<tool_call><functionbash><parameter=command>pwd</parameter></function></tool_call>",
    "<tool_call><function=bash\n<parameter=command\npwd</parameter></function></tool_call>",
    "<tool_call><function=bash><parameter=parameter=command\npwd</parameter></function></tool_call>",
    "<functionbash\n<parameter=command\n\npwd\n</parameter>\n</function>",
]


@pytest.mark.parametrize("text", REPAIRS)
def test_sglang_step3p5_repairs(text: str) -> None:
    expected = check_format(FMT, text, None, SG_TOOLS)
    assert summary(expected) == ("", [PWD])
    splits = [[text[:i], text[i:]] for i in range(1, len(text))]
    for pieces in splits:
        parser = tool_parser(FMT, tools=SG_TOOLS)
        assert testing.coalesce(testing.run(parser, pieces)) == expected, pieces
        with fast.reference():  # the engine's reference reads
            general = tool_parser(FMT, tools=SG_TOOLS)
            events = [e for piece in pieces for e in general.feed(piece)]
            assert testing.coalesce([*events, *general.finish()]) == expected, pieces


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        # a '>' after the newline is still the header's end: no early decision
        (
            "<tool_call><function=bash\n><parameter=command\n>pwd</parameter></function></tool_call>",
            "",
            [PWD],
        ),
        # a name that is not a declared tool is not repaired
        ("<functionbashful>x</function>", "<functionbashful>x</function>", []),
        ("<function bash2>x</function>", "<function bash2>x</function>", []),
        # the known name must be the whole name
        ("This uses <functionbash in prose", "This uses <functionbash in prose", []),
    ],
)
@given(data=st.data())
def test_step3p5_repair_edges(text: str, content: str, calls: Calls, data: st.DataObject) -> None:
    assert summary(check_format(FMT, text, data, SG_TOOLS)) == (content, calls)


def test_qwen3_coder_does_not_gain_the_step_repairs() -> None:
    # SGLang test_qwen_parser_does_not_gain_step_repair
    text = "<tool_call><function bash><parameter=command>pwd</parameter></function></tool_call>"
    assert summary(check_format("qwen3_coder", text, None, SG_TOOLS)) == (text, [])
