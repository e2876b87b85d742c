"""Granite 4: ``<tool_call>{"name": ..., "arguments": {...} | "..."}</tool_call>``.

IBM Granite 4.0 (``ibm-granite/granite-4.0-*``). The markers are the Hermes ones and may
be surrounded by whitespace (``<tool_call> {...} </tool_call>``).

Grammar::

    text* ( ws* '<tool_call>' ws* call ws* '</tool_call>' text* )*
    call := {"name": string, "arguments": object | escaped-JSON-string}

The two argument forms (vLLM #36827):

- an object: streamed verbatim as it arrives;
- a string holding escaped JSON: decoded incrementally and the decoded object streamed
  as argument deltas. vLLM's Python parser and its Rust parser crate emit it
  only at the closing quote; vLLM double-encoded it (#54964, #35421). A cut ``\\``, a cut
  ``\\uXXXX`` and a surrogate pair split between its halves are held back until whole.

Any other value (``42``, a list) is malformed: the call never starts and degrades to
text whole. Older Granite ids (3.x) use the ``granite`` format, not this one.
"""

from __future__ import annotations

import json
from typing import Any

from streamcall.formats.engines.json_calls import JsonCallsParser


class GraniteFourParser(JsonCallsParser):
    names = ("granite4",)
    family = "IBM Granite 4.0"
    vllm_differences = (
        "Streams both argument forms as deltas (vLLM emits the whole call at </tool_call>); "
        "decodes string arguments incrementally instead of double-encoding them "
        "(vLLM #54964, #35421)."
    )
    START = ("<tool_call>",)
    END = "</tool_call>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """Granite 4 writes both forms; the escaped-string one is the harder, so use it."""
        return "".join(
            f"<tool_call> {json.dumps({'name': n, 'arguments': json.dumps(a)})} </tool_call>"
            for n, a in calls
        )


FORMATS = (GraniteFourParser,)
