"""Contract breaks found by fuzzing (issue 14, and the campaign in ``fuzz/``), each a test in
every chunking (whole, 1-char, 7-char and random cuts: ``support.check_contract``).

The rules they pin, for every format:

- ``feed`` never raises: a key, name or id string with an invalid escape (``"\\{"``) is
  broken markup, released as text.
- Arguments always load: a number that cannot grow (``1.1.``) ends where it is valid.
- Where markup breaks is a position in the model's text, whatever the chunking: inside
  arguments written as a JSON string too (the first character that cannot continue it),
  and from there on the text is released as written, never decoded or re-escaped.
- Whitespace after a call is markup when the stream ends or another call (or block)
  follows; when other text follows, it is text, with that text. Whitespace before the
  first call, or with no call at all, is text.
- A name is complete at its terminator, never at a character that may only lead it
  (GLM: a newline right after ``<tool_call>``).
- A header (a call's, a parameter's, a tag's) is held up to its bound and is text past it,
  so one longer than the bound is text however it arrives.
- Nesting past ``MAX_DEPTH`` open containers breaks the arguments there: the call ends
  incomplete, with arguments that load.
"""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import streamcall
from streamcall import PartialJSON, parse_partial_json, repair_json, testing, tool_parser
from streamcall.formats.engines.base import UniqueIds
from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.registry import formats as registry_formats
from streamcall.formats.registry import parser_class
from streamcall.partial.incremental import MAX_DEPTH
from streamcall.text import fast
from support import call_results, check_contract, count_steps, renders, summary

Call = testing.Call


def items_of(fmt: str, text: str, data: st.DataObject) -> list[testing.Item]:
    return check_contract(fmt, text, data)


# -- 1. an invalid escape in a key or a name: text, never a raise ----------------------------

BAD_ESCAPES = [
    ("hermes", '<tool_call>{"\\{"'),
    ("granite4", '<tool_call>{"name":"\\_"'),
    ("llama3_json", '{"\\a"'),
    ("qwen3_coder", '<tool_call>{"name":"\\}"'),
    ("mistral", '[TOOL_CALLS]{"":5,"\\é"'),
    ("cohere_command3", '<|START_ACTION|>{"tool_call_id":"\\x","tool_name":"f"'),
    ("hermes", '<tool_call>{"name":"f\\u12'),  # cut, then the stream ends
]


@pytest.mark.parametrize(("fmt", "text"), BAD_ESCAPES)
@given(data=st.data())
def test_an_invalid_escape_in_a_key_or_name_is_text(
    fmt: str, text: str, data: st.DataObject
) -> None:
    assert items_of(fmt, text, data) == [("text", text)]


@given(data=st.data())
def test_a_valid_escape_in_a_name_still_names_the_call(data: st.DataObject) -> None:
    text = '<tool_call>{"name":"g\\u00e9t","arguments":{}}</tool_call>'
    assert summary(items_of("hermes", text, data)) == ("", [("gét", {})])


# -- 2. arguments that are not JSON ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "arguments", "rest"),
    [
        ('[TOOL_CALLS]f[ARGS]{"a":1.1.', '{"a":1.1}', "."),
        ('[TOOL_CALLS]f[ARGS]{"a":1e5e', '{"a":1e5}', "e"),
        ('[TOOL_CALLS]f[ARGS]{"a":1.5e+', '{"a":1.5e+0}', ""),
        ('[TOOL_CALLS]f[ARGS]{"a":1.', '{"a":1.0}', ""),
    ],
)
@given(data=st.data())
def test_a_number_that_cannot_grow_ends_where_it_is_valid(
    text: str, arguments: str, rest: str, data: st.DataObject
) -> None:
    items = items_of("mistral", text, data)
    assert items[0] == ("call", Call(0, "call_0", "f", arguments, True))
    assert items[1:] == ([("text", rest)] if rest else [])


# -- 3. results that depend on the chunking -----------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "text", "expected"),
    [
        # whitespace after a call, then text: text, with it
        ("qwen3_coder", "<tool_call><function=f></function>\ne", ("\ne", [("f", {})])),
        ("mimo", "<tool_call><function=f><parameter=></function>\n.", ("\n.", [("f", {"": ""})])),
        (
            "minimax_m2",
            '<minimax:tool_call><invoke name="f">\n</invoke>\n</>',
            ("\n</>", [("f", {})]),
        ),
        (
            "minimax_m2",
            "<minimax:tool_call><invoke name=f><parameter name=></invoke>\ne",
            ("\ne", [("f", {"": ""})]),
        ),
        (
            "minimax_m3",
            ']<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[</invoke>\nj',
            ("\nj", [("f", {})]),
        ),
        (
            "deepseek_v32",
            '<｜DSML｜function_calls><｜DSML｜invoke name="f"></｜DSML｜invoke>\n\ufffd',
            ("\n\ufffd", [("f", {})]),
        ),
        (
            "deepseek_v41",
            '<｜DSML｜ calls><｜DSML｜ invoke name="f"></｜DSML｜ invoke>\ne',
            ("\ne", [("f", {})]),
        ),
        (
            "hy_v3",
            "<tool_calls><tool_call>f<tool_sep><arg_key></arg_key><arg_value></tool_call> }",
            (" }", [("f", {"": ""})]),
        ),
        (
            "hy_v4",
            "<tool_calls><tool_call>f<arg_key></arg_key><arg_value></tool_call> [",
            (" [", [("f", {"": ""})]),
        ),
        # whitespace between two blocks, and after the last: markup
        (
            "gigachat3",
            '<|function_call|>{"name":"f","arguments":{}}\n\n<|function_call|>{"name":"g","arguments":{}}\n',
            ("", [("f", {}), ("g", {})]),
        ),
        (
            "openai",
            "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>\n\n",
            ("", [("f", {})]),
        ),
        ("pythonic", "[f(a=1)]\n\n", ("", [("f", {"a": 1})])),
        ("pythonic", "[f(a=1)]\n\nx", ("\n\nx", [("f", {"a": 1})])),
        # found by the campaign (tool:hy_v4, minimised): the blanks after a block left
        # as text with the text that followed them, and went out a second time before a
        # marker later in the same chunk (a suffixed block's stem, seed_oss's reasoning)
        (
            "hy_v4",
            "<tool_calls><tool_call>f<arg_key></arg_key><arg_value></tool_calls>\n><tool_calls",
            ("\n><tool_calls", [("f", {"": ""})]),
        ),
        (
            "hy_v3",
            "<tool_calls><tool_call>f<tool_sep></tool_call></tool_calls>\nx<tool_calls",
            ("\nx<tool_calls", [("f", {})]),
        ),
        (
            "seed_oss",
            "<seed:tool_call>\n<function=f>\n</function>\n</seed:tool_call>"
            "\nx<seed:think>r</seed:think>",
            ("\nx<seed:think>r</seed:think>", [("f", {})]),
        ),
    ],
)
@given(data=st.data())
def test_whitespace_after_a_call_is_markup_unless_text_follows(
    fmt: str, text: str, expected: tuple[str, list[object]], data: st.DataObject
) -> None:
    assert summary(items_of(fmt, text, data)) == expected


