"""Real model outputs from public test suites, run through streamcall's contract.

The model-output strings and expected names / arguments / content below are copied as
fixtures from:

- vLLM ``tests/tool_parsers/test_hermes_tool_parser.py``,
  ``test_granite4_tool_parser.py``, ``test_gemma4_tool_parser.py``,
  ``test_gemma4_regex_and_bare_calls.py`` and ``test_gemma4_utils.py``
  (https://github.com/vllm-project/vllm, Apache-2.0, copyright the vLLM contributors);
- SGLang ``test/registered/unit/function_call/test_qwen25_detector.py``,
  ``test_hermes_detector.py`` and ``test/srt/test_function_call_parser.py``
  (https://github.com/sgl-project/sglang, Apache-2.0, copyright the SGLang authors).

The test code is streamcall's own. Every case goes through ``check_format`` (whole,
1-char, 7-char and random chunkings, the contract's invariants, equality with
``parse_tool_calls``) and then its expected calls and content are asserted. Where the
upstream test fed explicit chunks, that chunking is replayed too.

Where the upstream expectation differs from streamcall's documented behaviour on purpose,
the streamcall behaviour is asserted and the case's ``note`` says why. The recurring ones:

- text between and around calls is kept verbatim (vLLM/SGLang strip it or drop it);
  whitespace between or after call blocks is markup and dropped;
- arguments must be a JSON object: a string holding an object is decoded (not
  double-encoded), any other string degrades the block to text whole;
- a call still open at the end of the stream is reported (``incomplete`` when its
  arguments had to be closed), never dropped;
- Gemma 4 is parsed strictly (``<|tool_call>call:NAME{...}``): vLLM's offline fallback
  tiers for bare ``call:`` text are not guessed at, so that text stays text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import Text, ToolCallArgs, ToolCallEnd, ToolCallStart, testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

Calls = list[tuple[str, dict[str, Any]]]


@dataclass(frozen=True)
class Case:
    id: str
    fmt: str
    text: str
    calls: Calls
    content: str
    chunks: tuple[str, ...] = ()  # the upstream test's own chunking, when it had one
    incomplete: tuple[bool, ...] | None = None  # per call, when it matters
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def gemma(name: str, args: str) -> str:
    return f"<|tool_call>call:{name}{{{args}}}<tool_call|>"


Q = '<|"|>'  # Gemma 4's string delimiter

CASES: list[Case] = []


def add(*cases: Case) -> None:
    CASES.extend(cases)


# --- vLLM tests/tool_parsers/test_hermes_tool_parser.py (Apache-2.0) -----------------------
# vLLM runs most of these against both Hermes2ProToolParser and Granite4ToolParser, so we
# do the same for hermes and granite4.

for _fmt in ("hermes", "granite4"):
    add(
        Case(
            f"{_fmt}-just-forward-text",
            _fmt,
            "This is some prior text that has nothing to do with tool calling.",
            [],
            "This is some prior text that has nothing to do with tool calling.",
        ),
        Case(
            f"{_fmt}-bug-19056",
            _fmt,
            '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>',
            [("final_answer", {"trigger": True})],
            "",
            extra={"arguments": '{"trigger": true}'},
        ),
        Case(
            f"{_fmt}-streaming",
            _fmt,
            # vLLM writes this with backslash-newline continuations: no newlines in it.
            '<tool_call>{"name": "get_current_temperature",'
            '"arguments": {"location":'
            '"San Francisco, California, United States", "unit": "celsius"}}'
            "</tool_call>",
            [
                (
                    "get_current_temperature",
                    {"location": "San Francisco, California, United States", "unit": "celsius"},
                )
            ],
            "",
        ),
        Case(
            f"{_fmt}-non-streaming-no-tool-call",
            _fmt,
            "This is not a tool call.",
            [],
            "This is not a tool call.",
        ),
        Case(
            f"{_fmt}-non-streaming-tool-call-between-tags",
            _fmt,
            '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>',
            [("final_answer", {"trigger": True})],
            "",
            extra={"arguments": '{"trigger": true}'},
        ),
        Case(
            f"{_fmt}-non-streaming-tool-call-until-eos",
            _fmt,
            '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}',
            [("final_answer", {"trigger": True})],
            "",
            incomplete=(True,),
            note="vLLM skips this for granite4 (it enforces a complete response); streamcall "
            "reports a call still open at the end for both formats. Its arguments closed, "
            "but its </tool_call> never came: a call cut off is incomplete.",
        ),
        Case(
            f"{_fmt}-non-streaming-invalid-json",
            _fmt,
            '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}',
            [("final_answer", {"trigger": True})],
            "",
            note="vLLM reports no call (json.loads fails on the whole block); streamcall "
            "never loses a call whose name and arguments it has seen.",
        ),
        Case(
            f"{_fmt}-serialized-arguments",
            _fmt,
            "<tool_call>\n"
            '{"name": "get_db_config", '
            '"arguments": "{\\"param\\": \\"max_connections\\"}"}\n'
            "</tool_call>",
            [("get_db_config", {"param": "max_connections"})],
            "",
        ),
        Case(
            f"{_fmt}-bare-string-arguments",
            _fmt,
            '<tool_call>\n{"name": "do_thing", "arguments": "hello"}\n</tool_call>',
            [],
            '<tool_call>\n{"name": "do_thing", "arguments": "hello"}\n</tool_call>',
            note='vLLM passes the JSON string "hello" as the arguments; streamcall requires an '
            "object (ToolCallEnd.arguments is always a JSON object), so the block degrades "
            "to text whole.",
        ),
    )

add(
    Case(
        "hermes-stream-interval-call",
        "hermes",
        '<tool_call>{"name": "get_current_temperature", '
        '"arguments": {"location": "San Francisco", "unit": "celsius"}}'
        "</tool_call>",
        [("get_current_temperature", {"location": "San Francisco", "unit": "celsius"})],
        "",
    ),
    Case(
        "hermes-stream-interval-content-then-call",
        "hermes",
        "Sure, let me check the weather."
        '<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "NYC"}}</tool_call>',
        [("get_weather", {"city": "NYC"})],
        "Sure, let me check the weather.",
    ),
    Case(
        "hermes-stream-interval-multiple-calls",
        "hermes",
        '<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call>'
        '<tool_call>{"name": "search", "arguments": {"q": "dogs"}}</tool_call>',
        [("search", {"q": "cats"}), ("search", {"q": "dogs"})],
        "",
    ),
    Case(
        "hermes-stream-interval-boolean",
        "hermes",
        '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>',
        [("final_answer", {"trigger": True})],
        "",
    ),
    Case(
        "hermes-stream-interval-plain-text",
        "hermes",
        "This is plain text with no tool calling involved.",
        [],
        "This is plain text with no tool calling involved.",
    ),
    Case(
        "hermes-streaming-serialized-arguments",
        "hermes",
        '<tool_call>{"name": "get_db_config", '
        '"arguments": "{\\"param\\": \\"max_connections\\"}"}</tool_call>',
        [("get_db_config", {"param": "max_connections"})],
        "",
    ),
    Case(
        "hermes-streaming-bare-string-arguments",
        "hermes",
        '<tool_call>{"name": "do_thing", "arguments": "hello"}</tool_call>',
        [],
        '<tool_call>{"name": "do_thing", "arguments": "hello"}</tool_call>',
        note="vLLM streams the JSON string; streamcall requires an object: text whole.",
    ),
    Case(
        "hermes-content-and-call-in-one-chunk",
        "hermes",
        'Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>',
        [("f", {"x": 1})],
        "Hi!",
        chunks=('Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>',),
    ),
)

# test_hermes_streaming_string_arguments_match_non_streaming: the string-valued
# ``arguments`` cases, built the way vLLM builds them (json.dumps of the call).
_STRING_ARGS: list[tuple[str, Calls, str | None, str]] = [
    ('{"param": "max_connections"}', [("f", {"param": "max_connections"})], "", ""),
    (
        "hello",
        [],
        None,
        "vLLM streams the string itself; not an object, so streamcall keeps it as text.",
    ),
    (
        "[oops",
        [],
        None,
        "vLLM streams the string itself; not an object, so streamcall keeps it as text.",
    ),
    (
        '{"a": 1} tail text',
        [("f", {"a": 1})],
        " tail text",
        "vLLM streams the whole string; streamcall streams the decoded object and releases "
        "the text that followed it inside the string as content.",
    ),
]
for _i, (_value, _calls, _content, _note) in enumerate(_STRING_ARGS):
    _text = "<tool_call>" + json.dumps({"name": "f", "arguments": _value}) + "</tool_call>"
    add(
        Case(
            f"hermes-string-arguments-{_i}",
            "hermes",
            _text,
            _calls,
            _text if _content is None else _content,
            note=_note,
        )
    )


# --- vLLM tests/tool_parsers/test_granite4_tool_parser.py (Apache-2.0) ---------------------


def _granite_complex_input(string_args: bool) -> list[dict[str, Any]]:
    coord: Any = {
        "coordinates": [[23.54, 43.1], [-12.2, 54.3], [4, 5]],
        "coordinate_type": "latlong",
    }
    if string_args:
        coord = json.dumps(coord)
    return [
        {"name": "find_bbox", "arguments": coord},
        {
            "name": "get_stock_price",
            "arguments": {
                "symbol": "AAPL",
                "start_date": "2021-01-01",
                "end_date": "2021-12-31",
            },
        },
        {"name": "find_bbox", "arguments": coord},
    ]


_GRANITE_TEXTS = [
    "Here goes the bbox call: \n",
    " Now the stock price call: \n ",
    " Now another bbox call: \n ",
    " See? I'm a helpful assistant.",
]
_granite_calls = [
    "<tool_call> " + json.dumps(c) + " </tool_call>" for c in _granite_complex_input(True)
]
add(
    Case(
        "granite4-complex",
        "granite4",
        _GRANITE_TEXTS[0]
        + _granite_calls[0]
        + _GRANITE_TEXTS[1]
        + _granite_calls[1]
        + _GRANITE_TEXTS[2]
        + _granite_calls[2]
        + _GRANITE_TEXTS[3],
        [(c["name"], c["arguments"]) for c in _granite_complex_input(False)],
        "".join(_GRANITE_TEXTS),
        note="String arguments come out as the decoded object, single-encoded.",
    ),
    Case(
        "granite4-content-between-complete-calls",
        "granite4",
        '<tool_call> {"name": "find_bbox", "arguments": {}} </tool_call>'
        "some explanation "
        '<tool_call> {"name": "get_stock_price", "arguments": {}} </tool_call>',
        [("find_bbox", {}), ("get_stock_price", {})],
        "some explanation ",
        chunks=(
            '<tool_call> {"name": "find_bbox", "arguments": {}} </tool_call>',
            "some explanation "
            '<tool_call> {"name": "get_stock_price", "arguments": {}} </tool_call>',
        ),
    ),
)


# --- vLLM tests/tool_parsers/test_gemma4_tool_parser.py (Apache-2.0) -----------------------
# TestParseGemma4Args / TestParseGemma4Array test the argument grammar alone; each input is
# wrapped in a whole call here.

_GEMMA_ARGS: list[tuple[str, str, dict[str, Any], str]] = [
    ("empty-string", "", {}, ""),
    ("whitespace-only", "   ", {}, ""),
    ("single-string", f"location:{Q}Paris{Q}", {"location": "Paris"}, ""),
    ("string-with-comma", f"location:{Q}Paris, France{Q}", {"location": "Paris, France"}, ""),
    (
        "multiple-strings",
        f"location:{Q}San Francisco{Q},unit:{Q}celsius{Q}",
        {"location": "San Francisco", "unit": "celsius"},
        "",
    ),
    ("integer", "count:42", {"count": 42}, ""),
    ("float", "score:3.14", {"score": 3.14}, ""),
    ("true", "flag:true", {"flag": True}, ""),
    ("false", "flag:false", {"flag": False}, ""),
    ("null", "param:null", {"param": None}, ""),
    (
        "mixed",
        f"name:{Q}test{Q},count:42,active:true,score:3.14",
        {"name": "test", "count": 42, "active": True, "score": 3.14},
        "",
    ),
    ("nested", f"nested:{{inner:{Q}value{Q}}}", {"nested": {"inner": "value"}}, ""),
    (
        "string-delimited-key",
        f"record_map:{{{Q}3{Q}:{Q}new text{Q}}}",
        {"record_map": {"3": "new text"}},
        "",
    ),
    (
        "nested-string-delimited-key",
        f"outer:{{inner:{{{Q}3{Q}:{Q}new text{Q}}}}}",
        {"outer": {"inner": {"3": "new text"}}},
        "",
    ),
    ("array-of-strings", f"items:[{Q}a{Q},{Q}b{Q}]", {"items": ["a", "b"]}, ""),
    (
        "empty-value",
        "key:",
        {"key": None},
        'vLLM gives "" for a key with no value; streamcall types an empty bare value as '
        "null (documented in gemma4.py).",
    ),
    (
        "trailing-dot-float",
        "left:108.,right:22.8",
        {"left": 108.0, "right": 22.8},
        "vLLM withholds 108. only while partial; complete, it is 108.0 (#42047).",
    ),
    (
        "trailing-dot-float-after-string",
        f"name:{Q}test{Q},score:3.,count:1",
        {"name": "test", "score": 3.0, "count": 1},
        "",
    ),
    # TestParseGemma4Array, as the value of key a
    ("array-strings", f"a:[{Q}a{Q},{Q}b{Q}]", {"a": ["a", "b"]}, ""),
    ("array-empty", "a:[]", {"a": []}, ""),
    ("array-bare-values", "a:[42,true,3.14]", {"a": [42, True, 3.14]}, ""),
    (
        "array-string-with-closing-bracket",
        f"a:[[{Q}a]b{Q},{Q}c{Q}],{Q}tail{Q}]",
        {"a": [["a]b", "c"], "tail"]},
        "",
    ),
    ("array-trailing-dot-floats", "a:[108.,22.8]", {"a": [108.0, 22.8]}, ""),
    ("array-trailing-dot-middle", "a:[42,108.,3]", {"a": [42, 108.0, 3]}, ""),
]
for _id, _args, _want, _note in _GEMMA_ARGS:
    add(Case(f"gemma4-args-{_id}", "gemma4", gemma("f", _args), [("f", _want)], "", note=_note))

add(
    Case(
        "gemma4-args-unterminated-string",
        "gemma4",
        f"<|tool_call>call:f{{key:{Q}unterminated",
        [("f", {"key": "unterminated"})],
        "",
        incomplete=(True,),
        note="Same value as vLLM; streamcall also says the call was cut off.",
    ),
    Case(
        "gemma4-array-stray-closing-bracket",
        "gemma4",
        gemma("f", "a:[42,]trailing"),
        [("f", {"a": [42]})],
        "trailing}<tool_call|>",
        incomplete=(True,),
        note="vLLM keeps [42] and drops the rest; streamcall ends the call incomplete with "
        "the same value and keeps the malformed rest as text.",
    ),
    Case(
        "gemma4-args-malformed-partial-array",
        "gemma4",
        gemma("f", ":[t:[]"),
        [("f", {})],
        ":[t:[]}<tool_call|>",
        incomplete=(True,),
        note="vLLM only checks it returns a dict without hanging; streamcall ends the call "
        "(its header was fine) and keeps the rest as text.",
    ),
    # TestExtractToolCalls
    Case(
        "gemma4-no-tool-calls",
        "gemma4",
        "Hello, how can I help you today?",
        [],
        "Hello, how can I help you today?",
    ),
    Case(
        "gemma4-single",
        "gemma4",
        gemma("get_weather", f"location:{Q}London{Q}"),
        [("get_weather", {"location": "London"})],
        "",
    ),
    Case(
        "gemma4-multiple-arguments",
        "gemma4",
        gemma("get_weather", f"location:{Q}San Francisco{Q},unit:{Q}celsius{Q}"),
        [("get_weather", {"location": "San Francisco", "unit": "celsius"})],
        "",
    ),
    Case(
        "gemma4-text-before",
        "gemma4",
        "Let me check the weather for you. " + gemma("get_weather", f"location:{Q}Paris{Q}"),
        [("get_weather", {"location": "Paris"})],
        "Let me check the weather for you. ",
        note="vLLM strips the content; streamcall keeps text verbatim (its trailing space "
        "was streamed before the call was known).",
    ),
    Case(
        "gemma4-multiple-calls",
        "gemma4",
        gemma("get_weather", f"location:{Q}London{Q}")
        + gemma("get_time", f"location:{Q}London{Q}"),
        [("get_weather", {"location": "London"}), ("get_time", {"location": "London"})],
        "",
    ),
    Case(
        "gemma4-nested-arguments",
        "gemma4",
        gemma("complex_function", f"nested:{{inner:{Q}value{Q}}},list:[{Q}a{Q},{Q}b{Q}]"),
        [("complex_function", {"nested": {"inner": "value"}, "list": ["a", "b"]})],
        "",
    ),
    Case(
        "gemma4-number-and-boolean",
        "gemma4",
        gemma("set_status", "is_active:true,count:42,score:3.14"),
        [("set_status", {"is_active": True, "count": 42, "score": 3.14})],
        "",
    ),
    Case(
        "gemma4-incomplete",
        "gemma4",
        f"<|tool_call>call:get_weather{{location:{Q}London",
        [("get_weather", {"location": "London"})],
        "",
        incomplete=(True,),
        note="vLLM reports no call and returns the text as content; streamcall reports a "
        "call still open at the end of the stream, marked incomplete, and never loses it.",
    ),
    Case(
        "gemma4-hyphenated-name",
        "gemma4",
        gemma("get-weather", f"location:{Q}London{Q}"),
        [("get-weather", {"location": "London"})],
        "",
    ),
    Case(
        "gemma4-dotted-name",
        "gemma4",
        gemma("weather.get", f"location:{Q}London{Q}"),
        [("weather.get", {"location": "London"})],
        "",
    ),
    Case("gemma4-no-arguments", "gemma4", gemma("get_status", ""), [("get_status", {})], ""),
)

# TestStreamingExtraction: vLLM's own chunkings.
_GEMMA_STREAMS: list[tuple[str, tuple[str, ...], Calls, str]] = [
    (
        "basic-single",
        (
            "<|tool_call>",
            "call:get_weather{",
            f"location:{Q}Paris",
            ", France",
            f"{Q}}}",
            "<tool_call|>",
        ),
        [("get_weather", {"location": "Paris, France"})],
        "",
    ),
    (
        "multi-arg",
        (
            "<|tool_call>",
            "call:get_weather{",
            f"location:{Q}Tokyo{Q},",
            f"unit:{Q}celsius{Q}}}",
            "<tool_call|>",
        ),
        [("get_weather", {"location": "Tokyo", "unit": "celsius"})],
        "",
    ),
    (
        "no-extra-brace",
        ("<|tool_call>", "call:get_weather{", f"location:{Q}London{Q}}}", "<tool_call|>"),
        [("get_weather", {"location": "London"})],
        "",
    ),
    (
        "no-unquoted-keys",
        ("<|tool_call>", "call:get_weather{", f"location:{Q}Paris{Q}}}", "<tool_call|>"),
        [("get_weather", {"location": "Paris"})],
        "",
    ),
    (
        "text-before",
        (
            "Let me check ",
            "the weather. ",
            "<|tool_call>",
            "call:get_weather{",
            f"location:{Q}London{Q}}}",
            "<tool_call|>",
        ),
        [("get_weather", {"location": "London"})],
        "Let me check the weather. ",
    ),
    (
        "numeric-args",
        ("<|tool_call>", "call:set_config{", "count:42,", "active:true}", "<tool_call|>"),
        [("set_config", {"count": 42, "active": True})],
        "",
    ),
    (
        "boolean-split",
        ("<|tool_call>", "call:search{input:{all:" + "tru", "e}}", "<tool_call|>"),
        [("search", {"input": {"all": True}})],
        "",
    ),
    (
        "false-split",
        ("<|tool_call>", "call:set{flag:" + "fals", "e}", "<tool_call|>"),
        [("set", {"flag": False})],
        "",
    ),
    (
        "number-split",
        ("<|tool_call>", "call:set{count:4", "2}", "<tool_call|>"),
        [("set", {"count": 42})],
        "",
    ),
    (
        "empty-args",
        ("<|tool_call>", "call:get_status{}", "<tool_call|>"),
        [("get_status", {})],
        "",
    ),
    (
        "split-delimiter",
        ("<|tool_call>", "call:todowrite{", f"content:{Q}Buy milk<|", '"|>}', "<tool_call|>"),
        [("todowrite", {"content": "Buy milk"})],
        "",
    ),
    (
        "plain-text-after-call",
        ("<|tool_call>", "call:get_weather{", f"location:{Q}Paris{Q}}}", "<tool_call|><", "div>"),
        [("get_weather", {"location": "Paris"})],
        "<div>",
    ),
    (
        "html-argument",
        (
            "<|tool_call>",
            "call:write_file{",
            f"path:{Q}index.html{Q},",
            f"content:{Q}<!DOCTYPE html>\n<",
            'html lang="zh-CN">\n<',
            "head>\n    <",
            'meta charset="UTF-8">\n    <',
            'meta name="viewport" content="width=device-width">\n',
            f"{Q}}}",
            "<tool_call|>",
        ),
        [
            (
                "write_file",
                {
                    "path": "index.html",
                    "content": "<!DOCTYPE html>\n"
                    '<html lang="zh-CN">\n'
                    "<head>\n"
                    '    <meta charset="UTF-8">\n'
                    '    <meta name="viewport" content="width=device-width">\n',
                },
            )
        ],
        "",
    ),
    (
        "trailing-bare-bool",
        (
            "<|tool_call>",
            "call:Edit{",
            f"file_path:{Q}src/env.py{Q},",
            f"old_string:{Q}old_val{Q},",
            f"new_string:{Q}new_val{Q},",
            "replace_all:",
            "false}",
            "<tool_call|>",
        ),
        [
            (
                "Edit",
                {
                    "file_path": "src/env.py",
                    "old_string": "old_val",
                    "new_string": "new_val",
                    "replace_all": False,
                },
            )
        ],
        "",
    ),
]
for _id, _chunks, _calls, _content in _GEMMA_STREAMS:
    add(Case(f"gemma4-stream-{_id}", "gemma4", "".join(_chunks), _calls, _content, chunks=_chunks))


# --- vLLM tests/tool_parsers/test_gemma4_regex_and_bare_calls.py (Apache-2.0) --------------

_STRICT = (
    "vLLM's offline parser has fallback tiers that guess at bare `call:` text; streamcall "
    "parses Gemma 4 strictly (like vLLM's strict=True), so this stays text."
)
add(
    Case(
        "gemma4-canonical-tag-wrapped",
        "gemma4",
        gemma("bash", f"command:{Q}ls -la /work{Q}"),
        [("bash", {"command": "ls -la /work"})],
        "",
    ),
    Case(
        "gemma4-turn-end-closure",
        "gemma4",
        f"<|tool_call>call:gdb{{args:{Q}-batch -ex run /tmp/poc{Q}}}<turn|>",
        [("gdb", {"args": "-batch -ex run /tmp/poc"})],
        "<turn|>",
        note="The call is whole at its closing brace; vLLM's offline parser also eats "
        "<turn|>, which streamcall leaves as text (it is not tool-call markup).",
    ),
    Case(
        "gemma4-multiple-sequential-canonical",
        "gemma4",
        gemma("read_file", f"path:{Q}/work/Makefile{Q}")
        + "\n"
        + gemma("bash", f"command:{Q}make -j8{Q}"),
        [("read_file", {"path": "/work/Makefile"}), ("bash", {"command": "make -j8"})],
        "",
    ),
    Case(
        "gemma4-strict-ignores-fallback",
        "gemma4",
        f"<channel|>call:bash{{command:{Q}ls{Q}}}",
        [],
        f"<channel|>call:bash{{command:{Q}ls{Q}}}",
        note=_STRICT,
    ),
    Case(
        "gemma4-bare-call-after-thought-channel",
        "gemma4",
        "<|channel>thought\n"
        "I need to read the entry source file to inspect the crash point.\n"
        "<channel|>"
        f"call:bash{{command:{Q}cat /work/src/entry.c{Q}}}",
        [],
        "<|channel>thought\n"
        "I need to read the entry source file to inspect the crash point.\n"
        "<channel|>"
        f"call:bash{{command:{Q}cat /work/src/entry.c{Q}}}",
        note=_STRICT,
    ),
    Case(
        "gemma4-colon-prefixed",
        "gemma4",
        f"<|tool_call>:call:bash{{command:{Q}pytest{Q}}}",
        [],
        f"<|tool_call>:call:bash{{command:{Q}pytest{Q}}}",
        note=_STRICT + " A header that never becomes `call:NAME{` is text whole.",
    ),
    Case(
        "gemma4-bare-call-leading-whitespace",
        "gemma4",
        f"some prose\ncall:bash{{command:{Q}make -j8{Q}}}",
        [],
        f"some prose\ncall:bash{{command:{Q}make -j8{Q}}}",
        note=_STRICT,
    ),
    Case(
        "gemma4-fragmented-call-tag",
        "gemma4",
        f"<call>get_weather{{city:{Q}Paris{Q}}}",
        [],
        f"<call>get_weather{{city:{Q}Paris{Q}}}",
        note=_STRICT,
    ),
    Case(
        "gemma4-bare-hyphenated-name",
        "gemma4",
        f"call:web-search{{query:{Q}gemma 4 release{Q}}}",
        [],
        f"call:web-search{{query:{Q}gemma 4 release{Q}}}",
        note=_STRICT,
    ),
    Case(
        "gemma4-bare-dotted-name",
        "gemma4",
        f"call:fs.read_file{{path:{Q}/work/Makefile{Q}}}",
        [],
        f"call:fs.read_file{{path:{Q}/work/Makefile{Q}}}",
        note=_STRICT,
    ),
    Case(
        "gemma4-no-tool-call-reasoning-text",
        "gemma4",
        "Just some reasoning text with no call in it.",
        [],
        "Just some reasoning text with no call in it.",
    ),
)


# --- vLLM tests/tool_parsers/test_gemma4_utils.py (Apache-2.0) ------------------------------

_GEMMA_UTILS: list[tuple[str, str, dict[str, Any]]] = [
    ("simple-string", f"location:{Q}Tokyo{Q}", {"location": "Tokyo"}),
    (
        "multiple-strings",
        f"location:{Q}San Francisco{Q},unit:{Q}celsius{Q}",
        {"location": "San Francisco", "unit": "celsius"},
    ),
    (
        "internal-quotes",
        f'content:{Q}She said "hello" loudly{Q}',
        {"content": 'She said "hello" loudly'},
    ),
    (
        "html-quoted-attributes",
        f'path:{Q}out.html{Q},content:{Q}<div class="main">hello</div>{Q}',
        {"path": "out.html", "content": '<div class="main">hello</div>'},
    ),
    (
        "braces",
        f"content:{Q}<html><div>{{test}}</div></html>{Q}",
        {"content": "<html><div>{test}</div></html>"},
    ),
    (
        "mixed-special-chars",
        f'code:{Q}function() {{ return "ok"; }}{Q}',
        {"code": 'function() { return "ok"; }'},
    ),
    ("empty", "", {}),
    ("whitespace-only", "   ", {}),
    ("bare-numeric", "count:42", {"count": 42}),
    ("multiline", f"content:{Q}line1\nline2\nline3{Q}", {"content": "line1\nline2\nline3"}),
]
for _id, _args, _want in _GEMMA_UTILS:
    add(Case(f"gemma4-utils-{_id}", "gemma4", gemma("f", _args), [("f", _want)], ""))

add(
    Case(
        "gemma4-utils-standard",
        "gemma4",
        gemma("get_weather", f"location:{Q}London{Q}"),
        [("get_weather", {"location": "London"})],
        "",
    ),
    Case(
        "gemma4-utils-standard-internal-quotes",
        "gemma4",
        "<|tool_call>call:write_file{"
        f"path:{Q}index.html{Q},"
        f'content:{Q}<div class="app">Hello</div>{Q}'
        "}<tool_call|>",
        [("write_file", {"path": "index.html", "content": '<div class="app">Hello</div>'})],
        "",
    ),
    Case(
        "gemma4-utils-multiple",
        "gemma4",
        gemma("read_file", f"path:{Q}a.txt{Q}") + gemma("read_file", f"path:{Q}b.txt{Q}"),
        [("read_file", {"path": "a.txt"}), ("read_file", {"path": "b.txt"})],
        "",
    ),
    Case(
        "gemma4-utils-no-tool-calls",
        "gemma4",
        "Hello, how can I help?",
        [],
        "Hello, how can I help?",
    ),
    Case(
        "gemma4-utils-strict-ignores-fallback",
        "gemma4",
        "call:get_weather{location:Tokyo}",
        [],
        "call:get_weather{location:Tokyo}",
        note=_STRICT,
    ),
)


# --- SGLang test_qwen25_detector.py / test_hermes_detector.py (Apache-2.0) -----------------
# SGLang's qwen25 detector is the Hermes format with newlines around the JSON.

add(
    Case(
        "sglang-qwen25-single",
        "hermes",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Beijing"}}\n</tool_call>',
        [("get_weather", {"city": "Beijing"})],
        "",
    ),
    Case(
        "sglang-qwen25-prefix-text",
        "hermes",
        "thinking done\n"
        "<tool_call>\n"
        '{"name": "get_weather", "arguments": {"location": "Beijing"}}\n'
        "</tool_call>",
        [("get_weather", {"location": "Beijing"})],
        "thinking done\n",
    ),
    Case(
        "sglang-qwen25-normal-text-before",
        "hermes",
        'Let me check the weather. <tool_call>\n{"name": "get_weather", '
        '"arguments": {"city": "Tokyo"}}\n</tool_call>',
        [("get_weather", {"city": "Tokyo"})],
        "Let me check the weather. ",
        note="SGLang strips the content; streamcall keeps it verbatim.",
    ),
    Case(
        "sglang-qwen25-parallel",
        "hermes",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Beijing"}}\n'
        "</tool_call>\n"
        '<tool_call>\n{"name": "search", "arguments": {"query": "restaurants"}}\n'
        "</tool_call>",
        [("get_weather", {"city": "Beijing"}), ("search", {"query": "restaurants"})],
        "",
    ),
    Case(
        "sglang-qwen25-two-calls",
        "hermes",
        "<tool_call>\n"
        '{"name": "get_weather", "arguments": {"location": "Beijing"}}\n'
        "</tool_call>\n"
        "<tool_call>\n"
        '{"name": "square", "arguments": {"x": 7}}\n'
        "</tool_call>",
        [("get_weather", {"location": "Beijing"}), ("square", {"x": 7})],
        "",
    ),
    Case(
        "sglang-qwen25-multiple-arguments",
        "hermes",
        '<tool_call>\n{"name": "get_weather", "arguments": '
        '{"city": "London", "unit": "celsius"}}\n</tool_call>',
        [("get_weather", {"city": "London", "unit": "celsius"})],
        "",
    ),
    Case(
        "sglang-qwen25-extra-whitespace",
        "hermes",
        '<tool_call>\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}}  \n</tool_call>',
        [("get_weather", {"city": "Tokyo"})],
        "",
    ),
    Case(
        "sglang-qwen25-malformed-then-valid",
        "hermes",
        "<tool_call>\n{not valid json}\n</tool_call>\n"
        '<tool_call>\n{"name": "search", "arguments": {"query": "books"}}\n'
        "</tool_call>",
        [("search", {"query": "books"})],
        "<tool_call>\n{not valid json}\n</tool_call>\n",
        note="SGLang drops the malformed block; streamcall keeps it as text (nothing lost).",
    ),
    Case(
        "sglang-qwen25-malformed-json",
        "hermes",
        "<tool_call>\n{invalid json}\n</tool_call>",
        [],
        "<tool_call>\n{invalid json}\n</tool_call>",
    ),
    Case(
        "sglang-hermes-malformed",
        "hermes",
        "<tool_call>not valid json</tool_call>",
        [],
        "<tool_call>not valid json</tool_call>",
    ),
    Case(
        "sglang-qwen25-streaming-split",
        "hermes",
        '<tool_call>\n{"name": "square", "arguments": {"x": 42}}\n</tool_call>',
        [("square", {"x": 42})],
        "",
        chunks=(
            "<tool_call>\n",
            '{"name": "squ',
            'are", "arguments": {"x": ',
            "42}}\n",
            "</tool_call>",
        ),
    ),
    Case(
        "sglang-qwen25-streaming-chunked",
        "hermes",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Beijing"}}\n</tool_call>',
        [("get_weather", {"city": "Beijing"})],
        "",
        chunks=(
            "<tool_",
            'call>\n{"name": "get_weather",',
            ' "arguments": {"city": "Beijing"',
            "}}\n</tool_call>",
        ),
    ),
    Case(
        "sglang-qwen25-streaming-text-then-call",
        "hermes",
        "I'll look that up. "
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo", "unit": "celsius"}}'
        "\n</tool_call>",
        [("get_weather", {"city": "Tokyo", "unit": "celsius"})],
        "I'll look that up. ",
        chunks=(
            "I'll look that up. ",
            '<tool_call>\n{"name": "get_weather",',
            ' "arguments": {"city": "Tokyo", "unit": "celsius"',
            "}}\n</tool_call>",
        ),
    ),
    Case(
        "sglang-qwen25-partial-bot-token",
        "hermes",
        'hello <tool_call>\n{"name": "search", "arguments": {"query": "hi"}}\n</tool_call>',
        [("search", {"query": "hi"})],
        "hello ",
        chunks=(
            "hello <tool_",
            'call>\n{"name": "search", "arguments": {"query": "hi"}}\n</tool_call>',
        ),
    ),
    Case(
        "sglang-qwen25-partial-bot-token-never-completed",
        "hermes",
        "I think <tool",
        [],
        "I think <tool",
        chunks=("I think <tool",),
        note="SGLang holds <tool while waiting (so does streamcall); at the end of the "
        "stream streamcall releases it as text.",
    ),
    Case(
        "sglang-qwen25-arguments-after-name",
        "hermes",
        '<tool_call>\n{"name": "search", "arguments": {"query": "x"}}\n</tool_call>',
        [("search", {"query": "x"})],
        "",
        chunks=('<tool_call>\n{"name": "search",', ' "arguments": {"query": "x"}}\n</tool_call>'),
    ),
    # SGLang test/srt/test_function_call_parser.py, TestBaseFormatDetector: two calls in one
    # <tool_call> block, separated by ", ".
    Case(
        "sglang-base-sequential-tool-index",
        "hermes",
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_tourist_attractions", "arguments": {"city": "London"}}</tool_call>',
        [("get_weather", {"city": "Paris"}), ("get_tourist_attractions", {"city": "London"})],
        "",
        chunks=(
            "<tool_call>",
            '{"name": "get_weather", ',
            '"arguments": {"city": "Paris"}}',
            ", ",
            '{"name": "get_tourist_attractions", ',
            '"arguments": {"city": "London"}}',
            "</tool_call>",
        ),
    ),
    Case(
        "sglang-base-buffer-preservation",
        "hermes",
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_tourist_attractions", "arguments": {"city": "London"}} </tool_call>',
        [("get_weather", {"city": "Paris"}), ("get_tourist_attractions", {"city": "London"})],
        "",
        chunks=(
            "<tool_call>",
            '{"name": "get_weather", ',
            '"arguments": {"city": "Paris"}}',
            ", ",
            '{"name": "get_tourist_attractions", ',
            '"arguments": {"city": "London"}} </tool_call>',
        ),
    ),
)


# --- the tests ---------------------------------------------------------------------------


def _check(case: Case, items: list[testing.Item]) -> None:
    text, calls = summary(items)
    assert calls == case.calls, case.note
    assert text == case.content, case.note
    if case.incomplete is not None:
        flags = tuple(v.incomplete for k, v in items if isinstance(v, testing.Call))
        assert flags == case.incomplete
    if "arguments" in case.extra:
        (call,) = (v for _, v in items if isinstance(v, testing.Call))
        assert call.arguments == case.extra["arguments"]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
@given(data=st.data())
def test_fixture_in_any_chunking(case: Case, data: st.DataObject) -> None:
    items = check_format(case.fmt, case.text, data)
    _check(case, items)


CHUNKED = [c for c in CASES if c.chunks]


@pytest.mark.parametrize("case", CHUNKED, ids=[c.id for c in CHUNKED])
def test_fixture_in_the_upstream_chunking(case: Case) -> None:
    assert "".join(case.chunks) == case.text
    items = testing.coalesce(testing.run(tool_parser(case.fmt), case.chunks))
    _check(case, items)


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


# --- behaviour the upstream tests pinned beyond names and arguments ------------------------


def _feed_each(fmt: str, chunks: tuple[str, ...] | list[str]) -> list[list[Any]]:
    p = tool_parser(fmt)
    per_chunk = [p.feed(c) for c in chunks]
    per_chunk.append(p.finish())
    return per_chunk


def _args_of(events: list[Any]) -> str:
    return "".join(e.delta for e in events if isinstance(e, ToolCallArgs))


def _gemma_case(name: str) -> Case:
    return next(c for c in CASES if c.id == name)


def test_gemma4_no_extra_brace_and_quoted_keys() -> None:
    # vLLM test_streaming_no_extra_brace / _no_unquoted_keys / _name_no_call_prefix
    case = _gemma_case("gemma4-stream-no-extra-brace")
    events = [e for chunk in _feed_each("gemma4", case.chunks) for e in chunk]
    args = _args_of(events)
    assert args == '{"location":"London"}'
    assert args.count("}") == 1
    (start,) = [e for e in events if isinstance(e, ToolCallStart)]
    assert start.name == "get_weather"


def test_gemma4_split_delimiter_never_leaks() -> None:
    # vLLM test_streaming_split_delimiter_no_invalid_json (vLLM #38946)
    case = _gemma_case("gemma4-stream-split-delimiter")
    events = [e for chunk in _feed_each("gemma4", case.chunks) for e in chunk]
    args = _args_of(events)
    assert "<|" not in args and "|>" not in args
    assert json.loads(args) == {"content": "Buy milk"}


def test_gemma4_html_argument_is_not_duplicated() -> None:
    # vLLM test_streaming_html_argument_does_not_duplicate_tag_prefixes
    case = _gemma_case("gemma4-stream-html-argument")
    events = [e for chunk in _feed_each("gemma4", case.chunks) for e in chunk]
    content = json.loads(_args_of(events))["content"]
    for tag in ("<html", "<head", "<meta charset", "<meta name"):
        assert content.count(tag) == 1, tag
    assert "<<" not in content


def test_gemma4_trailing_bare_bool_is_not_duplicated() -> None:
    # vLLM test_streaming_trailing_bare_bool_not_duplicated
    case = _gemma_case("gemma4-stream-trailing-bare-bool")
    events = [e for chunk in _feed_each("gemma4", case.chunks) for e in chunk]
    args = _args_of(events)
    assert args.count("replace_all") == 1
    assert args.count("false") == 1


def test_gemma4_text_after_call_is_not_duplicated() -> None:
    # vLLM test_streaming_does_not_duplicate_plain_text_after_tool_call
    case = _gemma_case("gemma4-stream-plain-text-after-call")
    events = [e for chunk in _feed_each("gemma4", case.chunks) for e in chunk]
    assert "".join(e.text for e in events if isinstance(e, Text)) == "<div>"


def test_hermes_content_then_call_in_one_chunk_keeps_order() -> None:
    # vLLM test_hermes_streaming_content_and_tool_call_in_single_chunk
    p = tool_parser("hermes")
    events = p.feed('Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>')
    events += p.finish()
    kinds = [type(e) for e in events]
    assert kinds[0] is Text and events[0] == Text("Hi!")
    assert kinds[1] is ToolCallStart
    assert isinstance(events[-1], ToolCallEnd)
    assert json.loads(events[-1].arguments) == {"x": 1}


def test_hermes_partial_start_marker_is_held_not_leaked() -> None:
    # SGLang test_streaming_partial_bot_token_is_buffered / _does_not_leak_prefix
    p = tool_parser("hermes")
    first = p.feed("hello <tool_")
    assert first == [Text("hello ")]
    p = tool_parser("hermes")
    first = p.feed("I think <tool")
    assert first == [Text("I think ")]
    assert p.finish() == [Text("<tool")]


def test_hermes_sequential_calls_get_indices_0_and_1() -> None:
    # SGLang TestBaseFormatDetector.test_sequential_tool_index_assignment
    case = next(c for c in CASES if c.id == "sglang-base-sequential-tool-index")
    events = [e for chunk in _feed_each("hermes", case.chunks) for e in chunk]
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.index, s.name) for s in starts] == [
        (0, "get_weather"),
        (1, "get_tourist_attractions"),
    ]
    ends = {e.index: json.loads(e.arguments) for e in events if isinstance(e, ToolCallEnd)}
    assert ends == {0: {"city": "Paris"}, 1: {"city": "London"}}


@pytest.mark.parametrize("fmt", ["hermes", "granite4"])
def test_string_arguments_that_only_look_like_an_object(fmt: str) -> None:
    """vLLM test_hermes_streaming_string_arguments_match_non_streaming, "{hello world}".

    vLLM passes the string through as a JSON string. streamcall decodes string arguments
    and streams the object inside; here the object breaks after its ``{``, so the call
    (already started) ends incomplete with ``{}`` and the rest is text.
    """
    text = "<tool_call>" + json.dumps({"name": "f", "arguments": "{hello world}"}) + "</tool_call>"
    items = testing.check_chunkings(lambda: tool_parser(fmt), text)
    calls = [v for _, v in items if isinstance(v, testing.Call)]
    assert [(c.name, json.loads(c.arguments), c.incomplete) for c in calls] == [("f", {}, True)]
    content, _ = summary(items)
    assert "hello world}" in content
    assert content.endswith("</tool_call>")


@pytest.mark.parametrize(
    ("low", "high"), [(1, 1), (1, 2), (5, 7), (6, 20)], ids=["1-1", "1-2", "5-7", "6-20"]
)
@given(data=st.data())
def test_granite4_complex_in_vllm_chunk_sizes(low: int, high: int, data: st.DataObject) -> None:
    # vLLM test_tool_call_parser_complex: random chunks of low..high characters.
    case = next(c for c in CASES if c.id == "granite4-complex")
    pieces, i = [], 0
    while i < len(case.text):
        size = data.draw(st.integers(low, high))
        pieces.append(case.text[i : i + size])
        i += size
    items = testing.coalesce(testing.run(tool_parser("granite4"), pieces))
    _check(case, items)
