"""StepFun Step-3 (steptml), Step-3.5 and Step-5 (Qwen3-Coder style).

Step-3 grammar (vLLM ``step3``)::

    text* ( '<｜tool_calls_begin｜>' ws* ( wrapper | call )* '<｜tool_calls_end｜>' text* )*
    wrapper := '<｜tool_call_begin｜>' | 'function<｜tool_sep｜>' NAME? '\n'? | '<｜tool_sep｜>'
             | '<｜tool_call_end｜>'
    call    := '<steptml:invoke name="' NAME '">' param* '</steptml:invoke>'
    param   := '<steptml:parameter name="' KEY '">' value '</steptml:parameter>' ws*

The per-call wrappers are skipped between calls. Values sit inline, so their whitespace
(newlines included) is data and kept, as vLLM keeps it. Step-3.5 (``step3p5``) writes
Qwen3-Coder's ``<tool_call><function=f><parameter=k>`` and also the
``<function name="f">``/``<parameter name="k">`` spelling; both are accepted. Step-5
(``step5``) writes Qwen3-Coder's XML exactly (``qwen3.py``): vLLM's ``step5`` is its
``qwen3_coder`` configuration with the text around the calls kept byte-exact, which is
what ``qwen3_coder`` here does anyway (whitespace-only text before a block included; the
one newline after a value's opening tag and before its closer is framing).

Values are typed by the tool schema (see ``schema.py``); string values stream as they
are written. Holds back a partial block marker in text, a header until its ``>``, and a
partial closer inside a value (and a short parameter cut by the end of a chunk, whole:
see ``engines.xml_params``).
"""

from __future__ import annotations

import re
from typing import Any

from streamcall.formats.engines.base import Tools
from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.qwen3 import QwenCoderParser


class Step3Parser(XmlParamsParser):
    names = ("step3",)
    family = "StepFun Step-3 (steptml)"
    vllm_differences = (
        "Streams string parameters while they are written and other values as soon as "
        "they close (vLLM re-runs its regexes over the text each delta); text after the "
        "calls is kept as content as written (vLLM joins the text before and after them "
        "and strips it)."
    )
    BLOCK_OPEN = "<｜tool_calls_begin｜>"
    BLOCK_CLOSE = "<｜tool_calls_end｜>"
    IGNORE = (
        "<｜tool_call_begin｜>",
        "function<｜tool_sep｜>",
        "<｜tool_call_end｜>",
        "<｜tool_sep｜>",
    )
    BLOCK_SKIP = re.compile(r"function<｜tool_sep｜>[^<\n]{0,256}\n?")
    STRIP_NEWLINES = False
    CALL_OPEN = ("<steptml:invoke name=",)
    CALL_HEADER = re.compile(r'\s*"(?P<name>[^"]*)"\s*>')
    CALL_CLOSE = "</steptml:invoke>"
    PARAM_OPEN = ("<steptml:parameter name=",)
    PARAM_HEADER = re.compile(r'\s*"(?P<key>[^"]*)"\s*>')
    PARAM_CLOSE = "</steptml:parameter>"

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        body = "".join(
            f'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{name}">'
            + "".join(
                f'<steptml:parameter name="{k}">{cls.raw_value(v)}</steptml:parameter>'
                for k, v in args.items()
            )
            + "</steptml:invoke><｜tool_call_end｜>"
            for name, args in calls
        )
        return f"<｜tool_calls_begin｜>{body}<｜tool_calls_end｜>"


class Step3p5Parser(QwenCoderParser):
    names = ("step3p5",)
    family = "StepFun Step-3.5 (Qwen3-Coder style, both name spellings)"
    vllm_differences = QwenCoderParser.vllm_differences + (
        " Step-3.5's slips are repaired where the model clearly meant a call (as SGLang's "
        "Step3p5Detector does): a missing '>' before a newline, '<parameter=parameter=', "
        "and '<function NAME>' or '<functionNAME>' for a tool in the tools list."
    )
    # A header's '>' may be missing when a newline ends it: before the next tag in a
    # function header, before the value in a parameter header. The newline is a
    # terminator only once what follows it shows that no '>' is coming (a bounded
    # lookahead, so a cut after the newline holds the header instead of deciding).
    CALL_HEADER = re.compile(r'(?P<name>[^"<>\n]*+)"?(?:\s*+>|\n(?=\s*+<))')
    PARAM_HEADER = re.compile(r'(?:parameter=)*+(?P<key>[^"<>\n]*+)"?(?:\s*+>|\n(?=\s*+[^\s>]))')
    _NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        # '<function bash>' and '<functionbash>' (the '=' left out) open a call only for
        # a tool the request declares: the opener carries the name.
        standard = type(self).CALL_OPEN
        named: dict[str, str] = {}
        for tool in self.tools:
            fn = tool.get("function", tool) if isinstance(tool, dict) else None
            name = fn.get("name") if isinstance(fn, dict) else None
            if not isinstance(name, str) or not self._NAME.fullmatch(name):
                continue
            for opener in (f"<function {name}", f"<function{name}"):
                if not any(o.startswith(opener) or opener.startswith(o) for o in standard):
                    named[opener] = name
        self._named_openers = named
        if named:
            setattr(self, "CALL_OPEN", (*standard, *named))  # noqa: B010 (a ClassVar)
            self._setup_markers()
            self._setup_text_finder()

    def _call_name(self, m: re.Match[str]) -> str:
        name = m.group("name").strip()
        known = self._named_openers.get(self._opener)
        if known is None:
            return name
        # The rest of a named opener's header must be empty, or complete a longer tool
        # name ('<functionbash2>' read through the opener '<functionbash').
        full = known + name
        return full if f"<function{full}" in self._named_openers else ""

    @classmethod
    def render(cls, calls: list[tuple[str, dict[str, Any]]]) -> str:
        out = []
        for name, args in calls:
            params = "".join(
                f'<parameter name="{k}">\n{cls.raw_value(v)}\n</parameter>\n'
                for k, v in args.items()
            )
            out.append(f'<tool_call>\n<function name="{name}">\n{params}</function>\n</tool_call>')
        return "".join(out)


class Step5Parser(QwenCoderParser):
    names = ("step5",)
    family = "StepFun Step-5 (Qwen3-Coder XML)"
    vllm_differences = QwenCoderParser.vllm_differences + (
        " The text around the calls is kept byte-exact, whitespace-only text included, "
        "which is what vLLM's step5 configuration asks for (its 0.33 one-shot path still "
        "drops whitespace-only content and the text after a call)."
    )


FORMATS = (Step3Parser, Step3p5Parser, Step5Parser)