@pytest.mark.parametrize("fmt", ["glm45", "glm47", "poolside_v1"])
@given(data=st.data())
def test_a_glm_name_is_complete_at_its_terminator(fmt: str, data: st.DataObject) -> None:
    # '\n' right after <tool_call> leads the name; it does not end an empty one.
    items = items_of(fmt, "<tool_call>\n{<", data)
    assert items == [("call", Call(0, "call_0", "{", "{}", True)), ("text", "<")]
    items = items_of(fmt, "<tool_call>\nl<", data)
    assert items == [("call", Call(0, "call_0", "l", "{}", True)), ("text", "<")]
    # blanks, then a tag, and no name: not a call
    assert items_of(fmt, "<tool_call>\n<arg_key>", data) == [("text", "<tool_call>\n<arg_key>")]
    assert items_of(fmt, "\n<tool_call>", data) == [("text", "\n<tool_call>")]


@pytest.mark.parametrize("fmt", ["hermes", "granite4"])
@given(data=st.data())
def test_string_arguments_break_at_the_first_character_that_cannot_continue(
    fmt: str, data: st.DataObject
) -> None:
    # '(' cannot start the object inside the string: the markup breaks there, and the
    # <tool_call> after it opens a new block, whatever the chunking.
    text = '<tool_call>{"":"","arguments":"(<tool_call>{"name":"",""'
    assert items_of(fmt, text, data) == [
        ("text", '<tool_call>{"":"","arguments":"('),
        ("call", Call(0, "call_0", "", "{}", True)),
    ]


# -- 4. released text is the model's own ----------------------------------------------------------


@pytest.mark.parametrize("fmt", ["hermes", "granite4", "qwen3_coder", "cohere_command4"])
@given(data=st.data())
def test_a_raw_newline_is_released_as_written(fmt: str, data: st.DataObject) -> None:
    start = "<|START_ACTION|>" if fmt.startswith("cohere") else "<tool_call>"
    text = start + '{"":"","":"","arguments":{"\n'.replace(
        '"arguments"', '"parameters"' if fmt.startswith("cohere") else '"arguments"'
    )
    assert items_of(fmt, text, data) == [("text", text)]


@pytest.mark.parametrize(
    ("fmt", "text", "rest"),
    [
        ("granite4", '<tool_call>{"name":"","arguments":"{\\\\" ', '\\\\" '),
        ("llama3_json", '{"name":"","arguments":"{e":', 'e":'),
        ("ernie45", '<tool_call>{"name":"","arguments":"{\\"\\"2\\"', '2\\"'),
        ("granite4", '<tool_call>{"name":"f","arguments":"{\\"a\\": 1 x\\"}"}', 'x\\"}"}'),
        ("granite4", '<tool_call>{"name":"f","arguments":"{\\"a\\": tru\\q"}', 'tru\\q"}'),
    ],
)
@given(data=st.data())
def test_text_after_broken_string_arguments_is_released_as_written(
    fmt: str, text: str, rest: str, data: st.DataObject
) -> None:
    items = items_of(fmt, text, data)
    assert items[0][0] == "call" and isinstance(items[0][1], Call) and items[0][1].incomplete
    assert items[1:] == [("text", rest)]


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ('{"name":"f","arguments":"{\\"a\\":1} and \\"more\\""}</tool_call>', ' and \\"more\\"'),
        # then a bad escape breaks the string: the text before it is not lost
        ('{"name":"f","arguments":"{\\"a\\":1} xx\\q"}', ' xx\\q"}'),
        # blank once decoded: markup, like blanks after a call
        ('{"name":"f","arguments":"{\\"a\\":1}\\n "}</tool_call>', ""),
        ('{"name":"f","arguments":"{\\"a\\":1}\\n x"}</tool_call>', "\\n x"),
    ],
)
@given(data=st.data())
def test_text_after_the_object_inside_string_arguments_is_released_as_written(
    text: str, rest: str, data: st.DataObject
) -> None:
    items = items_of("granite4", "<tool_call>" + text, data)
    # Complete only where the closer was seen (the README's incomplete rule).
    incomplete = not text.endswith("</tool_call>")
    assert items == [("call", Call(0, "call_0", "f", '{"a":1}', incomplete))] + (
        [("text", rest)] if rest else []
    )


# The object inside string arguments closed, text followed it inside the string, and then
# the call broke after the string's closing quote: the text, the quote and what follows are
# released as written (issue 46, coverage-guided fuzzing: '}s' was released for '}"s').
JUNK_THEN_BREAK = [
    ('<tool_call>{"name":"","arguments":"{\\"\\":null}}"s', "", '{"":null}', '}"s'),
    ('<tool_call>{"name":"f","arguments":"{\\"a\\":1}}" , s', "f", '{"a":1}', '}" , s'),
    ('<tool_call>{"name":"f","arguments":"{\\"a\\":1}}", "x"s', "f", '{"a":1}', '}", "x"s'),
    # the arguments before the name: the markup after the quote is kept too
    ('<tool_call>{"arguments":"{\\"a\\":1}}", "name":"f"s', "f", '{"a":1}', '}", "name":"f"s'),
]


