"""BerryLM: Qwen3-Coder's XML calls, ``<tool_call><function=NAME><parameter=KEY>...``.

Grammar (vLLM ``berrylm``: ``vllm/parser/berrylm.py``, an engine parser with its own
configuration; ``RWB/BerryLM-OS``)::

    text* ( '<tool_call>' ws* call* ws* '</tool_call>' text* )*
    call  := '<function=' NAME '>' ( '<parameter=' KEY '>' value '</parameter>' )*
             '</function>'

Everything is ``qwen3_coder``'s (``formats/qwen3.py``, on the XML-parameter engine
``engines.xml_params``): values are raw text with one newline after the opening tag and
one before the closer, typed by the tool schema; a missing ``</parameter>`` ends at the
next ``<parameter=`` or ``</function>``; a ``<function=...>`` with no wrapper is a call too
(vLLM's BerryLM grammar has the same fallback). Held back: a partial ``<tool_call>`` or
``<function=`` at the end of text, and what the engine holds inside a call.

Reasoning is ``reasoning/specs.py``'s ``berrylm`` row (``<think>``, opened by the template
unless ``enable_thinking`` is false; ``<tool_call>`` ends it implicitly).
"""

from __future__ import annotations

from typing import ClassVar

from streamcall.formats.qwen3 import QwenCoderParser


class BerryLMParser(QwenCoderParser):
    names: ClassVar[tuple[str, ...]] = ("berrylm",)
    family = "RWB BerryLM (Qwen3-Coder XML calls)"
    vllm_differences = (
        "Streams string parameters as they are written (vLLM's engine re-converts the "
        "open parameter each delta); untyped values follow the documented first-character "
        "rule; a block with a Hermes JSON body is read as a JSON call (vLLM's BerryLM "
        "grammar reads only the XML body); text after the calls is kept."
    )


FORMATS = (BerryLMParser,)
