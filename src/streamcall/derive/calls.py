"""Where a template writes a call: its markers and the layout of its name and arguments.

Read off two renderings of the same conversation, with one call and with two parallel
calls whose arguments are the same and whose names differ in one stretch only
(``probes.calls``). In the two-call rendering, the two calls' texts are equal around
the names: stretching out from each name while both sides agree gives one call's text
(``left`` + NAME + ``right``), and what lies between the first call's end and the second's
start is the separator. Stretches that stop inside a marker token (``</think>`` and
``</tool_call>`` end alike) are cut back to the token's edge; a token both stretches take
(where every tag closes on one token, Kimi K3's ``<|close|>call<|sep|><|open|>call``) ends
the first call, not the second, and the block's markers are then whole tags
(``<|open|>tools<|sep|>``), not that token. A call id or index the
template writes agrees too, as a slot: the probe's ids (``probes.IDS``) where the second
call writes the second, or a digit one more in the second call (Kimi K2's
``functions.NAME:0``); the layout then says where it stands. The markers around the whole
block are what the call rendering writes at the turn's edges and the content rendering
(``probes.content``) does not, where the two turns part at a whole token; where the call
turn ends with other tokens than the content turn, its first is the block's closer
(Cohere's ``<|END_ACTION|>``). A block opened by a short line and a code fence instead of
a token (Command R+'s ``Action:\n```json``) has that text as its opener.
(``probes.content``) does not: a token, or a word written right before the block's list
(Firefunction's ``functools[``); after the block, the token before the turn's end token,
or, after a list where the turn goes on with no end token of its own, a token that pairs
with the opener (``<|tools_prefix|>`` … ``<|tools_suffix|>``, Apertus).

A template that renders one call per turn, failing on two (Llama 3.1's JSON templates) or
dropping the second (GigaChat 3's), is read off its single call (``_read_single``): the
call is what the call turn writes where the content turn writes its content, up to the
token that ends the content turn, and the same call under the other name
(``probes.second``) must differ at the name alone; the syntax is marked ``single`` and
checked on that one call.

Then the call's own text decides the layout, first match wins:

====================  ==============================================  ==================
layout                the call's text                                  engine
====================  ==============================================  ==================
``json``              OPEN ``{"NAMEKEY": NAME, "ARGSKEY": {...}}`` CLOSE   ``json_calls``
``json``              OPEN ``{"NAME": {...}}`` CLOSE (``name_as_key``)     ``json_calls``
``gemma``             OPEN ``call:`` NAME ``{k:QUOTE v QUOTE,...}`` CLOSE  ``gemma4``'s
``pythonic``          ``[`` NAME ``(k=v, ...)`` ``]`` in block markers      ``py_calls``
``header_json``       OPEN HEAD NAME TAIL SEP ``{...}`` CLOSE              ``header_json``
``xml_params``        OPEN NAME END (POPEN KEY MID VALUE PCLOSE)* CLOSE     ``xml_params``
====================  ==============================================  ==================

In a ``json`` call a slot is the value of one key (``id_key``: Mistral's ``"id"``,
Cohere's ``"tool_call_id"``); in a ``header_json`` call HEAD and TAIL hold the slots
(``header``: Solar Open's ``{id}<|tool_call:name|>`` before the name, Mistral's
``[CALL_ID]{id}`` and Kimi K2's ``:{index}`` after it), and OPEN and SEP are the markers
outside them; in an ``xml_params`` call, an index after the name, before END (Kimi K3's
``tool="NAME" index="{index}"<|sep|>``: ``header``'s second part). A slot anywhere else is
refused.

In ``xml_params``, MID may carry a type flag: where the string parameter's MID and every
other parameter's differ in one word (DSML's ``" string="true">`` against
``" string="false">``), that word is the flag (``true`` on a raw string, ``false`` on a JSON
value: the values the engine reads; others are refused), read by the engine's ``string``
group. Or MID may carry a type attribute: where each parameter's MID is the string
parameter's with the word ``string`` replaced by its value's JSON Schema type (Kimi K3's
``" type="string"<|sep|>`` against ``" type="number"<|sep|>``, ``"array"``...), what stands
around that word is ``type_attr``, read by the engine's ``type`` group (a typed schema
wins; an untyped one takes the written type). Headers that differ otherwise are refused.

JSON and Python calls may have no marker at all where they (or their list) open the
assistant's turn: the call turn writes before them what the content turn writes before its
content (Llama 3/4 JSON, xLAM, Llama 4 pythonic); the engine then reads them only at the
output's start (``BARE_AT_START``, ``LIST_AT_START``).

Anything else is refused with the reason: a call with no markup around it is prose; markup
that fits none of the rows is a grammar beyond the engines, and so is a rendering no parser
reads back, which is said as such (Python calls with string values unquoted or no ``,``
between the arguments; JSON calls whose arguments are a Python dict); a call whose name
the template writes twice (Muse Glimmer's message to the tool, ``to=NAME<|message|>``, with
the call in its body: the named ``muse_glimmer`` format reads that framing with tokens of
its own, which no engine takes as configuration) is refused with both places. The reader
never guesses a marker it did not see: the syntax it returns is checked afterwards by
parsing the template's own rendering back (``derive.derive``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from streamcall.derive.probes import (
    ARGS,
    CONTENT,
    IDS,
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
        return _read_single(probes, one, plain)
    u2, u1 = two.find(USER), one.find(USER)
    if u2 < 0 or u1 < 0:
        return Refusal("unknown", "the template does not render the user's message")
    p1, p2 = two.find(NAMES[0], u2), two.find(NAMES[1], u2)
    if p1 < 0:
        return Refusal("no-tools", "the template does not render tool calls")
    if p2 < 0 and two[u2:] == one[u1:]:  # it drops the calls after the first: one a turn
        single = _read_single(probes, one, plain)
        if not isinstance(single, Refusal):
            return single
    if p2 < 0:
        return Refusal("beyond", "the template renders one call of two parallel ones")
    n = len(NAMES[0])
    e1 = p1 + n
    k, m, slots = _stretch(two, u2, p1, p2, n)
    left, right = cut_left(two[p1 - k : p1]), _cut_right(two[e1 : e1 + m])
    separator = two[e1 + len(right) : p2 - len(left)]
    left, right = left.lstrip(), right.rstrip()
    if "zq_str" not in right or "zqstring" not in right:
        again = two.find(NAMES[0], e1)
        if 0 <= again < two.find("zqstring", e1):
            return _named_twice(two, u2, p1, again)
        if "zqstring" in two[u2:]:
            return Refusal("beyond", "the template writes the arguments apart from the name")
        return Refusal("prose", "the template writes no arguments with the call")
    start, end = p1 - len(left), p2 + n + len(right)  # the block's calls, in ``two``
    prompt = probes.opening(None) or ""
    ignore = ("<think>", "</think>", *ignore)
    shared = _shared_end(right)
    open_, close, listed, open_at, close_at = _block(
        two, u2, start, end, plain, prompt, ignore, shared
    )
    sample = Sample(two[open_at:close_at])
    context = two[max(u2 + len(USER), start - 64) : start]  # what leads to the call
    bare = _opens_turn(two, u2, open_at, plain)
    if left and not open_ and prompt.rstrip().endswith(left):
        # Functionary v3.2's ``>>>``: the prompt opens the first call, the output its name
        return Refusal(
            "beyond",
            f"the generation prompt writes the first call's marker "
            f"({marker_before(prompt) or left!r}): the output "
            "starts inside a call, with a name or a text header, which no engine is derived for",
        )
    syntax = _layout(left, right, open_, close, separator.strip(), listed, context, bare=bare)
    if isinstance(syntax, Refusal):
        return syntax
    if slots:
        syntax = _with_slots(syntax, left, right, _slots_in(slots, p1 - len(left), e1, right))
        if isinstance(syntax, Refusal):
            return syntax
    return syntax, sample


def _named_twice(two: str, u: int, first: int, again: int) -> Refusal:
    """The reason for a call whose name the template writes twice before its arguments
    (Muse Glimmer's message to the tool, ``<|start|>assistant to=NAME<|message|>``, then
    ``<atem:invoke name="NAME">`` in its body): what leads to each."""
    lead = cut_left(two[max(u + len(USER), first - 24) : first]).lstrip()
    lead_again = cut_left(two[max(first + len(NAMES[0]), again - 24) : again]).lstrip()
    return Refusal(
        "beyond",
        f"the template writes a call's name twice (after {lead!r}, then after "
        f"{lead_again!r}): each call a message addressed to the tool, whose header holds "
        "the name, with the call in its body: framing no configurable engine reads",
    )


# -- a call's id or index: where the two calls' texts differ besides the name ---------------

#: what stands for the call's id and for its index in ``CallSyntax.header``
ID_SLOT, INDEX_SLOT = "{id}", "{index}"


def _stretch(two: str, u: int, p1: int, p2: int, n: int) -> tuple[int, int, list[_Slot]]:
    """How far the two calls' texts agree left (``k``) and right (``m``) of their names
    (``two[p1-k:p1] == two[p2-k:p2]``, ``two[p1+n:p1+n+m] == two[p2+n:p2+n+m]``), and the
    slots on the way: an id (the probe's ``IDS``, written where the second call writes the
    second) or an index (a digit one more in the second call) agrees as a slot."""
    slots: list[_Slot] = []
    e1 = p1 + n
    k = 0
    while p1 - k - 1 > u and p2 - k - 1 >= e1:
        a = p1 - k - 1
        if two[a] != two[p2 - k - 1]:
            slot = _slot(two, a, p2 - p1)
            if slot is None or slot[0] <= u or slot[0] + p2 - p1 < e1:
                break
            slots.append(slot)
            k = p1 - slot[0]
            continue
        k += 1
    k = len(cut_left(two[p1 - k : p1]))
    m = 0
    while e1 + m < p2 - k and p2 + n + m < len(two):
        a = e1 + m
        if two[a] != two[p2 + n + m]:
            slot = _slot(two, a, p2 - p1)
            if slot is None or slot[1] > p2 - k or slot[1] + p2 - p1 > len(two):
                break
            slots.append(slot)
            m = slot[1] - e1
            continue
        m += 1
    # Both calls' texts agree on a token that ends the first call and opens the left
    # stretch of the second (Kimi K3's ``<|close|>call<|sep|><|open|>call``: every tag
    # closes on ``<|sep|>``): where the right stretch stopped at that token with a tag's
    # text left open (``<|close|>call``), the token closes it.
    lead = _TOKEN.match(two, p2 - k)
    tail = two[e1 : e1 + m]
    tail = tail[tail.rfind(">") + 1 :]
    if (
        lead is not None
        and e1 + m == p2 - k
        and tail.strip()
        and "<" not in tail
        and two.startswith(lead.group(), p2 + n + m)
    ):
        k -= len(lead.group())
        m += len(lead.group())
    return k, m, slots


#: a marker token: ``<...>`` with no blank or bracket inside
_TOKEN = re.compile(r"<[^<>\s]{1,62}>")


#: a slot: where it stands in the first call (start, end), and ``id`` or ``index``
_Slot = tuple[int, int, str]


def _slot(two: str, a: int, shift: int) -> _Slot | None:
    """The slot around ``two[a]``, where the second call (``shift`` on) writes otherwise."""
    b = a + shift
    first, second = IDS
    for back in range(min(len(first), a + 1)):
        at = a - back
        if two.startswith(first, at) and two.startswith(second, at + shift):
            return at, at + len(first), "id"
    if (
        _digit(two[a])
        and _digit(two[b : b + 1])
        and int(two[b]) == int(two[a]) + 1
        and not _digit(two[a - 1])
        and not _digit(two[a + 1 : a + 2])
        and not _digit(two[b + 1 : b + 2])
    ):
        return a, a + 1, "index"
    return None


def _digit(c: str) -> bool:
    return len(c) == 1 and "0" <= c <= "9"


def _slots_in(slots: list[_Slot], left_at: int, right_at: int, right: str) -> list[_Slot]:
    """The slots in the call's own text, as positions in ``left + NAME + right`` (which
    stands in ``two`` from ``left_at`` on); one that the call's text cuts is dropped."""
    stop = right_at + len(right)
    return [(s - left_at, e - left_at, k) for s, e, k in slots if left_at <= s and e <= stop]


