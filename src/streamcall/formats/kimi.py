"""Kimi K2: special-token sections; the model writes the call id itself.

Grammar (vLLM ``kimi_k2``, moonshotai Kimi-K2)::

    text* '<|tool_calls_section_begin|>'
        ( '<|tool_call_begin|>' ID ws* '<|tool_call_argument_begin|>' object ws*
          '<|tool_call_end|>' )+
    '<|tool_calls_section_end|>' text*
    ID := ('functions.')? NAME ':' DIGITS          # e.g. functions.get_weather:0

``ID`` is used as the call id as it is (``ToolCallStart.id``), made unique if the model
repeats one. Only a leading ``functions.`` and the ``:index`` suffix are markup: the name
is everything between them, dots included (``functions.calendar.events.create:0`` names
``calendar.events.create``; vLLM keeps only the last segment). A bare
counter (``0``) names the only tool when exactly one is given; otherwise the header is
malformed and the call is text. The singular ``<|tool_call_section_begin|>`` spelling is
accepted too. A configuration of the header + JSON engine: arguments are streamed
verbatim; a partial special token and the header (at most 512 characters) are held back;
arguments cut by a special token end ``incomplete`` (vLLM's suite keeps such calls).
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamcall.formats.engines.header_json import HeaderJsonParser

SECTION_BEGIN = "<|tool_calls_section_begin|>"
SECTION_END = "<|tool_calls_section_end|>"
CALL_BEGIN = "<|tool_call_begin|>"
ARG_BEGIN = "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"

_ID = re.compile(r"(?:functions\.)?([\w\-]+(?:\.[\w\-]+)*):\d+")
_COUNTER = re.compile(r"\d+")


class KimiK2Parser(HeaderJsonParser):
    names = ("kimi_k2",)
    family = "moonshotai Kimi-K2"
    vllm_differences = (
        "Streams arguments without re-scanning the text each delta; a dotted name keeps "
        "its dots (functions.calendar.events.create:0 names calendar.events.create; vLLM "
        "keeps the last segment); a header with an id "
        "that is not NAME:IDX is left as text instead of being dropped; with several tools "
        "a bare counter id is not resolved by guessing from argument keys (that needs the "
        "whole arguments before the name), the call is text; text after the section is "
        "kept as content (vLLM's one-shot path returns only the text before it)."
    )
    SECTION_START = (SECTION_BEGIN, "<|tool_call_section_begin|>")
    SECTION_END = SECTION_END
    CALL_START = CALL_BEGIN
    CALL_OPENS_SECTION = True
    HEADER_END = (ARG_BEGIN,)
    CALL_END = CALL_END

    def _header(self, text: str) -> tuple[str, str | None] | None:
        call_id = text.strip()
        m = _ID.fullmatch(call_id)
        if m is not None:
            return m.group(1), call_id
        if _COUNTER.fullmatch(call_id) and len(self.tools) == 1:
            fn = self.tools[0].get("function", self.tools[0])
            name = fn.get("name") if isinstance(fn, dict) else None
            if isinstance(name, str) and name:
                return name, call_id
        return None

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]], start: int = 0) -> str:
        """``start``: the first call's number (the chat template counts calls across the
        whole conversation)."""
        body = "".join(
            f"{CALL_BEGIN}functions.{n}:{i}{ARG_BEGIN}{json.dumps(a, ensure_ascii=False)}{CALL_END}"
            for i, (n, a) in enumerate(calls, start)
        )
        return f"{SECTION_BEGIN}{body}{SECTION_END}"


FORMATS = (KimiK2Parser,)
