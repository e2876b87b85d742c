"""ByteDance Seed-OSS: ``<seed:tool_call><function=f><parameter=k>v</parameter></function></seed:tool_call>``.

Grammar (vLLM ``seed_oss``)::

    text* ( '<seed:tool_call>' ws* call* ws* '</seed:tool_call>' text* )*
    call := '<function=' NAME '>' ( '<parameter=' KEY '>' value '</parameter>' ws* )*
            '</function>'

The Qwen3-Coder body inside Seed's own block marker. Values are typed by the tool
schema (see ``_xmlparams``); string values stream as they are written. Holds back a
partial ``<seed:tool_call>`` in text, a header until its ``>``, and a partial closer
inside a value (and a short parameter cut by the end of a chunk, whole: see
``_xmlparams``).
"""

from __future__ import annotations

import re
from typing import Any

from streamcall.formats._xmlparams import XmlParamsParser


class SeedOssParser(XmlParamsParser):
    names = ("seed_oss",)
    family = "ByteDance Seed-OSS-36B"
    vllm_differences = (
        "Streams string parameters while they are written (vLLM waits for "
        "</parameter>); untyped values follow the documented first-character rule."
    )
    BLOCK_OPEN = "<seed:tool_call>"
    BLOCK_CLOSE = "</seed:tool_call>"
    CALL_OPEN = ("<function=", '<function name="')
    CALL_HEADER = re.compile(r'(?P<name>[^"<>\n]*)"?\s*>')
    CALL_CLOSE = "</function>"
    PARAM_OPEN = ("<parameter=", '<parameter name="')
    PARAM_HEADER = re.compile(r'(?P<key>[^"<>\n]*)"?\s*>')
    PARAM_CLOSE = "</parameter>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f"<seed:tool_call>\n<function={name}>\n"
            + "".join(f"<parameter={k}>{cls.raw_value(v)}</parameter>\n" for k, v in args.items())
            + "</function>\n</seed:tool_call>"
            for name, args in calls
        )


FORMATS = (SeedOssParser,)