def _with_slots(
    syntax: CallSyntax, left: str, right: str, slots: list[_Slot]
) -> CallSyntax | Refusal:
    """``syntax`` with the call's id or index in it: for JSON calls, the key that holds the
    id; for a header, the header's text around the name with the slots in it (``{id}``,
    ``{index}``) and the marker that ends it. Anywhere else no engine reads one."""
    text = left + NAMES[0] + right
    if not slots:
        return Refusal("beyond", "the calls write an id or an index that the call's text cuts")
    if syntax.layout == "json":
        obj = _call_object(text) or {}
        start, end, _kind = slots[0]
        value = text[start:end]
        said: list[Any] = [value, int(value)] if value.isdecimal() and value.isascii() else [value]
        keys = [k for k, v in obj.items() if any(v == x and type(v) is type(x) for x in said)]
        if len(slots) != 1 or len(keys) != 1:
            return Refusal("beyond", "JSON calls with an id or index outside a key of its own")
        return replace(syntax, id_key=keys[0])
    if syntax.layout == "header_json":
        return _header_slots(syntax, left, right, slots)
    if syntax.layout == "xml_params":
        return _xml_slots(syntax, left, right, slots)
    return Refusal("beyond", f"an id or index in {syntax.layout} calls, which no engine reads")


def _xml_slots(
    syntax: CallSyntax, left: str, right: str, slots: list[_Slot]
) -> CallSyntax | Refusal:
    """Tagged parameters whose call header writes the call's number after the name (Kimi
    K3's ``tool="NAME" index="1"<|sep|>``): the header's text up to the last slot, with
    the slots in it, and ``name_end`` what follows it. The engine reads no call id there,
    and nothing before the name."""
    name_end_at = len(left) + len(NAMES[0])
    head = len(syntax.name_end) + (len(right) - len(right.lstrip()))
    if any(k != "index" for _s, _e, k in slots):
        return Refusal("beyond", "a call id in the header of tagged-parameter calls")
    if any(s < name_end_at or e > name_end_at + head for s, e, _k in slots):
        return Refusal("beyond", "a call index in tagged-parameter calls outside the header")
    cut = max(e for _s, e, _k in slots) - name_end_at
    suffix = _fill(right[:cut], [(s - name_end_at, e - name_end_at, k) for s, e, k in slots])
    name_end = right[cut:head].strip()
    if suffix.strip() != suffix or not name_end:
        return Refusal("beyond", "a call index after the name set apart by blanks")
    return replace(syntax, name_end=name_end, header=("", suffix))


