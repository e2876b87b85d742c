"""SGLang's function-call parser tests, ported to streamcall's formats.

Cases are taken from SGLang (Apache-2.0, copyright the SGLang project / sgl-project):
``test/srt/test_function_call_parser.py`` and
``test/registered/unit/function_call/test_cohere_command4_detector.py``. The model
outputs, tool schemas, chunkings and expected calls are copied; the code is ours. Every
text goes through ``check_format`` (whole, 1-char, 7-char and random chunkings), and the
chunkings SGLang pins are replayed as given and compared with the one-shot result.

SGLang names its parsers by detector class; ours are vLLM's ``--tool-call-parser``
names. The mapping used here:

=========================  ==========================================================
SGLang detector            streamcall format
=========================  ==========================================================
PythonicDetector           ``pythonic`` (list opens the output); with
                           ``<|python_start|>`` markers: ``llama4_pythonic``
MistralDetector            ``mistral`` (pre-v11 ``[TOOL_CALLS] [...]``)
BaseFormatDetector test    ``hermes`` (``<tool_call>`` ... ``</tool_call>``)
Llama32Detector            ``llama3_json``
KimiK2Detector             ``kimi_k2``
DeepSeekV3Detector         ``deepseek_v3``
Qwen3CoderDetector         ``qwen3_coder``
Glm4MoeDetector            ``glm45``
CohereCommand4Detector     ``cohere_command4``
=========================  ==========================================================

Where SGLang's expectation differs on purpose, we assert ours and say why. The recurring
reasons: text around and between calls is kept as written (SGLang strips or drops some
of it); a call cut off or broken after it started is reported with closed arguments and
``incomplete`` (SGLang drops it or leaves its JSON open); calls are not checked against
the ``tools`` list (SGLang drops calls to unknown tools), since the names are the model's
and the client decides; XML values lose only the one newline the format puts around
them, as in vLLM (SGLang strips all surrounding whitespace).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qwen3_coder_cases import WEATHER_DALLAS
from streamcall import testing
from streamcall.events import ToolCallArgs, ToolCallStart
from streamcall.formats.engines.base import Tools
from streamcall.formats.registry import parse_tool_calls, tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]


def tool(name: str, props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"type": "object", "properties": props}
    if required is not None:
        params["required"] = required
    return {"type": "function", "function": {"name": name, "parameters": params}}


S = {"type": "string"}
PY_TOOLS = [
    tool(
        "get_weather",
        {"location": S, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        ["location"],
    ),
    tool("search", {"query": S}, ["query"]),
]
CITY_TOOLS = [
    tool("get_weather", {"city": S}, ["city"]),
    tool("get_tourist_attractions", {"city": S}, ["city"]),
]
MISTRAL_TOOLS = [
    tool("make_next_step_decision", {"decision": S, "content": S}, ["decision", "content"])
]
QWEN_TOOLS = [
    tool(
        "get_current_weather",
        {"city": S, "state": S, "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]}},
        ["city", "state"],
    ),
    tool(
        "calculate_area",
        {"shape": S, "dimensions": {"type": "object"}, "precision": {"type": "integer"}},
    ),
]
GLM_TOOLS = [tool("get_weather", {"city": S, "date": S}, ["city", "date"])]
TODO_TOOLS = [tool("todo_write", {"todos": {"type": "array"}}, ["todos"])]
COHERE_TOOLS = [tool("get_weather", {"city": S}, ["city"]), tool("search", {"query": S}, ["query"])]

MISTRAL_NESTED = (
    "```\nTOOL: Access a weather API or service\nOBSERVATION: Retrieve the current weather "
    "data for the top 5 populated cities in the US\nANSWER: The weather in the top 5 "
    "populated cities in the US is as follows: [City Name] - [Weather Conditions] - "
    "[Temperature]\n```"
)
QWEN_DALLAS = WEATHER_DALLAS
DALLAS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
TODOS = (
    '[{"id": "1", "task": "Check for hard-coded issues in the backend code", "status": "in_progress"}, '
    '{"id": "2", "task": "Check for hard-coded issues in the frontend code", "status": "pending"}, '
    '{"id": "3", "task": "Check for code violating the Single Responsibility Principle", "status": "pending"}, '
    '{"id": "4", "task": "Generate a rectification proposal report", "status": "pending"}]'
)
GLM_BJ = (
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
    "<arg_key>date</arg_key>\n<arg_value>2024-06-27</arg_value>\n</tool_call>"
)
GLM_SH = (
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Shanghai</arg_value>\n"
    "<arg_key>date</arg_key>\n<arg_value>2024-06-28</arg_value>\n</tool_call>"
)
KIMI_PARIS = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
    '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>'
)
KIMI_LONDON = (
    "<|tool_call_begin|>functions.get_tourist_attractions:1"
    '<|tool_call_argument_begin|>{"city": "London"}<|tool_call_end|>'
)
C_START, C_END = "<|START_ACTION|>", "<|END_ACTION|>"


def cohere_action(name: str, params: dict[str, Any]) -> str:
    return json.dumps({"tool_call_id": "0", "tool_name": name, "parameters": params})


def cohere_block(*actions: str) -> str:
    return C_START + "[" + ", ".join(actions) + "]" + C_END


# (format, tools, model output, expected calls, expected content)
CASES: list[tuple[str, Tools | None, str, Calls, str]] = [
    # --- TestPythonicDetector -------------------------------------------------------
    (
        "pythonic",
        PY_TOOLS,
        "This is just normal text without any tool calls.",
        [],
        "This is just normal text without any tool calls.",
    ),
    (
        "pythonic",
        PY_TOOLS,
        "[search(query='python programming')]",
        [("search", {"query": "python programming"})],
        "",
    ),
    # SGLang keeps the text after the list for a later call; here it is text at once.
    (
        "pythonic",
        PY_TOOLS,
        "[get_weather(location='Tokyo')] Here's the forecast:",
        [("get_weather", {"location": "Tokyo"})],
        " Here's the forecast:",
    ),
    (
        "pythonic",
        PY_TOOLS,
        "[get_weather(location='New York', unit='celsius', data=[1, 2, 3])]",
        [("get_weather", {"location": "New York", "unit": "celsius", "data": [1, 2, 3]})],
        "",
    ),
    (
        "pythonic",
        PY_TOOLS,
        "[search(query='test', config={'options': [1, 2], 'nested': {'key': 'value'}})]",
        [("search", {"query": "test", "config": {"options": [1, 2], "nested": {"key": "value"}}})],
        "",
    ),
    (
        "pythonic",
        PY_TOOLS,
        "[get_weather(location='Paris', data=[10, 20]), search(query='test', filters=['a', 'b'])]",
        [
            ("get_weather", {"location": "Paris", "data": [10, 20]}),
            ("search", {"query": "test", "filters": ["a", "b"]}),
        ],
        "",
    ),
    # SGLang finds a pythonic list anywhere in the text. streamcall's ``pythonic`` follows
    # vLLM: the list must open the output (otherwise prose with a bracket, "[1]",
    # "[Note]", would become a call), so text before it makes the whole output text.
    (
        "pythonic",
        PY_TOOLS,
        "Here's a tool call: [get_weather(location='New York', unit='celsius')]",
        [],
        "Here's a tool call: [get_weather(location='New York', unit='celsius')]",
    ),
    ("pythonic", PY_TOOLS, "Let's try this: [", [], "Let's try this: ["),
    # ... and a second list after text is text (SGLang: a second call).
    (
        "pythonic",
        PY_TOOLS,
        "[get_weather(location='Berlin')] and [search(query='restaurants')]",
        [("get_weather", {"location": "Berlin"})],
        " and [search(query='restaurants')]",
    ),
    # With Llama 4's markers, text before the list is fine: llama4_pythonic.
    (
        "llama4_pythonic",
        PY_TOOLS,
        "Here's a call: <|python_start|>[get_weather(location='Tokyo', data=[1, 2, 3])]<|python_end|>",
        [("get_weather", {"location": "Tokyo", "data": [1, 2, 3]})],
        "Here's a call: ",
    ),
    (
        "llama4_pythonic",
        PY_TOOLS,
        "User wants to get the weather in Mars. <|python_start|>[get_weather(location='Mars', unit='celsius')]<|python_end|> In this way we will get the weather in Mars.",
        [("get_weather", {"location": "Mars", "unit": "celsius"})],
        "User wants to get the weather in Mars.  In this way we will get the weather in Mars.",
    ),
    # --- TestMistralDetector --------------------------------------------------------
    (
        "mistral",
        MISTRAL_TOOLS,
        '[TOOL_CALLS] [{"name":"make_next_step_decision", "arguments":{"decision":"","content":"```\\nTOOL: Access a weather API or service\\nOBSERVATION: Retrieve the current weather data for the top 5 populated cities in the US\\nANSWER: The weather in the top 5 populated cities in the US is as follows: [City Name] - [Weather Conditions] - [Temperature]\\n```"}}]',
        [("make_next_step_decision", {"decision": "", "content": MISTRAL_NESTED})],
        "",
    ),
    (
        "mistral",
        MISTRAL_TOOLS,
        '[TOOL_CALLS] [{"name":"make_next_step_decision", "arguments":{"decision":"TOOL", "content":"Use weather API"}}]',
        [("make_next_step_decision", {"decision": "TOOL", "content": "Use weather API"})],
        "",
    ),
    (
        "mistral",
        MISTRAL_TOOLS,
        "This is just normal text without any tool calls.",
        [],
        "This is just normal text without any tool calls.",
    ),
    # SGLang strips the content ("...tool call:"); it is kept as written here.
    (
        "mistral",
        MISTRAL_TOOLS,
        'Here is some text before the tool call: [TOOL_CALLS] [{"name":"make_next_step_decision", "arguments":{"decision":"ANSWER", "content":"The answer is 42"}}]',
        [("make_next_step_decision", {"decision": "ANSWER", "content": "The answer is 42"})],
        "Here is some text before the tool call: ",
    ),
    # --- TestBaseFormatDetector: comma-separated calls in one <tool_call> block --------
    (
        "hermes",
        CITY_TOOLS,
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_tourist_attractions", "arguments": {"city": "London"}}</tool_call>',
        [("get_weather", {"city": "Paris"}), ("get_tourist_attractions", {"city": "London"})],
        "",
    ),
    (
        "hermes",
        CITY_TOOLS,
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_tourist_attractions", "arguments": {"city": "London"}} </tool_call>',
        [("get_weather", {"city": "Paris"}), ("get_tourist_attractions", {"city": "London"})],
        "",
    ),
    # SGLang drops a call to a tool not in ``tools``; streamcall does not check names
    # against the tools list (the client does), so the call is reported.
    (
        "hermes",
        CITY_TOOLS,
        '<tool_call>{"name": "invalid_tool", "arguments": {}}</tool_call>',
        [("invalid_tool", {})],
        "",
    ),
    # --- TestLlama32Detector --------------------------------------------------------
    (
        "llama3_json",
        CITY_TOOLS,
        '{"name": "get_weather", "parameters": {"city": "Paris"}}',
        [("get_weather", {"city": "Paris"})],
        "",
    ),
    (
        "llama3_json",
        CITY_TOOLS,
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}};{"name": "get_tourist_attractions", "parameters": {"city": "Paris"}}',
        [("get_weather", {"city": "Paris"}), ("get_tourist_attractions", {"city": "Paris"})],
        "",
    ),
    (
        "llama3_json",
        CITY_TOOLS,
        '<|python_tag|>{"name": "get_weather", "parameters": {}}<|python_tag|>{"name": "get_tourist_attractions", "parameters": {}}',
        [("get_weather", {}), ("get_tourist_attractions", {})],
        "",
    ),
    (
        "llama3_json",
        CITY_TOOLS,
        '{"name": "get_weather", "parameters": {}} Some follow-up text',
        [("get_weather", {})],
        " Some follow-up text",
    ),
    # SGLang skips the malformed first object and finds one call. Here the first call
    # started (name and a valid '{'), so when its arguments break it is ended,
    # incomplete, with "{}", and parsing goes on: two calls (see test_llama_broken_call).
    (
        "llama3_json",
        CITY_TOOLS,
        '{"name": "get_weather", "parameters": {{"name": "get_weather", "parameters": {}}',
        [("get_weather", {}), ("get_weather", {})],
        "",
    ),
    (
        "llama3_json",
        CITY_TOOLS,
        "This is just plain explanation text.",
        [],
        "This is just plain explanation text.",
    ),
    (
        "llama3_json",
        CITY_TOOLS,
        'Some intro. <|python_tag|>{"name": "get_weather", "parameters": {}}',
        [("get_weather", {})],
        "Some intro. ",
    ),
    # --- TestKimiK2Detector ---------------------------------------------------------
    (
        "kimi_k2",
        CITY_TOOLS,
        KIMI_PARIS + "<|tool_calls_section_end|>",
        [("get_weather", {"city": "Paris"})],
        "",
    ),
    (
        "kimi_k2",
        CITY_TOOLS,
        KIMI_PARIS + KIMI_LONDON + "<|tool_calls_section_end|>",
        [("get_weather", {"city": "Paris"}), ("get_tourist_attractions", {"city": "London"})],
        "",
    ),
    # no section start: text, whole
    (
        "kimi_k2",
        CITY_TOOLS,
        'invalid_tool:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
        [],
        'invalid_tool:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
    ),
    # --- TestDeepSeekV3Detector (the MTP chunks joined; replayed below) --------------
    (
        "deepseek_v3",
        CITY_TOOLS,
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city":"Shanghai"}\n```<｜tool▁call▁end｜>'
        '\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_tourist_attractions\n```json\n{"city": "Beijing"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        [("get_weather", {"city": "Shanghai"}), ("get_tourist_attractions", {"city": "Beijing"})],
        "",
    ),
    # --- TestQwen3CoderDetector -----------------------------------------------------
    (
        "qwen3_coder",
        [],
        "This is a test response without any tool calls",
        [],
        "This is a test response without any tool calls",
    ),
    ("qwen3_coder", QWEN_TOOLS, QWEN_DALLAS, [("get_current_weather", DALLAS)], ""),
    (
        "qwen3_coder",
        QWEN_TOOLS,
        "Sure! Let me check the weather for you." + QWEN_DALLAS,
        [("get_current_weather", DALLAS)],
        "Sure! Let me check the weather for you.",
    ),
    (
        "qwen3_coder",
        QWEN_TOOLS,
        '<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n<parameter=dimensions>\n{"width": 10,\n "height": 20}\n</parameter>\n<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>',
        [
            (
                "calculate_area",
                {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": 2},
            )
        ],
        "",
    ),
    # SGLang also gives "\n" as the normal text between the two blocks
    (
        "qwen3_coder",
        QWEN_TOOLS,
        QWEN_DALLAS + "\n" + QWEN_DALLAS.replace("Dallas", "Orlando").replace("TX", "FL"),
        [
            ("get_current_weather", DALLAS),
            ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}),
        ],
        "",
    ),
    (
        "qwen3_coder",
        QWEN_TOOLS,
        "<tool_call>\n<function=get_current_weather>\n</function>\n</tool_call>",
        [("get_current_weather", {})],
        "",
    ),
    (
        "qwen3_coder",
        QWEN_TOOLS,
        "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas->TX\n</parameter>\n</function>\n</tool_call>",
        [("get_current_weather", {"city": "Dallas->TX"})],
        "",
    ),
    (  # fallback: no <tool_call> wrapper (SGLang only asserts a result)
        "qwen3_coder",
        QWEN_TOOLS,
        "<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n</function>",
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
        "",
    ),
    (  # test_extract_tool_calls_type_conversion ("float" is not a JSON-schema type)
        "qwen3_coder",
        [
            tool(
                "test_types",
                {
                    "int_param": {"type": "integer"},
                    "float_param": {"type": "float"},
                    "bool_param": {"type": "boolean"},
                    "str_param": S,
                    "obj_param": {"type": "object"},
                },
            )
        ],
        "<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n<parameter=float_param>\n3.14\n</parameter>\n"
        "<parameter=bool_param>\ntrue\n</parameter>\n<parameter=str_param>\nhello world\n</parameter>\n"
        '<parameter=obj_param>\n{"key": "value"}\n</parameter>\n</function>\n</tool_call>',
        [
            (
                "test_types",
                {
                    "int_param": 42,
                    "float_param": 3.14,
                    "bool_param": True,
                    "str_param": "hello world",
                    "obj_param": {"key": "value"},
                },
            )
        ],
        "",
    ),
    # test_parse_streaming_incremental / _multiple_tools write every line indented by 8
    # spaces. SGLang strips all whitespace around a value; streamcall, like vLLM, strips
    # only the one newline the format puts after the opening tag and before the closing
    # one, so a string value keeps the indentation (typed values still load).
    (
        "qwen3_coder",
        QWEN_TOOLS,
        "I'll check the weather.<tool_call>\n        <function=get_current_weather>\n        <parameter=city>\n        Dallas\n        </parameter>\n"
        "        <parameter=state>\n        TX\n        </parameter>\n        </function>\n        </tool_call>",
        [
            (
                "get_current_weather",
                {"city": "        Dallas\n        ", "state": "        TX\n        "},
            )
        ],
        "I'll check the weather.",
    ),
    (
        "qwen3_coder",
        QWEN_TOOLS,
        "<tool_call>\n        <function=get_current_weather>\n        <parameter=city>\n        Dallas\n        </parameter>\n"
        "        <parameter=state>\n        TX\n        </parameter>\n        </function>\n        </tool_call>\n"
        "        Some text in between.\n        <tool_call>\n        <function=calculate_area>\n"
        "        <parameter=shape>\n        circle\n        </parameter>\n        <parameter=dimensions>\n"
        '        {"radius": 5}\n        </parameter>\n        </function>\n        </tool_call>',
        [
            (
                "get_current_weather",
                {"city": "        Dallas\n        ", "state": "        TX\n        "},
            ),
            ("calculate_area", {"shape": "        circle\n        ", "dimensions": {"radius": 5}}),
        ],
        "\n        Some text in between.\n        ",
    ),
    # --- TestGlm4MoeDetector --------------------------------------------------------
    ("glm45", GLM_TOOLS, GLM_BJ, [("get_weather", {"city": "Beijing", "date": "2024-06-27"})], ""),
    (
        "glm45",
        GLM_TOOLS,
        GLM_BJ + GLM_SH,
        [
            ("get_weather", {"city": "Beijing", "date": "2024-06-27"}),
            ("get_weather", {"city": "Shanghai", "date": "2024-06-28"}),
        ],
        "",
    ),
    # SGLang drops calls to unknown tools; streamcall reports them (see above)
    (
        "glm45",
        GLM_TOOLS,
        "<tool_call>invalid_func\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>",
        [("invalid_func", {"city": "Beijing"})],
        "",
    ),
    (  # test_array_argument_with_escaped_json, first (unescaped) variant
        "glm45",
        TODO_TOOLS,
        "<tool_call>todo_write\n<arg_key>todos</arg_key>\n<arg_value>"
        + TODOS
        + "</arg_value>\n</tool_call>",
        [("todo_write", {"todos": json.loads(TODOS)})],
        "",
    ),
    # --- test_cohere_command4_detector.py -------------------------------------------
    (
        "cohere_command4",
        COHERE_TOOLS,
        cohere_block(cohere_action("get_weather", {"city": "Beijing"})),
        [("get_weather", {"city": "Beijing"})],
        "",
    ),
    (
        "cohere_command4",
        COHERE_TOOLS,
        "Sure! "
        + cohere_block(
            cohere_action("get_weather", {"city": "Tokyo"}),
            cohere_action("search", {"query": "ramen"}),
        ),
        [("get_weather", {"city": "Tokyo"}), ("search", {"query": "ramen"})],
        "Sure! ",
    ),
    ("cohere_command4", COHERE_TOOLS, "Just a plain answer.", [], "Just a plain answer."),
    # SGLang drops a malformed block ("prefix "); nothing is lost here: it is text.
    (
        "cohere_command4",
        COHERE_TOOLS,
        "prefix " + C_START + "[not valid json" + C_END,
        [],
        "prefix " + C_START + "[not valid json" + C_END,
    ),
]


@pytest.mark.parametrize(("fmt", "tools", "text", "calls", "content"), CASES)
@given(data=st.data())
def test_sglang_cases(
    fmt: str, tools: Tools | None, text: str, calls: Calls, content: str, data: st.DataObject
) -> None:
    got_content, got_calls = summary(check_format(fmt, text, data, tools))
    assert got_calls == calls
    assert got_content == content


# (format, tools, chunks as SGLang feeds them, expected calls, expected content)
CHUNKED: list[tuple[str, Tools | None, list[str], Calls, str]] = [
    (  # TestPythonicDetector.test_parse_streaming_partial_tool_call
        "pythonic",
        PY_TOOLS,
        ["[get_weather(location=", "'Paris')]"],
        [("get_weather", {"location": "Paris"})],
        "",
    ),
    (  # test_parse_streaming_partial_nested_brackets (without the text before: see CASES)
        "pythonic",
        PY_TOOLS,
        ["[get_weather(location='Tokyo', data=[1, 2", ", 3])]"],
        [("get_weather", {"location": "Tokyo", "data": [1, 2, 3]})],
        "",
    ),
    (  # test_parse_streaming_with_python_start_and_end_token
        "llama4_pythonic",
        PY_TOOLS,
        [
            "Here's a call: ",
            "<|python_",
            "start|>[get_weather(location=",
            "'Tokyo', data=[1, 2",
            ", 3])]<|python_end|>",
        ],
        [("get_weather", {"location": "Tokyo", "data": [1, 2, 3]})],
        "Here's a call: ",
    ),
    (  # TestBaseFormatDetector.test_sequential_tool_index_assignment
        "hermes",
        CITY_TOOLS,
        [
            "<tool_call>",
            '{"name": "get_weather", ',
            '"arguments": {"city": "Paris"}}',
            ", ",
            '{"name": "get_tourist_attractions", ',
            '"arguments": {"city": "London"}}',
            "</tool_call>",
        ],
        [("get_weather", {"city": "Paris"}), ("get_tourist_attractions", {"city": "London"})],
        "",
    ),
    (  # test_buffer_content_preservation
        "hermes",
        CITY_TOOLS,
        [
            "<tool_call>",
            '{"name": "get_weather", ',
            '"arguments": {"city": "Paris"}}',
            ", ",
            '{"name": "get_tourist_attractions", ',
            '"arguments": {"city": "London"}} </tool_call>',
        ],
        [("get_weather", {"city": "Paris"}), ("get_tourist_attractions", {"city": "London"})],
        "",
    ),
    (  # TestKimiK2Detector.test_streaming_tool_call
        "kimi_k2",
        CITY_TOOLS,
        [
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{",
            '"city": "Paris"',
            "}",
            "<|tool_call_end|><|tool_calls_section_end|>",
        ],
        [("get_weather", {"city": "Paris"})],
        "",
    ),
    (  # test_streaming_multiple_tool_calls
        "kimi_k2",
        CITY_TOOLS,
        [
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{",
            '"city": "Paris"',
            "}<|tool_call_end|>",
            "<|tool_call_begin|>functions.get_tourist_attractions:1<|tool_call_argument_begin|>{",
            '"city": "London"',
            "}<|tool_call_end|>",
            "<|tool_calls_section_end|>",
        ],
        [("get_weather", {"city": "Paris"}), ("get_tourist_attractions", {"city": "London"})],
        "",
    ),
    (  # TestDeepSeekV3Detector: multi-token (MTP) chunks
        "deepseek_v3",
        CITY_TOOLS,
        [
            "<｜tool▁calls▁begin｜>",
            "<｜tool▁call▁begin｜>function",
            "<｜tool▁sep｜>get",
            "_weather\n",
            "```json\n",
            '{"city":',
            '"Shanghai',
            '"}\n```<｜tool▁call▁end｜>',
            "\n<｜tool▁call▁begin｜>",
            "function<｜tool▁sep｜>",
            "get_tour",
            "ist_att",
            'ractions\n```json\n{"',
            'city": "',
            'Beijing"}\n',
            "```<｜tool▁call▁end｜>",
            "<｜tool▁calls▁end｜>",
        ],
        [("get_weather", {"city": "Shanghai"}), ("get_tourist_attractions", {"city": "Beijing"})],
        "",
    ),
    (  # TestQwen3CoderDetector.test_parse_streaming_simple
        "qwen3_coder",
        QWEN_TOOLS,
        [
            "Sure! ",
            "Let me check ",
            "the weather.",
            "<tool_call>",
            "\n<function=get_current_weather>",
            "\n<parameter=city>",
            "\nDallas",
            "\n</parameter>",
            "\n<parameter=state>",
            "\nTX",
            "\n</parameter>",
            "\n</function>",
            "\n</tool_call>",
        ],
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
        "Sure! Let me check the weather.",
    ),
    (  # test_parse_streaming_incremental, token-like chunks (no indentation)
        "qwen3_coder",
        QWEN_TOOLS,
        [
            "I'll check the weather.",
            "<tool_call>",
            "\n<function=get_current_weather>\n",
            "<parameter=city>\n",
            "Dallas\n",
            "</parameter>\n",
            "<parameter=state>\n",
            "TX\n",
            "</parameter>\n",
            "</function>\n",
            "</tool_call>",
        ],
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
        "I'll check the weather.",
    ),
    (  # TestGlm4MoeDetector.test_streaming_multiple_tool_calls
        "glm45",
        GLM_TOOLS,
        [
            "<tool_call>get_weather\n",
            "<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n",
            "<arg_key>date</arg_key>\n<arg_value>2024-06-27</arg_value>\n",
            "</tool_call><tool_call>get_weather\n",
            "<arg_key>city</arg_key>\n<arg_value>Shanghai</arg_value>\n",
            "<arg_key>date</arg_key>\n<arg_value>2024-06-28</arg_value>\n",
            "</tool_call>",
        ],
        [
            ("get_weather", {"city": "Beijing", "date": "2024-06-27"}),
            ("get_weather", {"city": "Shanghai", "date": "2024-06-28"}),
        ],
        "",
    ),
    (  # test_partial_tool_call
        "glm45",
        GLM_TOOLS,
        [
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n",
            "<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2024-06-27</arg_value>\n</tool_call>",
        ],
        [("get_weather", {"city": "Beijing", "date": "2024-06-27"})],
        "",
    ),
    (  # test_cohere_command4_detector: test_streaming_text_then_block
        "cohere_command4",
        COHERE_TOOLS,
        [
            "Let me check. ",
            C_START,
            cohere_block(cohere_action("get_weather", {"city": "Berlin"}))[len(C_START) :],
        ],
        [("get_weather", {"city": "Berlin"})],
        "Let me check. ",
    ),
]


@pytest.mark.parametrize(("fmt", "tools", "chunks", "calls", "content"), CHUNKED)
@given(data=st.data())
def test_sglang_pinned_chunkings(
    fmt: str,
    tools: Tools | None,
    chunks: list[str],
    calls: Calls,
    content: str,
    data: st.DataObject,
) -> None:
    items = testing.coalesce(testing.run(tool_parser(fmt, tools=tools), chunks))
    assert summary(items) == (content, calls)
    assert items == check_format(fmt, "".join(chunks), data, tools)


@pytest.mark.parametrize(
    ("fmt", "tools", "text", "calls"),
    [
        (  # TestKimiK2Detector.test_partial_tool_call: SGLang leaves '{"city": "Paris"'
            # open; streamcall closes the JSON and marks the call incomplete.
            "kimi_k2",
            CITY_TOOLS,
            '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"',
            [("get_weather", {"city": "Paris"}, True)],
        ),
        (  # test_tool_name_streaming: the second call's name is out, its arguments cut
            "kimi_k2",
            CITY_TOOLS,
            KIMI_PARIS
            + "<|tool_call_begin|>functions.get_tourist_attractions:1<|tool_call_argument_begin|>{",
            [("get_weather", {"city": "Paris"}, False), ("get_tourist_attractions", {}, True)],
        ),
        (  # TestQwen3CoderDetector.test_parse_streaming_incomplete
            "qwen3_coder",
            QWEN_TOOLS,
            "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX",
            [("get_current_weather", {"city": "Dallas", "state": "TX"}, True)],
        ),
        (  # cohere test_truncated_body_uses_partial_fallback
            "cohere_command4",
            COHERE_TOOLS,
            C_START
            + '[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"',
            [("get_weather", {"city": "Paris"}, True)],
        ),
        (  # Llama32 test_invalid_then_valid_json: the broken first call is reported
            "llama3_json",
            CITY_TOOLS,
            '{"name": "get_weather", "parameters": {{"name": "get_weather", "parameters": {}}',
            [("get_weather", {}, True), ("get_weather", {}, False)],
        ),
    ],
)
@given(data=st.data())
def test_sglang_cut_off_calls_are_reported(
    fmt: str,
    tools: Tools | None,
    text: str,
    calls: list[tuple[str, dict[str, Any], bool]],
    data: st.DataObject,
) -> None:
    check_format(fmt, text, data, tools)
    parsed = parse_tool_calls(text, fmt, tools=tools)
    assert [(c.name, c.args, c.incomplete) for c in parsed.tool_calls] == calls


def test_qwen3_coder_incomplete_call_streams_a_growing_prefix() -> None:
    """test_parse_streaming_incomplete: before the closers arrive, the arguments so far
    are an open prefix starting with the city; after them, the whole object."""
    parser = tool_parser("qwen3_coder", tools=QWEN_TOOLS)
    head = [
        "<tool_call>",
        "\n<function=get_current_weather>",
        "\n<parameter=city>",
        "\nDallas",
        "\n</parameter>",
        "\n<parameter=state>",
        "\nTX",
    ]
    events = [ev for ch in head for ev in parser.feed(ch)]
    so_far = "".join(ev.delta for ev in events if isinstance(ev, ToolCallArgs))
    assert so_far.startswith('{"city":"Dallas"')
    assert not so_far.endswith("}")
    events += parser.feed("\n</parameter>\n</function>\n</tool_call>") + parser.finish()
    content, calls = summary(testing.coalesce(events))
    assert (content, calls) == ("", [("get_current_weather", {"city": "Dallas", "state": "TX"})])


def test_cohere_streams_before_the_end_token() -> None:
    """SGLang's test_streaming_waits_for_end_token holds the call until <|END_ACTION|>;
    streamcall streams it as soon as the call object is read (the end marker only closes
    the block), which is the point of a streaming parser."""
    parser = tool_parser("cohere_command4", tools=COHERE_TOOLS)
    first = parser.feed(
        C_START + '[{"tool_call_id":"0","tool_name":"search","parameters":{"query":"x"}}]'
    )
    assert isinstance(first[0], ToolCallStart)
    rest = parser.feed(C_END) + parser.finish()
    content, calls = summary(testing.coalesce(first + rest))
    assert (content, calls) == ("", [("search", {"query": "x"})])


def test_cohere_model_ids_are_used_and_made_unique() -> None:
    """SGLang's parallel case writes ``"tool_call_id": "0"`` for both calls: the first
    keeps the model's id, the repeat gets ``0~2`` (ids are unique within a stream)."""
    text = "Sure! " + cohere_block(
        cohere_action("get_weather", {"city": "Tokyo"}), cohere_action("search", {"query": "ramen"})
    )
    assert [c.id for c in parse_tool_calls(text, "cohere_command4").tool_calls] == ["0", "0~2"]
