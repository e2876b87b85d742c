"""Shared test helpers: random chunkings drawn by hypothesis, and the format check."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fuzz.sweep import renders  # noqa: F401  (re-exported: the tests that render calls)
from hypothesis import strategies as st

import streamcall
from streamcall import testing
from streamcall.events import Event, ToolCallArgs, ToolCallEnd, ToolCallStart
from streamcall.formats.engines.base import Tools
from streamcall.formats.registry import parse_tool_calls, tool_parser

#: For the tests that watch which path the pure source takes, by replacing a method with one
#: that refuses to run or by reading functions' code objects. In the compiled build
#: (``scripts/test-compiled``) methods are native: they cannot be replaced on their class and
#: have no code objects, so those tests cannot run there. What the paths give is still
#: checked in both builds, by the equivalence tests (fast read against reference path).
pure_only = pytest.mark.skipif(
    streamcall.compiled(),
    reason="watches the pure source's paths (replaced methods, code objects): "
    "compiled methods are native",
)


def random_chunkings(data: st.DataObject, text: str, count: int = 3) -> list[list[str]]:
    """``count`` random chunkings of ``text``, drawn by hypothesis (so they shrink)."""
    out = []
    for _ in range(count):
        if len(text) < 2:
            out.append([text])
            continue
        cuts = data.draw(st.lists(st.integers(1, len(text) - 1), max_size=min(40, len(text))))
        out.append(testing.chunk_at(text, cuts))
    return out


def check_format(
    fmt: str, text: str, data: st.DataObject | None = None, tools: Tools | None = None
) -> list[testing.Item]:
    """The contract for one text: whole, 1-char, 7-char and random chunkings agree, the
    invariants hold, and the result equals ``parse_tool_calls``."""
    key = (fmt, text, json.dumps(tools, sort_keys=True))
    items = _BASELINE.get(key)
    if items is None:
        # The fixed chunkings (whole, 1-char, 7-char) and the one-shot API, checked once per
        # text: they are the same in every hypothesis example, only the random ones differ.
        items = testing.check_chunkings(lambda: tool_parser(fmt, tools=tools), text)
        parsed = parse_tool_calls(text, fmt, tools=tools)
        content = "".join(v for k, v in items if k == "text" and isinstance(v, str))
        calls = [v for k, v in items if k == "call" and isinstance(v, testing.Call)]
        assert parsed.content == content
        assert [(c.name, c.arguments) for c in parsed.tool_calls] == [
            (c.name, c.arguments) for c in calls
        ]
        _BASELINE[key] = items
    if data is not None:
        for pieces in random_chunkings(data, text):
            got = testing.coalesce(testing.run(tool_parser(fmt, tools=tools), pieces))
            assert got == items, f"chunking {pieces!r} differs:\n  {got!r}\n  {items!r}"
    return items


_BASELINE: dict[tuple[str, str, str], list[testing.Item]] = {}


def summary(items: list[testing.Item]) -> tuple[str, list[tuple[str, Any]]]:
    """(all text, [(name, args dict)]) of a coalesced result, for terse assertions."""
    text = "".join(v for k, v in items if k == "text" and isinstance(v, str))
    calls = [
        (v.name, json.loads(v.arguments))
        for k, v in items
        if k == "call" and isinstance(v, testing.Call)
    ]
    return text, calls


def call_results(items: list[testing.Item]) -> list[tuple[str, Any, bool]]:
    """[(name, args loaded, incomplete)] of a coalesced result's calls."""
    return [
        (v.name, json.loads(v.arguments), v.incomplete)
        for _, v in items
        if isinstance(v, testing.Call)
    ]


def reasoning_of(items: list[testing.Item]) -> str:
    """All the reasoning text of a coalesced result."""
    return "".join(v for k, v in items if k == "reasoning" and isinstance(v, str))