def _header_slots(
    syntax: CallSyntax, left: str, right: str, slots: list[_Slot]
) -> CallSyntax | Refusal:
    """A header with slots: CALL_START is what comes before the first slot left of the
    name; HEADER_END what comes after the last slot right of it, up to the arguments."""
    name_at, name_end_at = len(left), len(left) + len(NAMES[0])
    before = [s for s in slots if s[1] <= name_at]
    after = [s for s in slots if s[0] >= name_end_at]
    call_open, header_end = syntax.call[0], syntax.name_end
    prefix = suffix = ""
    if before:
        cut = min(s for s, _e, _k in before)
        call_open = left[:cut].strip()
        prefix = _fill(left[cut:].lstrip(), [(s - cut, e - cut, k) for s, e, k in before])
        if not call_open or prefix.strip() != prefix:
            return Refusal("beyond", "a call id or index before the name with no marker before it")
    if after:
        brace = right.find("{")
        cut = max(e for _s, e, _k in after) - name_end_at
        if not 0 <= cut <= brace:
            return Refusal("beyond", "a call id or index after the arguments")
        header_end = right[cut:brace].strip()
        gaps = [(s - name_end_at, e - name_end_at, k) for s, e, k in after]
        suffix = _fill(right[:cut], gaps)
        if suffix.strip() != suffix:
            return Refusal("beyond", "a call id or index after the name set apart by blanks")
    return replace(
        syntax, call=(call_open, syntax.call[1]), name_end=header_end, header=(prefix, suffix)
    )