@pytest.mark.parametrize("fmt", ["hermes", "granite4", "qwen3_coder", "qwen3_json", "ernie45"])
@pytest.mark.parametrize(("text", "name", "arguments", "rest"), JUNK_THEN_BREAK)
@given(data=st.data())
def test_text_after_junk_in_string_arguments_is_released_as_written(
    fmt: str, text: str, name: str, arguments: str, rest: str, data: st.DataObject
) -> None:
    items = items_of(fmt, text, data)
    assert items == [("call", Call(0, "call_0", name, arguments, True)), ("text", rest)]


@pytest.mark.parametrize("fmt", ["hermes", "granite4"])
@given(data=st.data())
def test_junk_in_string_arguments_of_a_complete_call_keeps_the_quote_as_markup(
    fmt: str, data: st.DataObject
) -> None:
    text = '<tool_call>{"arguments":"{\\"a\\":1}}", "name":"f"}</tool_call>'
    assert items_of(fmt, text, data) == [
        ("call", Call(0, "call_0", "f", '{"a":1}', False)),
        ("text", "}"),
    ]


# -- 5. text that vanished ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "text"),
    [("glm47", "\r"), ("minimax_m2", " "), ("qwen3_coder", "\n\n"), ("deepseek_v32", "\t")],
)
@given(data=st.data())
def test_output_that_is_only_whitespace_is_text(fmt: str, text: str, data: st.DataObject) -> None:
    assert items_of(fmt, text, data) == [("text", text)]


@given(data=st.data())
def test_harmony_message_frames_are_markup_whatever_the_message(data: st.DataObject) -> None:
    # Harmony frames every message, a call's or not: its tokens and headers are markup,
    # like reasoning markers; what a message holds, and text outside messages, is text.
    assert items_of("openai", "<|channel|><|message|>", data) == []
    assert items_of("openai", "<|channel|><|message|> <|call|>Y", data) == [("text", " Y")]
    text = "<|channel|>final<|message|>Hi<|return|>"
    assert items_of("openai", text, data) == [("text", "Hi")]


# -- the gap before a block that fails ------------------------------------------------------------
# Whitespace after a call is markup only when another call follows it (or the stream ends):
# the blanks between two blocks go with the second block's markup, dropped when it holds a
# call and released with it, as text, when it fails. Before, most formats dropped them at
# the second block's opener (``</tool_call>\n<tool_call>x`` gave ``<tool_call>x``), while a
# failed call inside one block kept them, and Muse and Inkling kept the blanks between two
# messages of calls as text. Framed formats (Harmony, Muse, Inkling) read a message's frames
# as markup whatever the message, so the gap before a whole header is markup there.

_GAP = " \t\n \t"
_RENDERED = registry_formats()


def _two_calls(fmt: str) -> tuple[str, str, str]:
    """One call, a second, and the blanks the first ends with (part of the gap)."""
    cls = parser_class(fmt)
    first = cls.render([("f", {"a": 1})])
    second = cls.render([("g", {"b": 2})])
    return first, second, first[len(first.rstrip(" \t\r\n")) :]


def _text_and_names(items: list[testing.Item]) -> tuple[str, list[str]]:
    text, calls = summary(items)
    return text, [name for name, _ in calls]


@pytest.mark.parametrize("fmt", _RENDERED)
@given(data=st.data())
def test_the_gap_before_a_block_goes_with_it(fmt: str, data: st.DataObject) -> None:
    first, second, trail = _two_calls(fmt)
    framed = bool(parser_class(fmt).FRAMES)
    gap = trail + _GAP
    # the stream ends after the gap, or text follows it
    assert _text_and_names(items_of(fmt, first + _GAP, data)) == ("", ["f"])
    assert _text_and_names(items_of(fmt, first + _GAP + "x", data)) == (gap + "x", ["f"])
    # the second block cut anywhere: the gap is markup if it holds a call, else text with it
    cut = data.draw(st.integers(1, len(second)), label="cut")
    text, names = _text_and_names(items_of(fmt, first + _GAP + second[:cut], data))
    assert names[0] == "f"
    if len(names) == 2:
        assert _GAP not in text
    elif not second[:cut].strip():  # (ripple's block opens with a newline) still blanks only
        assert text == ""  # at the end of the stream, as the first case above
    elif not framed:
        assert text == gap + second[:cut]
    else:  # a whole header's frames are markup, and the gap before them
        assert text == gap + second[:cut] or _GAP not in text


@pytest.mark.parametrize(
    ("fmt", "text", "expected"),
    [
        (
            "hy_v3",
            "<tool_calls><tool_call>f<tool_sep></tool_call></tool_calls>\n<tool_calls>x",
            ("\n<tool_calls>x", [("f", {})]),
        ),
        (
            "hy_v3",  # a stem that is not a block opener after all
            "<tool_calls><tool_call>f<tool_sep></tool_call></tool_calls>\n<tool_calls",
            ("\n<tool_calls", [("f", {})]),
        ),
        (
            "hermes",
            '<tool_call>{"name":"f","arguments":{}}</tool_call>\n<tool_call></tool_call>',
            ("\n<tool_call></tool_call>", [("f", {})]),
        ),
        (
            "kimi_k2",  # a section, then another that holds no call
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
            "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"
            "\n<|tool_calls_section_begin|>",
            ("\n<|tool_calls_section_begin|>", [("f", {})]),
        ),
        (
            "openai",  # a header that never completes is text, with the gap before it
            "<|channel|>commentary to=functions.f<|message|>{}<|call|>\n<|channel|>x",
            ("\n<|channel|>x", [("f", {})]),
        ),
        (
            "openai",  # a text message's frames are markup, and the gap before them
            "<|channel|>commentary to=functions.f<|message|>{}<|call|>\n"
            "<|start|>assistant<|channel|>final<|message|>Hi",
            ("Hi", [("f", {})]),
        ),
        (
            "muse",  # the blanks between two messages of calls: markup
            '<|start|>assistant to=f<|message|><atem:invoke name="f"></atem:invoke><|eom|>\n'
            '<|start|>assistant to=g<|message|><atem:invoke name="g"></atem:invoke><|eom|>\n',
            ("", [("f", {}), ("g", {})]),
        ),
        (
            "muse",  # ... and text when text follows
            '<|start|>assistant to=f<|message|><atem:invoke name="f"></atem:invoke><|eom|>\nok',
            ("\nok", [("f", {})]),
        ),
        (
            "inkling",
            '<|message_model|>f<|content_invoke_tool_json|>{"name":"f","args":{}}<|end_message|>'
            '\n<|message_model|>g<|content_invoke_tool_json|>{"name":"g","args":{}}\n',
            ("", [("f", {}), ("g", {})]),
        ),
        (
            "inkling",  # text after a call inside its message: the blanks after it are text
            '<|message_model|>f<|content_invoke_tool_json|>{"name":"f","args":{}} x'
            "<|end_message|>\n",
            (" x\n", [("f", {})]),
        ),
    ],
)
@given(data=st.data())
def test_the_gap_before_a_failed_block_is_text(
    fmt: str, text: str, expected: tuple[str, list[object]], data: st.DataObject
) -> None:
    assert summary(items_of(fmt, text, data)) == expected


