"""Tencent Hunyuan: HY v3 and v4 (XML parameters), and Hunyuan-A13B (JSON calls).

HY v3 and v4: ``<tool_calls><tool_call>NAME…<arg_key>k</arg_key><arg_value>v</arg_value>
</tool_call></tool_calls>``.

Grammar (vLLM ``hy_v3`` and ``hy_v4``; SFX is the checkpoint's marker suffix, below)::

    text* ( '<tool_calls' SFX '>' ws* call* ws* '</tool_calls' SFX '>' text* )*
    call  := '<tool_call' SFX '>' NAME sep param* '</tool_call' SFX '>'
    sep   := '<tool_sep' SFX '>'        (v3)
           | nothing                    (v4: the name ends at the next '<')
    param := '<arg_key' SFX '>' KEY '</arg_key' SFX '>' ws* '<arg_value' SFX '>' value
             '</arg_value' SFX '>' ws*
    SFX   := ( ':' [^\\s<>]{1,64} )?

The shipping tokenizers give every structural token a per-checkpoint suffix
(``<tool_calls:opensource>``, ``<tool_call:6124c78e>``; vLLM and SGLang read it from the
vocab). There is no tokenizer here, so the suffix is read from each block's opener, and
the markers inside that block are the ones with the same suffix. A ``<tool_calls`` not
followed by a suffix and ``>`` is text.

Values are typed by the tool schema, with HY's type aliases (``int``, ``float``,
``dict``, ...; see ``schema.py``); string values stream as they are written. Holds back
a partial ``<tool_calls`` in text and its suffix (at most 66 characters), the name until
``<tool_sep>`` (v3) or the next ``<`` (v4), a key until ``<arg_value>``, and a partial
closer inside a value (and a short parameter cut by the end of a chunk, whole: see
``engines.xml_params``). A missing ``</tool_call>`` before ``</tool_calls>`` still ends the call.
A call with an empty name is text.

Hunyuan-A13B (vLLM ``hunyuan_a13b``) writes JSON calls in a ``<tool_calls>`` block like
HY's, without a suffix, read by the JSON-call engine (``engines.json_calls``)::

    text* ( '<tool_calls>' ws* body ws* '</tool_calls>' text* )*
    body  := calls | '[' ws* calls? ws* ']'
    calls := call (ws* [,;]? ws* call)*
    call  := {"name": string, "arguments" | "parameters": object | string}  # any key order

Its arguments are streamed verbatim; it holds back a partial ``<tool_calls>`` in text and a
partial ``</tool_calls>`` after the calls.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from streamcall.formats.engines.json_calls import JsonCallsParser
from streamcall.formats.engines.xml_params import XmlParamsParser

# A call's name, its blanks around it left out: runs of non-blanks, and blanks that a
# non-blank follows (possessive: a run of blanks costs its length)
_NAME = r"(?P<name>(?:[^<\s]++|\s++(?=[^<\s]))*+)"


class _HunyuanParser(XmlParamsParser):
    """What HY v3 and v4 share: the markers, built for one suffix."""

    #: v3's separator after the name (None: v4, where the name ends at the next ``<``)
    SEP: ClassVar[str | None] = None
    MARKER_SUFFIX = re.compile(r"(?P<suffix>:[^\s<>]{0,64})?(?P<close>>)?")
    _suffix = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, value in cls._markers("").items():  # the markers without a suffix
            setattr(cls, name, value)

    @classmethod
    def _markers(cls, sfx: str) -> dict[str, Any]:
        esc = re.escape(sfx)
        if cls.SEP is None:
            header = re.compile(rf"\s*+{_NAME}\s*+(?=<)")
        else:
            header = re.compile(rf"\s*+{_NAME}\s*+<{re.escape(cls.SEP)}{esc}>")
        return {
            "BLOCK_OPEN": f"<tool_calls{sfx}>",
            "BLOCK_CLOSE": f"</tool_calls{sfx}>",
            "CALL_OPEN": (f"<tool_call{sfx}>",),
            "CALL_HEADER": header,
            "CALL_CLOSE": f"</tool_call{sfx}>",
            "PARAM_OPEN": (f"<arg_key{sfx}>",),
            "PARAM_HEADER": re.compile(rf"(?P<key>[^<]*)</arg_key{esc}>\s*<arg_value{esc}>"),
            "PARAM_CLOSE": f"</arg_value{sfx}>",
        }

    def _use_suffix(self, suffix: str) -> None:
        if suffix == self._suffix:
            return
        self._suffix = suffix
        for name, value in self._markers(suffix).items():
            setattr(self, name, value)
        self._setup_markers()

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        sep = f"<{cls.SEP}>" if cls.SEP is not None else ""
        body = "".join(
            f"<tool_call>{name}{sep}"
            + "".join(
                f"<arg_key>{k}</arg_key><arg_value>{cls.raw_value(v)}</arg_value>"
                for k, v in args.items()
            )
            + "</tool_call>"
            for name, args in calls
        )
        return f"<tool_calls>{body}</tool_calls>"


class HunyuanV3Parser(_HunyuanParser):
    names = ("hy_v3",)
    family = "Tencent HY v3"
    vllm_differences = (
        "Streams string values while they are written and non-string values as soon as "
        "they close (vLLM re-runs its regexes over the buffered block each delta); needs "
        "no tokenizer: the marker suffix is read from the text; text after the calls is "
        "kept as content (vLLM's one-shot path returns only the text before them)."
    )
    SEP = "tool_sep"


class HunyuanV4Parser(_HunyuanParser):
    names = ("hy_v4",)
    family = "Tencent HY v4"
    vllm_differences = (
        "Streams string values while they are written and non-string values as soon as "
        "they close; needs no tokenizer: the marker suffix is read from the text. "
        "Lenient where vLLM's strict mode returns the whole output as content: a missing "
        "</tool_call> or </tool_calls> still ends the call, and junk after a parameter "
        "ends the call incomplete (the junk is text); text after the calls is kept as "
        "content (vLLM's one-shot path returns only the text before them)."
    )


class HunyuanA13BParser(JsonCallsParser):
    names = ("hunyuan_a13b",)
    family = "tencent Hunyuan-A13B"
    vllm_differences = (
        "Streams arguments verbatim without re-parsing the buffer each delta (vLLM: a "
        "regex over the whole text each delta); text after the calls is kept as content "
        "(vLLM's one-shot path returns only the text before them)."
    )
    START = ("<tool_calls>",)
    END = "</tool_calls>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        objects = (json.dumps({"name": n, "arguments": a}, ensure_ascii=False) for n, a in calls)
        return f"<tool_calls>[{', '.join(objects)}]</tool_calls>"


FORMATS = (HunyuanV3Parser, HunyuanV4Parser, HunyuanA13BParser)