def _fill(text: str, slots: list[_Slot]) -> str:
    """``text`` with its slots written as ``{id}`` / ``{index}``, and its braces doubled."""
    out, at = [], 0
    for start, end, kind in sorted(slots):
        out.append(text[at:start].replace("{", "{{").replace("}", "}}"))
        out.append(ID_SLOT if kind == "id" else INDEX_SLOT)
        at = end
    out.append(text[at:].replace("{", "{{").replace("}", "}}"))
    return "".join(out)


def _call_object(text: str) -> dict[str, Any] | None:
    for i in _braces(text[: text.find(NAMES[0])]):
        try:
            obj, _stop = _DECODER.raw_decode(text, i)
        except ValueError:
            continue
        if isinstance(obj, dict) and NAMES[0] in obj.values():
            return obj
    return None


# -- one call per turn, and calls that open the turn (JSON and Python with no marker) ------


def _read_single(
    probes: Probes, one: str, plain: str | None
) -> tuple[CallSyntax, Sample] | Refusal:
    """The call syntax of a template that renders one call per turn, failing on two
    (Llama 3.1's JSON templates) or dropping the second (GigaChat 3's): the call is what
    the call turn writes where the content turn (or the generation prompt) writes its
    content, up to the token that ends the content turn; the same call under the other
    name must differ at the name alone."""
    u = one.find(USER)
    p = one.find(NAMES[0], u) if u >= 0 else -1
    if u < 0:
        return Refusal("unknown", "the template does not render the user's message")
    if p < 0:
        return Refusal("no-tools", "the template does not render tool calls")
    why = "the template renders one call of two parallel ones, and "
    other = probes.second() or ""
    if other[other.find(USER) :] != one[u:].replace(NAMES[0], NAMES[1]):
        return Refusal("unknown", why + "its single calls differ beyond the name")
    if plain is None or CONTENT not in plain:
        return Refusal("unknown", why + "fails to render a turn with content")
    c = plain.find(CONTENT)
    before = one[u + len(USER) : p]
    prompt = probes.opening(None) or ""
    heads = (plain[plain.find(USER) + len(USER) : c], prompt[prompt.find(USER) + len(USER) :])
    start = u + len(USER) + max(common_prefix(before, h) for h in heads)
    end_of_turn = marker_after(plain[c + len(CONTENT) :])
    end = one.find(end_of_turn, p) if end_of_turn else -1
    result = one.find(RESULT, p)
    if end < 0 or 0 <= result < end or NAMES[0] in one[p + 1 : end]:
        return Refusal("unknown", why + "the end of its turn is not told from the call's")
    left, right = one[start:p].strip(), one[p + len(NAMES[0]) : end].rstrip()
    if "zq_str" not in right or "zqstring" not in right:
        return Refusal("prose", "the template writes no arguments with the call")
    context = one[max(u + len(USER), start - 64) : start]
    # the call starts where the content turn's content does: it opens the turn
    syntax = _layout(left, right, "", "", "", False, context, bare=True)
    if isinstance(syntax, Refusal):
        return syntax
    return replace(syntax, single=True), Sample(one[start:end].strip())


