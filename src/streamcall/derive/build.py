"""A derived syntax made a parser: the engine's configuration a format file would write.

Each layout is one engine (``calls.py``'s table); a derived format is a subclass of it
whose class attributes are the markers found, exactly as ``formats/hermes.py`` or
``formats/deepseek.py`` declare theirs, so the grammar, the hold-back rules and linear
time are the engine's. Nothing here reads text, but for the one hook a header with a call
id or index in it needs (``_header``, a regex over the header once it is complete, as
``formats/kimi.py``'s and ``formats/solar_open.py``'s own).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import Any

from streamcall.derive.calls import CallSyntax
from streamcall.formats.engines.base import ToolParser
from streamcall.formats.engines.header_json import HeaderJsonParser
from streamcall.formats.engines.json_calls import BARE_AT_START, JsonCallsParser
from streamcall.formats.engines.py_calls import PythonicCallsParser
from streamcall.formats.engines.xml_params import XmlParamsParser
from streamcall.formats.gemma4 import GemmaFourParser
from streamcall.reasoning._engine import ReasoningSpec

__all__ = ["DERIVED", "parser_class", "reasoning_spec"]

#: the format name a derived parser answers to
DERIVED = "derived"
_NAMES = (DERIVED,)
_FAMILY = "derived from the checkpoint's chat template"


def parser_class(syntax: CallSyntax) -> type[ToolParser]:
    """The engine subclass configured by ``syntax``."""
    attrs: dict[str, Any] = {"names": _NAMES, "family": _FAMILY}
    base: type[ToolParser]
    block_open, block_close = syntax.block
    call_open, call_close = syntax.call
    if syntax.layout == "json":
        base = JsonCallsParser
        start = call_open or block_open
        attrs.update(
            START=(start,) if start else (),
            END=(call_close or block_close) or None,
            NAME_KEYS=(syntax.name_key,),
            ARGS_KEYS=(syntax.args_key,),
            ID_KEYS=(syntax.id_key,) if syntax.id_key else (),
        )
        if not start:  # no marker: the calls (or their list) open the output
            attrs.update(BARE=BARE_AT_START, ARRAY=syntax.listed)
        if syntax.name_as_key:  # {"NAME": {...}}: the engine reads the one key as the name
            attrs.update(NAME_AS_KEY=True, NAME_KEYS=(), ARGS_KEYS=())
    elif syntax.layout == "gemma":
        base = GemmaFourParser
        attrs.update(START=call_open, END=call_close, QUOTE=syntax.quote)
    elif syntax.layout == "pythonic":
        base = PythonicCallsParser
        if block_open:
            attrs.update(START=(block_open,), END=block_close or None)
        else:
            attrs.update(LIST_AT_START=True, WHOLE_OUTPUT=True)
    elif syntax.layout == "header_json":
        base = HeaderJsonParser
        attrs.update(
            SECTION_START=(block_open,) if block_open else (),
            SECTION_END=block_close or None,
            CALL_START=call_open or None,
            CALL_OPENS_SECTION=bool(call_open),
            HEADER_END=(syntax.name_end,) if syntax.name_end else (),
            HEADER_BRACE=not syntax.name_end,
            ARGS_SUFFIX=syntax.args_suffix or None,
            CALL_END=call_close or None,
        )
        if any(syntax.header):
            attrs["_header"] = _slotted_header(*syntax.header)
    elif syntax.layout == "xml_params":
        base = XmlParamsParser
        attrs.update(_xml_attrs(syntax))
    else:
        raise ValueError(f"no engine reads the layout {syntax.layout!r}")
    return type("DerivedParser", (base,), attrs)


#: what a slot of a header matches: the model's call id (no blank, no marker's bracket),
#: the call's number
_SLOTS = {"id": r"[^\s<>\[\]|]+?", "index": r"[0-9]+"}


def _slotted_header(
    prefix: str, suffix: str
) -> Callable[[Any, str], tuple[str, str | None] | None]:
    """``HeaderJsonParser._header`` for a header with an id or an index around the name
    (``CallSyntax.header``): the header must be the prefix, a name, the suffix, whole;
    a written id is the call's id (an index is not: it counts the calls of one turn)."""
    parts = [_format_regex(prefix), r"(?P<name>\w[\w.:\-/]*?)", _format_regex(suffix)]
    pattern = re.compile(r"\s*+" + "".join(parts) + r"\s*+")

    def header(self: Any, text: str) -> tuple[str, str | None] | None:
        m = pattern.fullmatch(text)
        if m is None:
            return None
        return m.group("name"), m.groupdict().get("id")

    return header


