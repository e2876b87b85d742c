"""MiniMax-M2: ``<minimax:tool_call><invoke name="f"><parameter name="k">v</parameter></invoke>``.

Grammar (vLLM ``minimax_m2``)::

    text* ( '<minimax:tool_call>' ws* invoke* ws* '</minimax:tool_call>' text* )*
    invoke := '<invoke name=' '"'? NAME '"'? '>' param* '</invoke>'
    param  := '<parameter name=' '"'? KEY '"'? '>' value '</parameter>' ws*

Several invokes in one block are parallel calls. Values are typed by the tool schema
(see ``_xmlparams``); string values stream as they are written. Holds back a partial
``<minimax:tool_call>`` in text, a header until its ``>``, and a partial closer inside
a value.
"""

from __future__ import annotations

import re
from typing import Any

from streamcall.formats._xmlparams import XmlParamsParser


class MiniMaxM2Parser(XmlParamsParser):
    names = ("minimax_m2",)
    family = "MiniMax-M2, M2.1"
    vllm_differences = (
        "Streams string values while they are written and each other value as soon as "
        "its </parameter> arrives (vLLM re-runs its regexes over the whole text each "
        "delta); a string-typed value 'null' stays a string."
    )
    BLOCK_OPEN = "<minimax:tool_call>"
    BLOCK_CLOSE = "</minimax:tool_call>"
    CALL_OPEN = ("<invoke name=",)
    CALL_HEADER = re.compile(r'\s*"?(?P<name>[^"<>\n]*)"?\s*>')
    CALL_CLOSE = "</invoke>"
    PARAM_OPEN = ("<parameter name=",)
    PARAM_HEADER = re.compile(r'\s*"?(?P<key>[^"<>\n]*)"?\s*>')
    PARAM_CLOSE = "</parameter>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = "".join(
            f'<invoke name="{name}">\n'
            + "".join(
                f'<parameter name="{k}">{cls.raw_value(v)}</parameter>\n' for k, v in args.items()
            )
            + "</invoke>\n"
            for name, args in calls
        )
        return f"<minimax:tool_call>\n{body}</minimax:tool_call>"


FORMATS = (MiniMaxM2Parser,)