def _word_marker(opening: str) -> str:
    """A word written right before the block's list, alone on the turn (Firefunction's
    ``functools[``): the block's marker; ''."""
    word = opening.strip()
    return word if re.fullmatch(r"[A-Za-z_]\w{2,31}", word) and opening.endswith(word) else ""


def _paired(open_: str, closing: str, plain: str | None) -> str:
    """The token right after the block's list that pairs with its opener
    (``<|tools_prefix|>`` … ``<|tools_suffix|>``: a stem and an end in common), where the
    turn goes on with no end token of its own (Apertus writes the tool's result into the
    same turn); ''."""
    token = marker_after(closing)
    shared = common_prefix(open_, token)
    if not token or token == open_ or (plain is not None and token in plain):
        return ""
    return token if shared >= 3 and common_suffix(open_, token) >= 1 else ""


def _opens_turn(two: str, u: int, at: int, plain: str | None) -> bool:
    """Whether the calls at ``two[at:]`` open the assistant's turn: the call turn writes
    before them what the content turn writes before its content (blanks aside)."""
    if plain is None or CONTENT not in plain:
        return False
    head = plain[plain.find(USER) + len(USER) : plain.find(CONTENT)]
    return "".join(two[u + len(USER) : at].split()) == "".join(head.split())


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
    two: str,
    u: int,
    start: int,
    end: int,
    plain: str | None,
    prompt: str,
    ignore: tuple[str, ...],
    shared: str = "",
) -> tuple[str, str, bool, int, int]:
    """The markers around the block of calls ``two[start:end]``: what the call turn writes
    before and after its calls where the content turn writes its content's edges. A
    marker the generation prompt ends with is the prompt's, never the model's. ``shared``:
    the token every tag closes on (``_shared_end``), a marker's end, never a marker."""
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
    # what the two turns share, up to a whole token (``<|START_`` opens both
    # ``<|START_ACTION|>`` and ``<|START_TEXT|>``)
    common = len(_cut_right(before[: common_prefix(before, plain_before)]))
    opening = before[common:].rstrip()
    listed = opening.endswith("[")
    if listed:
        opening = opening[:-1].rstrip()
    open_ = _tag_before(opening, shared) if opening.strip() else ""
    if not open_:
        open_ = _fenced_opener(opening)
    if listed and not open_:
        open_ = _word_marker(opening)
    if open_ in ignore or (open_ and prompt.rstrip().endswith(open_)):
        open_ = ""
    open_at = start - (len(before) - len(before[: common + len(opening)].rstrip()))
    if open_:
        open_at = two.rfind(open_, u, start)
    closing = after.lstrip()
    if listed and closing.startswith("]"):
        closing = closing[1:].lstrip()
    common_after = _cut_right(after[: common_prefix(after, plain_after)])
    if shared:  # up to a whole tag: ``<|close|>`` opens both ``<|close|>tools<|sep|>`` and
        # ``<|close|>response<|sep|>``
        whole = common_after.rfind(shared)
        common_after = common_after[: whole + len(shared)] if whole >= 0 else ""
    close = ""
    if not common_after.strip():
        eot = _tag_after(plain_after, shared)
        cut = closing.find(eot) if eot else -1
        candidate = closing[:cut] if cut >= 0 else ""
        close = _tag_after(candidate, shared) if candidate.strip() else ""
        if cut < 0 and open_:
            close = _turn_closer(closing, plain_after, shared)
    if not close and open_ and listed:
        close = _paired(open_, closing, plain)
    close_at = end
    if listed:
        close_at = two.find("]", end) + 1
    if close:
        close_at = two.find(close, close_at) + len(close)
    return open_, close, listed, open_at, close_at


