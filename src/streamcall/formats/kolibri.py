"""Aleph Alpha Kolibri 1: Hermes JSON calls, ``<tool_call>{"name": ..., "arguments": ...}``.

Grammar (the ``kolibri1`` tool parser, which vLLM registers as its Hermes parser: see
``vllm/reasoning/kolibri1_engine_reasoning_parser.py`` and Aleph Alpha's plugin
``aleph-alpha-inference``; ``Aleph-Alpha/Kolibri-1``)::

    text* ( '<tool_call>' ws* call ws* '</tool_call>' text* )*
    call := {"name": string, "arguments": object | string}    # keys in any order

Everything is ``hermes``'s (``formats/hermes.py``, on the JSON-call engine): arguments
stream verbatim; held back are a partial ``<tool_call>`` at the end of text and what the
engine holds inside a call. Reasoning is ``reasoning/specs.py``'s ``kolibri1`` row:
Qwen3's ``<think>`` with the start chosen as Kolibri 1's template chooses it
(``reasoning_effort`` before ``enable_thinking``: ``reasoning/switches.py``).
"""

from __future__ import annotations

from typing import ClassVar

from streamcall.formats.hermes import HermesParser


class Kolibri1Parser(HermesParser):
    names: ClassVar[tuple[str, ...]] = ("kolibri1",)
    family = "Aleph Alpha Kolibri 1 (Hermes JSON calls)"


FORMATS = (Kolibri1Parser,)
