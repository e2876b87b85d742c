"""PFN PLaMo 3: a section of tool requests, each a name and JSON arguments, in PLaMo tags.

Grammar (vLLM ``plamo3``)::

    text* ( BEGIN_REQUESTS call* END_REQUESTS? text* )*
    call := BEGIN_REQUEST BEGIN_NAME NAME END_NAME ARGS_OPEN object END_ARGS? END_REQUEST?

    BEGIN_REQUESTS = <|plamo:begin_tool_requests:plamo|>
    END_REQUESTS   = <|plamo:end_tool_requests:plamo|>
    BEGIN_REQUEST  = <|plamo:begin_tool_request:plamo|>   END_REQUEST = <|plamo:end_tool_request:plamo|>
    BEGIN_NAME     = <|plamo:begin_tool_name:plamo|>      END_NAME    = <|plamo:end_tool_name:plamo|>
    ARGS_OPEN      = <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>
    END_ARGS       = <|plamo:end_tool_arguments:plamo|>

A configuration of the header + JSON engine (``engines.header_json``): the header is
``BEGIN_NAME NAME END_NAME`` (read by ``_header``), ``ARGS_OPEN`` ends it, the arguments
stream verbatim. The reference treats every closer as optional (complete arguments survive
missing closers), so a call is complete when its object closes (``CALL_END_OPTIONAL``);
``END_ARGS`` and ``END_REQUEST`` are markup between calls. The tags cannot occur inside
arguments (special-token sequences): arguments cut by one end ``incomplete``, the tag read
next. The end of turn ``EOT = <|plamo:tag|>`` is dropped wherever it stands (``DROP``;
vLLM 0.34's engine consumes it from every state and goes on with content): it cuts
arguments (``incomplete``), interrupts a header (text) and ends a section; the text after
it is content. The other ``<|plamo:...|>`` tokens (``<|plamo:constrain|>``,
``<|plamo:msg|>``, ``<|plamo:bos|>``) are markup only inside ``ARGS_OPEN``; elsewhere they
are text, as in vLLM. Reasoning (``<|plamo:begin_think:plamo|>``, on by default; a tool
section ends it) is the ``plamo3`` reasoning format's, which drops ``EOT`` too. Held back:
a partial tag (``EOT`` too), the header until ``ARGS_OPEN`` (at most ``MAX_HEADER``
characters), a growing token of the arguments.
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamcall.formats.engines.header_json import HeaderJsonParser

BEGIN_REQUESTS = "<|plamo:begin_tool_requests:plamo|>"
END_REQUESTS = "<|plamo:end_tool_requests:plamo|>"
BEGIN_REQUEST = "<|plamo:begin_tool_request:plamo|>"
END_REQUEST = "<|plamo:end_tool_request:plamo|>"
BEGIN_NAME = "<|plamo:begin_tool_name:plamo|>"
END_NAME = "<|plamo:end_tool_name:plamo|>"
ARGS_OPEN = "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"
END_ARGS = "<|plamo:end_tool_arguments:plamo|>"
EOT = "<|plamo:tag|>"

_HEADER = re.compile(rf"\s*{re.escape(BEGIN_NAME)}\s*(\w[\w.:\-/]*)\s*{re.escape(END_NAME)}\s*")


class Plamo3Parser(HeaderJsonParser):
    names = ("plamo3",)
    family = "PFN PLaMo 3"
    vllm_differences = (
        "Streams the arguments verbatim as they are written. A call whose name was cut by "
        "the end of the stream is text (vLLM reports a call named by the cut name); "
        "arguments cut by the end of the stream are closed so that they load, and the "
        "call is reported incomplete (vLLM passes the cut text through as the arguments). "
        "The end of turn <|plamo:tag|> is dropped wherever it stands and the text after it "
        "is content, as vLLM 0.34's engine has it; a call it cuts ends incomplete, and a "
        "header it cuts is text. <|plamo:constrain|>, <|plamo:msg|> and <|plamo:bos|> "
        "outside ARGS_OPEN are content, as in vLLM (no terminal of its grammar)."
    )
    SECTION_START = (BEGIN_REQUESTS,)
    SECTION_END = END_REQUESTS
    CALL_START = BEGIN_REQUEST
    HEADER_END = (ARGS_OPEN,)
    ARGS_SUFFIX = END_ARGS
    CALL_END = END_REQUEST
    CALL_END_OPTIONAL = True
    STOP = (BEGIN_REQUESTS, END_REQUESTS, BEGIN_REQUEST, END_REQUEST, END_ARGS, EOT)
    DROP = (EOT,)
    FRAMES = DROP  # (the markup dropped outside calls, for streamcall.testing)

    def _header(self, text: str) -> tuple[str, str | None] | None:
        m = _HEADER.fullmatch(text)
        return (m.group(1), None) if m is not None else None

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = "".join(
            f"{BEGIN_REQUEST}{BEGIN_NAME}{n}{END_NAME}{ARGS_OPEN}"
            f"{json.dumps(a, ensure_ascii=False)}{END_ARGS}{END_REQUEST}"
            for n, a in calls
        )
        return f"{BEGIN_REQUESTS}{body}{END_REQUESTS}"


FORMATS = (Plamo3Parser,)
