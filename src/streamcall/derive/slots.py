"""A call's id or index: where the two probe calls' texts differ besides the name.

The probe's two calls carry different ids (``probes.IDS``) and stand at different places
in their turn, so a template that writes a call id or a call's number writes it differently
in each; ``_stretch`` lets such a slot agree while it compares them, and ``_with_slots``
puts it in the syntax: in a ``json`` call, the key that holds the id (``id_key``); in a
``header_json`` or ``xml_params`` header, the header's text around the name with ``{id}``
or ``{index}`` in it (``CallSyntax.header``). A slot anywhere else is refused.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from streamcall.derive.probes import IDS, NAMES
from streamcall.derive.syntax import _DECODER, _TOKEN, CallSyntax, Refusal, _braces, cut_left

__all__ = ["ID_SLOT", "INDEX_SLOT"]

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
