"""The request's thinking switches: whether reasoning is open when the output starts.

A chat template decides, from the request, whether the prompt it renders already opens
reasoning (Qwen3 with thinking on ends the prompt inside ``<think>``; with
``enable_thinking: false`` it writes an empty ``<think></think>`` and the model answers
straight away). A reasoning parser must start in the same place, or a plain answer is read
as reasoning. Serving engines read the same switches the templates read; this module is
that mapping, once, for the proxy, the vLLM plugin, ``output_parser`` and the command line.

The switches, in the order they are read:

- ``chat_template_kwargs.enable_thinking`` and ``chat_template_kwargs.thinking``: for the
  formats whose templates read them. When both are given, thinking is on if either is true
  (vLLM's rule for GLM, Kimi and DeepSeek). A few templates read a member of their own
  instead (MiniMax-M3's ``thinking_mode``: ``enabled``/``disabled``; Cohere's and
  GigaChat 3.5's ``reasoning``).
- ``reasoning_effort`` (in ``chat_template_kwargs`` first, then the request's own member):
  for the formats that key on it; its "off" values (``none``, ``no_think``) switch
  thinking off, any other value switches it on. A format whose template opens reasoning
  only for some efforts lists them (``effort_on``: Solar Open 2 opens it for ``medium``,
  ``high`` and ``xhigh``, and closes it for any other). A format whose template reads the
  effort before the booleans says so (``effort_first``: Kolibri 1's template decides by a
  given effort, and reads ``enable_thinking`` only when there is none).
- Nothing said: the reasoning format's own default (``ReasoningSpec.opened``).

The generation prompt, when it is known (the rendered prompt's tail), says it outright and
comes before the switches (``prompt_opened_by``): a prompt that ends with the format's
start marker (blanks after it aside: Qwen3.5's ``<think>\n``) opened reasoning, one that
ends with its end marker (an empty block, ``<think>\n\n</think>\n\n``) did not; any
other ending says nothing, since many models write their own start marker.

What a switch does to the start state is per format (``SWITCHES``): "off" always means
the output starts outside reasoning (a start marker the model writes still opens it);
"on" means the output starts inside reasoning for the formats whose templates pre-fill the
start marker when thinking is on, and leaves the default alone for the formats whose
models write the marker themselves (Gemma 4's ``<|channel>``, GLM-4.5's ``<think>``).
Facts are from vLLM 0.33's parsers (``vllm/parser/*.py``, ``vllm/reasoning/*.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from streamcall.framing.harmony import prompt_framing
from streamcall.reasoning.specs import SPECS

__all__ = [
    "SWITCHES",
    "ThinkingSwitch",
    "prompt_opened_by",
    "prompt_opened_for",
    "thinking_requested",
]


@dataclass(frozen=True, slots=True)
class ThinkingSwitch:
    """Which request members a reasoning format reads, and what "on" does to it."""

    #: ``chat_template_kwargs`` members read as booleans
    keys: tuple[str, ...] = ("enable_thinking",)
    #: whether ``reasoning_effort`` is read too
    effort: bool = False
    #: "on" means the prompt opened reasoning (False: "on" leaves the format's default)
    on_opens: bool = True
    #: the efforts that switch thinking on (None: every effort but the "off" ones)
    effort_on: frozenset[str] | None = None
    #: a given effort decides before the ``keys`` are read
    effort_first: bool = False


_BOTH = ("enable_thinking", "thinking")
_EFFORT_OFF = frozenset({"none", "no_think"})

#: per reasoning format; a format missing here has no switch (its default always holds)
SWITCHES: dict[str, ThinkingSwitch] = {
    "qwen3": ThinkingSwitch(),
    "mimo": ThinkingSwitch(),
    "nemotron_v3": ThinkingSwitch(),
    "plamo3": ThinkingSwitch(),
    "deepseek_v3": ThinkingSwitch(_BOTH),
    "deepseek_v4": ThinkingSwitch(_BOTH, effort=True),
    "deepseek_v41": ThinkingSwitch(_BOTH, effort=True),
    "glm45": ThinkingSwitch(_BOTH, on_opens=False),
    "glm47": ThinkingSwitch(_BOTH, on_opens=False),
    "holo2": ThinkingSwitch(_BOTH),
    "ling3": ThinkingSwitch(_BOTH),
    "telechat4": ThinkingSwitch(_BOTH),
    "xingchen4": ThinkingSwitch(_BOTH),
    "xing4_0": ThinkingSwitch(_BOTH),
    "kimi_k2": ThinkingSwitch(_BOTH),
    "kimi_k3": ThinkingSwitch(_BOTH),
    "iquest_q1": ThinkingSwitch(_BOTH),
    "gigachat35": ThinkingSwitch(("reasoning",)),
    "hy_v3": ThinkingSwitch((), effort=True),
    "hy_v4": ThinkingSwitch((), effort=True),
    "gemma4": ThinkingSwitch(on_opens=False),
    "hunyuan_a13b": ThinkingSwitch(on_opens=False),
    "granite": ThinkingSwitch(("thinking",), on_opens=False),
    "granite_thinking_parser": ThinkingSwitch(),
    "minicpmv": ThinkingSwitch(),
    "minimax_m3": ThinkingSwitch(("thinking_mode",)),  # "enabled" / "disabled"
    "cohere_command4": ThinkingSwitch(("reasoning",), effort=True),  # effort "none": off
    "berrylm": ThinkingSwitch(),
    "kolibri1": ThinkingSwitch(effort=True, effort_first=True),
    "solar_open2": ThinkingSwitch(
        (), effort=True, effort_on=frozenset({"medium", "high", "xhigh"})
    ),
}


def _flag(value: Any) -> bool | None:
    """A switch value as a boolean; None when it is absent or says nothing."""
    if value is None:
        return None
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "on", "yes", "enabled", "1"):
            return True
        if lowered in ("false", "off", "no", "disabled", "0", ""):
            return False
        return None
    if isinstance(value, Mapping):  # {"type": "enabled"} / {"type": "disabled"}
        return _flag(value.get("type"))
    return bool(value)


def thinking_requested(
    request: Mapping[str, Any] | None, switch: ThinkingSwitch | None = None
) -> bool | None:
    """What the request says about thinking: True (on), False (off) or None (nothing).

    ``switch`` restricts the members read to a format's own (None: every member this
    module knows: both ``chat_template_kwargs`` booleans and ``reasoning_effort``).
    """
    if not request:
        return None
    keys = switch.keys if switch is not None else _BOTH
    effort = switch.effort if switch is not None else True
    kwargs = request.get("chat_template_kwargs")
    kwargs = kwargs if isinstance(kwargs, Mapping) else {}
    said_effort: bool | None = None
    if effort:
        value = kwargs.get("reasoning_effort") or request.get("reasoning_effort")
        if isinstance(value, str) and value:
            lowered = value.strip().lower()
            on = switch.effort_on if switch is not None else None
            said_effort = lowered not in _EFFORT_OFF if on is None else lowered in on
    if said_effort is not None and switch is not None and switch.effort_first:
        return said_effort
    said = [f for f in (_flag(kwargs.get(k)) for k in keys) if f is not None]
    if said:
        return any(said)
    return said_effort


def prompt_opened_for(
    reasoning_format: str | None,
    request: Mapping[str, Any] | None = None,
    *,
    thinking: bool | None = None,
) -> bool | None:
    """The ``prompt_opened`` a reasoning parser takes for this request.

    ``thinking`` is an explicit switch (the command line's ``--thinking on|off``); it wins
    over the request. Returns None where the format's own default holds; an explicit "on"
    for a format with no switch keeps its default too (its model writes its own marker).
    """
    if reasoning_format is None:
        return None
    switch = SWITCHES.get(reasoning_format)
    if thinking is None:
        if switch is None:
            return None
        thinking = thinking_requested(request, switch)
    if thinking is None:
        return None
    if not thinking:
        return False
    on_opens = switch.on_opens if switch is not None else False
    return True if on_opens else None


def prompt_opened_by(reasoning_format: str | None, generation_prompt: str | None) -> bool | None:
    """The ``prompt_opened`` the generation prompt's own text says (the module header):
    True when it ends with one of the format's start markers (or one with its
    ``start_prefix`` after it), False when it ends with one of its end markers (blanks
    after either aside), None otherwise. Harmony
    (``openai_gptoss``): True when it ends inside an analysis message's body."""
    if not reasoning_format or not generation_prompt:
        return None
    if reasoning_format == "openai_gptoss":
        _, header = prompt_framing(generation_prompt)
        opened = header is not None and not header.recipient and header.channel == "analysis"
        return True if opened else None
    spec = next((s for s in SPECS if s.name == reasoning_format), None)
    if spec is None:
        return None
    tail = generation_prompt.rstrip()
    best = 0
    said: bool | None = None
    # a start marker counts with the word the format writes after it too (Gemma 4's
    # ``<|channel>thought``)
    worded = tuple(m + spec.start_prefix for m in spec.start) if spec.start_prefix else ()
    for opens, markers in ((True, spec.start + worded), (False, spec.end)):
        for marker in markers:
            marker = marker.strip()
            if marker and len(marker) > best and tail.endswith(marker):
                best, said = len(marker), opens
    return said