def check_outcome(
    fmt: str,
    text: str,
    expected: list[tuple[str, Any, bool]],
    content: str,
    data: st.DataObject | None = None,
    *,
    tools: Tools | None = None,
    whole_contract: bool = True,
) -> list[testing.Item]:
    """``text`` keeps the contract in every chunking (random ones drawn from ``data``) (``check_contract``; without ``whole_contract``, the
    looser ``check_format``, for text a format decodes) and gives these calls
    (``call_results``) and this content."""
    check = check_contract if whole_contract else check_format
    items = check(fmt, text, data, tools)
    assert call_results(items) == expected
    assert summary(items)[0] == content
    return items


def check_reasoning_split(
    fmt: str,
    text: str,
    reasoning: str,
    content: str,
    data: st.DataObject | None = None,
    *,
    prompt_opened: bool | None = None,
) -> list[testing.Item]:
    """``text`` through the reasoning format ``fmt`` keeps the contract and gives this
    reasoning and this content."""
    items = check_contract(fmt, text, data, reasoning=True, prompt_opened=prompt_opened)
    assert reasoning_of(items) == reasoning
    assert "".join(v for k, v in items if k == "text" and isinstance(v, str)) == content
    return items


def merged_by_name(call_list: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """``call_list`` with each name's arguments merged, so that one schema (``schema_for``)
    types every call of a name alike."""
    by_name: dict[str, dict[str, Any]] = {}
    for name, args in call_list:
        by_name.setdefault(name, {}).update(args)
    return [(name, by_name[name]) for name, _ in call_list]


def check_rendered(
    fmt: str,
    text: str,
    data: st.DataObject | None,
    call_list: list[tuple[str, dict[str, Any]]],
    content: str,
    tools: Tools | None = None,
    *,
    values: bool = True,
) -> list[testing.Item]:
    """``text`` (holding ``call_list`` as a format's ``render`` wrote it) keeps the contract
    in every chunking and gives this content and the calls' names in order; with
    ``values``, each call's arguments are the rendered ones (``same``)."""
    items = check_contract(fmt, text, data, tools)
    got_content, got = summary(items)
    assert got_content == content
    assert [n for n, _ in got] == [n for n, _ in call_list]
    if values:
        for (_, g), (_, w) in zip(got, call_list, strict=True):
            assert same(g, w), (g, w)
    return items


def check_streams_before_closer(
    fmt: str,
    opener: str,
    chunk: str,
    closer: str,
    arguments: dict[str, Any],
    *,
    times: int = 10,
    tools: Tools | None = None,
) -> None:
    """A long value streams while it is written: ``opener`` starts the call; each of
    ``times`` ``chunk``s gives argument text and ends nothing, all but the last chunk's
    worth out before the closer; ``closer`` and the end give one complete call with these
    ``arguments``."""
    parser = tool_parser(fmt, tools=tools)
    events = parser.feed(opener)
    assert isinstance(events[0], ToolCallStart), events
    pieces: list[str] = []
    for _ in range(times):
        out = parser.feed(chunk)
        pieces += [e.delta for e in out if isinstance(e, ToolCallArgs)]
        assert not any(isinstance(e, ToolCallEnd) for e in out)
    assert chunk * (times - 1) in "".join(pieces)
    end = [e for e in parser.feed(closer) + parser.finish() if isinstance(e, ToolCallEnd)]
    assert len(end) == 1 and not end[0].incomplete
    assert json.loads(end[0].arguments) == arguments


def check_value_streams(
    fmt: str,
    opener: str | list[str],
    streamed: str,
    chunk: str,
    delta: str | None = None,
    *,
    times: int = 40,
    tools: Tools | None = None,
) -> None:
    """A string value streams as it is written: ``opener`` (fed whole, or piece by piece)
    gives the argument text ``streamed``, then each of ``times`` ``chunk``s gives exactly
    one argument delta, ``delta`` (``chunk`` when None: nothing held, nothing escaped)."""
    parser = tool_parser(fmt, tools=tools)
    pieces = [opener] if isinstance(opener, str) else opener
    events = [e for piece in pieces for e in parser.feed(piece)]
    assert "".join(e.delta for e in events if isinstance(e, ToolCallArgs)) == streamed
    for _ in range(times):
        out = parser.feed(chunk)
        assert [e.delta for e in out if isinstance(e, ToolCallArgs)] == [
            chunk if delta is None else delta
        ]


def unfinished_events(fmt: str, text: str) -> list[list[Event]]:
    """The events of ``text`` fed whole, one character at a time and in 7-character
    pieces, the stream left unfinished (no ``finish``): what a reader sees mid-stream."""
    out = []
    for pieces in ([text], testing.chunk_every(text, 1), testing.chunk_every(text, 7)):
        parser = tool_parser(fmt)
        out.append([e for p in pieces for e in parser.feed(p)])
    return out


def check_every_end(fmt: str, text: str, tools: list[dict[str, Any]] | None = None) -> None:
    """Every prefix of ``text``, as a whole stream, keeps the contract (``check_format``)."""
    for end in range(len(text) + 1):
        check_format(fmt, text[:end], None, tools)


def typed_tool(name: str, **types: str) -> dict[str, Any]:
    """A function tool whose parameters are ``types``' keys, each of the JSON type given."""
    properties = {key: {"type": kind} for key, kind in types.items()}
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": properties}},
    }


