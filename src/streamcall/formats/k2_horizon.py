"""K2 Horizon / K2-V3: GLM-4.7's calls in ``<ifm|…>`` tags, in three dialects.

Grammar (vLLM ``k2_horizon``, SGLang ``k2_v3``)::

    text* ( '<ifm|tool_calls>' ws* call (ws* call)* ws* '</ifm|tool_calls>' text* )*
    call  := '<ifm|tool_call>' body '</ifm|tool_call>'
    body  := NAME param*                                          # xml, xml_typed
           | '{' '"name":' NAME ( ',' '"arguments":' object )? '}'  # json
    param := '<ifm|arg_key>' KEY '</ifm|arg_key>' ws*
             ( '<ifm|arg_type>' TYPE '</ifm|arg_type>' ws* )?     # xml_typed
             '<ifm|arg_value>' value '</ifm|arg_value>'

vLLM takes the dialect from the request (``chat_template_kwargs.tool_call_format``:
``xml``, the default, ``xml_typed`` or ``json``) and fails closed when the wire is
another; a text parser sees no request, so each call is read in the dialect it is
written in, as SGLang's ``k2_v3`` does: a body that opens with ``{`` is JSON, tags
otherwise, typed where a type tag is there. A call outside a group is read too (SGLang).

Values are typed by the tool's schema in every dialect (``schema.py``); a written
``<ifm|arg_type>`` narrows a schema that allows several types to it, and types a value the
schema does not (``any`` keeps the text: ``schema.written_type_plan``). String values are
kept as written, newlines included. In the JSON dialect the arguments object's values are
typed too (``"2"`` for an integer is 2: ``engines.json_members``); the name must come first.

Holds back a partial marker in text, the name until the next tag (a JSON call's head
until its arguments' ``{``), a key until ``<ifm|arg_value>`` (at most ``MAX_HEADER``
characters), a partial closer inside a value, a JSON value that the schema types until it
is whole, and a short parameter cut by the end of a chunk, whole (``engines.xml_params``).
Reasoning (``<ifm|think>``, ``<ifm|think_fast>``, ``<ifm|think_faster>``) is the
``k2_horizon`` reasoning format's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.glm import JSON_NO_HEADER, glm_call_header


class K2HorizonParser(XmlParamsParser):
    names = ("k2_horizon",)
    family = "K2 Horizon / K2-V3 (IFM tags: xml, xml_typed and json dialects)"
    vllm_differences = (
        "Reads each call in the dialect it is written in, as SGLang's k2_v3 does (vLLM "
        "fails closed, the whole output content, when the wire is not the request's "
        "tool_call_format: a text parser sees no request); streams calls and string "
        "values while they are written (vLLM holds the group to </ifm|tool_calls> and "
        "emits whole calls); a call whose </ifm|tool_call> was seen is complete in a group "
        "never closed, and one cut off is reported incomplete (vLLM: all content; the "
        "call streamed from its name and cannot be taken back); names are not checked "
        "against the tools or a named tool_choice; whitespace before the "
        "group is kept as text (vLLM drops whitespace-only content); a JSON call must name "
        "the function before its arguments."
    )
    BLOCK_OPEN = "<ifm|tool_calls>"
    BLOCK_CLOSE = "</ifm|tool_calls>"
    BARE_CALLS = True
    CALL_OPEN = ("<ifm|tool_call>",)
    CALL_HEADER = glm_call_header("<")
    NO_HEADER = JSON_NO_HEADER
    CALL_CLOSE = "</ifm|tool_call>"
    PARAM_OPEN = ("<ifm|arg_key>",)
    # As GLM's: a key written without a value before the next key is dropped.
    PARAM_HEADER = re.compile(
        r"(?:[^<]*+</ifm\|arg_key>\s*+<ifm\|arg_key>)*+(?P<key>[^<]*+)</ifm\|arg_key>\s*+"
        r"(?:<ifm\|arg_type>(?P<type>[^<]*+)</ifm\|arg_type>\s*+)?<ifm\|arg_value>"
    )
    PARAM_CLOSE = "</ifm|arg_value>"
    STRIP_NEWLINES = False
    JSON_ARGS = True
    JSON_ARGS_TYPED = True

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """The ``xml`` dialect (the template's default)."""
        return cls._render_xml(calls, typed=False)

    @classmethod
    def render_json(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """The ``json`` dialect."""
        return cls._group(
            json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
            for name, args in calls
        )

    @classmethod
    def render_typed(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        """The ``xml_typed`` dialect (each value's JSON type written beside it)."""
        return cls._render_xml(calls, typed=True)

    @classmethod
    def _render_xml(cls, calls: list[tuple[str, dict[str, Any]]], *, typed: bool) -> str:
        return cls._group(
            name
            + "".join(
                f"<ifm|arg_key>{k}</ifm|arg_key>"
                + (f"<ifm|arg_type>{_json_type(v)}</ifm|arg_type>" if typed else "")
                + f"<ifm|arg_value>{cls.raw_value(v)}</ifm|arg_value>"
                for k, v in args.items()
            )
            for name, args in calls
        )

    @classmethod
    def _group(cls, bodies: Iterable[str]) -> str:
        """Calls' bodies, each in its call tags, in one group."""
        call_open, call_close = cls.CALL_OPEN[0], cls.CALL_CLOSE
        calls = "".join(f"{call_open}{body}{call_close}" for body in bodies)
        return f"{cls.BLOCK_OPEN}{calls}{cls.BLOCK_CLOSE}"


_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string"}
_JSON_TYPES.update({dict: "object", list: "array", type(None): "null"})


def _json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), "string")


FORMATS = (K2HorizonParser,)
