"""Tencent HY v3: ``<tool_calls><tool_call>NAME<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value></tool_call></tool_calls>``.

Grammar (vLLM ``hy_v3``)::

    text* ( '<tool_calls>' ws* call* ws* '</tool_calls>' text* )*
    call  := '<tool_call>' NAME '<tool_sep>' param* '</tool_call>'
    param := '<arg_key>' KEY '</arg_key>' ws* '<arg_value>' value '</arg_value>' ws*

Values are typed by the tool schema, with HY's type aliases (``int``, ``float``,
``dict``, ...; see ``_xmlparams``); string values stream as they are written. Holds back
a partial ``<tool_calls>`` in text, the name until ``<tool_sep>``, a key until
``<arg_value>``, and a partial closer inside a value (and a short parameter cut by the
end of a chunk, whole: see ``_xmlparams``). A missing ``</tool_call>`` before
``</tool_calls>`` still ends the call.
"""

from __future__ import annotations

import re
from typing import Any

from streamcall.formats._xmlparams import XmlParamsParser


class HunyuanV3Parser(XmlParamsParser):
    names = ("hy_v3",)
    family = "Tencent HY v3"
    vllm_differences = (
        "Streams string values while they are written and non-string values as soon as "
        "they close (vLLM re-runs its regexes over the buffered block each delta); needs "
        "no tokenizer ids for the markers."
    )
    BLOCK_OPEN = "<tool_calls>"
    BLOCK_CLOSE = "</tool_calls>"
    CALL_OPEN = ("<tool_call>",)
    CALL_HEADER = re.compile(r"\s*(?P<name>[^<]*?)\s*<tool_sep>")
    CALL_CLOSE = "</tool_call>"
    PARAM_OPEN = ("<arg_key>",)
    PARAM_HEADER = re.compile(r"(?P<key>[^<]*)</arg_key>\s*<arg_value>")
    PARAM_CLOSE = "</arg_value>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = "".join(
            f"<tool_call>{name}<tool_sep>"
            + "".join(
                f"<arg_key>{k}</arg_key><arg_value>{cls.raw_value(v)}</arg_value>"
                for k, v in args.items()
            )
            + "</tool_call>"
            for name, args in calls
        )
        return f"<tool_calls>{body}</tool_calls>"


FORMATS = (HunyuanV3Parser,)
