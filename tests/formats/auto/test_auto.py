"""``tool_parser("auto")``: the first distinctive marker picks the format.

The property, for any text: in every chunking, auto's coalesced result is the chosen
format's own parser run on the whole text (``chosen`` the same in every chunking), and,
where nothing was chosen, the text whole. On rendered calls: auto picks the format that
rendered them, or one whose parser reads them to the same result (``EQUIVALENT``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import streamcall
from streamcall import testing
from streamcall.formats.auto import MARKERS, WINDOW, AutoParser, sniff
from streamcall.formats.registry import formats, parser_class, tool_parser
from support import calls, random_chunkings, schema_for

RENDERABLE = []
for _name in formats():
    try:
        parser_class(_name).render([("f", {})])
    except NotImplementedError:
        continue
    RENDERABLE.append(_name)

#: formats with no marker around their calls: not sniffed (formats/auto.py says why)
NOT_SNIFFED = {"llama3_json", "xlam", "pythonic", "generic_json", "functionary_v3_2"}

#: what auto picks for a format's rendering where it is another format that reads the
#: same wire text to the same result (checked below: the results are equal)
EQUIVALENT = {
    "qwen3_json": "hermes",
    "granite4": "hermes",
    "ernie45": "hermes",
    "cohere_command4": "cohere_command3",
    "glm47": "glm45",
    "poolside_v1": "glm45",
    "ling3": "glm45",
    "xingchen4": "telechat4",
    "xing4_0": "telechat4",
    "qwen3_xml": "qwen3_coder",
    "mimo": "qwen3_coder",
    "step3p5": "qwen3_coder",
    "step5": "qwen3_coder",
    "granite_toolcall_parser": "qwen3_coder",
    "zaya_xml": "zaya",
    "hunyuan_a13b": "jamba",
    "minimax": "jamba",
    "llama4_json": "llama3_json",
    "berrylm": "qwen3_coder",
    "kolibri1": "hermes",
    "spark3": "glm45",
    "spark": "glm45",
}

#: formats auto cannot tell from the one it picks: the same wire read by other rules
#: (Muse Spark types a key the schema types as a string raw, Glimmer reads every value as
#: JSON when it loads; Ripple counts the newline before <tool_call> as markup, Hermes as
#: text), so only the choice and the calls' names are compared
SAME_WIRE = {
    "muse": "muse_glimmer",
    "musespark": "muse_glimmer",
    "musespark1x": "muse_glimmer",
    "ripple": "hermes",
}

AROUND = ["", "Sure. ", "Let me check.\n", "  ", "a < b, [1] {x}: "]


def _result(make: Any, pieces: list[str]) -> tuple[list[testing.Item], str | None]:
    parser = make()
    items = testing.coalesce(testing.run(parser, pieces))
    return items, parser.chosen


def check_auto(text: str, data: st.DataObject | None = None, tools: Any = None) -> str | None:
    """Auto on ``text`` in every chunking: the same result and the same choice, equal to the
    chosen format's own parser on the whole text (or the text whole if none was chosen)."""

    def make() -> AutoParser:
        parser = tool_parser("auto", tools=tools)
        assert isinstance(parser, AutoParser)
        return parser

    whole, chosen = _result(make, [text])
    runs = [testing.chunk_every(text, 1), testing.chunk_every(text, 7)]
    if data is not None:
        runs.extend(random_chunkings(data, text))
    for pieces in runs:
        got, picked = _result(make, pieces)
        assert picked == chosen, (pieces, picked, chosen)
        assert got == whole, f"chunking {pieces!r} differs:\n  {got!r}\n  {whole!r}"
    if chosen is None:
        assert whole == ([("text", text)] if text else [])
    else:
        own = testing.coalesce(testing.run(tool_parser(chosen, tools=tools), [text]))
        if chosen == "llama3_json" and whole != own:
            # the one documented difference: llama3_json reads a bare JSON object anywhere,
            # and auto released the text before <|python_tag|> as text
            assert "{" in text[: text.index("<|python_tag|>")]
        else:
            assert whole == own, (chosen, whole, own)
    return chosen


