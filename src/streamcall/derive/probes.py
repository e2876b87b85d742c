"""The probe conversations a chat template is rendered with, and what their renderings show.

Every probe is one conversation rendered through the sandboxed renderer
(``prompt.jinja.ChatTemplate``), with sentinel values that occur nowhere else, so that each
one's position is a ``str.find``:

- ``calls(n)``: a user turn, an assistant turn with ``n`` calls (the first with a string,
  an integer, a float, a boolean, a null, an array and an object argument; the second the
  same arguments under another name of the same length, and another id: ``IDS``), then
  the tool's result;
- ``second()``: ``calls(1)`` with the call under the second name (a template that renders
  one call per turn is read off the two single calls);
- ``content()``: the same user turn, an assistant turn with plain content, another user turn:
  what the assistant turn looks like with no calls, to tell the block markers from the
  turn's own framing;
- ``reasoning()``: ``calls(1)`` with reasoning on the assistant turn (rendered with
  thinking switched on when the default leaves it out);
- ``opening(thinking)``: the generation prompt, with thinking on, off, or as the
  template's default.

A template that fails to render a probe (``raise_exception``, a sandbox refusal, a
syntax error) fails it alone: ``render`` returns None and the reader says what is missing.
The probes run in the sandbox that lets a template change its own lists
(``ChatTemplate.render(mutable=True)``): a template that keeps a queue of call ids
(llama.cpp's Kimi K2) writes its calls as it would anywhere else.
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamcall.prompt.jinja import ChatTemplate

__all__ = [
    "ARGS",
    "IDS",
    "NAMES",
    "Probes",
    "common_prefix",
    "common_suffix",
    "marker_after",
    "marker_before",
]

#: the two calls' names: identifiers of one length, so that the two calls' renderings differ
#: only where the name stands
NAMES = ("zqprobe_alpha", "zqprobe_bravo")
#: one argument of each JSON type, under keys that occur nowhere else
ARGS: dict[str, Any] = {
    "zq_str": "zqstring",
    "zq_int": 4217,
    "zq_float": 2.5,
    "zq_bool": True,
    "zq_null": None,
    "zq_list": [1, "zqitem"],
    "zq_obj": {"zqk": "zqv"},
}
#: the two calls' ids: nine alphanumerics (Mistral's templates refuse any other), of one
#: length and differing in their last character, so that a template that writes them is
#: seen to (``calls.read_calls`` reads an id there)
IDS = ("zqcall000", "zqcall001")
USER = "zquserq"
NEXT = "zqnext"
CONTENT = "zqcontent"
RESULT = "zqresult"
REASONING = "zqreasoning"
_TYPES: dict[str, dict[str, Any]] = {
    "zq_str": {"type": "string"},
    "zq_int": {"type": "integer"},
    "zq_float": {"type": "number"},
    "zq_bool": {"type": "boolean"},
    "zq_null": {},  # untyped: templates that spell a schema's types out in Python choke on
    "zq_list": {},  # "null" and on an array without items
    "zq_obj": {"type": "object", "additionalProperties": {}},  # Command R+ spells it out
}
#: the tools the probes declare: the two functions, their arguments typed and described
#: (Command R+'s template writes every argument's description)
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": "a probe",
            "parameters": {
                "type": "object",
                "properties": {k: {**v, "description": "a probe"} for k, v in _TYPES.items()},
            },
        },
    }
    for name in NAMES
]
#: the special tokens of a template given alone (a checkpoint directory names its own)
_TOKENS = {"bos_token": "", "eos_token": "<|zq_eos|>"}
_THINKING_ON = {"enable_thinking": True, "thinking": True}
_THINKING_OFF = {"enable_thinking": False, "thinking": False}

#: one marker token: an angle-bracket or square-bracket tag, or a run of characters that
#: are neither blank nor a word character (``<|tool▁sep|>``, ``[TOOL_CALLS]``, ``>>>``)
_TAG = r"(?:<[^<>\s]{1,64}>|\[[^\[\]\s]{1,64}\]|<[^<>\s]{1,64}|[^\w\s]{1,16})"
_TAG_BEFORE = re.compile(rf"{_TAG}\s*\Z")
_TAG_AFTER = re.compile(rf"\s*({_TAG})")


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b``."""
    n = min(len(a), len(b))
    lo, hi = 0, n  # binary search on slices: C compares, not a loop over characters
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: str, b: str) -> int:
    """The length of the longest common suffix of ``a`` and ``b``."""
    return common_prefix(a[::-1], b[::-1])


