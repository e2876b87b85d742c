"""Kimi K3 XTML: ``<|open|>call tool="f" index="1"<|sep|><|open|>argument key="k" type="string"<|sep|>v…``.

Grammar (vLLM and SGLang ``kimi_k3``; ``<|open|>``, ``<|close|>`` and ``<|sep|>`` are
special tokens, the element names between them plain text)::

    output   := response? tools? '<|close|>message<|sep|>'? '<|end_of_msg|>'?
    response := '<|open|>response<|sep|>' text '<|close|>response<|sep|>'
    tools    := '<|open|>tools<|sep|>' ws* call* ws* '<|close|>tools<|sep|>'?
    call     := '<|open|>call' attrs '<|sep|>' (argument* | json) '<|close|>call<|sep|>'
    argument := '<|open|>argument' attrs '<|sep|>' VALUE '<|close|>argument<|sep|>'
    json     := '<|open|>json type="object"<|sep|>' object '<|close|>json<|sep|>'
    attrs    := (ws+ NAME '="' escaped '"')*        # any order; & and " escaped

A call's name is its ``tool`` attribute and an argument's key its ``key`` attribute, both
unescaped (``&quot;`` then ``&amp;``); ``index`` is ignored, as every reference ignores it.
A call without ``tool`` is not a call (its markup is text). An argument's ``type``
attribute types its value, whatever the schema says (the model wrote it): ``string``, or
no ``type``, is the raw text, byte-exact (not unescaped), streamed while it is written;
any other type is JSON, held to its closer and a string if it does not load. The JSON
block carries the whole arguments object, streamed verbatim (``JSON_ARGS_WRAP``; what
TensorRT-LLM and SGLang read; vLLM 0.33 does not).

The response channel's markers, ``<|close|>message<|sep|>`` and ``<|end_of_msg|>`` are
dropped from the text wherever they stand (``FRAMES``), so that the content is the
response's body, as both references unwrap it. The think channel is the reasoning
format's (``reasoning/specs.py``, ``kimi_k3``), which drops the same markers when no tool
parser follows it.

Holds back a cut marker in text (a frame's, or ``<|open|>tools<|sep|>``), a header until
its ``<|sep|>`` (at most ``MAX_HEADER`` characters), and a cut closer inside a value (and a
short argument cut by the end of a chunk, whole: see ``engines.xml_params``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.schema import HELD, STRING

_ATTR = r'\s++[^\s="<>]++="[^"]*+"'
# The header of a call: attributes, one of them tool="NAME", then <|sep|>. A header
# without tool= still matches (name None), so that it is decided at once: not a call.
_CALL = re.compile(rf'(?:(?=(?:{_ATTR})*?\s+tool="(?P<name>[^"]*+)"))?(?:{_ATTR})*+\s*+<\|sep\|>')
# The header of an argument: key="KEY" (required) and type="TYPE" (the ``string`` group,
# None without one), in any order, then <|sep|>.
_ARGUMENT = re.compile(
    rf'(?=(?:{_ATTR})*?\s+key="(?P<key>[^"]*+)")'
    rf'(?=(?:(?:{_ATTR})*?\s+type="(?P<string>[^"]*+)")?)'
    rf"(?:{_ATTR})*+\s*+<\|sep\|>"
)


def unescape(value: str) -> str:
    """An attribute's value as written before it was escaped (``&quot;``, then ``&amp;``)."""
    if "&" not in value:
        return value
    return value.replace("&quot;", '"').replace("&amp;", "&")


def escape(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;")


_TYPE_NAMES = {
    str: "string", bool: "boolean", int: "integer", float: "number",
    list: "array", dict: "object", type(None): "null",
}  # fmt: skip


class KimiK3Parser(XmlParamsParser):
    names = ("kimi_k3",)
    family = "Moonshot Kimi K3 (XTML)"
    vllm_differences = (
        "Streams string arguments while they are written (vLLM emits a call whole at "
        "<|close|>call<|sep|>, vLLM #50627; SGLang waits for <|close|>tools<|sep|>); reads "
        'the JSON-block body (<|open|>json type="object"<|sep|>, as TensorRT-LLM and '
        "SGLang do; vLLM 0.33 does not); a call cut off by the end of the stream is "
        "reported incomplete (vLLM and SGLang drop it); a lone <|open|> left at the end of "
        "the stream is text (SGLang drops it); a call without tool= is text (vLLM drops "
        "it); the response markers and <|close|>message<|sep|> are held while cut and "
        "never shown, in streaming as in one-shot use (vLLM 0.33 streams a "
        "<|close|>message<|sep|>). Markers are matched as written, without the spaces "
        "vLLM's regexes tolerate inside them."
    )
    FRAMES = (
        "<|open|>response<|sep|>",
        "<|close|>response<|sep|>",
        "<|close|>message<|sep|>",
        "<|end_of_msg|>",
    )
    BLOCK_OPEN = "<|open|>tools<|sep|>"
    BLOCK_CLOSE = "<|close|>tools<|sep|>"
    CALL_OPEN = ("<|open|>call",)
    CALL_HEADER = _CALL
    NO_HEADER = re.compile(r"[^\s<]")  # '<|open|>calls…': not a call header
    CALL_CLOSE = "<|close|>call<|sep|>"
    PARAM_OPEN = ("<|open|>argument",)
    PARAM_HEADER = _ARGUMENT
    PARAM_CLOSE = "<|close|>argument<|sep|>"
    STRIP_NEWLINES = False  # values are byte-exact
    JSON_ARGS = True
    JSON_ARGS_WRAP = ('<|open|>json type="object"<|sep|>', "<|close|>json<|sep|>")

    def _call_name(self, m: re.Match[str]) -> str:
        name = m.group("name")
        return unescape(name).strip() if name else ""

    def _param_plan(self, m: re.Match[str]) -> tuple[str, int, frozenset[str]]:
        kind = m.group("string")
        plan = STRING if kind is None or kind == "string" else HELD
        return unescape(m.group("key")), plan, frozenset()

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        out = []
        for i, (name, args) in enumerate(calls, 1):
            out.append(f'<|open|>call tool="{escape(name)}" index="{i}"<|sep|>')
            for key, value in args.items():
                kind = _TYPE_NAMES[type(value)]
                text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                out.append(
                    f'<|open|>argument key="{escape(key)}" type="{kind}"<|sep|>'
                    f"{text}<|close|>argument<|sep|>"
                )
            out.append("<|close|>call<|sep|>")
        return f"{cls.BLOCK_OPEN}{''.join(out)}{cls.BLOCK_CLOSE}"


FORMATS = (KimiK3Parser,)