def _calls(call_list: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    # Duplicate names with different key types would make the schema ambiguous.
    by_name: dict[str, dict[str, Any]] = {}
    for name, args in call_list:
        by_name.setdefault(name, {}).update(args)
    return [(name, by_name[name]) for name, _ in call_list]


@pytest.mark.parametrize("fmt", RENDERABLE)
@given(
    data=st.data(),
    call_list=calls,
    before=st.sampled_from(AROUND),
    after=st.sampled_from(AROUND),
)
def test_rendered_calls_pick_their_format(
    fmt: str,
    data: st.DataObject,
    call_list: list[tuple[str, dict[str, Any]]],
    before: str,
    after: str,
) -> None:
    call_list = _calls(call_list)
    tools = schema_for(call_list)
    text = before + parser_class(fmt).render(call_list) + after
    chosen = check_auto(text, data, tools)
    own = testing.coalesce(testing.run(tool_parser(fmt, tools=tools), [text]))
    got = testing.coalesce(testing.run(tool_parser("auto", tools=tools), [text]))
    if fmt in NOT_SNIFFED:
        assert chosen is None
        assert got == [("text", text)]
        return
    if fmt in SAME_WIRE:
        assert chosen == SAME_WIRE[fmt]
        assert [v.name for _, v in got if isinstance(v, testing.Call)] == [n for n, _ in call_list]
        return
    assert chosen == EQUIVALENT.get(fmt, fmt)
    assert got == own


@pytest.mark.parametrize("fmt", sorted(set(RENDERABLE) - NOT_SNIFFED))
@given(data=st.data(), call_list=calls, cut=st.floats(0, 1), junk=st.sampled_from(["", "<", "}"]))
def test_cut_and_broken_calls_follow_the_chosen_parser(
    fmt: str,
    data: st.DataObject,
    call_list: list[tuple[str, dict[str, Any]]],
    cut: float,
    junk: str,
) -> None:
    """Truncated anywhere (inside the window too, where the rule decides on less), or
    broken by a stray character: still the chosen format's parser on the whole text."""
    call_list = _calls(call_list)
    rendered = parser_class(fmt).render(call_list)
    at = int(len(rendered) * cut)
    check_auto("Hi. " + rendered[:at] + junk + rendered[at : at + 3], data, schema_for(call_list))


# -- text without markers, and text made of marker pieces ----------------------------------

_PIECES = sorted(
    {m[:k] for m in MARKERS for k in range(1, len(m))}
    | {" ", "\n", "x", "{", "}", "[", "]", '"', "<", ">", "|", "function", "call"}
)
marker_pieces = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)


@given(data=st.data(), text=marker_pieces)
def test_text_without_a_marker_comes_back_whole(data: st.DataObject, text: str) -> None:
    if any(m in text for m in MARKERS):
        return  # a whole marker assembled from pieces: the next test's business
    assert check_auto(text, data) is None


_ANY = sorted(set(_PIECES) | set(MARKERS) | {"get_weather", "<arg_key>", '{"name": "f"', "1"})


@given(data=st.data(), text=st.lists(st.sampled_from(_ANY), max_size=14).map("".join))
def test_any_text_is_the_chosen_parser_in_every_chunking(data: st.DataObject, text: str) -> None:
    check_auto(text, data)


@given(data=st.data(), text=st.text(max_size=60))
def test_random_text(data: st.DataObject, text: str) -> None:
    assert check_auto(text, data) is None or any(m in text for m in MARKERS)


# -- the rules -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("window", "chosen"),
    [
        ('<tool_call>\n{"name": "f"', "hermes"),
        ("<tool_call> [", "granite"),
        ("<tool_call>\n<function=f>", "qwen3_coder"),
        ('<tool_call>\n<function name="f">', "qwen3_coder"),
        ("<tool_call>get_weather\n<arg_key>", "glm45"),
        ("<tool_call>get_weather<arg_key>", "glm45"),
        ("<tool_call>f</tool_call>", "glm45"),
        ("<tool_call></tool_call>", "glm45"),
        ("<tool_call>hello world", "hermes"),
        ("<tool_call><b>", "hermes"),
        ("<tool_calls>[", "jamba"),
        ("<tool_calls>\n{", "jamba"),
        ("<tool_calls><tool_call>f<tool_sep>", "hy_v3"),
        ("<tool_calls:x1><tool_call:x1>f<tool_sep:x1>", "hy_v3"),
        ("<tool_calls><tool_call>f<arg_key>", "hy_v4"),
        ("<tool_calls><tool_call>f</tool_call>", "hy_v4"),
        ("<tool_calls:x1>[", "hy_v4"),
        ("<tool_calls are", ""),
        ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n", "deepseek_v3"),
        ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>", "deepseek_v31"),
        ("<｜tool▁call▁begin｜>function<｜tool▁sep｜>{", "deepseek_v31"),
        ("<｜tool▁calls▁begin｜>x", "deepseek_v31"),
        ('<function name="f"><param name="a">', "minicpm5"),
        ('<function name="f">\n<parameter=a>', "qwen3_coder"),
        ('<function name="f"></function>', "minicpm5"),
        ("functools[", "phi4_mini_json"),
        ("<|start|>assistant<|channel|>analysis<|message|>", "openai"),
        ("<|start|>assistant to=functions.f<|channel|>commentary<|message|>", "openai"),
        ("<|start|>assistant to=get_weather<|message|>", "muse_glimmer"),
        ("<|start|>assistant<|message|>x<|channel|>", "muse_glimmer"),
    ],
)
def test_rules(window: str, chosen: str) -> None:
    marker = next(m for m in sorted(MARKERS, key=len, reverse=True) if window.startswith(m))
    # decided on this much, and the same on any more of the window
    assert sniff(marker, window, False) == chosen
    assert sniff(marker, window + "x" * WINDOW, False) == chosen
    assert sniff(marker, window, True) == chosen


