"""ByteDance Seed-OSS: ``<seed:tool_call><function=f><parameter=k>v</parameter></function></seed:tool_call>``.

Grammar (vLLM ``seed_oss``)::

    text* ( ( '<seed:tool_call>' ws* call* ws* '</seed:tool_call>' | think ) text* )*
    call  := '<function=' NAME '>' ( '<parameter=' KEY '>' value '</parameter>' ws* )*
             '</function>'
    think := '<seed:think>' any* '</seed:think>'?          # text, drafted calls and all

The Qwen3-Coder body inside Seed's own block marker. Seed-OSS drafts calls while it
thinks: a ``<seed:think>…</seed:think>`` span is text, calls in it included, and only the
calls after it count (with the ``seed_oss`` reasoning parser in front, the span is
reasoning and never reaches this parser). Values are typed by the tool
schema (see ``schema.py``); string values stream as they are written. Holds back a
partial ``<seed:tool_call>`` or ``<seed:think>`` in text, a partial ``</seed:think>`` in a
think span, a header until its ``>``, and a partial closer
inside a value (and a short parameter cut by the end of a chunk, whole: see
``engines.xml_params``).
"""

from __future__ import annotations

import re
from typing import Any

from streamcall.formats.engines.xml_params import XmlParamsParser


class SeedOssParser(XmlParamsParser):
    names = ("seed_oss",)
    family = "ByteDance Seed-OSS-36B"
    vllm_differences = (
        "Streams string parameters while they are written (vLLM waits for "
        "</parameter>); untyped values follow the documented first-character rule. A call "
        "inside <seed:think>...</seed:think> is text even when the think block never "
        "closes (vLLM skips the thinking only when both markers are there)."
    )
    BLOCK_OPEN = "<seed:tool_call>"
    BLOCK_CLOSE = "</seed:tool_call>"
    CALL_OPEN = ("<function=", '<function name="')
    CALL_HEADER = re.compile(r'(?P<name>[^"<>\n]*+)"?\s*+>')
    CALL_CLOSE = "</function>"
    PARAM_OPEN = ("<parameter=", '<parameter name="')
    PARAM_HEADER = re.compile(r'(?P<key>[^"<>\n]*+)"?\s*+>')
    PARAM_CLOSE = "</parameter>"
    TEXT_REGION = ("<seed:think>", "</seed:think>")

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f"<seed:tool_call>\n<function={name}>\n"
            + "".join(f"<parameter={k}>{cls.raw_value(v)}</parameter>\n" for k, v in args.items())
            + "</function>\n</seed:tool_call>"
            for name, args in calls
        )


FORMATS = (SeedOssParser,)
