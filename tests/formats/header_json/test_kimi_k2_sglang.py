"""kimi_k2 against SGLang's ``KimiK2Detector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_kimik2_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schemas, the
chunkings it feeds and the expected calls, content and reasoning; the code is ours. Every
tool-call text goes through ``check_format`` (whole, 1-char, 7-char and random
chunkings), and SGLang's own chunkings are replayed as given and compared with the
one-shot result. Its end-to-end tests (reasoning parser, then tool-call parser) run
through ``reasoning_parser("kimi_k2")`` and ``tool_parser("kimi_k2")`` chained the same way.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- Special tokens outside a section (``text<|tool_calls_section_end|>``) are kept as text,
  as written (SGLang strips them): nothing the model wrote is lost.
- A header whose id is neither ``NAME:N`` nor a counter (``weird@id``) makes its section
  text (SGLang drops the section); the next section is read either way.
- A bare counter (``<|tool_call_begin|>0``) names the only tool when exactly one is given;
  with several, SGLang guesses the tool from the argument keys, which needs the whole
  arguments before the call can start: here the section is text.
- Malformed arguments (``"valid": fasle``) end the call ``incomplete`` with valid JSON
  (``"valid": null``) and the rest is text (SGLang passes the raw bytes through): the
  arguments of every call load with ``json.loads``.
- The call id is the model's (``functions.ReadFile:5``); the event index is dense from 0,
  as SGLang's ``tool_index``.

Not ported: ``has_tool_call``, ``_strip_special_tokens``, ``_parse_tool_call_id``,
``_infer_tool_name``, the tests that patch SGLang's internals (``_buffer``,
``current_tool_id``, ``_resolve_function_name``), and Part 2 (SGLang's reasoning detector
alone: a reasoning-parser suite, not a tool-call one).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import reasoning_parser, testing
from streamcall.events import Event, Reasoning, Text, ToolCallStart
from streamcall.formats.registry import tool_parser
from support import check_format, summary

S = "<|tool_calls_section_begin|>"
E = "<|tool_calls_section_end|>"
B = "<|tool_call_begin|>"
A = "<|tool_call_argument_begin|>"
CE = "<|tool_call_end|>"


def _tool(name: str, parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": parameters
            or {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }


TOOLS = [
    _tool("ReadFile"),
    _tool(
        "get_weather",
        {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"],
        },
    ),
]


def call(cid: str, args: str) -> str:
    return f"{B}{cid}{A}{args}{CE}"


def section(cid: str, args: str) -> str:
    return S + call(cid, args) + E


def _calls(items: list[testing.Item]) -> list[tuple[str, str, str, bool]]:
    return [
        (v.name, v.id, v.arguments, v.incomplete) for _, v in items if isinstance(v, testing.Call)
    ]


def _replay(pieces: list[str], tools: Any = TOOLS) -> list[testing.Item]:
    one_shot = check_format("kimi_k2", "".join(pieces), None, tools)
    got = testing.coalesce(testing.run(tool_parser("kimi_k2", tools=tools), pieces))
    assert got == one_shot, pieces
    return one_shot


CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (
        section("functions.ReadFile:0", '{"path": "/test.py"}'),
        "",
        [("ReadFile", {"path": "/test.py"})],
    ),
    (
        S
        + call("functions.ReadFile:0", '{"path": "/a.py"}')
        + call("functions.get_weather:1", '{"city": "Tokyo"}')
        + E,
        "",
        [("ReadFile", {"path": "/a.py"}), ("get_weather", {"city": "Tokyo"})],
    ),
    (
        "Let me check the file." + section("functions.ReadFile:0", '{"path": "/test.py"}'),
        "Let me check the file.",
        [("ReadFile", {"path": "/test.py"})],
    ),
    ("Just a normal response.", "Just a normal response.", []),
    ("normal text <", "normal text <", []),
    # SGLang strips special tokens met outside a section; kept here, as written.
    ("normal text" + E, "normal text" + E, []),
    ("text" + A + "more", "text" + A + "more", []),
    # no section start: text (SGLang too)
    (
        "invalid_tool:0" + A + '{"path": "/tmp"}' + CE + E,
        "invalid_tool:0" + A + '{"path": "/tmp"}' + CE + E,
        [],
    ),
    (
        section("functions.mcp__portal__search-documents:0", '{"path": "/docs"}'),
        "",
        [("mcp__portal__search-documents", {"path": "/docs"})],
    ),
    (
        "Prefix text:"
        + section("functions.get_weather:0", '{"city": "London"}')
        + " Now calling next: "
        + section("functions.get_weather:1", '{"city": "Delhi"}'),
        "Prefix text: Now calling next: ",
        [("get_weather", {"city": "London"}), ("get_weather", {"city": "Delhi"})],
    ),
]


@pytest.mark.parametrize(("text", "content", "calls"), CASES)
@given(data=st.data())
def test_sglang_kimi_k2_cases(
    text: str, content: str, calls: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    tools = [*TOOLS, _tool("mcp__portal__search-documents"), _tool("list-files")]
    assert summary(check_format("kimi_k2", text, data, tools)) == (content, calls)


def test_sglang_model_counters_are_ids_and_indices_are_dense() -> None:
    text = (
        S
        + call("functions.ReadFile:5", '{"path": "/a.py"}')
        + call("functions.get_weather:6", '{"city": "Tokyo"}')
        + E
    )
    events = testing.run(tool_parser("kimi_k2", tools=TOOLS), [text])
    starts = [(e.index, e.id, e.name) for e in events if isinstance(e, ToolCallStart)]
    assert starts == [
        (0, "functions.ReadFile:5", "ReadFile"),
        (1, "functions.get_weather:6", "get_weather"),
    ]


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        (  # test_partial_tool_call_keeps_incomplete_json: reported incomplete, closed
            [S + B + "functions.ReadFile:0" + A + "{", '"path": "/tmp"'],
            [("ReadFile", "functions.ReadFile:0", '{"path": "/tmp"}', True)],
        ),
        (
            [S + B + "functions.list-files:0" + A + '{"path', '": "/home"}', CE, E],
            [("list-files", "functions.list-files:0", '{"path": "/home"}', False)],
        ),
        (
            [S + B + "functions.ReadFile:0" + A + "{", '"path": "/test.py"', "}", CE + E],
            [("ReadFile", "functions.ReadFile:0", '{"path": "/test.py"}', False)],
        ),
        (
            [
                S + B + "functions.ReadFile:0" + A + '{"path": "/a.py"}',
                CE,
                B + "functions.get_weather:1" + A + '{"city": "Paris"}',
                CE,
                E,
            ],
            [
                ("ReadFile", "functions.ReadFile:0", '{"path": "/a.py"}', False),
                ("get_weather", "functions.get_weather:1", '{"city": "Paris"}', False),
            ],
        ),
        (
            [S + B + "functions.ReadFile:0" + A + '{"path": "/x"}', CE, E],
            [("ReadFile", "functions.ReadFile:0", '{"path": "/x"}', False)],
        ),
        (
            [S + B + "functions.get_weather:10" + A + '{"city":', ' "Pa', 'ris"}', CE + E],
            [("get_weather", "functions.get_weather:10", '{"city": "Paris"}', False)],
        ),
    ],
)
def test_sglang_streaming(pieces: list[str], expected: list[tuple[str, str, str, bool]]) -> None:
    items = _replay(pieces, [*TOOLS, _tool("list-files")])
    assert _calls(items) == expected
    assert summary(items)[0] == ""


@given(data=st.data())
def test_sglang_three_sections_dense_indices(data: st.DataObject) -> None:
    text = "".join(
        section(f"functions.get_weather:{10 + i}", f'{{"city": "{city}"}}')
        for i, city in enumerate(("Paris", "Berlin", "Madrid"))
    )
    check_format("kimi_k2", text, data, TOOLS)
    events = testing.run(tool_parser("kimi_k2", tools=TOOLS), [text])
    assert [e.index for e in events if isinstance(e, ToolCallStart)] == [0, 1, 2]


@pytest.mark.parametrize(
    ("text", "tools", "content", "calls"),
    [
        (  # one tool given: the counter names it (SGLang too)
            section("0", '{"path": "/test"}'),
            [_tool("search")],
            "",
            [("search", {"path": "/test"})],
        ),
        (  # several tools: SGLang guesses get_weather from the keys; text here
            section("0", '{"city": "Tokyo"}'),
            TOOLS,
            section("0", '{"city": "Tokyo"}'),
            [],
        ),
        (  # SGLang: skipped (no tool matches the keys); text here
            section("0", '{"unknown_key": "value"}'),
            TOOLS,
            section("0", '{"unknown_key": "value"}'),
            [],
        ),
        (  # SGLang: bare counter, one tool given
            section("5", '{"city": "Paris"}'),
            [TOOLS[1]],
            "",
            [("get_weather", {"city": "Paris"})],
        ),
    ],
)
@given(data=st.data())
def test_sglang_bare_counter(
    text: str, tools: Any, content: str, calls: Any, data: st.DataObject
) -> None:
    assert summary(check_format("kimi_k2", text, data, tools)) == (content, calls)


def test_sglang_bare_counter_streaming() -> None:
    pieces = [S + B + "0" + A + '{"path', '": "/test"}', CE, E]
    assert summary(_replay(pieces, [_tool("search")])) == ("", [("search", {"path": "/test"})])


@given(data=st.data())
def test_sglang_unparsable_tool_id_does_not_wedge_stream(data: st.DataObject) -> None:
    bad = S + B + "weird@id" + A + '{"city"' + ': "London"}' + CE + E
    pieces = ["normal text before", bad, section("functions.get_weather:0", '{"city": "Delhi"}')]
    items = _replay(pieces)
    # SGLang drops the bad section; it is text here.
    assert summary(items) == ("normal text before" + bad, [("get_weather", {"city": "Delhi"})])
    check_format("kimi_k2", "".join(pieces), data, TOOLS)


GOOD_0 = section("functions.get_weather:0", '{"city": "London"}')
BAD = section("functions.get_weather:1", '{"city": "Bad", "valid": fasle')
GOOD_1 = section("functions.get_weather:2", '{"city": "Delhi"}')


@pytest.mark.parametrize(
    "pieces",
    [
        [GOOD_0 + BAD + GOOD_1],
        [GOOD_0, BAD, GOOD_1],
        [
            GOOD_0,
            S + B + "functions.get_weather:1" + A + '{"city":',
            ' "Bad", "valid": fasle',
            CE + E + GOOD_1,
        ],
    ],
)
def test_sglang_malformed_json_args(pieces: list[str]) -> None:
    items = _replay(pieces)
    # SGLang passes '{"city": "Bad", "valid": fasle' through; ours is valid JSON, incomplete.
    assert _calls(items) == [
        ("get_weather", "functions.get_weather:0", '{"city": "London"}', False),
        ("get_weather", "functions.get_weather:1", '{"city": "Bad", "valid": null}', True),
        ("get_weather", "functions.get_weather:2", '{"city": "Delhi"}', False),
    ]
    assert summary(items)[0] == "fasle" + CE + E


def _pipeline(chunks: list[str]) -> tuple[str, list[testing.Item]]:
    """SGLang's serving path: the reasoning parser first, its content to the tool parser."""
    reasoning = reasoning_parser("kimi_k2")
    tools = tool_parser("kimi_k2", tools=TOOLS)
    thought: list[str] = []
    events: list[Event] = []

    def route(out: list[Event]) -> None:
        for e in out:
            if isinstance(e, Reasoning):
                thought.append(e.text)
            elif isinstance(e, Text):
                events.extend(tools.feed(e.text))

    for chunk in chunks:
        route(reasoning.feed(chunk))
    route(reasoning.finish())
    events.extend(tools.finish())
    return "".join(thought), testing.coalesce(events)


