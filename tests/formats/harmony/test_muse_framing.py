"""``framing.muse``: where a body ends, what is held back, and the channel tables.

The reads are positions in the text, never chunk sizes: each is checked against the
grammar directly, and the parsers built on them in every two-piece split of a text that
holds every frame, bare headers and their look-alikes.
"""

from __future__ import annotations

import pytest

from streamcall import reasoning_parser, testing
from streamcall.formats.registry import tool_parser
from streamcall.framing.harmony import HeaderReader
from streamcall.framing.muse import (
    CHANNELS,
    DROPPED,
    EOM,
    EOT,
    GLIMMER,
    MAX_BLANKS,
    MAX_RECIPIENT,
    MESSAGE,
    REASONING,
    SPARK,
    START,
    TEXT,
    TOOL,
    bare_header,
    body_end,
    header_reader,
    held_from,
)
from streamcall.output import output_parser


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("plain", ""),
        ("that", "t"),
        ("go to", " to"),
        ("go to=", " to="),
        ("go to=get_weather.get", " to=get_weather.get"),
        ("go to=a b", ""),  # a blank ends the name: no header can follow
        ("go to=a<b", ""),
        ("x  \t", "  \t"),
        ("x" + " " * 20, " " * MAX_BLANKS),
        ("x" + " " * 20 + "to=f", " " * MAX_BLANKS + "to=f"),
        ("to=a to=b", " to=b"),  # the last to= counts
        ("to=ato=b", "to=b"),
        ("x to=" + "n" * MAX_RECIPIENT, " to=" + "n" * MAX_RECIPIENT),
        ("x to=" + "n" * (MAX_RECIPIENT + 1), ""),
    ],
)
def test_held_from(text: str, held: str) -> None:
    assert text[held_from(text, 0, len(text)) :] == held
    # never before where the body starts
    assert held_from(text, len(text), len(text)) == len(text)


@pytest.mark.parametrize(
    ("before", "header", "recipient"),
    [
        ("body", "", ""),
        ("body ", " ", ""),
        ("body to=f", " to=f", "f"),
        ("bodyto=f", "to=f", "f"),  # no blank needed: <|message|> decides
        ("body to=", "", ""),  # no name: no recipient, 'to=' is the body's
        ("body to=a b", "", ""),
        ("x" + " " * 20 + "to=f", " " * MAX_BLANKS + "to=f", "f"),
        ("x to=" + "n" * (MAX_RECIPIENT + 1), "", ""),
    ],
)
def test_bare_header(before: str, header: str, recipient: str) -> None:
    text = before + MESSAGE + "rest"
    start, got = bare_header(text, 0, len(before))
    assert (text[start : len(before)], got) == (header, recipient)
    assert body_end(text, 0, False) == (start, len(before) + len(MESSAGE), MESSAGE, recipient)


def test_body_end_at_each_frame() -> None:
    assert body_end("ab" + EOM + "c", 0, False) == (2, 2 + len(EOM), EOM, "")
    assert body_end("ab" + EOT, 0, True) == (2, 2 + len(EOT), EOT, "")
    assert body_end("ab" + START + "x", 0, False) == (2, 2 + len(START), START, "")
    assert body_end("ab <|mes", 0, False) == (2, 2, None, "")  # a cut token, and the blank
    assert body_end("ab <|mes", 0, True) == (8, 8, None, "")  # nothing held at the end
    assert body_end("plain word", 3, False) == (10, 10, None, "")


def test_the_channel_tables() -> None:
    assert [SPARK.kind(r) for r in ("", "self", "user", "commentary", "developer", "f")] == [
        REASONING, REASONING, TEXT, TEXT, DROPPED, TOOL
    ]  # fmt: skip
    assert [GLIMMER.kind(r) for r in ("", "self", "user", "commentary", "developer", "f")] == [
        TEXT, REASONING, TEXT, TOOL, TOOL, TOOL
    ]  # fmt: skip
    assert CHANNELS == {
        "muse": SPARK,
        "musespark": SPARK,
        "musespark1x": SPARK,
        "muse_glimmer": GLIMMER,
    }


def test_harmonys_header_reader_is_unchanged_without_breaks() -> None:
    text = "<|start|>assistant<|eot|> to=f<|message|>"
    end, header = HeaderReader().read(text, 0, True)
    assert header is not None and header.recipient == "f" and end == len(text)
    end, header = header_reader().read(text, 0, True)  # Muse's: a terminator breaks it
    assert header is None and text[:end] == "<|start|>assistant"
    end, header = header_reader().read("<|start|>assistant<|eot|>", 0, False)
    assert header is None and end == len("<|start|>assistant")


# -- every split ---------------------------------------------------------------------------

TEXT_ALL = (
    "pre to=x t <|eot|> to=self<|message|>a to=b to <|start|>x<|eom|>"
    "<|start|>assistant to=user<|message|>hi  to<|eot|>   to=f<|message|>"
    '<atem:function_calls><atem:invoke name="f"><atem:parameter name="k">v to=w'
    "</atem:parameter></atem:invoke></atem:function_calls><|start|>assistant"
    " to=developer<|message|>note<|eom|><|message|>bare<|eom|>to=g<|message|>"
    '<atem:invoke name="g"><atem:parameter name="n">4'
)


@pytest.mark.parametrize("fmt", ["muse", "muse_glimmer"])
@pytest.mark.parametrize("stage", ["tool", "reasoning", "pair"])
def test_every_two_piece_split(fmt: str, stage: str) -> None:
    def make() -> object:
        if stage == "tool":
            return tool_parser(fmt)
        if stage == "reasoning":
            return reasoning_parser(fmt)
        return output_parser(tool_format=fmt, reasoning_format=fmt)

    whole = testing.coalesce(testing.run(make(), [TEXT_ALL]))  # type: ignore[arg-type]
    for cut in range(1, len(TEXT_ALL)):
        pieces = [TEXT_ALL[:cut], TEXT_ALL[cut:]]
        got = testing.coalesce(testing.run(make(), pieces))  # type: ignore[arg-type]
        assert got == whole, (fmt, stage, cut)
    if stage != "reasoning":
        alone = testing.coalesce(testing.run(tool_parser(fmt), [TEXT_ALL]))
        assert whole == alone


@pytest.mark.parametrize("fmt", ["muse", "muse_glimmer"])
def test_what_is_held_stays_bounded(fmt: str) -> None:
    """Fed one character at a time, the tail never outgrows the longest undecided thing
    (a framed header, the XML engine's short parameter)."""
    text = TEXT_ALL + " to=" + "n" * 1000 + " " * 100 + "x" * 2000
    for make in (lambda: tool_parser(fmt), lambda: reasoning_parser(fmt)):
        p = make()
        longest = 0
        for ch in text:
            p.feed(ch)
            longest = max(longest, len(p._tail))
        assert longest <= 520, longest
