"""Tagged parameters (the ``xml_params`` layout): the call's markers, each parameter's
opener, the text between a key and its value, the closer, and a type flag or a type
attribute where the parameters' headers say their values' types (DSML's
``string="true"``, Kimi K3's ``type="number"``). ``calls.py``'s module docstring has the
rules.
"""

from __future__ import annotations

import re

from streamcall.derive.probes import common_prefix, common_suffix
from streamcall.derive.syntax import _TOKEN, CallSyntax, Refusal, cut_left, marker_token

__all__: list[str] = []

_SPLIT = re.compile(r"(?<=>)\s*(?=<)|\s*\n\s*")


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
