"""MiniCPM5: ``<function name="f"><param name="k">v</param></function>``.

Grammar (vLLM ``minicpm5``)::

    text* ( FUNCTION NAME '">' ( PARAM KEY '">' value '</param>' ws* )* '</function>' text* )*
    FUNCTION := '<function name="' | '<functionname="' | '<function\\u0120name="'
    PARAM    := '<param name="' | '<paramname="' | '<param\\u0120name="'

The collapsed (``<functionname=``) and byte-level-space (``\\u0120``) spellings are the
tokenizer artefacts vLLM's tests cover. Calls sit in text without a block marker.
Values are typed by the tool schema (see ``schema.py``); string values stream as they
are written. A value written as ``<![CDATA[...]]>`` is that section's text, literally
(``</param>`` inside it included), as a string unless the schema types it otherwise; the
other formats of the family keep a section as written (neither vLLM nor SGLang unwraps it
for them). Holds back a partial ``<function`` opener in text, a header until its
``>``, a partial ``<![CDATA[`` at a value's start, a partial ``]]>`` inside a section, and a
partial closer inside a value (and a short parameter cut by the end of a
chunk, whole: see ``engines.xml_params``).
"""

from __future__ import annotations

import re
from typing import Any

from streamcall.formats.engines.xml_params import XmlParamsParser


class MiniCpm5Parser(XmlParamsParser):
    names = ("minicpm5",)
    family = "OpenBMB MiniCPM5"
    vllm_differences = (
        "Streams string values while they are written; does not validate calls against "
        "the schema (vLLM drops calls to unknown tools, with unknown or duplicate keys, "
        "and keeps their text as content); "
        "sentencepiece markers in plain text are left as they are; text around the calls "
        "is kept as content (vLLM returns none once a call is made)."
    )
    CALL_OPEN = ('<function name="', '<functionname="', '<function\u0120name="')
    CALL_HEADER = re.compile(r'(?P<name>[^"<>]*+)"\s*+>')
    CALL_CLOSE = "</function>"
    PARAM_OPEN = ('<param name="', '<paramname="', '<param\u0120name="')
    PARAM_HEADER = re.compile(r'(?P<key>[^"<>]*+)"\s*+>')
    PARAM_CLOSE = "</param>"
    CDATA = True

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        return "".join(
            f'<function name="{name}">'
            + "".join(f'<param name="{k}">{cls.raw_value(v)}</param>' for k, v in args.items())
            + "</function>"
            for name, args in calls
        )


FORMATS = (MiniCpm5Parser,)
