"""deepseek_v32 and deepseek_v4 against SGLang's DSML streaming-content suite.

Cases are taken from SGLang's ``test/registered/unit/function_call/test_deepseek_detectors.py``
(Apache-2.0, copyright the SGLang project): the model outputs, the chunkings it feeds
(every split around the block opener) and the expected calls and content; the code is
ours. Every text goes through ``check_format`` (whole, 1-char, 7-char and random
chunkings), and SGLang's splits are replayed as given and compared with the one-shot
result.

SGLang's invokes here may carry a JSON object as their body
(``<｜DSML｜invoke name="navigate">{"destination": ...}</｜DSML｜invoke>``) instead of
``<｜DSML｜parameter>`` elements; that object is the call's arguments, streamed verbatim, as
SGLang reads it (more cases in ``test_dsml_json_args.py``).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcall import testing
from streamcall.formats.registry import tool_parser
from support import check_format, summary

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "navigate",
            "parameters": {
                "type": "object",
                "properties": {"destination": {"type": "string"}},
                "required": ["destination"],
            },
        },
    }
]
CONTENT = "I'll navigate there now."
SECTIONS = [("deepseek_v32", "function_calls"), ("deepseek_v4", "tool_calls")]


def json_body(section: str, *destinations: str) -> str:
    invokes = "".join(
        f'<｜DSML｜invoke name="navigate">{{"destination":"{d}"}}</｜DSML｜invoke>'
        for d in destinations
    )
    return f"{CONTENT}<｜DSML｜{section}>{invokes}</｜DSML｜{section}>"


def param_body(section: str, *destinations: str) -> str:
    """The same calls written with parameter elements, the form the engine reads."""
    invokes = "".join(
        '<｜DSML｜invoke name="navigate">'
        f'<｜DSML｜parameter name="destination" string="true">{d}</｜DSML｜parameter>'
        "</｜DSML｜invoke>"
        for d in destinations
    )
    return f"{CONTENT}<｜DSML｜{section}>{invokes}</｜DSML｜{section}>"


@pytest.mark.parametrize(("fmt", "section"), SECTIONS)
@pytest.mark.parametrize("destinations", [("library",), ("library", "museum")])
@given(data=st.data())
def test_sglang_content_and_calls_in_one_increment(
    fmt: str, section: str, destinations: tuple[str, ...], data: st.DataObject
) -> None:
    text = param_body(section, *destinations)
    assert summary(check_format(fmt, text, data, TOOLS)) == (
        CONTENT,
        [("navigate", {"destination": d}) for d in destinations],
    )


@pytest.mark.parametrize(("fmt", "section"), SECTIONS)
def test_sglang_content_is_invariant_across_opener_splits(fmt: str, section: str) -> None:
    text = param_body(section, "library")
    opener = f"<｜DSML｜{section}>"
    at = text.index(opener)
    one_shot = check_format(fmt, text, None, TOOLS)
    assert summary(one_shot) == (CONTENT, [("navigate", {"destination": "library"})])
    for split in range(at - 1, at + len(opener) + 2):
        pieces = [text[:split], text[split:]]
        got = testing.coalesce(testing.run(tool_parser(fmt, tools=TOOLS), pieces))
        assert got == one_shot, split


@pytest.mark.parametrize(("fmt", "section"), SECTIONS)
@given(data=st.data())
def test_sglang_json_body_keeps_the_contract(fmt: str, section: str, data: st.DataObject) -> None:
    check_format(fmt, json_body(section, "library", "museum"), data, TOOLS)


@pytest.mark.parametrize(("fmt", "section"), SECTIONS)
def test_sglang_json_body_in_invoke(fmt: str, section: str) -> None:
    assert summary(check_format(fmt, json_body(section, "library"), None, TOOLS)) == (
        CONTENT,
        [("navigate", {"destination": "library"})],
    )
