"""Ricursive Ripple: Hermes JSON calls, with the template's newline before each call framing.

Grammar (vLLM 0.34 ``ripple``: ``vllm/parser/ripple.py``)::

    text* ( '\\n'? '<tool_call>' ws* call ws* '</tool_call>' text* )*
    call := {"name": string, "arguments": object | string}    # keys in any order

The wire is ``hermes``'s (``formats/hermes.py``, on the JSON-call engine ``engines.json_calls``),
but the chat template writes ``\\n<tool_call>\\n{...}\\n</tool_call>``, and vLLM counts the
newline before ``<tool_call>`` as part of the marker: ``Let me check.\\n<tool_call>`` gives
the content ``Let me check.``, where ``hermes`` keeps the newline. So the start marker has
two spellings here, the longer one winning where both match. The blanks inside the block
are the engine's (``ws*``); a newline after ``</tool_call>`` is text unless another call
or the end follows (a gap, as in every format). Held back: a trailing newline and a
partial ``<tool_call>`` at the end of text, and what the engine holds inside a call.

Reasoning is ``reasoning/specs.py``'s ``ripple`` row: ``<think>`` is optional per turn
(the prompt does not open it) and may come again after an answer.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from streamcall.formats.hermes import HermesParser


class RippleParser(HermesParser):
    names: ClassVar[tuple[str, ...]] = ("ripple",)
    family = "Ricursive Ripple (Hermes <tool_call> JSON, newline-framed)"
    vllm_differences = (
        "Streams arguments as they are written; keeps text between and after calls; gives "
        "{} to a call with no arguments; decodes arguments written as a JSON string. The "
        "newline after </tool_call> is content before more text, as vLLM has it, and "
        "dropped at the end of the output."
    )
    START: ClassVar[tuple[str, ...]] = ("\n<tool_call>", "<tool_call>")

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            "\n<tool_call>\n"
            f"{json.dumps({'name': n, 'arguments': a}, ensure_ascii=False)}\n</tool_call>"
            for n, a in calls
        )


FORMATS = (RippleParser,)
