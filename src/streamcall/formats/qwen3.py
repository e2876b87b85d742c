"""Qwen3-Coder XML calls: ``<tool_call><function=NAME><parameter=KEY>value</parameter>...``.

Grammar (Qwen3-Coder, Qwen3.5/3.6, MiMo, Step-3.5, Granite 4.2; vLLM ``qwen3_coder``/``qwen3_xml``,
and ``granite_toolcall_parser``, vLLM 0.34's Granite 4.2 parser: Nemotron V3's subclass of
its Qwen3 parser, the same grammar)::

    text* ( '<tool_call>' ws* call* ws* '</tool_call>' text* )*
    call  := ( '<function=' NAME '>' | '<function name="' NAME '">' )
             ( '<parameter=' KEY '>' | '<parameter name="' KEY '">' ) value '</parameter>' ...
             '</function>'

Values are raw text with one newline after the opening tag and one before the closer,
typed by the tool schema (see ``engines.xml_params`` for the typing rules and what is held
back). A ``<function=...>`` outside ``<tool_call>`` is a call too (Qwen3.5 sometimes
drops the wrapper). A missing ``</parameter>`` ends at the next ``<parameter`` or
``</function>``; a missing ``</function>`` ends at ``</tool_call>``, as in vLLM.

Qwen2.5, QwQ and Qwen3 (non-coder) write Hermes JSON in the same wrapper::

    '<tool_call>' ws* '{"name": NAME, "arguments": {...}}' ws* '</tool_call>'

and every ``qwen`` model id routes here, so each block's body is decided by its first
non-blank character: ``{`` is a JSON call, handed to the JSON-call engine and streamed
verbatim exactly as ``hermes`` does; ``<function`` is the XML form. Both kinds may be
mixed in one output, block by block.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from streamcall.formats.engines.xml_params import XmlParamsParser


class QwenCoderParser(XmlParamsParser):
    names: ClassVar[tuple[str, ...]] = (
        "qwen3_coder",
        "qwen3_xml",
        "mimo",
        "granite_toolcall_parser",
    )
    family = "Qwen3-Coder, Qwen3.5/3.6, Xiaomi MiMo, Granite 4.2; Qwen2.5/QwQ/Qwen3 JSON calls"
    vllm_differences = (
        "Streams string parameters character by character instead of waiting for "
        "</parameter> (SGLang #27005); untyped values (no schema) follow the documented "
        "first-character rule instead of always being strings; a string-typed value "
        "'null' stays the string 'null' (it is streamed before it could be known); a "
        "<tool_call> block with a Hermes JSON body is read as a JSON call (vLLM's qwen3 "
        "parsers degrade it to text, though the router sends Qwen2.5/QwQ/Qwen3 here); "
        "text after the calls is kept as content (vLLM's one-shot path returns only the "
        "text before them)."
    )
    BLOCK_OPEN = "<tool_call>"
    BLOCK_CLOSE = "</tool_call>"
    BARE_CALLS = True
    CALL_OPEN = ("<function=", '<function name="')
    CALL_HEADER = re.compile(r'(?P<name>[^"<>\n]*+)"?\s*+>')
    CALL_CLOSE = "</function>"
    PARAM_OPEN = ("<parameter=", '<parameter name="')
    PARAM_HEADER = re.compile(r'(?P<key>[^"<>\n]*+)"?\s*+>')
    PARAM_CLOSE = "</parameter>"
    JSON_BODY = True

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        out = []
        for name, args in calls:
            params = "".join(
                f"<parameter={k}>\n{cls.raw_value(v)}\n</parameter>\n" for k, v in args.items()
            )
            out.append(f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>")
        return "".join(out)


FORMATS = (QwenCoderParser,)
