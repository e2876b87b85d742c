"""GLM-4.5/4.6/4.7/5 and Poolside: ``<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>``.

Grammar (vLLM ``glm45``, ``glm47``, ``poolside_v1``)::

    text* ( '<tool_call>' NAME ('\\n' | before '<') param* '</tool_call>' text* )*
    param := ( '<arg_key>' KEY '</arg_key>' ws* )+ '<arg_value>' value '</arg_value>' ws*

GLM-4.5 writes a newline after NAME (``glm45``); GLM-4.7 and GLM-5 do not (``glm47``);
both are accepted by every name. Values are typed by the tool schema (see
``schema.py``: string values stream as they are written; others are held to their
closer). A key with no value before the next key is dropped. Holds back a partial
``<tool_call>`` in text, the name until its newline or the next tag, a key until
``<arg_value>`` (at most ``MAX_HEADER`` characters), and a partial closer inside a value
(and a short parameter cut by the end of a chunk, whole: see ``_xmlparams``).
"""

from __future__ import annotations

import re
from typing import Any

from streamcall.formats._xmlparams import XmlParamsParser

_DIFF = (
    "Streams string values while they are written (vLLM's glm4_moe emits them per "
    "regex over the whole text each delta); accepts the name with or without the "
    "newline under every name; untyped values follow the documented first-character "
    "rule (vLLM tries json.loads/literal_eval on any untyped value); text after the "
    "calls is kept as content (vLLM's one-shot path returns only the text before them)."
)


class GlmParser(XmlParamsParser):
    names = ("glm45",)
    family = "Zhipu GLM-4.5/4.6 (name, newline), GLM-4.7/5 (no newline)"
    vllm_differences = _DIFF
    CALL_OPEN = ("<tool_call>",)
    # The name is complete at its newline or at the next tag, and never before a character
    # that is not a blank: a newline that only leads the name (``<tool_call>\nf``) does
    # not end an empty one. Blanks before the first tag with no name: not a call.
    CALL_HEADER = re.compile(r"\s*(?P<name>[^<\s][^<\n]*?)[^\S\n]*(?:\n|(?=<))")
    NO_HEADER = re.compile(r"\s*<")
    CALL_CLOSE = "</tool_call>"
    PARAM_OPEN = ("<arg_key>",)
    # A key written without a value before the next key (``<arg_key>a</arg_key><arg_key>b
    # </arg_key><arg_value>``) is dropped: the value belongs to the last key (SGLang's
    # poolside_v1 and GLM detectors do the same).
    PARAM_HEADER = re.compile(
        r"(?:[^<]*</arg_key>\s*<arg_key>)*(?P<key>[^<]*)</arg_key>\s*<arg_value>"
    )
    PARAM_CLOSE = "</arg_value>"
    NEWLINE = "\n"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        nl = cls.NEWLINE
        return "".join(
            f"<tool_call>{name}{nl}"
            + "".join(
                f"<arg_key>{k}</arg_key>{nl}<arg_value>{cls.raw_value(v)}</arg_value>{nl}"
                for k, v in args.items()
            )
            + "</tool_call>"
            for name, args in calls
        )


class Glm47Parser(GlmParser):
    names = ("glm47",)
    family = "Zhipu GLM-4.7, GLM-5 (no newline after the name)"
    NEWLINE = ""


class PoolsideParser(GlmParser):
    names = ("poolside_v1",)
    family = "Poolside (GLM-style arg_key/arg_value)"
    # vLLM's poolside_v1 keeps string values verbatim (code bodies keep their newlines).
    STRIP_NEWLINES = False


FORMATS = (GlmParser, Glm47Parser, PoolsideParser)
