"""Upstage Solar Open 2: ``<|tool_call:start|>NAME`` then tagged arguments.

Grammar (vLLM ``solar_open2``: ``vllm/tool_parsers/solar_open2_tool_parser.py``;
``upstage/Solar-Open2-250B``)::

    text* ( '<|tool_call:start|>' NAME '\\n' ws* arg* '<|tool_call:end|>' text* )*
    arg := '<|tool_arg:start|>' KEY '<|tool_arg:value|>' value '<|tool_arg:end|>' ws*

A configuration of the XML-parameter engine (``engines.xml_params``). The name is the rest
of the opener's line; a value is the raw text up to ``<|tool_arg:end|>`` (or, where the
model dropped that closer, the next ``<|tool_arg:start|>`` or ``<|tool_call:end|>``),
kept as written (no newline is framing here), and typed by the tool schema; an untyped
value follows the engine's first-character rule. A string value streams as it is
written.

Held back: a partial ``<|tool_call:start|>`` at the end of text, the name until its
newline (at most ``MAX_HEADER`` characters), a key until ``<|tool_arg:value|>``, a partial
marker at the end of a value, and what the engine holds inside a call. Reasoning
(``<|think:start|>``…``<|think:end|>``, the start pre-filled by the template) is the
``solar_open2`` reasoning format's (``reasoning/specs.py``).

Solar Open 1's wire (``<|tool_calls|><|tool_call:begin|>ID<|tool_call:name|>...``) is
``solar_open``'s (``formats/solar_open.py``), another syntax.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from streamcall.formats.engines.xml_params import XmlParamsParser

CALL_START = "<|tool_call:start|>"
CALL_END = "<|tool_call:end|>"
ARG_START = "<|tool_arg:start|>"
ARG_VALUE = "<|tool_arg:value|>"
ARG_END = "<|tool_arg:end|>"


class SolarOpen2Parser(XmlParamsParser):
    names: ClassVar[tuple[str, ...]] = ("solar_open2",)
    family = "Upstage Solar Open 2 (tool_call:start and tool_arg tags)"
    vllm_differences = (
        "Streams every string value while it is written (vLLM streams only values the "
        "schema types as strings); untyped values follow the documented first-character "
        "rule instead of always being strings; text after and between the calls is kept "
        "as content, and a blank prefix before the first call stays text (vLLM drops "
        "both); a call whose <|tool_call:end|> is missing ends incomplete where the next "
        "<|tool_call:start|> begins (vLLM reports it complete); an empty name is not a "
        "call (vLLM emits a call named ''); a call cut by the end of the stream is "
        "reported incomplete (vLLM returns the raw text); a repeated key is written again, so "
        "a JSON reader keeps its last value (vLLM keeps the first)."
    )
    CALL_OPEN = (CALL_START,)
    # the name: the rest of the opener's line, its blanks left out (never another marker)
    CALL_HEADER = re.compile(r"[^\S\n]*+(?P<name>[^<\n]*?)[^\S\n]*+\n")
    NO_HEADER = re.compile(r"[^\S\n]*+(?:\n|<\|)")
    CALL_CLOSE = CALL_END
    PARAM_OPEN = (ARG_START,)
    # A key is the text before <|tool_arg:value|>; a key that runs into another marker
    # is no key (vLLM skips that argument).
    PARAM_HEADER = re.compile(r"(?P<key>[^<]*+)<\|tool_arg:value\|>")
    PARAM_CLOSE = ARG_END
    STRIP_NEWLINES = False

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f"{CALL_START}{name}\n"
            + "".join(
                f"{ARG_START}{k}{ARG_VALUE}{cls.raw_value(v)}{ARG_END}\n" for k, v in args.items()
            )
            + CALL_END
            for name, args in calls
        )


FORMATS = (SolarOpen2Parser,)