def check_contract(
    fmt: str,
    text: str,
    data: st.DataObject | None = None,
    tools: Tools | None = None,
    *,
    reasoning: bool = False,
    prompt_opened: bool | None = None,
) -> list[testing.Item]:
    """``testing.check_contract`` for a tool-call format (or, with ``reasoning``, a reasoning
    format): whole, 1-char, 7-char and random chunkings (drawn from ``data``) agree, and
    nothing is lost, decoded or reordered. A tool format's result also equals
    ``parse_tool_calls``."""
    from streamcall.reasoning import reasoning_parser

    def make() -> Any:
        if reasoning:
            return reasoning_parser(fmt, prompt_opened=prompt_opened)
        return tool_parser(fmt, tools=tools)

    chunkings = random_chunkings(data, text) if data is not None else []
    source = None
    if reasoning and fmt == "minimax_m2_append_think" and prompt_opened is not False and text:
        source = "<think>" + text  # the pre-filled <think>, written back
    items = testing.check_contract(make, text, chunkings, source=source)
    if not reasoning:
        parsed = parse_tool_calls(text, fmt, tools=tools)
        content, calls = summary(items)
        assert parsed.content == content
        assert [(c.name, c.args) for c in parsed.tool_calls] == calls
    return items


# Random calls with "tame" values (no markup characters, no edge whitespace), so that every
# format can carry them: what a format's ``render`` is tested with.
keys = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)
tame_text = st.from_regex(
    r"[A-Za-z0-9é中😀_.,!?-]([A-Za-z0-9é中😀_.,!? -]{0,18}[A-Za-z0-9é中😀_.,!?-])?", fullmatch=True
)
scalars = (
    tame_text
    | st.integers(-(10**9), 10**9)
    | st.floats(-1e6, 1e6, allow_nan=False).filter(lambda f: "." in repr(f) and "e" not in repr(f))
    | st.booleans()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=6,
)
calls = st.lists(
    st.tuples(
        st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True),
        st.dictionaries(keys, values, max_size=4),
    ),
    min_size=1,
    max_size=3,
)

_TYPES = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
}