# -- the end of the stream in a key after the name --------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("hermes", '<tool_call>{"name": "g", "'),
        ("hermes", '<tool_call>{"name": "g", "argu'),
        ("hermes", '<tool_call>{"name": "g", "\\'),
        ("granite4", '<tool_call>{"name": "g", "arguments'),
        ("cohere_command4", '<|START_ACTION|>{"tool_name": "g", "tool_call_id": "a'),
        ("gigachat3", '<|function_call|>{"name": "g", "arg'),
    ],
)
@given(data=st.data())
def test_a_stream_that_ends_in_a_key_after_the_name_reports_the_call(
    fmt: str, text: str, data: st.DataObject
) -> None:
    # The name is known: the end of the stream cuts the call (incomplete), wherever in its
    # object it falls; before, a key cut by the end was broken markup, and the call text.
    items = items_of(fmt, text, data)
    assert call_results(items) == [("g", {}, True)]
    assert summary(items)[0] == ""


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("hermes", '<tool_call>{"name": "g'),  # the name itself is cut: not a call
        ("hermes", '<tool_call>{"arguments": {"a": 1}, "na'),
        ("llama3_json", '{"name": "g", "para'),  # a bare block must show its arguments
    ],
)
@given(data=st.data())
def test_a_stream_that_ends_before_the_name_is_known_is_text(
    fmt: str, text: str, data: st.DataObject
) -> None:
    assert items_of(fmt, text, data) == [("text", text)]


# -- 6. deep nesting ------------------------------------------------------------------------------


def test_repair_json_of_a_million_brackets_loads() -> None:
    out = repair_json("[" * 10**6)
    assert json.loads(out) is not None
    assert out == "[" * MAX_DEPTH + "]" * MAX_DEPTH


@pytest.mark.parametrize("fmt", ["hermes", "granite4", "mistral", "gemma4", "pythonic", "openai"])
def test_arguments_nested_past_the_limit_end_the_call_with_arguments_that_load(fmt: str) -> None:
    from streamcall.formats.registry import parser_class

    rendered = parser_class(fmt).render([("f", {"a": [1]})])
    at = rendered.index("[1]")
    for depth in (MAX_DEPTH - 2, MAX_DEPTH + 1, 10**5):
        text = rendered[:at] + "[" * depth + rendered[at + 1 :]
        items = testing.coalesce(testing.run(tool_parser(fmt), [text]))
        calls = [v for k, v in items if isinstance(v, Call)]
        assert len(calls) == 1
        args = json.loads(calls[0].arguments)  # loads, however deep the model went
        assert isinstance(args, dict)
        assert calls[0].incomplete
        if depth < MAX_DEPTH:
            continue
        levels, value = 1, args["a"]
        while isinstance(value, list) and value:
            levels, value = levels + 1, value[0]
        assert levels + 1 == MAX_DEPTH  # the object, then lists down to the limit


@pytest.mark.parametrize("fmt", ["qwen3_coder", "glm47", "minimax_m2"])
def test_xml_values_nested_past_the_limit_stay_strings(fmt: str) -> None:
    from streamcall.formats.registry import parser_class

    tools = [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"properties": {"a": {"type": "array"}}}},
        }
    ]
    rendered = parser_class(fmt).render([("f", {"a": [1]})])
    for depth, typed in ((MAX_DEPTH - 1, True), (MAX_DEPTH, False)):
        value = "[" * depth + "1" + "]" * depth
        items = testing.check_chunkings(
            lambda: tool_parser(fmt, tools=tools), rendered.replace("[1]", value)
        )
        args = json.loads(next(v for k, v in items if isinstance(v, Call)).arguments)
        assert isinstance(args["a"], list if typed else str)


# -- found by the campaign: a header longer than a held one ---------------------------------------

XML_FORMATS = sorted(
    n
    for n in streamcall.formats()
    if issubclass(parser_class(n), XmlParamsParser) and parser_class(n).MAX_HEADER
)


@pytest.mark.parametrize("fmt", ["glm45", "glm47"])
@given(data=st.data())
def test_a_call_header_longer_than_a_held_one_is_text(fmt: str, data: st.DataObject) -> None:
    """Fuzzed (glm45, glm47): a header is held up to ``MAX_HEADER`` characters and is text
    past that, so a longer one that arrives whole is text too (it was a call whole and text
    one character at a time)."""
    text = "<tool_call>{" + "\x00" * 300 + "\ufffd" * 260 + "x}<"  # 564 after the opener
    assert items_of(fmt, text, data) == [("text", text)]


@pytest.mark.parametrize("length", [10, 255, 256, 257, 300, 600])
@given(data=st.data())
def test_functionary_a_long_header_before_a_python_tag(length: int, data: st.DataObject) -> None:
    """Fuzzed (functionary_v3_1): a header is malformed at its ``MAX_HEADER + 1``-th
    character, and text is read again from there, however the stream is chunked (one
    character at a time the python tag after a long header was a call, whole it was
    swallowed by the header, up to its ``>``). A raw-code marker interrupts a header as
    every other marker does, so the tag opens its call after a short header too."""
    head = "<function=g" + "8" * length + " hi "
    items = items_of("functionary_v3_1", head + "<|python_tag|>print(1)", data)
    assert items == [("text", head), ("call", Call(0, "call_0", "python", '{"code": "print(1)"}'))]
    # the minimised input: bad bytes (U+FFFD) and NULs in the header, the tag last
    fuzzed = "<function=g8" + "\ufffd" * 300 + "\x00" * 40 + "8hi <|python_tag|>"
    items = items_of("functionary_v3_1", fuzzed, data)
    assert items == [("text", fuzzed[:-14]), ("call", Call(0, "call_0", "python", '{"code": ""}'))]


