"""kimi_k3: Kimi K3's XTML tool calls and think channel.

The upstream cases (``tests/fixtures/upstream/kimi_k3.json``: SGLang's
``test_kimik3_detector.py`` and vLLM's Kimi K3 tool and reasoning parser tests, Apache-2.0;
the README there says where each came from) run through the combined parser in every
chunking; the rest is ours.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import Reasoning, Text, ToolCallArgs, testing
from streamcall.formats.kimi_k3 import KimiK3Parser
from streamcall.formats.registry import format_for_model, parse_tool_calls, tool_parser
from streamcall.output import output_parser
from streamcall.reasoning import reasoning_format_for_model, reasoning_parser
from support import (
    calls,
    check_contract,
    check_every_end,
    check_format,
    check_rendered,
    check_upstream_case,
    check_value_streams,
    schema_for,
    summary,
    typed_tool,
    upstream_cases,
)

SKIP = {
    "sglang_stream_end_truncated_tools_section": (
        "a call whose header is complete is reported when the stream ends inside it "
        "(incomplete, arguments {}); SGLang and vLLM drop it"
    ),
    "sglang_stream_end_drops_truncated_marker": (
        "nothing is lost: a lone <|open|> at the end of the stream is text (SGLang drops "
        "it; vLLM 0.33's one-shot path keeps it too)"
    ),
}


@pytest.mark.parametrize("case", upstream_cases("kimi_k3", skip=SKIP))
def test_upstream(case: dict[str, Any]) -> None:
    check_upstream_case(case, "kimi_k3", "kimi_k3")


def test_the_skipped_cases_as_we_read_them() -> None:
    # the call is cut off after its header: reported, incomplete
    cut = parse_tool_calls(
        '<|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|>', "kimi_k3"
    )
    assert cut.content == ""
    assert [(c.name, c.args, c.incomplete) for c in cut.tool_calls] == [("python", {}, True)]
    # a lone <|open|> at the end is text
    assert parse_tool_calls("all done<|open|>", "kimi_k3").content == "all done<|open|>"


def test_registered_and_routed() -> None:
    assert format_for_model("moonshotai/Kimi-K3") == "kimi_k3"
    assert reasoning_format_for_model("moonshotai/Kimi-K3") == "kimi_k3"
    assert format_for_model("moonshotai/Kimi-K2.5") == "kimi_k2"


# -- the grammar ------------------------------------------------------------------------------

OPEN, CLOSE = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"


def call(name: str, *args: tuple[str, str | None, str], index: int = 1) -> str:
    body = "".join(
        f'<|open|>argument key="{k}"' + (f' type="{t}"' if t is not None else "") + "<|sep|>"
        f"{v}<|close|>argument<|sep|>"
        for k, t, v in args
    )
    return f'<|open|>call tool="{name}" index="{index}"<|sep|>{body}<|close|>call<|sep|>'


TOOLS = [typed_tool("f", n="integer", s="string", o="object")]

VALUES: list[tuple[str, dict[str, Any]]] = [
    # the type attribute types the value, whatever the schema says
    (call("f", ("n", "string", "42")), {"n": "42"}),
    (call("f", ("s", "integer", "7")), {"s": 7}),
    (call("f", ("x", "number", "-1.5e3")), {"x": -1500.0}),
    (call("f", ("x", "null", "null")), {"x": None}),
    (call("f", ("x", "array", '[1, "a", {"b": null}]')), {"x": [1, "a", {"b": None}]}),
    (call("f", ("x", "boolean", "yes")), {"x": "yes"}),  # not JSON: the raw string
    # no type: a string; string values are raw and byte-exact
    (call("f", ("x", None, "  two\nlines \n")), {"x": "  two\nlines \n"}),
    (call("f", ("x", "string", '{"a": 1}')), {"x": '{"a": 1}'}),
    (call("f", ("x", "string", "a &amp; b &quot;c&quot;")), {"x": "a &amp; b &quot;c&quot;"}),
    (call("f", ("x", "string", "")), {"x": ""}),
    (call("f", ("x", "object", "")), {"x": ""}),
    # attributes in any order, the key unescaped
    ('<|open|>call index="1" tool="f"<|sep|><|open|>argument type="integer" key="a&quot;b"<|sep|>'
     "3<|close|>argument<|sep|><|close|>call<|sep|>", {'a"b': 3}),
    (call("f", ("k", "string", "v"), ("k2", "object", '{"z": [true]}')), {"k": "v", "k2": {"z": [True]}}),
    (call("f"), {}),
]  # fmt: skip


@pytest.mark.parametrize(("body", "args"), VALUES)
@given(data=st.data())
def test_values(body: str, args: dict[str, Any], data: st.DataObject) -> None:
    text = f"{OPEN}{body}{CLOSE}"
    assert summary(check_contract("kimi_k3", text, data, TOOLS)) == ("", [("f", args)])


def test_names_are_unescaped_and_index_is_ignored() -> None:
    text = OPEN + call("a&amp;b&quot;", ("q", "string", "x"), index=9) + CLOSE
    assert summary(check_format("kimi_k3", text)) == ("", [('a&b"', {"q": "x"})])


JSON_BLOCK = '<|open|>json type="object"<|sep|>{}<|close|>json<|sep|>'


@pytest.mark.parametrize(
    ("body", "content", "calls"),
    [
        ('{"a": [1, 2], "b": "x"}', "", [("f", {"a": [1, 2], "b": "x"})]),
        ('\n {"a": "<|close|>call<|sep|>"} \n', "", [("f", {"a": "<|close|>call<|sep|>"})]),
        ("{}", "", [("f", {})]),
    ],
)
@given(data=st.data())
def test_json_block_body(body: str, content: str, calls: Any, data: st.DataObject) -> None:
    text = (
        f'{OPEN}<|open|>call tool="f" index="1"<|sep|>'
        f'<|open|>json type="object"<|sep|>{body}<|close|>json<|sep|>'
        f"<|close|>call<|sep|>{CLOSE}"
    )
    assert summary(check_contract("kimi_k3", text, data)) == (content, calls)


def test_json_block_streams_verbatim_and_breaks_as_other_bodies_do() -> None:
    head = f'{OPEN}<|open|>call tool="f" index="1"<|sep|><|open|>json type="object"<|sep|>'
    p = tool_parser("kimi_k3")
    events = p.feed(head + '{"k": "' + "v" * 30)
    assert "".join(e.delta for e in events if isinstance(e, ToolCallArgs)) == '{"k": "' + "v" * 30
    # the JSON block's closer missing: the call's own closer ends it
    text = head + '{"a": 1}<|close|>call<|sep|>' + CLOSE
    assert summary(check_format("kimi_k3", text)) == ("", [("f", {"a": 1})])
    # broken JSON: what streamed is closed, the call incomplete, the rest text
    broken = parse_tool_calls(
        head + '{"a": 1 x}<|close|>json<|sep|><|close|>call<|sep|>', "kimi_k3"
    )
    assert [(c.args, c.incomplete) for c in broken.tool_calls] == [({"a": 1}, True)]
    assert broken.content == "x}<|close|>json<|sep|><|close|>call<|sep|>"
    # a JSON block after an argument is not a body
    late = f"{OPEN}{call('f', ('k', 'string', 'v'))[: -len('<|close|>call<|sep|>')]}{JSON_BLOCK}"
    parsed = parse_tool_calls(late, "kimi_k3")
    assert [(c.args, c.incomplete) for c in parsed.tool_calls] == [({"k": "v"}, True)]
    assert parsed.content == JSON_BLOCK


# -- the response channel and the end of the message -------------------------------------------

FRAMED = [
    ("<|open|>response<|sep|>Hi.<|close|>response<|sep|><|close|>message<|sep|>", "Hi.", []),
    ("<|open|>response<|sep|>Hi.<|close|>response<|sep|>" + OPEN + call("f") + CLOSE
     + "<|close|>message<|sep|><|end_of_msg|>", "Hi.", [("f", {})]),
    # the blanks between the block and a frame are markup
    (OPEN + call("f") + CLOSE + "\n<|close|>message<|sep|>", "", [("f", {})]),
    # an unclosed tools section ended by the end of the message
    (OPEN + call("f") + "<|close|>message<|sep|>", "", [("f", {})]),
    # text after the response channel is text
    ("<|open|>response<|sep|>a<|close|>response<|sep|> b", "a b", []),
    # an XTML element that is not one of these stays text
    ("x<|open|>other<|sep|>y", "x<|open|>other<|sep|>y", []),
]  # fmt: skip


@pytest.mark.parametrize(("text", "content", "calls"), FRAMED)
@given(data=st.data())
def test_frames_are_dropped(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_contract("kimi_k3", text, data)) == (content, calls)


def test_a_cut_frame_is_held_then_dropped() -> None:
    p = tool_parser("kimi_k3")
    assert p.feed("Hello<|close|>mess") == [Text("Hello")]
    assert p.feed("age<|sep|>") == []
    assert p.finish() == []


# -- malformed and cut input --------------------------------------------------------------------

MALFORMED = [
    # a call without tool= is not a call: its markup is text
    (OPEN + '<|open|>call index="1"<|sep|>x<|close|>call<|sep|>' + CLOSE,
     OPEN + '<|open|>call index="1"<|sep|>x<|close|>call<|sep|>' + CLOSE, []),
    # '<|open|>calls' is not a call header
    (OPEN + "<|open|>calls<|sep|>", OPEN + "<|open|>calls<|sep|>", []),
    # junk between arguments ends the call, incomplete; the junk is text
    (OPEN + '<|open|>call tool="f"<|sep|>junk<|close|>call<|sep|>', "junk<|close|>call<|sep|>",
     [("f", {})]),
    # an argument without key= is junk
    (OPEN + '<|open|>call tool="f"<|sep|><|open|>argument type="string"<|sep|>v',
     '<|open|>argument type="string"<|sep|>v', [("f", {})]),
    # a missing argument closer ends at the call's closer
    (OPEN + '<|open|>call tool="f"<|sep|><|open|>argument key="k"<|sep|>v<|close|>call<|sep|>'
     + CLOSE, "", [("f", {"k": "v"})]),
    # an empty tools section is text
    (OPEN + CLOSE, OPEN + CLOSE, []),
]  # fmt: skip


@pytest.mark.parametrize(("text", "content", "calls"), MALFORMED)
@given(data=st.data())
def test_malformed(text: str, content: str, calls: Any, data: st.DataObject) -> None:
    assert summary(check_format("kimi_k3", text, data)) == (content, calls)


def test_every_cut_keeps_the_contract() -> None:
    text = (
        "<|open|>response<|sep|>Sure.<|close|>response<|sep|>"
        + OPEN
        + call("f", ("s", "string", "a <b>"), ("n", "integer", "12"), ("o", "object", '{"x": 1}'))
        + '<|open|>call tool="g" index="2"<|sep|>' + JSON_BLOCK + "<|close|>call<|sep|>"
        + CLOSE
        + "<|close|>message<|sep|>"
    )  # fmt: skip
    check_every_end("kimi_k3", text, TOOLS)


def test_a_long_string_streams_before_its_closer() -> None:
    check_value_streams(
        "kimi_k3",
        [
            OPEN + '<|open|>call tool="python" index="1"<|sep|>',
            '<|open|>argument key="code" type="string"<|sep|>print(1)\n',
        ],
        '{"code":"print(1)\\n',
        "x = 1  # " + "y" * 20 + "\n",
        "x = 1  # " + "y" * 20 + "\\n",
        times=50,
    )


@settings(max_examples=40)
@given(data=st.data(), call_list=calls, before=st.sampled_from(["", "Sure. ", "a < b\n"]))
def test_rendered_calls_in_any_chunking(
    data: st.DataObject, call_list: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    framed = "<|open|>response<|sep|>" + before + "<|close|>response<|sep|>"
    text = framed + KimiK3Parser.render(call_list) + "<|close|>message<|sep|>"
    items = check_rendered(
        "kimi_k3", text, data, call_list, before, schema_for(call_list), values=False
    )
    got = summary(items)[1]
    assert [json.dumps(a, sort_keys=True) for _, a in got] == [
        json.dumps(json.loads(json.dumps(a)), sort_keys=True) for _, a in call_list
    ]


# -- reasoning: the think channel ----------------------------------------------------------------


def test_reasoning_implicit_ends_and_drops() -> None:
    def run(text: str, **kw: Any) -> list[Any]:
        return testing.coalesce(testing.run(reasoning_parser("kimi_k3", **kw), [text]))

    # the tools channel ends reasoning and is handed on
    assert run("plan<|open|>tools<|sep|>x") == [
        ("reasoning", "plan"),
        ("text", "<|open|>tools<|sep|>x"),
    ]
    # the response channel ends it too; its wrapper is dropped
    assert run("plan<|open|>response<|sep|>ok<|close|>response<|sep|>") == [
        ("reasoning", "plan"),
        ("text", "ok"),
    ]
    # thinking off: the wrapper is dropped before reasoning too; a think channel opens it
    assert run("<|open|>response<|sep|>ok<|close|>response<|sep|>", prompt_opened=False) == [
        ("text", "ok")
    ]
    assert run("<|open|>think<|sep|>r<|close|>think<|sep|>a", prompt_opened=False) == [
        ("reasoning", "r"),
        ("text", "a"),
    ]


@pytest.mark.parametrize(
    ("request_", "reasoning", "content"),
    [
        ({}, "r", "a"),
        ({"chat_template_kwargs": {"thinking": False}}, "", "r<|close|>think<|sep|>a"),
        ({"chat_template_kwargs": {"enable_thinking": False}}, "", "r<|close|>think<|sep|>a"),
    ],
)
def test_thinking_switches(request_: dict[str, Any], reasoning: str, content: str) -> None:
    p = output_parser(model="moonshotai/Kimi-K3", request=request_)
    events = testing.run(p, ["r<|close|>think<|sep|><|open|>response<|sep|>a"])
    assert "".join(e.text for e in events if isinstance(e, Reasoning)) == reasoning
    assert "".join(e.text for e in events if isinstance(e, Text)) == content


@given(data=st.data())
def test_whole_output_in_any_chunking(data: st.DataObject) -> None:
    text = (
        "<|open|>think<|sep|>Need python.<|close|>think<|sep|>"
        "<|open|>response<|sep|>Running.<|close|>response<|sep|>"
        + OPEN
        + call("python", ("code", "string", "print(1)"))
        + CLOSE
        + "<|close|>message<|sep|>"
    )

    def make() -> Any:
        return output_parser(tool_format="kimi_k3", reasoning_format="kimi_k3", prompt_opened=False)

    chunkings = [
        testing.chunk_at(
            text, sorted(data.draw(st.sets(st.integers(1, len(text) - 1), max_size=30)))
        )
    ]
    items = testing.check_chunkings(make, text, chunkings)
    assert items[0] == ("reasoning", "Need python.")
    assert items[1] == ("text", "Running.")
    assert isinstance(items[2][1], testing.Call)
    assert json.loads(items[2][1].arguments) == {"code": "print(1)"}
    assert len(items) == 3