def _one_shot(chunks: list[str]) -> tuple[str, list[testing.Item]]:
    return _pipeline(["".join(chunks)])


LONDON = ("get_weather", {"city": "London"})
DELHI = ("get_weather", {"city": "Delhi"})
PREFIX = "<think>Thinking about it...</think>This is a content:"
CALL_1 = section("functions.get_weather:0", '{"city": "London"}')
CALL_2 = section("functions.get_weather:1", '{"city": "Delhi"}')


@pytest.mark.parametrize(
    ("chunks", "thought", "content", "calls"),
    [
        (
            [
                "<think>",
                "I need to read the file",
                " to understand the code.",
                S,
                B + "functions.ReadFile:0",
                A,
                '{"path": "/Users/user/project/file.ts"}',
                CE,
                E,
            ],
            "I need to read the file to understand the code.",
            "",
            [("ReadFile", {"path": "/Users/user/project/file.ts"})],
        ),
        (
            [
                "<think>Let me check this file."
                + section("functions.ReadFile:0", '{"path": "/src/main.py"}')
            ],
            "Let me check this file.",
            "",
            [("ReadFile", {"path": "/src/main.py"})],
        ),
        (
            [
                "<think>",
                "Thinking about it...",
                "</think>",
                S,
                B + "functions.get_weather:0",
                A + '{"city": "London"}',
                CE,
                E,
            ],
            "Thinking about it...",
            "",
            [LONDON],
        ),
        (
            [
                "<think>",
                "Thinking about it...",
                "</think>This is a ",
                "content:" + S,
                B + "functions.get_weather:0",
                A + '{"city": "London"}',
                CE,
                E,
            ],
            "Thinking about it...",
            "This is a content:",
            [LONDON],
        ),
        (
            ["<think>", "Thinking about it...", "</think>This is a ", "content:" + CALL_1],
            "Thinking about it...",
            "This is a content:",
            [LONDON],
        ),
        (
            ["<think>", "Thinking about it...", "</think>This is a ", "content:" + CALL_1 + CALL_2],
            "Thinking about it...",
            "This is a content:",
            [LONDON, DELHI],
        ),
        ([PREFIX + CALL_1, CALL_2], "Thinking about it...", "This is a content:", [LONDON, DELHI]),
        (
            [
                PREFIX + CALL_1 + S + B + "functions.get_weather:1" + A + '{"city": "De',
                'lhi"}' + CE + E,
            ],
            "Thinking about it...",
            "This is a content:",
            [LONDON, DELHI],
        ),
        (
            [
                PREFIX + S + B + "functions.get_weather:0" + A + '{"city": "Lon',
                'don"}' + CE + E + CALL_2,
            ],
            "Thinking about it...",
            "This is a content:",
            [LONDON, DELHI],
        ),
        (
            [
                "<think>",
                "Let me check both files.",
                S,
                B + "functions.ReadFile:0" + A + '{"path": "/a.py"}',
                CE,
                B + "functions.ReadFile:1" + A + '{"path": "/b.py"}',
                CE,
                E,
            ],
            "Let me check both files.",
            "",
            [("ReadFile", {"path": "/a.py"}), ("ReadFile", {"path": "/b.py"})],
        ),
    ],
)
def test_sglang_end_to_end(
    chunks: list[str], thought: str, content: str, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    got_thought, items = _pipeline(chunks)
    assert (got_thought, items) == _one_shot(chunks)
    assert got_thought == thought
    assert summary(items) == (content, calls)
    for _, v in items:
        if isinstance(v, testing.Call):
            assert json.loads(v.arguments) is not None