# (found by the campaign, mimo: the blanks after a call, before a block with a JSON body
# that fails, were released later, in front of the next markup that failed, and not where
# the model wrote them; the XML engine (Qwen3-Coder, MiMo, dots) and the pythonic one
# (LFM2) hand such a body to the JSON-call engine, and the gap stayed behind)

JSON_BODY_OPENERS = [
    ("mimo", "<tool_call>"),
    ("qwen3_coder", "<tool_call>"),
    ("qwen3_xml", "<tool_call>"),
    ("dots", "<dots_function_call>"),
    ("lfm2", "<|tool_call_start|>["),
]


@pytest.mark.parametrize(("fmt", "opener"), JSON_BODY_OPENERS)
@pytest.mark.parametrize("after", ["", "\\", "<tool_call>", "<|tool_call_start|>", "y"])
@given(data=st.data())
def test_the_gap_before_a_json_body_that_fails_is_text_in_its_place(
    fmt: str, opener: str, after: str, data: st.DataObject
) -> None:
    """A call, blanks, then a block whose JSON body breaks: the blanks are text, in front of
    that block's markup (as Hermes releases them), in every chunking."""
    call = f'{opener}{{"name":"f","arguments":{{}}}}'
    call += "]<|tool_call_end|>" if fmt == "lfm2" else opener.replace("<", "</")
    failed = f"{opener}{{x{after}"
    items = items_of(fmt, call + "\n " + failed, data)
    assert items == [("call", Call(0, "call_0", "f", "{}")), ("text", "\n " + failed)]
    # the minimised input (one character at a time it was the same: the order was wrong)
    fuzzed = '<tool_call>{"name":"","":{}}</tool_call>\n<tool_call>{\\<tool_call>'
    if fmt == "mimo":
        assert items_of(fmt, fuzzed, data) == [
            ("call", Call(0, "call_0", "", "{}")),
            ("text", "\n<tool_call>{\\<tool_call>"),
        ]


# (found by a probe of our own, not by the campaign: the contract check cannot see it while a
# call is in the result. Markup-shaped junk between two calls was taken for markup and lost:
# a second separator in a JSON block, an empty list before calls, a start marker repeated
# twice where a format repeats it, a call's closer or argument suffix written twice.)

_F = '{"name": "f", "arguments": {"a": 1}}'
_G = '{"name": "g", "arguments": {}}'
_KIMI_F = "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
_KIMI_G = "<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{}<|tool_call_end|>"
_PLAMO_ARGS_END = "<|plamo:end_tool_arguments:plamo|>"


def _f(
    index: int = 0, call_id: str = "call_0", arguments: str = '{"a": 1}', *, cut: bool = False
) -> testing.Item:
    return ("call", Call(index, call_id, "f", arguments, cut))


def _g(index: int = 1, call_id: str = "call_1") -> testing.Item:
    return ("call", Call(index, call_id, "g", "{}"))


JUNK_BETWEEN_CALLS = [
    # one separator between calls (or before the block's end) is markup, a second is not
    ("hermes", f"<tool_call>{_F},,{_G}</tool_call>", [_f(), ("text", f",,{_G}</tool_call>")]),
    ("hermes", f"<tool_call>{_F}, ;{_G}</tool_call>", [_f(), ("text", f", ;{_G}</tool_call>")]),
    ("hermes", f"<tool_call>{_F},</tool_call>", [_f()]),
    ("granite", f"<|tool_call|> [{_F},, {_G}]", [_f(), ("text", f",, {_G}]")]),
    ("nemotron_toolcall", f"<TOOLCALL>[{_F}, {_G}]</TOOLCALL>", [_f(), _g()]),
    ("llama3_json", f"{_F};;{_G}", [_f(), ("text", ";;"), _g()]),
    # Granite 20B FC repeats its start marker per call: once
    ("granite-20b-fc", f"<function_call> {_F} <function_call> {_G}", [_f(), _g()]),
    (
        "granite-20b-fc",
        f"<function_call> {_F}<function_call><function_call> {_G}",
        [_f(), ("text", "<function_call>"), _g()],
    ),
    ("granite-20b-fc", f"<function_call> {_F},<function_call> {_G}", [_f(), ("text", ","), _g()]),
    # an empty list holds no call: it is text, whatever follows
    ("hermes", f"<tool_call>[]{_F}</tool_call>", [("text", f"<tool_call>[]{_F}</tool_call>")]),
    ("hermes", "<tool_call>[]</tool_call>", [("text", "<tool_call>[]</tool_call>")]),
    ("llama3_json", f"{_F}[]{_G}", [_f(), ("text", "[]"), _g()]),
    # a call's closer comes once
    (
        "functionary_v3_1",
        '<function=f>{"a": 1}</function></function>X',
        [_f(), ("text", "</function>X")],
    ),
    (
        "functionary_v3_1",
        '<function=f>{"a": 1}</function>\n</function><function=g>{}</function>',
        [_f(), ("text", "\n</function>"), _g()],
    ),
    (
        "solar_open",
        parser_class("solar_open").render([("f", {"a": 1})]) + "<|tool_call:end|>",
        [_f(call_id="0000000000"), ("text", "<|tool_call:end|>")],
    ),
    (
        "kimi_k2",
        f"<|tool_calls_section_begin|>{_KIMI_F}<|tool_call_end|>{_KIMI_G}"
        "<|tool_calls_section_end|>",
        [_f(0, "functions.f:0", "{}"), ("text", "<|tool_call_end|>"), _g(1, "functions.g:1")],
    ),
    (  # a closer before any call of the section: the section's start is text too
        "kimi_k2",
        f"<|tool_calls_section_begin|><|tool_call_end|>{_KIMI_G}<|tool_calls_section_end|>",
        [("text", "<|tool_calls_section_begin|><|tool_call_end|>"), _g(0, "functions.g:1")],
    ),
    (  # DeepSeek V3's fence after the arguments, twice: the call is cut there
        "deepseek_v3",
        parser_class("deepseek_v3").render([("f", {"a": 1})]).replace("```<", "``````<"),
        [_f(cut=True), ("text", "```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")],
    ),
    (
        "plamo3",
        parser_class("plamo3")
        .render([("f", {"a": 1})])
        .replace(_PLAMO_ARGS_END, _PLAMO_ARGS_END * 2),
        [
            _f(),
            (
                "text",
                f"{_PLAMO_ARGS_END}<|plamo:end_tool_request:plamo|>"
                "<|plamo:end_tool_requests:plamo|>",
            ),
        ],
    ),
]


