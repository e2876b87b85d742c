"""MeetKai Functionary v3.1 and v3.2: a header naming the function, then JSON arguments.

Functionary v3.1 (``meetkai/functionary-*-v3.1``, Llama 3.1 based; llama.cpp
``FUNCTIONARY_V3_1_LLAMA_3_1``)::

    text* ( '<function=' NAME '>' object '</function>' )* ( '<|python_tag|>' CODE )?

Functionary v3.2 (``meetkai/functionary-*-v3.2``; llama.cpp ``FUNCTIONARY_V3_2``): the
prompt ends with ``>>>``, so the output starts with a segment's header::

    output  := segment ('>>>' segment)*
    segment := 'all\\n' TEXT                 # visible text, up to the next '>>>'
             | 'python\\n' CODE              # raw code, when not a '{'
             | NAME '\\n' object ws*

Both are configurations of the header + JSON engine (``engines.header_json``). Arguments stream
verbatim. A call to ``python`` written as raw code (v3.1: everything after
``<|python_tag|>``; v3.2: a ``python`` segment that does not start with ``{``) is a call
to ``python`` with ``{"code": CODE}``, the rest of the output, streamed as it arrives
(the engine's ``RAW_CODE``). In v3.1 a call is complete at its ``</function>``; in v3.2,
which has no closer, at the end of its object. A v3.2 output that does not start with a
header (``all`` or a name, then a newline) is text up to the next ``>>>``: the header is
held until its newline, at most ``MAX_HEADER`` characters. The tags are plain text, not
special tokens, so a ``</function>`` or ``>>>`` inside a JSON string is string content
(no stop markers). Held back: a partial opener in text, the header until its end, a
growing token of the arguments.
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats.engines.header_json import HeaderJsonParser

_DIFFERENCES = (
    "Not a vLLM name (llama.cpp reads it). Streams the arguments as they are written "
    "(llama.cpp re-parses the whole output each delta with partial-JSON healing, #15713), "
    "and raw python code as it arrives."
)


class FunctionaryV31Parser(HeaderJsonParser):
    names = ("functionary_v3_1",)
    family = "MeetKai Functionary v3.1 (<function=NAME>{...}</function>)"
    vllm_differences = _DIFFERENCES + (
        " A call whose </function> has not come when the stream ends is incomplete "
        "(llama.cpp's partial parse reports it whole)."
    )
    CALL_START = "<function="
    CALL_OPENS_SECTION = True
    HEADER_END = (">",)
    CALL_END = "</function>"
    STOP = ()
    RAW_CODE = ("python", "code")
    RAW_START = ("<|python_tag|>",)
    MAX_HEADER = 256

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f"<function={n}>{json.dumps(a, ensure_ascii=False)}</function>" for n, a in calls
        )


class FunctionaryV32Parser(HeaderJsonParser):
    names = ("functionary_v3_2",)
    family = "MeetKai Functionary v3.2 (>>>NAME\\n{...})"
    vllm_differences = _DIFFERENCES + (
        " A later '>>>all' segment is text too (llama.cpp reads it as a call named 'all')."
    )
    FRAMES = ("all\n",)  # a text segment's header, dropped
    CALL_START = ">>>"
    CALL_OPENS_SECTION = True
    HEADER_AT_START = True
    HEADER_END = ("\n",)
    TEXT_HEADERS = ("all",)
    STOP = ()
    RAW_CODE = ("python", "code")
    # a function name is at most 64 characters (OpenAI's limit): text at the start is held
    # no longer than that while it may still be a header
    MAX_HEADER = 64

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(f">>>{n}\n{json.dumps(a, ensure_ascii=False)}" for n, a in calls)


FORMATS = (FunctionaryV31Parser, FunctionaryV32Parser)
