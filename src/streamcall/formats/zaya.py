"""Zyphra ZAYA1: Qwen3-Coder's XML calls in ``<zyphra_tool_call>`` blocks.

Grammar (vLLM 0.34 ``zaya`` and ``zaya_xml``, one parser: ``vllm/parser/zaya.py``, a
``Qwen3Parser`` with other wrapper tokens)::

    text* ( '<zyphra_tool_call>' ws* call* ws* '</zyphra_tool_call>' text* )*
    call  := '<function=' NAME '>' ( '<parameter=' KEY '>' value '</parameter>' )*
             '</function>'

Everything but the wrapper is ``qwen3_coder``'s (``formats/qwen3.py``, on the XML-parameter
engine ``engines.xml_params``): values are raw text with one newline after the opening tag and one
before the closer, typed by the tool schema; a missing ``</parameter>`` ends at the next
``<parameter`` or ``</function>``, a missing ``</function>`` at ``</zyphra_tool_call>``;
a ``<function=...>`` with no wrapper is a call too (vLLM's engine has the same fallback). A
block whose body starts with ``{`` is read as a Hermes JSON call (``{"name": ..,
"arguments": {..}}``), which some ZAYA1 tool-call recipes describe; vLLM 0.34 reads only
the XML body. ``<tool_call>`` is not this format's marker: it stays text. Held back: a
partial ``<zyphra_tool_call>`` or ``<function=`` at the end of text, and what the engine
holds inside a call.

Reasoning is ``reasoning/specs.py``'s ``zaya`` row (Qwen3's ``<think>``, which
``<zyphra_tool_call>`` ends implicitly).
"""

from __future__ import annotations

from typing import Any, ClassVar

from streamcall.formats.qwen3 import QwenCoderParser


class ZayaParser(QwenCoderParser):
    names: ClassVar[tuple[str, ...]] = ("zaya", "zaya_xml")
    family = "Zyphra ZAYA1 (Qwen3-Coder XML in <zyphra_tool_call>)"
    vllm_differences = (
        "Streams string parameters as they are written (vLLM's engine re-converts the "
        "open parameter each delta); untyped values follow the documented first-character "
        "rule instead of always being strings; a block with a Hermes JSON body is read as "
        "a JSON call (vLLM 0.34 degrades it to text); text after the calls is kept."
    )
    BLOCK_OPEN = "<zyphra_tool_call>"
    BLOCK_CLOSE = "</zyphra_tool_call>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        out = []
        for name, args in calls:
            params = "".join(
                f"<parameter={k}>\n{cls.raw_value(v)}\n</parameter>\n" for k, v in args.items()
            )
            out.append(
                f"<zyphra_tool_call>\n<function={name}>\n{params}</function>\n</zyphra_tool_call>"
            )
        return "".join(out)


FORMATS = (ZayaParser,)
