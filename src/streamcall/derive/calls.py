"""Where a template writes a call: its markers and the layout of its name and arguments.

Read off two renderings of the same conversation, with one call and with two parallel
calls whose arguments are the same and whose names differ in one stretch only
(``probes.calls``). In the two-call rendering, the two calls' texts are equal around
the names: stretching out from each name while both sides agree gives one call's text
(``left`` + NAME + ``right``), and what lies between the first call's end and the second's
start is the separator. Stretches that stop inside a marker token (``</think>`` and
``</tool_call>`` end alike) are cut back to the token's edge. The markers around the whole
block are what the call rendering writes at the turn's edges and the content rendering
(``probes.content``) does not.

Then the call's own text decides the layout, first match wins:

====================  ==============================================  ==================
layout                the call's text                                  engine
====================  ==============================================  ==================
``json``              OPEN ``{"NAMEKEY": NAME, "ARGSKEY": {...}}`` CLOSE   ``json_calls``
``gemma``             OPEN ``call:`` NAME ``{k:QUOTE v QUOTE,...}`` CLOSE  ``gemma4``'s
``pythonic``          ``[`` NAME ``(k=v, ...)`` ``]`` in block markers      ``py_calls``
``header_json``       OPEN NAME SEP ``{...}`` CLOSE                        ``header_json``
``xml_params``        OPEN NAME END (POPEN KEY MID VALUE PCLOSE)* CLOSE     ``xml_params``
====================  ==============================================  ==================

In ``xml_params``, MID may carry a type flag: where the string parameter's MID and every
other parameter's differ in one word (DSML's ``" string="true">`` against
``" string="false">``), that word is the flag (``true`` on a raw string, ``false`` on a JSON
value: the values the engine reads; others are refused), read by the engine's ``string``
group.

Anything else is refused with the reason: a call with no markup around it is prose; markup
that fits none of the rows is a grammar beyond the engines. The reader never guesses a
marker it did not see: the syntax it returns is checked afterwards by parsing the
template's own rendering back (``derive.derive``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from streamcall.derive.probes import (
    ARGS,
    CONTENT,
    NAMES,
    NEXT,
    RESULT,
    USER,
    Probes,
    common_prefix,
    common_suffix,
    marker_after,
    marker_before,
)

__all__ = ["CallSyntax", "Refusal", "Sample", "cut_left", "marker_token", "read_calls"]

_DECODER = json.JSONDecoder()
_SPLIT = re.compile(r"(?<=>)\s*(?=<)|\s*\n\s*")
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
    #: ``xml_params``: a type flag in the parameter's header (DSML's ``string="true"``):
    #: what precedes its value there, its value on a string, its value on a JSON value
    #: (``param[1]`` is the header as a string parameter writes it); ``("", "", "")``: none
    type_flag: tuple[str, str, str] = ("", "", "")


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


def read_calls(probes: Probes, ignore: tuple[str, ...] = ()) -> tuple[CallSyntax, Sample] | Refusal:
    """The call syntax of the template the probes render (module docstring). ``ignore``:
    markers that are not the block's (the reasoning markers, an empty block of which a
    template may write before the calls)."""
    two, one, plain = probes.calls(2), probes.calls(1), probes.content()
    if one is None:
        said = f" ({probes.failure})" if probes.failure else ""
        return Refusal(
            "unknown", f"the template fails to render an assistant turn with calls{said}"
        )
    if two is None:
        return Refusal(
            "unknown",
            "the template renders one call but fails on two parallel ones, so a call's "
            "markers cannot be told from the turn's",
        )
    u2, u1 = two.find(USER), one.find(USER)
    if u2 < 0 or u1 < 0:
        return Refusal("unknown", "the template does not render the user's message")
    p1, p2 = two.find(NAMES[0], u2), two.find(NAMES[1], u2)
    if p1 < 0:
        return Refusal("no-tools", "the template does not render tool calls")
    if p2 < 0:
        return Refusal("beyond", "the template renders one call of two parallel ones")
    n = len(NAMES[0])
    e1 = p1 + n
    k = 0  # the left stretch: two[p1-k:p1] == two[p2-k:p2]
    while p1 - k - 1 > u2 and p2 - k - 1 >= e1 and two[p1 - k - 1] == two[p2 - k - 1]:
        k += 1
    k = len(cut_left(two[p1 - k : p1]))
    m = 0  # the right stretch: two[e1:e1+m] == two[p2+n:p2+n+m]
    while e1 + m < p2 - k and p2 + n + m < len(two) and two[e1 + m] == two[p2 + n + m]:
        m += 1
    left, right = cut_left(two[p1 - k : p1]), _cut_right(two[e1 : e1 + m])
    separator = two[e1 + len(right) : p2 - len(left)]
    left, right = left.lstrip(), right.rstrip()
    if "zq_str" not in right or "zqstring" not in right:
        if "zqstring" in two[u2:]:
            return Refusal("beyond", "the template writes the arguments apart from the name")
        return Refusal("prose", "the template writes no arguments with the call")
    start, end = p1 - len(left), p2 + n + len(right)  # the block's calls, in ``two``
    prompt = probes.opening(None) or ""
    ignore = ("<think>", "</think>", *ignore)
    open_, close, listed, open_at, close_at = _block(two, u2, start, end, plain, prompt, ignore)
    sample = Sample(two[open_at:close_at])
    context = two[max(u2 + len(USER), start - 64) : start]  # what leads to the call
    syntax = _layout(left, right, open_, close, separator.strip(), listed, context)
    if isinstance(syntax, Refusal):
        return syntax
    return syntax, sample


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


def _block(
    two: str, u: int, start: int, end: int, plain: str | None, prompt: str, ignore: tuple[str, ...]
) -> tuple[str, str, bool, int, int]:
    """The markers around the block of calls ``two[start:end]``: what the call turn writes
    before and after its calls where the content turn writes its content's edges. A
    marker the generation prompt ends with is the prompt's, never the model's."""
    before = two[u + len(USER) : start]
    after_end = two.find(RESULT, end)
    after = two[end : after_end if after_end >= 0 else len(two)]
    if plain is not None and CONTENT in plain:
        c = plain.find(CONTENT)
        plain_before = plain[plain.find(USER) + len(USER) : c]
        n = plain.find(NEXT, c)
        plain_after = plain[c + len(CONTENT) : n if n >= 0 else len(plain)]
    else:
        plain_before = plain_after = ""
    common = common_prefix(before, plain_before)
    opening = before[common:].rstrip()
    listed = opening.endswith("[")
    if listed:
        opening = opening[:-1].rstrip()
    open_ = marker_before(opening) if opening.strip() else ""
    if open_ in ignore or (open_ and prompt.rstrip().endswith(open_)):
        open_ = ""
    open_at = start - (len(before) - len(before[: common + len(opening)].rstrip()))
    if open_:
        open_at = two.rfind(open_, u, start)
    closing = after.lstrip()
    if listed and closing.startswith("]"):
        closing = closing[1:].lstrip()
    common_after = after[: common_prefix(after, plain_after)]
    close = ""
    if not common_after.strip():
        eot = marker_after(plain_after)
        cut = closing.find(eot) if eot else -1
        candidate = closing[:cut] if cut >= 0 else ""
        close = marker_after(candidate) if candidate.strip() else ""
    close_at = end
    if listed:
        close_at = two.find("]", end) + 1
    if close:
        close_at = two.find(close, close_at) + len(close)
    return open_, close, listed, open_at, close_at


def _layout(
    left: str,
    right: str,
    open_: str,
    close: str,
    separator: str,
    listed: bool,
    context: str = "",
) -> CallSyntax | Refusal:
    name = NAMES[0]
    text = left + name + right
    lead = context + left
    marked = bool(open_ or close or _markup(lead) or _markup(right.split("zq_str")[0]))
    # -- json: the name inside a JSON object, beside the arguments ----------------------
    for i in _braces(left):
        try:
            obj, stop = _DECODER.raw_decode(text, i)
        except ValueError:
            continue
        if isinstance(obj, dict) and name in obj.values():
            name_key = next(k for k, v in obj.items() if v == name)
            args_key = next((k for k, v in obj.items() if _is_args(v)), None)
            if args_key is None:
                return Refusal("beyond", "a JSON call whose arguments are not one object")
            call = (left[:i].strip(), text[stop:].strip())
            if call[0] and open_:
                return Refusal("beyond", "JSON calls with markers around each and the block")
            if not (call[0] or open_):
                return Refusal("beyond", "JSON calls with no marker before them")
            return CallSyntax("json", (open_, close), call, separator, name_key, args_key, listed)
    # -- pythonic: NAME(key=value, ...) in a list ---------------------------------------
    if right.startswith("("):
        if left or not listed or right[right.rfind(")") + 1 :].strip():
            return Refusal("beyond", "Python calls outside a [...] list, or with markers each")
        return CallSyntax("pythonic", (open_, close), ("", ""), separator, listed=True)
    if not marked:
        return Refusal("prose", "the template writes calls as prose, with no markup")
    # -- gemma: call:NAME{key:value,...} with a quote token -------------------------------
    if left.endswith("call:") and right.startswith("{"):
        q = right.find("zq_str:")
        s = right.find("zqstring")
        quote = right[q + len("zq_str:") : s] if 0 <= q < s else ""
        shut = right[right.rfind("}") + 1 :].strip()
        start = left[: -len("call:")].strip()
        if not (quote and start and shut) or open_ or close:
            return Refusal("beyond", "call:NAME{...} without its quote token or markers")
        return CallSyntax("gemma", ("", ""), (start, shut), separator, quote=quote)
    if not (open_ or _markup(lead)):
        return Refusal("prose", "the template writes calls as prose, with no marker before them")
    if not (open_ or _markup(left)):
        return Refusal("beyond", "what stands before a call's name is not one marker")
    # -- header_json: NAME, a separator, then the arguments as a JSON object --------------
    brace = right.find("{")
    if brace >= 0 and not re.search(r"zq_str", right[:brace]):
        try:
            obj, stop = _DECODER.raw_decode(right, brace)
        except ValueError:
            obj = None
        if obj == ARGS:
            rest = right[stop:].split()
            if len(rest) > 2 or listed or (not left and not open_):
                return Refusal("beyond", "special-token calls with more than one closer")
            suffix, shut = (rest[0], rest[1]) if len(rest) == 2 else ("", "".join(rest))
            return CallSyntax(
                "header_json",
                (open_, close),
                (left, shut),
                separator,
                name_end=right[:brace].strip(),
                args_suffix=suffix,
            )
    # -- xml_params: tagged parameters, each value raw ------------------------------------
    return _xml(left, right, open_, close, separator)


def _xml(left: str, right: str, open_: str, close: str, separator: str) -> CallSyntax | Refusal:
    k1, v1, k2 = right.find("zq_str"), right.find("zqstring"), right.find("zq_int")
    if not 0 <= k1 < v1 < k2:
        return Refusal("beyond", "parameters in an order or form the engines do not read")
    if right[v1 - 1] in "\"'":
        return Refusal("beyond", "tagged parameters whose string values are quoted")
    pre_key, mid, rest = (
        right[:k1],
        right[k1 + len("zq_str") : v1],
        right[v1 + len("zqstring") : k2],
    )
    popen = cut_left(pre_key[len(pre_key) - common_suffix(pre_key, rest) :])
    name_end = pre_key[: len(pre_key) - len(popen)].strip()
    pclose = rest[: len(rest) - len(popen)].strip()
    popen = popen.strip()
    if "zq_str" in pclose:
        return Refusal(
            "beyond",
            "parameters written as elements named by their key (<KEY>value</KEY>, as "
            "MiniMax-M3 writes them, nesting elements for lists and objects): no "
            "configurable engine reads that",
        )
    if not (popen and mid.strip() and pclose) or any(c.isspace() for c in pclose):
        return Refusal("beyond", "parameters without an opener, a separator and a closer")
    last = right.rfind(pclose)
    tail = right[last + len(pclose) :].split()
    tokens = [t for t in _SPLIT.split(left) if t]
    if not tokens or len(tokens) > 2 or len(tail) != len(tokens):
        return Refusal("beyond", "call markers the engines do not pair")
    if not all(marker_token(t) for t in (*tokens, *tail, popen, pclose)):
        return Refusal("beyond", "call markers that hold the call's own text")
    wrapper = (tokens[0], tail[1]) if len(tokens) == 2 else ("", "")
    if wrapper[0] and open_:
        return Refusal("beyond", "a marker around each call and another around the block")
    newlines = mid.endswith("\n") and rest.startswith("\n")
    flag = _type_flag(right, mid.strip())
    if isinstance(flag, Refusal):
        return flag
    return CallSyntax(
        "xml_params",
        wrapper if wrapper[0] else (open_, close),
        (tokens[-1], tail[0]),
        separator,
        name_end=name_end,
        param=(popen, mid.strip(), pclose),
        value_newlines=newlines,
        each=bool(wrapper[0]),
        type_flag=flag,
    )


#: a parameter's value as the template writes it, for each non-string probe argument
_JSON_VALUES = {
    "zq_int": ("4217",),
    "zq_float": ("2.5",),
    "zq_bool": ("true", "True"),
    "zq_null": ("null", "None"),
    "zq_list": ("[",),
    "zq_obj": ("{",),
}
#: the values a type flag takes, for a string and for JSON: the ones the engine reads
_FLAG_VALUES = ("true", "false")


def _type_flag(right: str, mid: str) -> tuple[str, str, str] | Refusal:
    """A type flag in the parameter headers (DSML's ``name="k" string="true">``): the part
    of the header between key and value where the string parameter's header differs from
    every other's, widened to whole words; ``("", "", "")`` when the headers agree, or when
    they show no one flag (the check then has the last word)."""
    heads: set[str] = set()
    for key, values in _JSON_VALUES.items():
        k = right.find(key)
        at = min((i for v in values if (i := right.find(v, k + len(key))) >= 0), default=-1)
        if k < 0 or at < 0:
            return ("", "", "")  # not a flag's layout: the check has the last word
        heads.add(right[k + len(key) : at].strip())
    if len(heads) != 1 or mid in heads:
        return ("", "", "")
    json_mid = heads.pop()
    p = common_prefix(mid, json_mid)
    s = min(common_suffix(mid, json_mid), len(mid) - p, len(json_mid) - p)
    while p and mid[p - 1].isalnum():
        p -= 1
    while s and mid[len(mid) - s].isalnum():
        s -= 1
    said, json_said = mid[p : len(mid) - s], json_mid[p : len(json_mid) - s]
    if (said, json_said) != _FLAG_VALUES:
        return Refusal(
            "beyond",
            f"a type flag in the parameter headers ({said!r} on a string, {json_said!r} "
            f"on JSON) other than {_FLAG_VALUES[0]!r}/{_FLAG_VALUES[1]!r}",
        )
    return (mid[:p], said, json_said)


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