#: a tag that closes on a token every tag closes on: ``<|open|>tools<|sep|>`` (the token
#: filled in, ``_shared_end``)
_SHARED_TAG = r"<[^<>\s]{{1,62}}>[A-Za-z_]\w{{0,31}}{}"
_SHARED_END = re.compile(r"<[^<>\s]{1,62}>[A-Za-z_]\w{0,31}(<[^<>\s]{1,62}>)\Z")


def _shared_end(right: str) -> str:
    """The token the call's closer ends on after a tag and a word (Kimi K3's
    ``<|close|>call<|sep|>``): every tag of such a template closes on it (``<|sep|>`` ends
    ``<|open|>tools<|sep|>`` too), so that a marker is the tag, the word and that token, not
    the token alone; ''."""
    m = _SHARED_END.search(right.rstrip())
    return m.group(1) if m else ""


def _tag_before(text: str, shared: str) -> str:
    """``marker_before``, where a tag that closes on ``shared`` is the marker whole."""
    if shared:
        m = re.search(_SHARED_TAG.format(re.escape(shared)) + r"\s*\Z", text[-128:])
        if m:
            return m.group(0).strip()
    return marker_before(text)


def _tag_after(text: str, shared: str) -> str:
    """``marker_after``, where a tag that closes on ``shared`` is the marker whole."""
    if shared:
        m = re.compile(r"\s*(" + _SHARED_TAG.format(re.escape(shared)) + ")").match(text, 0, 128)
        if m:
            return m.group(1)
    return marker_after(text)


#: a short line, then a code fence (Command R+'s ``Action:\n```json``)
_FENCED = re.compile(r"[^\n`]{1,24}\n{0,2}```[\w-]*")


def _fenced_opener(opening: str) -> str:
    """The block's opener where the turn opens it with a line and a code fence, not with a
    marker token (Command R+'s ``Action:\n```json``): that text as written, or ''."""
    text = opening.strip()
    return text if _FENCED.fullmatch(text) else ""


