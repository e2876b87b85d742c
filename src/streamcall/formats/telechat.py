"""TeleChat4 and XingChen4: ``<tool_call>NAME<param_key>k</param_key><param_value>v</param_value>``.

Grammar (SGLang's ``TeleChat4Detector`` and ``XingChen4Detector``, one detector's code twice,
on SGLang's main branch after release 0.5.23, which registers neither: ``telechat4`` is
registered at commit 42fad280, ``xingchen4`` at bd41fb02; no engine registers a
``xing4_0`` tool parser: it is XingChen4's other model type, streamcall's alias. The
reasoning formats of these names are vLLM's, ``vllm/reasoning/telechat4_reasoning_parser.py``,
``xingchen4_...`` and ``xing4_0_...``)::

    text* ( '<tool_call>' body '</tool_call>' text* )*
    body  := NAME ws* param*                                      # tags
           | NAME object                                         # NAME{json}
           | '{' '"name":' NAME ( ',' ('"arguments"' | '"parameters"') ':' object )? '}'
    param := '<param_key>' KEY '</param_key>' ws* '<param_value>' value '</param_value>'

GLM's grammar in other tags (``glm.py``), with two JSON bodies: a JSON call, and a name
followed at once by its arguments object (SGLang finds that name among the request's
tools; here it is what comes before the ``{``). Tagged values are typed by the tool's
schema and stripped of the blanks around them, as SGLang strips them (``STRIP_VALUES``:
a string value streams without them); JSON arguments stream as written.

Holds back a partial ``<tool_call>`` in text, the name until the next tag or ``{`` (a JSON
call's head until its arguments' ``{``), a key until ``<param_value>`` (at most
``MAX_HEADER`` characters), a partial closer and the blanks at the end of a string value
(until what follows them decides), and a short parameter cut by the end of a chunk, whole
(``engines.xml_params``). Reasoning is the ``telechat4`` / ``xingchen4`` reasoning format's
(``<think>``, pre-filled by the template when thinking is on).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.glm import JSON_NO_HEADER, glm_call_header

#: where the format differs from SGLang's detector on purpose (both names' parsers)
_AS_SGLANG = (
    "Streams calls and string values while they are "
    "written (SGLang emits a call whole at </tool_call>); names are not checked "
    "against the tools (SGLang drops, or in streaming keeps as text, a call to an "
    "unknown tool), so NAME{json} takes the name from before the '{'; a call cut by "
    "the end of the stream is reported incomplete; a JSON call must name the function "
    "before its arguments."
)


class TeleChat4Parser(XmlParamsParser):
    names: ClassVar[tuple[str, ...]] = ("telechat4",)
    family = "China Telecom TeleChat4 (param_key/param_value tags, or JSON)"
    vllm_differences = (
        "SGLang's main-branch name after 0.5.23 (TeleChat4Detector; vLLM has only a "
        "reasoning parser of this name). " + _AS_SGLANG
    )
    CALL_OPEN = ("<tool_call>",)
    CALL_HEADER = glm_call_header("<{")
    NO_HEADER = JSON_NO_HEADER
    CALL_CLOSE = "</tool_call>"
    PARAM_OPEN = ("<param_key>",)
    # As GLM's: a key written without a value before the next key is dropped.
    PARAM_HEADER = re.compile(
        r"(?:[^<]*+</param_key>\s*+<param_key>)*+(?P<key>[^<]*+)</param_key>\s*+<param_value>"
    )
    PARAM_CLOSE = "</param_value>"
    JSON_ARGS = True
    STRIP_VALUES = True

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """Tags; a call with no arguments as ``NAME{}``, which only this format writes
        (``<tool_call>NAME</tool_call>`` is GLM's too)."""
        return "".join(
            f"<tool_call>{name}"
            + (
                "".join(
                    f"<param_key>{k}</param_key><param_value>{cls.raw_value(v)}</param_value>"
                    for k, v in args.items()
                )
                or "{}"
            )
            + "</tool_call>"
            for name, args in calls
        )


class XingChen4Parser(TeleChat4Parser):
    names = ("xingchen4", "xing4_0")
    family = "XingChen4 / Xing4.0 (as TeleChat4)"
    vllm_differences = (
        "xingchen4 is SGLang's main-branch name after 0.5.23 (XingChen4Detector, "
        "TeleChat4Detector's code); xing4_0 is no engine's tool-parser name (XingChen4's "
        "other model type; vLLM has reasoning parsers of both names). Otherwise as "
        "telechat4: " + _AS_SGLANG
    )


FORMATS = (TeleChat4Parser, XingChen4Parser)
