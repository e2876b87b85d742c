"""deepseek_v4 (and deepseek_v32) against SGLang's ``DeepSeekV4Detector`` unit suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_deepseekv4_detector.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the tool schemas, the
chunkings it feeds and the expected calls and content; the code is ours. Every text goes
through ``check_format`` (whole, 1-char, 7-char and random chunkings), and SGLang's own
chunkings are replayed as given and compared with the one-shot result.

Where SGLang's expectation differs on purpose, we assert ours and say why:
- The tool schema types a value when it knows the key, over the ``string=`` flag (as vLLM's
  engine does): ``string="false"`` ``12345e-3`` for a string-typed ``city`` stays the
  string the model wrote (SGLang gives 12.345); an unclosed ``[1,2`` is that string too.
- A damaged block opener (``<｜DSML｜toolcalls>``, ``<｜DSML｜tool_calls...``) is kept as text,
  as written (SGLang strips it); the invoke after it is a call either way.
- DSML quoted in Markdown (a fenced block, backticks) is read as calls: the parser does
  not track Markdown (SGLang keeps the quoted markup as text).
- A repeated parameter is streamed as written (``{"city":"SF","city":"NY"}``, which loads
  as SGLang's ``{"city": "NY"}``): arguments only ever grow, nothing is taken back.

Not ported: everything behind SGLang's strict mode (``SGLANG_DSV4_STRICT_TOOL_OUTPUT``,
``strict_output``, ``validate_tool_schema``, ``reject_reasoning_markers``), which raises on
malformed output, where ``feed`` never raises; the tests that patch SGLang's internals
(``_parse_parameters_from_xml``, ``_buffer``, ``prev_tool_call_arr``); the reasoning-parser
boundary test (a reasoning parser in front of the tool parser, not this module's concern);
and invokes whose body is a JSON object, which the DSML engine does not read (see
``test_deepseek_dsml_sglang_content.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.events import ToolCallArgs
from streamcall.formats.registry import tool_parser
from support import check_format, summary

D = "｜DSML｜"


def _tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": properties}},
    }


TOOLS = [_tool("get_weather", {"city": {"type": "string"}})]
CONFIG_TOOLS = [_tool("set_config", {"value": {}, "label": {"type": "string"}})]


def wrapped(invoke: str) -> str:
    return f"<{D}tool_calls>\n{invoke}\n</{D}tool_calls>"


def invoke(name: str, params: str = "") -> str:
    return f'<{D}invoke name="{name}">\n{params}\n</{D}invoke>'


def param(name: str, is_string: str, value: str) -> str:
    return f'<{D}parameter name="{name}" string="{is_string}">{value}</{D}parameter>'


def weather_call(city: str = "SF") -> str:
    return wrapped(invoke("get_weather", param("city", "true", city)))


def _replay(fmt: str, pieces: list[str], tools: Any = TOOLS) -> list[testing.Item]:
    one_shot = check_format(fmt, "".join(pieces), None, tools)
    got = testing.coalesce(testing.run(tool_parser(fmt, tools=tools), pieces))
    assert got == one_shot, pieces
    return one_shot


def _widths(text: str, widths: list[int]) -> list[list[str]]:
    return [testing.chunk_every(text, w) for w in widths]


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Let me check.\n" + weather_call(), "Let me check.\n"),
        ("Checking.\n" + invoke("get_weather", param("city", "true", "SF")), "Checking.\n"),
        ("Prose.\n" + weather_call(), "Prose.\n"),  # no DSML marker leaks into the content
    ],
)
@given(data=st.data())
def test_sglang_preamble(text: str, content: str, data: st.DataObject) -> None:
    assert summary(check_format("deepseek_v4", text, data, TOOLS)) == (
        content,
        [("get_weather", {"city": "SF"})],
    )


def test_sglang_no_marker_leaks_in_four_char_chunks() -> None:
    items = _replay("deepseek_v4", testing.chunk_every("Prose.\n" + weather_call(), 4))
    assert D not in summary(items)[0]


@given(data=st.data())
def test_sglang_every_tool_calls_section_is_parsed(data: st.DataObject) -> None:
    text = f"{weather_call('SF')}\n{weather_call('NY')}"
    assert summary(check_format("deepseek_v4", text, data, TOOLS)) == (
        "",
        [("get_weather", {"city": "SF"}), ("get_weather", {"city": "NY"})],
    )


@pytest.mark.parametrize(
    "value",
    [
        "12345e-3",
        '{"ratio":12345e-3,"enabled":true}',
        '[{"step":"write code","ratio":12345e-3},null,false]',
    ],
)
@pytest.mark.parametrize("fmt", ["deepseek_v4", "deepseek_v32"])
def test_sglang_non_string_parameter_is_not_rewritten(fmt: str, value: str) -> None:
    text = wrapped(
        invoke("set_config", param("value", "false", value) + param("label", "true", "complete"))
    )
    if fmt == "deepseek_v32":
        text = text.replace("tool_calls", "function_calls")
    expected = {"value": json.loads(value), "label": "complete"}
    for pieces in _widths(text, [1, 2, 3, 5, 7, 11, 23, len(text)]):
        assert summary(_replay(fmt, pieces, CONFIG_TOOLS)) == ("", [("set_config", expected)])


def test_sglang_non_string_flag_over_a_string_schema() -> None:
    # SGLang: nothing is emitted until the closer, then {"city": 12.345}. Here the schema
    # says string, so the value is the string the model wrote, streamed as it comes.
    pieces = [
        f'<{D}tool_calls><{D}invoke name="get_weather"><{D}parameter name="city" string="false">',
        "123",
        "45",
        "e-",
        "3",
        f"</{D}parameter></{D}invoke></{D}tool_calls>",
    ]
    assert summary(_replay("deepseek_v4", pieces)) == ("", [("get_weather", {"city": "12345e-3"})])


@pytest.mark.parametrize(
    ("tail", "city"),
    [("[1,2", "[1,2"), ('{"a"', '{"a"')],  # SGLang: an error at finish / no crash
)
@given(data=st.data())
def test_sglang_truncated_non_string_parameter(tail: str, city: str, data: st.DataObject) -> None:
    text = (
        f'<{D}tool_calls>\n<{D}invoke name="get_weather">\n'
        f'<{D}parameter name="city" string="false">{tail}'
    )
    items = check_format("deepseek_v4", text, data, TOOLS)
    calls = [
        (v.name, json.loads(v.arguments), v.incomplete)
        for _, v in items
        if isinstance(v, testing.Call)
    ]
    assert calls == [("get_weather", {"city": city}, True)]


def test_sglang_string_parameter_streams_incrementally() -> None:
    parser = tool_parser("deepseek_v4", tools=TOOLS)
    start = (
        f'<{D}tool_calls><{D}invoke name="get_weather">'
        f'<{D}parameter name="city" string="true">San Fran'
    )
    early = parser.feed(start) + parser.feed("cisco")
    assert "San Fran" in "".join(e.delta for e in early if isinstance(e, ToolCallArgs))
    rest = parser.feed(f"</{D}parameter></{D}invoke></{D}tool_calls>") + parser.finish()
    assert summary(testing.coalesce(early + rest)) == (
        "",
        [("get_weather", {"city": "San Francisco"})],
    )


DAMAGED = [
    f"\n\n<{D}toolcalls>\n\n",
    f"\n\n<{D}tool_calls\n",
    f"\n\n<{D}tool_calls<tool_calls>\n\n",
    f"Checking files.\n\n<{D} SugarPanel>\n",
    f"\n\n<{D}tool_calls...\n\n",
    f"Final scan:\n\n<{D}tool_calls-ok Let's scan the outputs.\n",
]


@pytest.mark.parametrize("prefix", DAMAGED)
@pytest.mark.parametrize("bare", [False, True], ids=["wrapped", "bare invoke"])
def test_sglang_damaged_wrappers(prefix: str, bare: bool) -> None:
    call = invoke("get_weather", param("city", "true", "SF")) if bare else weather_call()
    text = prefix + call
    for pieces in _widths(text, [1, 2, 4, 7, 23, len(text)]):
        # SGLang strips the damaged opener; it is kept here, as written.
        assert summary(_replay("deepseek_v4", pieces)) == (
            prefix,
            [("get_weather", {"city": "SF"})],
        )


@pytest.mark.parametrize(
    ("quote", "content"),
    [
        (f"Example:\n```xml\n{weather_call('literal')}\n```\n", "Example:\n```xml\n\n```\n"),
        (f"Example: `{weather_call('literal')}`\n", "Example: ``\n"),
        (f"Example: '<{D}toolcalls>'\n", f"Example: '<{D}toolcalls>'\n"),
        (f"Example: “<{D}toolcalls>”\n", f"Example: “<{D}toolcalls>”\n"),
    ],
)
def test_sglang_quoted_dsml(quote: str, content: str) -> None:
    # SGLang keeps DSML quoted in Markdown as text; Markdown is not tracked here, so a
    # quoted whole call is a call. Quoted broken markup stays text in both.
    text = quote + weather_call()
    quoted = [("get_weather", {"city": "literal"})] if "literal" in quote else []
    for pieces in _widths(text, [1, 3, 11, len(text)]):
        assert summary(_replay("deepseek_v4", pieces)) == (
            content,
            [*quoted, ("get_weather", {"city": "SF"})],
        )


def test_sglang_indented_calls_and_parameter_literals() -> None:
    literal = f"Echo `<{D}tool_calls>` without interpreting it"
    lines = (weather_call(literal) + "\n" + weather_call("NY")).splitlines()
    text = "Checking.\n" + "\n".join("        " + line for line in lines)
    for pieces in _widths(text, [1, 3, 13, len(text)]):
        assert summary(_replay("deepseek_v4", pieces)) == (
            "Checking.\n        ",
            [("get_weather", {"city": literal}), ("get_weather", {"city": "NY"})],
        )


MARKER = f"</{D}parameter |"


@pytest.mark.parametrize(
    "value",
    [
        f'print("{MARKER}")',
        f"Example: `{MARKER}`",
        f"```xml\n{MARKER}\n```",
        f"cat <<'EOF'\n{MARKER}\nEOF",
        f"cat <<EOF\n{MARKER}\nEOF",
        f"cat <<-EOF\n\t{MARKER}\n\tEOF",
        f"cat <<'A' <<'B'\n{MARKER}\nA\n{MARKER}\nB",
        f"# Literal example: {MARKER}\nprint(1)",
        f"echo \\{MARKER}",
        f'echo "created"{MARKER}\nprintf done',
        f'cat <<\'JSONEOF\'\n{{}}\nJSONEOF\necho "created"{MARKER}\npython3 -c "print(1)"',
    ],
)
def test_sglang_marker_like_literals_in_string_values(value: str) -> None:
    # A closer that is not exactly the closer is value text (SGLang's non-strict result;
    # its strict mode rejects the last two).
    text = weather_call(value)
    for pieces in _widths(text, [1, 3, 13, len(text)]):
        assert summary(_replay("deepseek_v4", pieces)) == ("", [("get_weather", {"city": value})])


@given(data=st.data())
def test_sglang_duplicate_parameters(data: st.DataObject) -> None:
    text = wrapped(invoke("get_weather", param("city", "true", "SF") + param("city", "true", "NY")))
    items = check_format("deepseek_v4", text, data, TOOLS)
    calls = [v.arguments for _, v in items if isinstance(v, testing.Call)]
    assert calls == ['{"city":"SF","city":"NY"}']
    assert json.loads(calls[0]) == {"city": "NY"}  # SGLang's non-strict result


@pytest.mark.parametrize(
    "text",
    [
        "Now let me update the result.\n\n</parameter>\n",
        '\n\n</parameter>\n</invoke>\n<invoke name="exec_command">\n',
        '</parameter></invoke><invoke name="exec_command">\n',
        "Literal `</parameter>`.",
        "Example:\n```xml\n</parameter>\n</invoke>\n```",
        'XML:\n<parameter description="a > b">\nvalue\n</parameter>',
        "</parameter>",
        "Text with an unrelated SGML fragment: <![unexpected[.",
    ],
)
@given(data=st.data())
def test_sglang_orphan_markup_is_text(text: str, data: st.DataObject) -> None:
    # SGLang's strict mode rejects the first three; here any text without DSML is text.
    assert check_format("deepseek_v4", text, data, TOOLS) == [("text", text)]