def _turn_closer(closing: str, plain_after: str, shared: str = "") -> str:
    """The closer of a block that has an opener, where the call turn ends with other
    tokens than the content turn (Cohere's ``<|END_ACTION|><|END_OF_TURN_TOKEN|>`` where
    the content ends ``<|END_TEXT|><|END_OF_TURN_TOKEN|>``, Solar Open's
    ``<|calls|><|begin|>`` where it ends ``<|end|><|begin|>``): the call turn's first
    token, where the content turn's end never writes it and writes the token after it. (Calls
    with no block opener, Functionary's, end with the turn's own token: ``<|eom_id|>``.)"""
    first = _tag_after(closing, shared)
    after = _tag_after(closing[closing.find(first) + len(first) :], shared) if first else ""
    if not after or first in plain_after or after not in plain_after:
        return ""
    return first


def _layout(
    left: str,
    right: str,
    open_: str,
    close: str,
    separator: str,
    listed: bool,
    context: str = "",
    *,
    bare: bool = False,
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
            if not (call[0] or open_ or bare):
                return Refusal(
                    "beyond", "JSON calls with no marker before them, after other text of the turn"
                )
            return CallSyntax("json", (open_, close), call, separator, name_key, args_key, listed)
    keyed = _name_as_key(left, right, open_, close, separator, listed, bare)
    if keyed is not None:
        return keyed
    # -- pythonic: NAME(key=value, ...) in a list ---------------------------------------
    if right.startswith("("):
        if left or not listed or right[right.rfind(")") + 1 :].strip():
            return Refusal("beyond", "Python calls outside a [...] list, or with markers each")
        if not (open_ or bare):
            return Refusal("beyond", "Python calls with no marker, after other text of the turn")
        flaw = _python_flaw(right)
        if flaw:
            return Refusal("beyond", f"the template writes Python calls {flaw}")
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
    if "'zq_str': 'zqstring'" in right:
        return Refusal(
            "beyond", "the template writes the arguments as a Python dict (quoted with '), not JSON"
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
    lead = _TOKEN.match(popen)
    shut = rest[: len(rest) - len(popen)]
    if lead is not None and shut[shut.rfind(">") + 1 :].strip():
        # a token both the name's header and a value end on (Kimi K3's ``<|sep|>``): it
        # closes them, it does not open the next parameter
        popen = popen[lead.end() :]
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
    typing = _type_flag(right, mid.strip())
    if isinstance(typing, Refusal):
        return typing
    return CallSyntax(
        "xml_params",
        wrapper if wrapper[0] else (open_, close),
        (tokens[-1], tail[0]),
        separator,
        name_end=name_end,
        param=(popen, mid.strip(), pclose),
        value_newlines=newlines,
        each=bool(wrapper[0]),
        type_flag=typing[0],
        type_attr=typing[1],
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
#: the JSON Schema type names a type attribute may give each probe argument (the names the
#: engine's ``type`` group reads, ``schema.written_type_plan``)
_TYPE_NAMES = {
    "zq_str": ("string",),
    "zq_int": ("integer", "number"),
    "zq_float": ("number",),
    "zq_bool": ("boolean",),
    "zq_null": ("null",),
    "zq_list": ("array",),
    "zq_obj": ("object",),
}

#: a type flag or a type attribute: ``(flag, ("", ""))`` or ``(("", "", ""), attr)``
_Typing = tuple[tuple[str, str, str], tuple[str, str]]
_UNTYPED: _Typing = (("", "", ""), ("", ""))


def _type_flag(right: str, mid: str) -> _Typing | Refusal:
    """A type flag in the parameter headers (DSML's ``name="k" string="true">``): the part
    of the header between key and value where the string parameter's header differs from
    every other's, widened to whole words; or a type attribute (Kimi K3's
    ``key="k" type="number"<|sep|>``), where each header differs from the string's in one
    word that names its value's JSON type (``_type_attr``). ``_UNTYPED`` when the headers
    agree, or when they show no one flag (the check then has the last word)."""
    heads: dict[str, str] = {}
    for key, values in _JSON_VALUES.items():
        k = right.find(key)
        # the value after the header's last character (Kimi K3's ``type="null"<|sep|>null``)
        end = right.find(mid[-1], k + len(key)) + 1 if k >= 0 and mid else 0
        at = min((i for v in values if (i := right.find(v, end or k + len(key))) >= 0), default=-1)
        if k < 0 or at < 0:
            return _UNTYPED  # not a flag's layout: the check has the last word
        heads[key] = right[k + len(key) : at].strip()
    if len(set(heads.values())) > 1:
        return _type_attr(mid, heads)
    json_mid = next(iter(heads.values()))
    if mid == json_mid:
        return _UNTYPED
    p, s = _word_edges(mid, json_mid)
    said, json_said = mid[p : len(mid) - s], json_mid[p : len(json_mid) - s]
    if (said, json_said) != _FLAG_VALUES:
        return Refusal(
            "beyond",
            f"a type flag in the parameter headers ({said!r} on a string, {json_said!r} "
            f"on JSON) other than {_FLAG_VALUES[0]!r}/{_FLAG_VALUES[1]!r}",
        )
    return (mid[:p], said, json_said), ("", "")


def _word_edges(a: str, b: str) -> tuple[int, int]:
    """How much ``a`` and ``b`` share at their start and at their end, each cut back to a
    word's edge (what differs is whole words)."""
    p = common_prefix(a, b)
    s = min(common_suffix(a, b), len(a) - p, len(b) - p)
    while p and a[p - 1].isalnum():
        p -= 1
    while s and a[len(a) - s].isalnum():
        s -= 1
    return p, s


def _type_attr(mid: str, heads: dict[str, str]) -> _Typing | Refusal:
    """A type attribute: every parameter's header is the string parameter's (``mid``) with
    the word ``string`` in it replaced by the JSON Schema name of its value's type
    (``_TYPE_NAMES``); what stands before and after that word. Anything else that differs
    from header to header is refused, said as it is."""
    p = min(_word_edges(mid, h)[0] for h in heads.values())
    s = min(_word_edges(mid, h)[1] for h in heads.values())
    said = mid[p : len(mid) - s]
    named = {k: h[p : len(h) - s] for k, h in heads.items()}
    before, after = mid[:p], mid[len(mid) - s :]
    fits = all(
        h.startswith(before) and h.endswith(after) and named[k] in _TYPE_NAMES[k]
        for k, h in heads.items()
    )
    if said != "string" or not fits or not before.strip():
        shown = ", ".join(repr(h) for h in sorted(set(heads.values())))
        return Refusal(
            "beyond",
            f"tagged parameters whose header differs per value ({mid!r} on a string, "
            f"{shown} on the others) in other ways than one attribute naming the value's "
            "JSON type",
        )
    return ("", "", ""), (before, after)


def marker_token(marker: str) -> bool:
    """Whether ``marker`` can be a marker: short, and holding none of the probe's text (a
    stretch that runs over a name, a key or a value is the call, not its markup)."""
    return len(marker) <= _MAX_MARKER and "zq" not in marker


def _name_as_key(
    left: str, right: str, open_: str, close: str, separator: str, listed: bool, bare: bool
) -> CallSyntax | Refusal | None:
    """``{"NAME": {...}}``, the name the one key of the call's object (Apertus), or None
    when the call is not written so."""
    if not (left.endswith('{"') and right.startswith('":')):
        return None
    text, i = left + NAMES[0] + right, len(left) - 2
    try:
        obj, stop = _DECODER.raw_decode(text, i)
    except ValueError:
        return None
    if not (isinstance(obj, dict) and len(obj) == 1 and _is_args(obj.get(NAMES[0]))):
        return None
    call = (left[:i].strip(), text[stop:].strip())
    if call[0] and open_:
        return Refusal("beyond", "JSON calls with markers around each and the block")
    if not (call[0] or open_ or bare):
        return Refusal(
            "beyond", "JSON calls with no marker before them, after other text of the turn"
        )
    return CallSyntax("json", (open_, close), call, separator, listed=listed, name_as_key=True)


def _python_flaw(right: str) -> str:
    """What makes the Python call ``NAME`` + ``right`` no literal a parser can read back
    ('' when nothing does): a string written bare (``{{ value }}``, not ``value|tojson``),
    or arguments written with no ``,`` between them (a loop variable the template sets
    inside its loop, which Jinja scopes to one iteration)."""
    v = right.find(ARGS["zq_str"])
    k2 = right.find("zq_int", v)
    if v > 0 and right[v - 1] == "=":
        return "with string values unquoted (not Python literals)"
    if 0 < v < k2 and "," not in right[v:k2]:
        return "with no ',' between the arguments"
    return ""


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
