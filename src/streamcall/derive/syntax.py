"""The derived call syntax as data (``CallSyntax``, ``Refusal``, ``Sample``), and the small
reads of a rendering the other ``derive`` modules share: where a marker token starts and
ends (``cut_left``, ``_cut_right``, ``marker_token``), where a JSON object holding the name
may start (``_braces``), and whether text is markup (``_markup``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from streamcall.derive.probes import ARGS

__all__ = ["CallSyntax", "Refusal", "Sample", "cut_left", "marker_token"]

_DECODER = json.JSONDecoder()


#: the longest marker the reader takes (the engines' markers are a few characters)
_MAX_MARKER = 64


_JSON_HEAD = re.compile(r'\{\s*"[^"\\]{1,64}"\s*:\s*"?\Z')


@dataclass(frozen=True, slots=True)
class CallSyntax:
    """How a template writes tool calls: markers and layout, as data."""

    #: ``json``, ``gemma``, ``pythonic``, ``header_json`` or ``xml_params`` (module table)
    layout: str
    #: the markers around a block of calls (``''`` where there is none)
    block: tuple[str, str]
    #: the markers around one call (``''`` where there is none)
    call: tuple[str, str]
    #: what stands between two parallel calls (blanks aside; ``''``: nothing)
    separator: str
    #: ``json``: the keys of the name and of the arguments
    name_key: str = ""
    args_key: str = ""
    #: the calls of a block are written in a list (``[...]``)
    listed: bool = False
    #: ``header_json``: between the name and the arguments; ``xml_params``: after the name
    name_end: str = ""
    #: ``xml_params``: before a key, between a key and its value, after a value
    param: tuple[str, str, str] = ("", "", "")
    #: ``xml_params``: a value is framed by newlines (``<p>\\nVALUE\\n</p>``)
    value_newlines: bool = False
    #: ``header_json``: between the arguments and the call's closer (a fence's end)
    args_suffix: str = ""
    #: ``gemma``: the token that quotes string values
    quote: str = ""
    #: ``xml_params``: the block markers are written around each call (Qwen's
    #: ``<tool_call>`` around ``<function=...>``), not once around the calls
    each: bool = False
    #: ``json``: the key whose value is the model's call id (Cohere's ``tool_call_id``)
    id_key: str = ""
    #: ``header_json``: what the header writes before and after the name (between the
    #: call's opener and ``name_end``) besides it: the model's call id (``{id}``) or the
    #: call's number (``{index}``), between literal text (braces doubled, as for
    #: ``str.format``): Kimi K2's ``functions.NAME:{index}``, Mistral's
    #: ``NAME[CALL_ID]{id}``; ``xml_params``: after the name only, the call's number
    #: alone (Kimi K3's ``tool="NAME" index="{index}"``)
    header: tuple[str, str] = ("", "")
    #: ``xml_params``: a type flag in the parameter's header (DSML's ``string="true"``):
    #: what precedes its value there, its value on a string, its value on a JSON value
    #: (``param[1]`` is the header as a string parameter writes it); ``("", "", "")``: none
    type_flag: tuple[str, str, str] = ("", "", "")
    #: ``xml_params``: a type attribute in the parameter's header whose value names the
    #: value's JSON Schema type (Kimi K3's ``type="number"``): what precedes and follows the
    #: type's name there (``param[1]`` is the header as a string parameter writes it,
    #: ``string`` between the two); ``("", "")``: none
    type_attr: tuple[str, str] = ("", "")
    #: the template renders one call per assistant turn, failing on two parallel ones
    #: (Llama 3.1's JSON templates) or dropping the second: read off single calls, and
    #: checked on one
    single: bool = False
    #: ``json``: the name is the object's one key, the arguments its value
    #: (``{"NAME": {...}}``, Apertus); ``name_key`` and ``args_key`` are then ''
    name_as_key: bool = False


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why no parser is derived: ``kind`` is ``no-tools``, ``prose``, ``beyond`` or
    ``unknown`` (cannot tell), ``why`` says it in words."""

    kind: str
    why: str


@dataclass(frozen=True, slots=True)
class Sample:
    """The model text a template renders for the probe calls: what a derived parser must
    read back (``text``: the block of the two calls, markers included)."""

    text: str


#: a marker token: ``<...>`` with no blank or bracket inside
_TOKEN = re.compile(r"<[^<>\s]{1,62}>")


def cut_left(text: str) -> str:
    """``text`` from its first whole marker token on: a ``>`` before any ``<`` ends the
    tail of a token cut in two, which belongs to the text before."""
    lt, gt = text.find("<"), text.find(">")
    if gt >= 0 and (lt < 0 or gt < lt):
        return text[gt + 1 :]
    return text


def _cut_right(text: str) -> str:
    """``text`` up to its last whole marker token: a ``<`` after the last ``>`` starts a
    token cut in two (the next call's opener, or the turn's end)."""
    lt, gt = text.rfind("<"), text.rfind(">")
    if lt > gt:
        return text[:lt]
    return text


def marker_token(marker: str) -> bool:
    """Whether ``marker`` can be a marker: short, and holding none of the probe's text (a
    stretch that runs over a name, a key or a value is the call, not its markup)."""
    return len(marker) <= _MAX_MARKER and "zq" not in marker


def _braces(left: str) -> list[int]:
    """Where a JSON object holding the name may start: each ``{`` of ``left``, last first,
    that opens a key (``{"name": "``), or any ``{`` when the name comes later."""
    out = [i for i in range(len(left) - 1, -1, -1) if left[i] == "{"]
    return [i for i in out if _JSON_HEAD.match(left, i) or i < left.rfind(",")][:8]


def _is_args(value: Any) -> bool:
    if value == ARGS:
        return True
    if isinstance(value, str):
        try:
            return bool(json.loads(value) == ARGS)
        except ValueError:
            return False
    return False


def _markup(text: str) -> bool:
    """Whether ``text`` holds a character of markup (neither a word character nor blank,
    nor the punctuation of prose)."""
    return any(not (c.isalnum() or c.isspace() or c in ".,;:!?'\"-_()") for c in text)