@pytest.mark.parametrize(("fmt", "text", "expected"), JUNK_BETWEEN_CALLS)
@given(data=st.data())
def test_junk_between_calls_is_text(
    fmt: str, text: str, expected: list[testing.Item], data: st.DataObject
) -> None:
    """Between two calls a format's grammar allows blanks and its markup once: one
    separator, one closer. Markup written again is text, in its place, in every chunking
    (the rule README.md states: whitespace between and after calls is markup; nothing else
    is lost)."""
    assert items_of(fmt, text, data) == expected


@pytest.mark.parametrize(
    "fmt",
    [n for n in streamcall.formats() if renders(n) and not testing.markup_of(tool_parser(n))],
)
def test_the_end_of_a_call_written_again_is_text(fmt: str) -> None:
    """Every format (but those whose frames are markup outside calls: Harmony, Muse,
    Inkling): a call, then any tail of its own markup again, then text or nothing. The call
    comes out once and the tail is text, blanks aside (a repeated closer was lost in
    Functionary v3.1 and Solar Open)."""
    rendered = parser_class(fmt).render([("f", {"a": 1})])
    for cut in range(1, len(rendered)):
        for after in ("", "X"):
            tail = rendered[cut:] + after
            parsed = streamcall.parse_tool_calls(rendered + tail, fmt)
            if [c.name for c in parsed.tool_calls] == ["f"]:
                assert "".join(parsed.content.split()) == "".join(tail.split()), tail


@pytest.mark.parametrize("fmt", [n for n in streamcall.formats() if renders(n)])
def test_no_call_name_is_longer_than_a_held_header(fmt: str) -> None:
    """Every format, a call's name around and past the length a header is held for where
    a name is read as a header (``MAX_HEADER``, ``MAX_HEAD``: 256 or 512): one result in
    every chunking (whole, 1-char, 7-char). (JSON names have no such bound.)"""
    cls = parser_class(fmt)
    for length in (250, 255, 256, 257, 258, 505, 509, 510, 511, 512, 513, 700):
        testing.check_chunkings(lambda: tool_parser(fmt), cls.render([("n" * length, {"a": 1})]))


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_no_parameter_key_is_longer_than_a_held_header(fmt: str) -> None:
    """Every XML format, a parameter's key around and past ``MAX_HEADER``: one result in
    every chunking, and no call carries a key that long."""
    cls = parser_class(fmt)
    for length in (cls.MAX_HEADER - 12, cls.MAX_HEADER - 3, cls.MAX_HEADER, cls.MAX_HEADER + 20):
        key = "k" * length
        items = testing.check_chunkings(
            lambda: tool_parser(fmt), cls.render([("f", {key: 1, "b": 2})])
        )
        for _, value in items:
            if isinstance(value, Call):
                assert length < cls.MAX_HEADER or key not in value.arguments


PYTHONIC_FORMATS = ("pythonic", "llama4_pythonic", "olmo3", "lfm2")


@pytest.mark.parametrize("fmt", [*PYTHONIC_FORMATS, "llama3_json"])
def test_no_python_keyword_is_longer_than_a_held_one(fmt: str) -> None:
    """The pythonic family (and Llama 3's built-in ``NAME.call(...)``): a keyword and its
    ``=`` around the fast read's bound (200) and past the length a keyword is held for
    (``MAX_HEAD``, 256), with blanks before the ``=``: one result in every chunking, and a
    keyword is one only if it and its ``=`` span under 256 characters."""
    bound = parser_class(fmt).MAX_HEAD
    for length in (120, 128, 129, 190, 199, 200, 250, 254, 255, 256, 257, 300):
        for blanks in (0, 1, 70, 71):
            key = "k" * length
            if fmt == "llama3_json":
                text = f"<|python_tag|>brave_search.call({key}{' ' * blanks}=1, b=2)"
            else:
                text = parser_class(fmt).render([("f", {key: 1, "b": 2})])
                text = text.replace(f"{key}=", f"{key}{' ' * blanks}=")
            items = testing.check_chunkings(lambda: tool_parser(fmt), text)
            calls = [value for _, value in items if isinstance(value, Call)]
            assert len(calls) == 1
            keyword = length + blanks + 1 < bound
            assert (key in calls[0].arguments) is keyword, (length, blanks, calls[0])
            if keyword:
                assert json.loads(calls[0].arguments) == {key: 1, "b": 2}


# (found by the campaign, pythonic: whether a quote closes its string is decided by what
# follows it, at most 256 characters of it; blanks that ran past that window were read to
# their end when the text was whole, but a chunk that ended past the window decided at once)

# the minimised input: a '' string, then 257 blanks (a CR, tabs and U+001F, a blank to ``\s``)
_PAST_THE_WINDOW = "[f(y=''\r" + "\t" * 219 + "\x1f" * 13 + "\t" * 17 + "\x1f" * 6 + " e"


@pytest.mark.parametrize("fmt", PYTHONIC_FORMATS)
def test_a_quote_closes_its_string_past_the_lookahead_window(fmt: str) -> None:
    start = parser_class(fmt).render([("f", {"y": ""})]).split("f(y=")[0] + "f(y="
    for blanks in (250, 255, 256, 257, 300):
        for after in (" e", "\x1f e", ")]", "x')]"):
            text = start + "''" + " " * blanks + after
            testing.check_chunkings(lambda: tool_parser(fmt), text)
    items = testing.check_chunkings(lambda: tool_parser("pythonic"), _PAST_THE_WINDOW)
    assert items == [("call", Call(0, "call_0", "f", '{"y":""}', True)), ("text", "e")]
    # within the window, what follows decides: junk there makes the quote content
    text = "[f(y='a' " + " " * 200 + "x')]"
    items = testing.check_chunkings(lambda: tool_parser("pythonic"), text)
    assert call_results(items) == [("f", {"y": "a' " + " " * 200 + "x"}, False)]