def schema_for(call_list: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    tools: dict[str, dict[str, Any]] = {}
    for name, args in call_list:
        props = tools.setdefault(name, {})
        for key, value in args.items():
            props[key] = {"type": _TYPES[type(value)]}
    return [
        {
            "type": "function",
            "function": {"name": n, "parameters": {"type": "object", "properties": p}},
        }
        for n, p in tools.items()
    ]


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and type(a) is type(b)


# -- Step-3's special tokens and the call helpers of SGLang's Step3Detector suites
# (``test/registered/unit/function_call/test_step3_detector*.py``, Apache-2.0, copyright the
# SGLang project), shared by the three ported files in formats/xml/.

STEP3_BOT = "<｜tool_calls_begin｜>"
STEP3_EOT = "<｜tool_calls_end｜>"
STEP3_CALL_BEGIN = "<｜tool_call_begin｜>"
STEP3_CALL_END = "<｜tool_call_end｜>"
STEP3_SEP = "<｜tool_sep｜>"
STEP3_MARKUP = ("<steptml", "<｜tool_call", "<｜tool_sep")


def function_tool(
    name: str, props: dict[str, Any], required: list[str] | None = None
) -> dict[str, Any]:
    """A tools-list entry for ``name`` whose parameters have these properties."""
    params: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        params["required"] = required
    return {"type": "function", "function": {"name": name, "parameters": params}}


def every(text: str, size: int | None) -> list[str]:
    """``text`` in chunks of ``size`` characters (None: whole)."""
    if size is None:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


# Arguments texts of vLLM's tool-parser tests (Apache-2.0, copyright the vLLM project), which
# several of its suites share: every JSON type, and the escapes a string may hold.
VLLM_VARIOUS_ARGS = """{
    "string_field": "hello",
    "int_field": 42,
    "float_field": 3.14,
    "bool_field": true,
    "null_field": null,
    "array_field": ["a", "b", "c"],
    "object_field": {"nested": "value"},
    "empty_array": [],
    "empty_object": {}
  }"""
VLLM_ESCAPED_ARGS = """{
    "quoted": "He said \\"hello\\"",
    "path": "C:\\\\Users\\\\file.txt",
    "newline": "line1\\nline2",
    "unicode": "emoji: 🎉"
  }"""


# -- the upstream fixtures (tests/fixtures/upstream/*.json; their README says what each key
# means and where each case came from), run through our parsers in every chunking.

UPSTREAM = Path(__file__).parent / "fixtures" / "upstream"
_CHAT_SWITCHES = (
    "enable_thinking", "thinking", "reasoning_effort", "thinking_mode", "reasoning",
    "tool_call_format", "force_nonempty_content",
)  # fmt: skip


def upstream_cases(name: str, *, skip: dict[str, str] | None = None) -> list[Any]:
    """The cases of ``tests/fixtures/upstream/<name>.json`` as pytest params (id: the
    case's id). ``skip`` maps a case id to the reason it is not run (an upstream behaviour
    we do not copy, said in the format's ``vllm_differences`` or its tests); a case id in
    ``skip`` that the file lacks is an error."""
    import pytest

    cases = json.loads((UPSTREAM / f"{name}.json").read_text(encoding="utf-8"))["cases"]
    skip = skip or {}
    missing = set(skip) - {c["id"] for c in cases}
    assert not missing, f"{name}: skip names cases the file lacks: {sorted(missing)}"
    return [
        pytest.param(c, id=c["id"], marks=[pytest.mark.skip(reason=skip[c["id"]])])
        if c["id"] in skip
        else pytest.param(c, id=c["id"])
        for c in cases
    ]


def upstream_parser(
    case: dict[str, Any], tool_format: str | None, reasoning_format: str | None
) -> Callable[[], Any]:
    """A factory of the parser a case exercises: ``output_parser`` with the tool stage, the
    reasoning stage or both (the case's ``parser``), its tools, its request switches
    (``chat_template_kwargs``), its ``tool_choice`` and its ``prompt_opened``."""
    from streamcall.output import output_parser

    options = case.get("options") or {}
    kind = case["parser"]
    tools = case.get("tools")
    request = {"chat_template_kwargs": {k: options[k] for k in _CHAT_SWITCHES if k in options}}
    tool_stage = tool_format if kind != "reasoning" else "none"
    reasoning_stage = reasoning_format if kind != "tool" else "none"
    assert tool_stage and reasoning_stage, f"{case['id']}: a {kind} case needs its format(s)"
    return lambda: output_parser(
        tools=tools,
        tool_format=tool_stage,
        reasoning_format=reasoning_stage,
        request=request,
        prompt_opened=options.get("prompt_opened"),
        tool_choice=options.get("tool_choice"),
    )


def upstream_result(items: list[testing.Item]) -> dict[str, Any]:
    """Coalesced items as a fixture's fields: ``content``, ``reasoning`` and ``calls``
    (each ``{name, arguments}``, the arguments loaded, plus ``incomplete`` when true)."""
    calls = []
    for _, value in items:
        if isinstance(value, testing.Call):
            call: dict[str, Any] = {"name": value.name}
            try:
                call["arguments"] = json.loads(value.arguments)
            except ValueError:
                call["arguments_raw"] = value.arguments
            if value.incomplete:
                call["incomplete"] = True
            calls.append(call)
    return {
        "content": "".join(v for k, v in items if k == "text" and isinstance(v, str)),
        "reasoning": "".join(v for k, v in items if k == "reasoning" and isinstance(v, str)),
        "calls": calls,
    }


def upstream_expected(case: dict[str, Any]) -> dict[str, Any]:
    """What a case expects, in ``upstream_result``'s shape (``null`` and ``""`` are both
    none; a call's ``id`` and ``id_pattern`` are left out: check them apart)."""
    calls = []
    for c in case["calls"]:
        call = {k: v for k, v in c.items() if k in ("name", "arguments", "incomplete")}
        if "arguments_raw" in c:
            del call["arguments"]
            call["arguments_raw"] = c["arguments_raw"]
        calls.append(call)
    content = case.get("content") or ""
    reasoning = case.get("reasoning") or ""
    # The template's framing blanks are dropped (streamcall.framing.blanks), where vLLM
    # keeps them: the blanks that open the answer after reasoning, and an answer of blanks.
    if reasoning:
        content = content.lstrip()
    if content.isspace():
        content = ""
    return {"content": content, "reasoning": reasoning, "calls": calls}


def check_upstream_case(
    case: dict[str, Any],
    tool_format: str | None = None,
    reasoning_format: str | None = None,
) -> dict[str, Any]:
    """Run a case whole, one character at a time, in 7-character pieces, in the upstream
    test's own chunks and chunk sizes, all giving one coalesced result, and assert that
    result equals what the case expects (but the fields it leaves ``unchecked``). Returns
    the result, for the checks a test adds."""
    text = case["text"]
    chunkings = [case["chunks"]] if "chunks" in case else []
    chunkings += [testing.chunk_every(text, n) for n in case.get("chunk_sizes", ())]
    make = upstream_parser(case, tool_format, reasoning_format)
    got = upstream_result(testing.check_chunkings(make, text, chunkings))
    want = upstream_expected(case)
    for field in case.get("unchecked", ()):
        if field == "arguments":
            for call in [*got["calls"], *want["calls"]]:
                call.pop("arguments", None)
                call.pop("arguments_raw", None)
        else:
            got.pop(field, None)
            want.pop(field, None)
    where = f"{case['id']} ({case['source']['repo']} {case['source']['test']})"
    assert got == want, f"{where}:\n  got:  {got!r}\n  want: {want!r}"
    return got


def count_steps(parser: Any) -> list[int]:
    """Wrap every step of a feed-loop parser so that each run is counted: the returned
    list's one item is the count so far (how many steps ran, not how many chunks came)."""
    count = [0]

    def counting(step: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            count[0] += 1
            return step(*args)

        return run

    parser._steps = [counting(s) for s in parser._steps]
    return count