def marker_before(text: str) -> str:
    """The marker token that ends ``text`` (blanks after it aside), or ''."""
    m = _TAG_BEFORE.search(text[-128:])
    return m.group(0).strip() if m else ""


def marker_after(text: str) -> str:
    """The marker token that opens ``text`` (blanks before it aside), or ''."""
    m = _TAG_AFTER.match(text, 0, 128)
    return m.group(1) if m else ""


def _call(i: int, name: str, encoded: bool = False) -> dict[str, Any]:
    arguments: Any = json.dumps(ARGS) if encoded else dict(ARGS)
    return {
        "id": IDS[i],
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


class Probes:
    """A template's renderings of the probe conversations, each rendered once."""

    def __init__(self, template: ChatTemplate) -> None:
        if not template.special_tokens:  # a template given alone: tokens it may write
            template = ChatTemplate(template.templates, template.name, dict(_TOKENS))
        self.template = template
        self._cache: dict[Any, str | None] = {}
        #: why the last render that failed did (the template's error, in its words)
        self.failure = ""

    def render(
        self,
        messages: list[dict[str, Any]],
        key: Any,
        *,
        generation: bool = True,
        kwargs: dict[str, Any] | None = None,
    ) -> str | None:
        if key in self._cache:
            return self._cache[key]
        kwargs = {
            "tools": TOOLS,
            "add_generation_prompt": generation,
            "mutable": True,
            **(kwargs or {}),
        }
        try:
            text: str | None = self.template.render(messages, **kwargs)
        except Exception as exc:  # the template's own failure, or the sandbox's refusal
            text = None
            self.failure = str(exc)
            if "is undefined" in str(exc):  # perhaps a variable a server passes this template
                text = self._render_with_extras(messages, kwargs)
        self._cache[key] = text
        return text

    def _render_with_extras(
        self, messages: list[dict[str, Any]], kwargs: dict[str, Any]
    ) -> str | None:
        """The rendering with the variables llama.cpp passes Firefunction v2's template
        besides ``tools``: ``functions`` (the tools as JSON text) and ``datetime``."""
        extras: dict[str, Any] = {"functions": json.dumps(TOOLS), "datetime": "zqdate"}
        try:
            text: str = self.template.render(messages, **extras, **kwargs)
        except Exception:
            return None
        return text

    def calls(self, n: int, *, reasoning: bool = False, thinking: bool = False) -> str | None:
        """The call conversation: the arguments as an object, or, for a template that
        takes only the JSON text OpenAI's API sends, as that text."""
        for encoded in (False, True):
            text = self._calls(n, reasoning, thinking, encoded)
            if text is not None:
                return text
        return None

    def second(self) -> str | None:
        """``calls(1)`` with its call under the second name: for a template that renders
        one call per turn, the two renderings differ where the name stands, and only there."""
        for encoded in (False, True):
            text = self._calls(1, False, False, encoded, (NAMES[1],))
            if text is not None:
                return text
        return None

    def _calls(
        self,
        n: int,
        reasoning: bool,
        thinking: bool,
        encoded: bool,
        names: tuple[str, ...] = NAMES,
    ) -> str | None:
        turn: dict[str, Any] = {
            "role": "assistant",
            "content": "",
            "tool_calls": [_call(i, names[i], encoded) for i in range(n)],
        }
        if reasoning:
            turn["reasoning_content"] = REASONING
        messages = [
            {"role": "user", "content": USER},
            turn,
            {"role": "tool", "tool_call_id": IDS[0], "content": RESULT},
        ]
        kwargs = _THINKING_ON if thinking else None
        key = ("calls", n, reasoning, thinking, encoded, names[:n])
        return self.render(messages, key, kwargs=kwargs)

    def content(self) -> str | None:
        messages = [
            {"role": "user", "content": USER},
            {"role": "assistant", "content": CONTENT},
            {"role": "user", "content": NEXT},
        ]
        return self.render(messages, ("content",))

    def reasoning(self) -> str | None:
        """``calls(1)`` with reasoning, thinking switched on if the default drops it."""
        text = self.calls(1, reasoning=True)
        if text is not None and REASONING in text:
            return text
        return self.calls(1, reasoning=True, thinking=True)

    def opening(self, thinking: bool | None) -> str | None:
        kwargs = None if thinking is None else _THINKING_ON if thinking else _THINKING_OFF
        messages = [{"role": "user", "content": USER}]
        return self.render(messages, ("opening", thinking), kwargs=kwargs)