@given(data=st.data())
def test_the_minimised_past_the_window_input_in_random_chunkings(data: st.DataObject) -> None:
    # the same input at random cuts too, through the whole contract check
    assert items_of("pythonic", _PAST_THE_WINDOW, data) == [
        ("call", Call(0, "call_0", "f", '{"y":""}', True)),
        ("text", "e"),
    ]


# (found by the campaign, step3: blanks after a call that a chunk ended on were held as the
# block's raw markup, and a wrapper between calls after them (``<｜tool_call_end｜>``) left
# them there, so junk later in the block was released with a blank the whole text dropped)

_STEP3_CALL = '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="g">'
_STEP3_MINIMISED = (
    "<｜tool_calls_begin｜>" + _STEP3_CALL + '<steptml:parameter name=""></steptml:invoke>'
    " <｜tool_call_end｜>｜"
)


@pytest.mark.parametrize("blanks", [" ", "\n", " \t\n "])
@pytest.mark.parametrize(
    ("after", "text_after"),
    [
        ("x", "x"),  # junk in the block: text, without the blanks before the wrapper
        (" x", " x"),  # blanks before junk are text again, with it
        ("<｜tool_calls_end｜>x", "x"),
        (_STEP3_CALL + "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>", ""),
    ],
)
def test_step3_blanks_before_a_wrapper_between_calls_are_markup(
    blanks: str, after: str, text_after: str
) -> None:
    text = (
        "<｜tool_calls_begin｜>" + _STEP3_CALL + "</steptml:invoke>"
        f"{blanks}<｜tool_call_end｜>{after}"
    )
    items = testing.check_chunkings(lambda: tool_parser("step3"), text)
    calls = 2 if _STEP3_CALL in after else 1
    assert call_results(items) == [("g", {}, False)] * calls
    assert summary(items)[0] == text_after


def test_step3_the_minimised_input() -> None:
    items = testing.check_chunkings(lambda: tool_parser("step3"), _STEP3_MINIMISED)
    assert items == [("call", Call(0, "call_0", "g", '{"":""}', False)), ("text", "｜")]


@pytest.mark.parametrize("fmt", ["gemma4", "functiongemma"])
def test_no_gemma_key_is_longer_than_a_held_one(fmt: str) -> None:
    """Gemma 4's keys, bare and quoted (blanks before the ':'), around the fast read's bound
    (511) and the length a key is held for (1024): one result in every chunking, and a key
    is one only if it is at most 1024 characters as written before its ':' (a quoted one:
    from after its opening quote, with its closing quote and blanks)."""
    quote = parser_class(fmt).QUOTE
    for length in (500, 511, 512, 1000, 1020, 1022, 1023, 1024, 1025, 1100):
        for quoted, blanks in ((False, 0), (True, 0), (True, 3)):
            key = "k" * length
            written = f"{key}{quote}{' ' * blanks}" if quoted else key
            text = parser_class(fmt).render([("f", {"kk": 1, "b": 2})])
            text = text.replace("kk:", f"{quote if quoted else ''}{written}:")
            items = testing.check_chunkings(lambda: tool_parser(fmt), text)
            calls = [value for _, value in items if isinstance(value, Call)]
            assert len(calls) == 1
            keyed = len(written) <= 1024
            assert (key in calls[0].arguments) is keyed, (length, quoted, blanks)
            if keyed:
                assert json.loads(calls[0].arguments) == {key: 1, "b": 2}


@pytest.mark.parametrize("reference", [False, True])
def test_no_typed_json_key_is_longer_than_a_held_one(reference: bool) -> None:
    """K2 Horizon's JSON dialect reads its arguments member by member (``engines.json_members``):
    a key cut by the end of a chunk is held while its text before the ':' (quotes and
    blanks included) is at most ``MAX_KEY`` (512) characters. Found by the campaign
    (tool:k2_horizon): a longer key was a key whole and an error a character at a time.
    Now it is an error however it arrives, in the fast read and the reference read alike;
    the call ends incomplete there."""
    bound = 512
    make = parser_class("k2_horizon").render_json
    for length in (500, 508, 509, 510, 511, 512, 520):
        for blanks in (0, 1, 3):
            for lead in ({}, {"a": 1}):
                key = "k" * length
                text = make([("f", {**lead, "kk": 1, "b": 2})])
                text = text.replace('"kk":', f'"{key}"{" " * blanks}:')
                with fast.reference() if reference else contextlib.nullcontext():
                    items = testing.check_chunkings(lambda: tool_parser("k2_horizon"), text)
                calls = [value for _, value in items if isinstance(value, Call)]
                assert len(calls) == 1
                keyed = length + 2 + blanks <= bound
                assert (key in calls[0].arguments) is keyed, (length, blanks, lead)
                assert calls[0].incomplete is not keyed
                expected = {**lead, key: 1, "b": 2} if keyed else lead
                assert json.loads(calls[0].arguments) == expected


def test_generic_json_blanks_before_a_key_are_markup_however_long() -> None:
    """llama.cpp's generic envelope: blanks before a key are read as they come (they were
    held with the key, to a bound, and broke the envelope one character at a time); a key,
    its blanks and ':' are held to a bound, past which the envelope is text. Every
    chunking."""
    for blanks in (200, 250, 251, 254, 255, 264, 300, 2000):
        pad = " " * blanks
        text = "{" + pad + '"tool_calls": [{"name": "f", "arguments": {"a": 1}}],' + pad
        text += '"response": "ok"}'
        items = testing.check_chunkings(lambda: tool_parser("generic_json"), text)
        assert [v.name for _, v in items if isinstance(v, Call)] == ["f"]
        assert ("text", "ok") in items
        text = '{"tool_calls"' + pad + ': [{"name": "f", "arguments": {}}]}'
        items = testing.check_chunkings(lambda: tool_parser("generic_json"), text)
        calls = [v for _, v in items if isinstance(v, Call)]
        assert len(calls) == (1 if len('"tool_calls"') + blanks + 1 < 264 else 0)