@pytest.mark.parametrize(
    "window",
    [
        "<tool_call>",
        "<tool_call>\n  ",
        "<tool_call>\n<func",
        "<tool_call>get_weather",
        "<tool_call>get_weather\n<arg_k",
        "<tool_calls",
        "<tool_calls>",
        "<tool_calls><tool_call>f",
        "<tool_calls><tool_call>f<tool_s",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function",
        '<function name="f"><param',
        "<|start|>assistant to=f<|mess",
    ],
)
def test_rules_wait_for_what_decides(window: str) -> None:
    marker = next(m for m in sorted(MARKERS, key=len, reverse=True) if window.startswith(m))
    assert sniff(marker, window, False) is None
    assert sniff(marker, window, True) is not None  # at the end of the stream, they decide


def test_the_hold_is_bounded_by_the_window() -> None:
    # a name that never ends: decided (hermes) once the window is whole, whatever follows
    text = "<tool_call>" + "a" * (2 * WINDOW) + "<arg_key>"
    parser = tool_parser("auto")
    assert isinstance(parser, AutoParser)
    for ch in text[: WINDOW - 1]:
        parser.feed(ch)
    assert parser.chosen is None
    parser.feed(text[WINDOW - 1])
    assert parser.chosen == "hermes"
    check_auto(text)


def test_text_before_the_marker_is_released_as_it_arrives() -> None:
    parser = tool_parser("auto")
    assert parser.feed("Sure, <tool") == [streamcall.Text("Sure, ")]
    events = parser.feed('_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>')
    assert isinstance(parser, AutoParser) and parser.chosen == "hermes"
    assert [type(e).__name__ for e in events] == [
        "ToolCallStart",
        "ToolCallArgs",
        "ToolCallEnd",
    ]


def test_bare_json_before_the_marker_is_text() -> None:
    # auto does not sniff bare JSON; llama3_json, picked by <|python_tag|>, reads it anywhere
    text = '{"name": "f", "parameters": {}} then <|python_tag|>{"name": "g", "parameters": {}}'
    got = streamcall.parse_tool_calls(text, "auto")
    assert got.content == '{"name": "f", "parameters": {}} then '
    assert [c.name for c in got.tool_calls] == ["g"]
    assert [c.name for c in streamcall.parse_tool_calls(text, "llama3_json").tool_calls] == [
        "f",
        "g",
    ]


def test_one_shot_and_chosen() -> None:
    text = "I will call it.<tool_call>\n<function=get>\n<parameter=q>\nx\n</parameter>\n</function>\n</tool_call>"
    parsed = streamcall.parse_tool_calls(text, "auto")
    assert parsed.content == "I will call it."
    assert [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls] == [("get", {"q": "x"})]


def test_auto_is_not_listed_as_a_format() -> None:
    # formats() lists the formats; auto picks one of them
    assert "auto" not in formats()
    assert parser_class("auto") is AutoParser


@pytest.mark.parametrize(
    "text",
    [
        "<tool_calls:" + "a" * 60 + " not HY " * 3,  # a suffix, then text: the marker is text
        "<tool_calls are fine " * 40,  # the marker is text, again and again
        "<tool_cal" * 100 + "x",  # partial markers, each released once it cannot grow
        "plain words, [brackets] and <tags>, f-strings, functools and ]<] too " * 30,
        "<tool_call>" + "a" * 3000,  # a name that never ends: decided at the window's end
    ],
)
def test_what_is_held_is_bounded(text: str) -> None:
    """Linear by construction: what is held between chunks is a partial marker, or a marker
    and its window, never more; so no chunk re-reads more than that."""
    longest = max(map(len, MARKERS))
    parser = tool_parser("auto")
    assert isinstance(parser, AutoParser)
    for ch in text:
        parser.feed(ch)
        assert len(parser._tail) <= max(WINDOW, longest)
    check_auto(text)