def _format_regex(text: str, literal_regex: Callable[[str], str] = re.escape) -> str:
    """A regex for ``CallSyntax.header``'s side: its literal text as ``literal_regex``
    matches it (as written), its slots as ``_SLOTS`` match them (an id named ``id``,
    once)."""
    out = []
    named = False
    for literal, field_name, _spec, _conversion in string.Formatter().parse(text):
        out.append(literal_regex(literal))
        if field_name is None:
            continue
        pattern = _SLOTS[field_name]
        if field_name == "id" and not named:
            out.append(f"(?P<id>{pattern})")
            named = True
        else:
            out.append(f"(?:{pattern})")
    return "".join(out)


def _xml_attrs(syntax: CallSyntax) -> dict[str, Any]:
    popen, mid, pclose = syntax.param
    end = syntax.name_end
    suffix = syntax.header[1]  # the call's number after the name (Kimi K3's index="1")
    if end:
        # the name runs up to the first character of what follows it (never across a tag
        # or a line)
        stop = re.escape((suffix or end)[0])
        slots = _format_regex(suffix, _edged_blanks) if suffix else ""
        header = re.compile(rf"\s*+(?P<name>[^<>\s{stop}]++)\s*+{slots}{_blanks(end)}")
        no_header = None
    else:
        # the name ends at its line's end or at the next tag (GLM's form)
        header = re.compile(
            r"\s*+(?P<name>[^<\s](?:[^<\s]++|[^\S\n]++(?=[^<\s]))*+)[^\S\n]*+(?:\n|(?=<))"
        )
        no_header = re.compile(r"\s*<")
    stop = re.escape(mid[0])
    before, said, json_said = syntax.type_flag
    typed_before, typed_after = syntax.type_attr
    if said:
        # DSML's ``string="true"``: the engine's ``string`` group, read as DSML's
        after = mid[len(before) + len(said) :]
        flag = rf"{_blanks(before)}(?P<string>{re.escape(said)}|{re.escape(json_said)})"
        param_header = re.compile(rf"(?P<key>[^<>\n{stop}]*+){flag}{_blanks(after)}")
    elif typed_before:
        # Kimi K3's ``type="number"``: the engine's ``type`` group, a type the model wrote
        kind = rf"{_blanks(typed_before)}(?P<type>[A-Za-z]++){_blanks(typed_after)}"
        param_header = re.compile(rf"(?P<key>[^<>\n{stop}]*+){kind}")
    else:
        param_header = re.compile(rf"(?P<key>[^<>\n{stop}]*+){_blanks(mid)}")
    return {
        "BLOCK_OPEN": syntax.block[0] or None,
        "BLOCK_CLOSE": syntax.block[1] or None,
        "BARE_CALLS": bool(syntax.block[0]),
        "CALL_OPEN": (syntax.call[0],),
        "CALL_HEADER": header,
        "NO_HEADER": no_header,
        "CALL_CLOSE": syntax.call[1],
        "PARAM_OPEN": (popen,),
        "PARAM_HEADER": param_header,
        "PARAM_CLOSE": pclose,
        "STRIP_NEWLINES": syntax.value_newlines,
    }


def _blanks(literal: str) -> str:
    """A regex for ``literal`` whose runs of blanks match any run of blanks."""
    return r"\s*+".join(re.escape(part) for part in literal.split())


def _edged_blanks(literal: str) -> str:
    """``_blanks``, where blanks at the literal's edges match any run of blanks too (a
    literal beside a slot)."""
    return r"\s*+".join(re.escape(part) for part in re.split(r"\s+", literal))


def reasoning_spec(start: str, end: str, opened: bool, prefix: str = "") -> ReasoningSpec:
    """The reasoning engine's row for markers read off a template (``prefix``: a fixed
    word after the start marker, dropped, as ``gemma4``'s ``thought\n``)."""
    return ReasoningSpec(
        DERIVED, family=_FAMILY, start=(start,), end=(end,), opened=opened, start_prefix=prefix
    )