# (found by the campaign, generic_json: keys full of backslashes hung the cut-key regex, which
# read a run of them in exponentially many ways; minimised from the saved hangs, U+FFFD for
# their bad bytes)
GENERIC_JSON_HANGS = [
    '{ "t'
    + "\\" * 24
    + 'ool_call"'
    + "\x00" * 7
    + 'G : "a'
    + "\x00" * 7
    + '\x0erguments" '
    + "\\" * 4
    + '"arg',
    '{"tool_c`\ufffd' + "\x00" * 59 + "\\" * 31 + '\ufffd)\x00\x00G\\"("\x00\x00\x00\x00,\' "c',
    '{"tool_calls' + "\\" * 19 + '": [{"n' + "\x00" * 61 + "oops",
    '{"key' + "\\" * 60 + "x",
]


@pytest.mark.parametrize("text", GENERIC_JSON_HANGS)
@given(data=st.data())
def test_generic_json_a_key_of_backslashes_is_read_once(text: str, data: st.DataObject) -> None:
    check_contract("generic_json", text, data)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"response":"', []),  # the answer, empty so far: its envelope is markup
        ('{"response":" \\"', [("text", ' "')]),  # decoded, a cut escape and all
        ('{"response": "a\\nb"}', [("text", "a\nb")]),
    ],
)
def test_generic_json_the_response_is_given_decoded(text: str, expected: list[object]) -> None:
    """The envelope's answer is a JSON string given out decoded (``DECODES``): exempt from
    the verbatim checks, and the same in every chunking."""
    assert testing.check_contract(lambda: tool_parser("generic_json"), text) == expected


@pytest.mark.parametrize("fmt", [n for n in streamcall.formats() if renders(n)])
def test_a_run_of_blanks_in_markup_is_one_result_in_every_chunking(fmt: str) -> None:
    """Every format, 300 blanks or newlines at each markup position of two rendered calls
    (past the 256 a header is held for): one result whole, 1-char and 7-char. (The time
    such runs take is ``python -m benchmarks adversarial``'s: header patterns that
    backtracked made 3,000 blanks in a MiniMax-M2 header take 21 s a character at a time.)"""
    base = parser_class(fmt).render([("get_x", {"a": 1, "s": "v w"}), ("g", {})])
    for i in range(1, len(base)):
        if not base[i - 1].isalnum():
            for fill in (" ", "\n"):
                text = base[:i] + fill * 300 + base[i:]
                testing.check_chunkings(lambda: tool_parser(fmt), text)


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_json", "xlam", "llama3_json"])
def test_a_held_key_waits_for_its_quote(fmt: str) -> None:
    """A call object's key or name string not yet closed waits unread in the feed loop
    (rule 4) until a chunk brings a quote or the bound is passed: a long one is not read
    again per chunk (it was: 16,000 blanks in a Hermes key took 200 ms in 7-character
    chunks). The result is the whole text's, whether the string closes, breaks at a bad
    escape with no quote in its chunk, or runs past ``MAX_HEAD``."""
    cls = parser_class(fmt)
    base = cls.render([("get_x", {"a": 1})])
    at = base.index('"name"') + 1
    for inner in (" " * 300, " " * 300 + "\\q" + " " * 50, " " * (cls.MAX_HEAD + 10)):  # type: ignore[attr-defined]
        text = base[:at] + inner + base[at:]
        parser = cls()
        count = count_steps(parser)
        pieces = testing.chunk_every(text, 7)
        events = [e for piece in pieces for e in parser.feed(piece)] + parser.finish()
        assert count[0] < len(inner) // 7 // 2, count  # most chunks ran no step
        assert testing.coalesce(events) == testing.check_chunkings(lambda: tool_parser(fmt), text)


@given(data=st.data())
def test_minimax_m3_a_tag_longer_than_a_held_one_is_value_text(data: st.DataObject) -> None:
    """MiniMax-M3's held values hold child elements: a tag longer than a held one is text of
    the value, in every chunking."""
    text = parser_class("minimax_m3").render([("f", {"a": {"b": 1}})])
    tools = [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"properties": {"a": {"type": "object"}}}},
        }
    ]
    cut = text.index("{")
    long = "]<]minimax[>[<" + "t" * 600 + ">"
    check_contract("minimax_m3", text[:cut] + long + text[cut:], data, tools)


# -- 8. repeated call ids ---------------------------------------------------------------------------


def test_repeated_ids_get_the_next_suffix() -> None:
    unique = UniqueIds()
    got = [unique("functions.get_weather:0") for _ in range(5)]
    assert got == [
        "functions.get_weather:0",
        *(f"functions.get_weather:0~{k}" for k in (2, 3, 4, 5)),
    ]
    assert unique("functions.get_weather:0~2") == "functions.get_weather:0~2~2"
    assert unique("call_0") == "call_0"


@given(data=st.data())
def test_kimi_repeating_one_id_for_every_call(data: st.DataObject) -> None:
    call = (
        "<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
    )
    text = "<|tool_calls_section_begin|>" + call * 40 + "<|tool_calls_section_end|>"
    items = items_of("kimi_k2", text, data)
    ids = [v.id for k, v in items if isinstance(v, Call)]
    assert ids == [
        "functions.get_weather:0",
        *(f"functions.get_weather:0~{k}" for k in range(2, 41)),
    ]


# -- the campaign: partial JSON ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # found by `python -m fuzz partial` (minimised): a comma right after an opener is
        # junk, so the key string after it is not read; the one-shot path read it
        '[{,"rt_`okens_^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
        '{,"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz',
        '[,"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz',
        '{"a": 1, "b": [,"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz',
        '{"a":,"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklm',
    ],
)
def test_a_comma_where_a_value_should_be_ends_the_document(text: str) -> None:
    scanner = PartialJSON()
    scanner.feed(text)
    assert parse_partial_json(text) == json.loads(repair_json(text)) == scanner.value
