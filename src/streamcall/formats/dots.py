"""rednote dots: MiniMax-M2's invokes inside ``<dots_function_call>``.

Grammar (vLLM ``dots``)::

    text* ( '<dots_function_call>' ws* ( invoke+ | json ) ws* '</dots_function_call>' text* )*
    invoke := '<invoke' ws+ 'name' ws* '=' ws* NAMEVAL ws* '>' param* '</invoke>'
    param  := '<parameter' ws+ 'name' ws* '=' ws* NAMEVAL ws* '>' value '</parameter>' ws*
    NAMEVAL := '"' NAME '"' | "'" NAME "'" | NAME          # bare: up to '>'
    json   := {"name": NAME, "arguments" | "parameters": {...}} (ws* [,;]? ws* {...})*

Several blocks, and several invokes in one block, are parallel calls. A block whose first
non-blank character is ``{`` holds JSON calls instead, read by the JSON-call engine and
streamed verbatim (``JSON_BODY``, as Qwen's ``<tool_call>`` blocks are). Values are typed
by the tool schema (``schema.py``: ``$ref`` into ``$defs`` and unions included); string
values stream as they are written; the one newline after a value's opening tag and before
its closer is framing, as in MiniMax-M2.

Holds back a partial ``<dots_function_call>`` in text, a header until its ``>``, and a
partial closer inside a value (and a short parameter cut by the end of a chunk, whole: see
``engines.xml_params``).
"""

from __future__ import annotations

import re
from typing import Any

from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.minimax import invokes

# (possessive: blanks in a name are read once, not tried in every split)
_NAMEVAL = r"""\s*+(?P<q>["']?)(?P<{group}>[^"'<>\n]*+)(?P=q)\s*+>"""


class DotsParser(XmlParamsParser):
    names = ("dots",)
    family = "rednote dots"
    vllm_differences = (
        "Streams string values while they are written (vLLM emits a block's calls whole "
        "at </dots_function_call>); calls to tools the request does not list are kept "
        "(vLLM drops them: names are not validated here); a block that does not parse is "
        "text, its wrapper included, and a stray </dots_function_call> stays text (vLLM's "
        "streaming drops both wrappers, its one-shot path keeps them, or returns no "
        "content at all); text after the calls is kept (vLLM's one-shot content is the "
        "text before the first block). Values are typed by the schema's rules shared by "
        "every XML format: the one newline after the opening tag and before the closer is "
        "framing (vLLM strips all surrounding whitespace), a string-typed 'null' stays a "
        "string, and a boolean is true or false only (vLLM reads any value but true or 1 "
        "as false)."
    )
    BLOCK_OPEN = "<dots_function_call>"
    BLOCK_CLOSE = "</dots_function_call>"
    CALL_OPEN = ("<invoke",)
    CALL_HEADER = re.compile(r"\s++name\s*+=" + _NAMEVAL.format(group="name"))
    NO_HEADER = re.compile(r"\S")  # '<invoked…': not an invoke
    CALL_CLOSE = "</invoke>"
    PARAM_OPEN = ("<parameter",)
    PARAM_HEADER = re.compile(r"\s++name\s*+=" + _NAMEVAL.format(group="key"))
    PARAM_CLOSE = "</parameter>"
    JSON_BODY = True

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return f"<dots_function_call>\n{invokes(calls)}</dots_function_call>"


FORMATS = (DotsParser,)
