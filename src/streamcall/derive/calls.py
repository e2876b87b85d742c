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

The data it returns is ``syntax.py``'s; ids and indices are read by ``slots.py``, tagged
parameters by ``params.py``; this module reads the block, the call and its layout.
"""

from __future__ import annotations

import re
from dataclasses import replace

from streamcall.derive.params import _xml
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
from streamcall.derive.slots import _slots_in, _stretch, _with_slots
from streamcall.derive.syntax import (
    _DECODER,
    CallSyntax,
    Refusal,
    Sample,
    _braces,
    _cut_right,
    _is_args,
    _markup,
    cut_left,
    marker_token,
)

__all__ = ["CallSyntax", "Refusal", "Sample", "cut_left", "marker_token", "read_calls"]


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
            call = _json_markers(left, text, i, stop, open_, bare)
            if isinstance(call, Refusal):
                return call
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
    call = _json_markers(left, text, i, stop, open_, bare)
    if isinstance(call, Refusal):
        return call
    return CallSyntax("json", (open_, close), call, separator, listed=listed, name_as_key=True)


def _json_markers(
    left: str, text: str, i: int, stop: int, open_: str, bare: bool
) -> tuple[str, str] | Refusal:
    """The markers before and after one JSON call (its object ``text[i:stop]``), or why
    they are none an engine reads: markers around each call and around the block, or no
    marker where the call does not open the turn (``bare``)."""
    call = (left[:i].strip(), text[stop:].strip())
    if call[0] and open_:
        return Refusal("beyond", "JSON calls with markers around each and the block")
    if not (call[0] or open_ or bare):
        return Refusal(
            "beyond", "JSON calls with no marker before them, after other text of the turn"
        )
    return call


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
