"""DeepSeek V3 and V3.1: special-token headers, then a JSON object of arguments.

Grammar (vLLM ``deepseek_v3``, DeepSeek-V3-0324 and R1-0528)::

    text* '<｜tool▁calls▁begin｜>'
        ( '<｜tool▁call▁begin｜>' 'function' '<｜tool▁sep｜>' NAME '\\n'
          '```json' '\\n' object '\\n' '```' '<｜tool▁call▁end｜>' )+
    '<｜tool▁calls▁end｜>' text*

and (vLLM ``deepseek_v31``, DeepSeek-V3.1)::

    text* '<｜tool▁calls▁begin｜>'
        ( '<｜tool▁call▁begin｜>' NAME '<｜tool▁sep｜>' object '<｜tool▁call▁end｜>' )+
    '<｜tool▁calls▁end｜>' text*

Both are configurations of the header + JSON engine (``engines.header_json``): the arguments are
streamed verbatim from their ``{``. A section start must be followed by a call start (a
``calls_begin`` with bare ``NAME<｜tool▁sep｜>{...}`` in it is text, as in vLLM's
suite); a ``call_begin`` without the section start still opens one, since the outer
marker is sometimes lost. In V3 the fence is optional (a ``{`` ends the header too).
What is held back: a partial special token, and the header (at most 512 characters)
until its end is seen. A call cut by a special token ends ``incomplete``.
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats.engines.header_json import HeaderJsonParser

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"


class DeepSeekV3Parser(HeaderJsonParser):
    names = ("deepseek_v3",)
    family = "DeepSeek-V3-0324, DeepSeek-R1-0528"
    vllm_differences = (
        "Works on text alone (vLLM needs the marker token ids); streams the arguments from "
        "their first '{' instead of counting markers in the whole text each delta; keeps "
        "text after the section; a call cut off by a marker or the end of the stream is "
        "reported incomplete with its arguments closed."
    )
    SECTION_START = (CALLS_BEGIN,)
    SECTION_END = CALLS_END
    CALL_START = CALL_BEGIN
    CALL_OPENS_SECTION = True
    HEADER_END = ("```json",)
    HEADER_BRACE = True
    ARGS_SUFFIX = "```"
    CALL_END = CALL_END

    def _header(self, text: str) -> tuple[str, str | None] | None:
        _kind, sep, name = text.partition(SEP)
        if not sep:
            return None
        return super()._header(name)

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = "".join(
            f"{CALL_BEGIN}function{SEP}{n}\n```json\n{json.dumps(a, ensure_ascii=False)}\n```{CALL_END}"
            for n, a in calls
        )
        return f"{CALLS_BEGIN}{body}{CALLS_END}"


class DeepSeekV31Parser(HeaderJsonParser):
    names = ("deepseek_v31",)
    family = "DeepSeek-V3.1"
    vllm_differences = DeepSeekV3Parser.vllm_differences
    SECTION_START = (CALLS_BEGIN,)
    SECTION_END = CALLS_END
    CALL_START = CALL_BEGIN
    CALL_OPENS_SECTION = True
    HEADER_END = (SEP,)
    CALL_END = CALL_END

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = "".join(
            f"{CALL_BEGIN}{n}{SEP}{json.dumps(a, ensure_ascii=False)}{CALL_END}" for n, a in calls
        )
        return f"{CALLS_BEGIN}{body}{CALLS_END}"


FORMATS = (DeepSeekV3Parser, DeepSeekV31Parser)
