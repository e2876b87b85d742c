"""``unknown_calls``: a call to a function the request's tools do not declare.

``"keep"`` (the default) keeps every call; ``"text"`` makes an undeclared call content,
written in the format's own syntax, in its place, as a named ``tool_choice`` does for other
functions. Checked for several formats in every chunking (whole, 1 char, 7 chars, random
cuts drawn by hypothesis), through ``output_parser``, ``parse_tool_calls``, ``parse_output``
and ``StreamParser``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcall import StreamParser, output_parser, parse_output, parse_tool_calls, testing
from streamcall.events import ToolCallStart
from streamcall.formats.registry import parser_class
from streamcall.toolchoice import allowed_names, declared_names
from support import random_chunkings

FORMATS = ["hermes", "qwen3_coder", "iquest_q1", "dots", "muse", "mistral"]


def _tool(name: str, key: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {key: {"type": "string"}}},
        },
    }


TOOLS = [_tool("get_weather", "city"), _tool("lookup", "id")]
SEARCH = ("search", {"q": "tea"})  # not declared
WEATHER = ("get_weather", {"city": "Paris"})
LOOKUP = ("lookup", {"id": "x7"})
OPEN = ("open_door", {"room": "hall"})  # not declared
CALLS = [SEARCH, WEATHER, OPEN, LOOKUP]


def _separate(fmt: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    """Each call in a block of its own, then prose."""
    cls = parser_class(fmt)
    return "".join(cls.render([c]) for c in calls) + " Bye."


def _items(fmt: str, text: str, **kw: Any) -> list[testing.Item]:
    return testing.check_chunkings(
        lambda: output_parser(tool_format=fmt, reasoning_format="none", **kw), text
    )


def _calls(items: list[testing.Item]) -> list[tuple[int, str, Any]]:
    return [
        (v.index, v.name, json.loads(v.arguments))
        for k, v in items
        if k == "call" and isinstance(v, testing.Call)
    ]


def _content(items: list[testing.Item]) -> str:
    return "".join(v for k, v in items if k == "text" and isinstance(v, str))


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_undeclared_calls_are_text_in_every_chunking(fmt: str, data: st.DataObject) -> None:
    text = _separate(fmt, CALLS)
    kw: dict[str, Any] = {"tools": TOOLS, "unknown_calls": "text"}
    expected = _items(fmt, text, **kw)
    for pieces in random_chunkings(data, text):
        got = testing.coalesce(testing.run(output_parser(tool_format=fmt, **kw), pieces))
        assert got == expected, pieces
    # the declared calls pass, renumbered 0, 1
    assert _calls(expected) == [(0, *WEATHER), (1, *LOOKUP)]
    # the undeclared ones are content, in the format's syntax, in order, before the prose
    content = _content(expected)
    cls = parser_class(fmt)
    first = content.find(cls.render([SEARCH]).strip())
    second = content.find(cls.render([OPEN]).strip())
    assert 0 <= first < second
    assert content.endswith("Bye.")
    # the one-shot entry points agree
    parsed = parse_tool_calls(text, fmt, tools=TOOLS, unknown_calls="text")
    assert parsed.content == content
    assert [(c.index, c.name, c.args) for c in parsed.tool_calls] == _calls(expected)
    whole = parse_output(text, tool_format=fmt, reasoning_format="none", **kw)
    assert whole.content == content
    assert [(c.name, c.args) for c in whole.tool_calls] == [WEATHER, LOOKUP]


@pytest.mark.parametrize("fmt", FORMATS)
def test_keep_is_the_default_and_keeps_every_call(fmt: str) -> None:
    text = _separate(fmt, CALLS)
    want = [(i, name, args) for i, (name, args) in enumerate(CALLS)]
    assert _calls(_items(fmt, text, tools=TOOLS)) == want
    assert _calls(_items(fmt, text, tools=TOOLS, unknown_calls="keep")) == want
    assert [(c.name, c.args) for c in parse_tool_calls(text, fmt, tools=TOOLS).tool_calls] == CALLS


@pytest.mark.parametrize("fmt", ["hermes", "dots", "mistral", "qwen3_coder"])
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_parallel_calls_in_one_block(fmt: str, data: st.DataObject) -> None:
    """One render of all four calls (one block where the format has one)."""
    text = parser_class(fmt).render(CALLS) + " Bye."
    kw: dict[str, Any] = {"tools": TOOLS, "unknown_calls": "text"}
    expected = _items(fmt, text, **kw)
    for pieces in random_chunkings(data, text):
        got = testing.coalesce(testing.run(output_parser(tool_format=fmt, **kw), pieces))
        assert got == expected, pieces
    assert _calls(expected) == [(0, *WEATHER), (1, *LOOKUP)]
    content = _content(expected)
    assert "search" in content and "open_door" in content
    assert "get_weather" not in content and "lookup" not in content
    ids = [v.id for k, v in expected if isinstance(v, testing.Call)]
    assert len(set(ids)) == 2 and all(ids)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("tools", [None, []])
def test_no_tools_keeps_every_call(fmt: str, tools: Any) -> None:
    """Nothing to check a name against: the switch keeps every call."""
    text = _separate(fmt, CALLS)
    got = _calls(_items(fmt, text, tools=tools, unknown_calls="text"))
    assert [(name, args) for _, name, args in got] == CALLS


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder", "iquest_q1", "mistral"])
def test_combined_with_a_named_tool_choice(fmt: str) -> None:
    text = _separate(fmt, CALLS)
    choose = {"type": "function", "function": {"name": "lookup"}}
    got = _items(fmt, text, tools=TOOLS, tool_choice=choose, unknown_calls="text")
    assert _calls(got) == [(0, *LOOKUP)]
    assert "get_weather" in _content(got) and "search" in _content(got)
    # a chosen function the tools do not declare: under "text" nothing is allowed
    odd = {"type": "function", "function": {"name": "search"}}
    got = _items(fmt, text, tools=TOOLS, tool_choice=odd, unknown_calls="text")
    assert _calls(got) == []
    # ... and under "keep" the choice alone decides
    got = _items(fmt, text, tools=TOOLS, tool_choice=odd)
    assert _calls(got) == [(0, *SEARCH)]


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder", "mistral"])
def test_a_declared_call_streams_before_it_ends(fmt: str) -> None:
    """The name decides at ToolCallStart: a declared call is not held back as an
    undeclared one is."""
    text = _separate(fmt, [SEARCH, WEATHER])
    cut = text.index("Paris") + 2  # inside the declared call's arguments
    parser = output_parser(tool_format=fmt, tools=TOOLS, unknown_calls="text")
    events = []
    for ch in text[:cut]:
        events.extend(parser.feed(ch))
    starts = [ev for ev in events if isinstance(ev, ToolCallStart)]
    assert [(ev.index, ev.name) for ev in starts] == [(0, "get_weather")]


def test_muse_doubled_names() -> None:
    """Muse's NAME.NAME is the declared NAME (the format decides it), so it stays a call;
    another dotted name is undeclared."""
    text = _separate("muse", [("get_weather.get_weather", {"city": "Oslo"}), ("weather.get", {})])
    got = _items("muse", text, tools=TOOLS, unknown_calls="text")
    assert _calls(got) == [(0, "get_weather", {"city": "Oslo"})]
    assert "weather.get" in _content(got)


def _sse(*deltas: dict[str, Any]) -> bytes:
    out = []
    for delta in deltas:
        chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        out.append(f"data: {json.dumps(chunk)}\n\n")
    finish = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    out.append(f"data: {json.dumps(finish)}\n\ndata: [DONE]\n\n")
    return "".join(out).encode()


@pytest.mark.parametrize("size", [1, 7, 10_000])
def test_stream_parser(size: int) -> None:
    text = _separate("hermes", [SEARCH, WEATHER])
    pieces = [text[i : i + 9] for i in range(0, len(text), 9)]
    structured = {
        "tool_calls": [
            {
                "index": 0,
                "id": "srv_1",
                "type": "function",
                "function": {"name": "from_server", "arguments": "{}"},
            }
        ]
    }
    data = _sse(*({"content": p} for p in pieces), structured)
    parser = StreamParser("hermes", tools=TOOLS, unknown_calls="text")
    for i in range(0, len(data), size):
        parser.feed(data[i : i + size])
    parser.finish()
    msg = parser.message
    assert msg.content == parser_class("hermes").render([SEARCH]) + " Bye."
    # the server's structured calls are its own decision: passed through
    assert [(c.index, c.name) for c in msg.tool_calls] == [(0, "get_weather"), (1, "from_server")]
    default = StreamParser("hermes", tools=TOOLS)
    default.feed(data)
    default.finish()
    assert [c.name for c in default.message.tool_calls] == ["search", "get_weather", "from_server"]


def test_bad_values_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown_calls"):
        output_parser(tool_format="hermes", unknown_calls="drop")
    with pytest.raises(ValueError, match="unknown_calls"):
        StreamParser("hermes", unknown_calls="TEXT")
    with pytest.raises(ValueError, match="unknown_calls"):
        parse_tool_calls("x", "hermes", tools=TOOLS, unknown_calls="nope")


def test_allowed_names() -> None:
    assert declared_names(TOOLS) == {"get_weather", "lookup"}
    assert declared_names([{"type": "function", "function": {}}, "junk"]) == frozenset()
    assert allowed_names(TOOLS) is None
    assert allowed_names(None, unknown_calls="text") is None
    assert allowed_names(TOOLS, unknown_calls="text") == {"get_weather", "lookup"}
    named = {"type": "function", "function": {"name": "lookup"}}
    assert allowed_names(TOOLS, named) == {"lookup"}
    assert allowed_names(None, named, "text") == {"lookup"}
    assert allowed_names(TOOLS, named, "text") == {"lookup"}


@pytest.mark.parametrize("mode", ["keep", "text"])
def test_cli_parse_and_serve_options(
    mode: str, tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    from streamcall import cli

    text = _separate("hermes", [SEARCH, WEATHER])
    (tmp_path / "out.txt").write_text(text)
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    argv = ["parse", str(tmp_path / "out.txt"), "--format", "hermes"]
    argv += ["--tools", str(tmp_path / "tools.json"), "--unknown-calls", mode]
    assert cli.main(argv) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    names = [e["name"] for e in events if e["type"] == "tool_call_start"]
    assert names == (["search", "get_weather"] if mode == "keep" else ["get_weather"])
    # serve hands the option to the proxy's config
    seen: list[Any] = []
    import streamcall.server as server

    monkeypatch.setattr(server, "run", lambda config, **kw: seen.append(config))
    monkeypatch.setattr("streamcall.cli.serve.bind_error", lambda *a: None)  # 8000 may be busy
    argv = ["serve", "--upstream", "http://127.0.0.1:9/v1", "--unknown-calls", mode]
    assert cli.main(argv) == 0
    assert [c.unknown_calls for c in seen] == [mode]
