"""Sniffing: ``tool_parser("auto")``, the format picked by the first marker in the text.

Grammar::

    output := text* ( MARKER window rest )?
    window := the first WINDOW characters from the marker's start (less at the end)

Modes:

    SNIFF     text up to the first of ``MARKERS`` (a partial one at the end held back), then
              the marker's rule reads its window: it decides a format, says the marker is
              text after all (sniffing goes on after it), or waits for more of the window
    CHOSEN    every chunk goes to the chosen format's parser, which was fed the text from
              the marker on; ``chosen`` names it (its ``feed`` is bound in place of this
              one, so that a chunk costs no extra call)

So the result is that format's own parser run on the whole text: the text before the marker
is text to every format (whitespace before the first call is text, README "Malformed output
and the end of the stream"), and the parser reads the rest from the marker on, as it would
have. The decision is a function of the window alone, never of where a chunk ended: a
rule that cannot decide yet waits (the window is held), and once the window is whole, or
the stream has ended, it must decide (its default). A rule that decides on part of the
window decides the same on all of it.

What is held back: a partial marker in text (shorter than the longest marker), and, from
a marker on, at most ``WINDOW`` (256) characters until its rule decides. Most rules decide
on the marker itself; the shared ones read a few characters more:

- ``<tool_call>`` (Hermes and its kin, Granite 3, Qwen3-Coder, GLM): the first character
  after the blanks that follow it. ``{`` is a JSON call: ``hermes`` (``qwen3_json``,
  ``granite4`` and ``ernie45`` write the same and read each other's calls the same); ``[``
  a JSON list: ``granite``; ``<function=`` or ``<function name="``: ``qwen3_coder`` (also
  ``qwen3_xml``, ``mimo``, ``step3p5``, ``step5``, ``granite_toolcall_parser``); a name then ``<arg_key>`` or ``</tool_call>``:
  ``glm45`` (``glm47``, ``poolside_v1`` and ``ling3`` read the same); a name then
  ``<param_key>`` or ``{``: ``telechat4`` (also ``xingchen4``); ``berrylm`` writes
  ``qwen3_coder``'s calls, ``kolibri1`` ``hermes``'s and ``spark3`` ``glm45``'s, and each
  is read the same by the format picked. Anything else: ``hermes``, whose
  parser releases what is not a call as text (``ripple`` writes Hermes calls too, the
  newline before ``<tool_call>`` counted as markup: name it to have that). The hold: the
  blanks and the name.
- ``<tool_calls`` (Jamba, Hunyuan-A13B, MiniMax-M1, and HY v3/v4 with a per-checkpoint
  suffix): ``[`` or ``{`` after the blanks is ``jamba`` (it reads Hunyuan-A13B's list and
  MiniMax-M1's JSON lines the same); ``<tool_call`` is HY: ``hy_v3`` when the name is
  followed by ``<tool_sep``, else ``hy_v4``. A ``<tool_calls`` followed by neither a
  suffix nor ``>`` is text. The hold: up to the name's end.
- DeepSeek's ``<｜tool▁calls▁begin｜>`` (or a bare ``<｜tool▁call▁begin｜>``): the header up
  to ``<｜tool▁sep｜>``. ``function`` followed by anything but ``{`` is ``deepseek_v3``'s
  ``function<｜tool▁sep｜>NAME``; any other name (or a function called ``function``) is
  ``deepseek_v31``'s ``NAME<｜tool▁sep｜>{...}``.
- ``<function name="`` with no ``<tool_call>`` before it: ``<param`` after the opening tag
  is ``minicpm5``, ``<parameter`` is ``qwen3_coder``; else ``minicpm5``.
- ``<function=`` with no ``<tool_call>`` before it: ``{`` after the opening tag (and
  blanks) is Functionary v3.1's JSON (``functionary_v3_1``); anything else
  ``qwen3_coder``. The hold: the name and the blanks after the tag.
- ``<|start|>`` (Harmony's and Muse's message opener): ``<|channel|>`` before
  ``<|message|>`` is Harmony (``openai``); ``<|message|>`` first is Muse, whose header has
  no channel: ``muse_glimmer`` (the open checkpoints' template; Spark's ``muse`` reads the
  same wire with other channel rules, which the text cannot tell). Neither within the
  window: ``openai``. A Muse output's first message, whose header is bare (`` to=self
  <|message|>``), comes before any ``<|start|>``: it is text to auto, so name the format
  for Muse.

Every other marker names one format (``MARKERS``).

Not sniffed: formats with no marker around their calls. A bare JSON object or list
(``llama3_json`` without ``<|python_tag|>``, ``xlam``, ``granite``'s list at the start) and
a bare Python list (``pythonic``) are also what ordinary answers write (code, JSON asked
for), and xLAM's ```` ```json ```` fence is any Markdown code block; reading them as calls
would turn content into calls; so would llama.cpp's generic JSON answer (``generic_json``,
a bare envelope) and Functionary v3.2's ``>>>`` (a Markdown quote, a Python prompt). Give
those formats by name, or let ``detect`` read them off the checkpoint. For the same reason ``phi4_mini_json`` is sniffed on ``functools[``, not on
the word ``functools``. The text before the marker is released as text: a format that
reads bare JSON anywhere (``llama3_json``, picked by ``<|python_tag|>``) would have read a
JSON object there as a call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar, Literal

from streamcall.events import Event, Text
from streamcall.formats.classes import lookup
from streamcall.formats.engines.base import ToolParser, Tools
from streamcall.framing.harmony import FRAMES as HARMONY_FRAMES
from streamcall.text import MarkerFinder

__all__ = ["MARKERS", "WINDOW", "AutoParser", "sniff"]

#: how much of the text from a marker's start a rule may read before it must decide
WINDOW = 256

#: a rule's answer: a format name, ``TEXT`` (the marker is text), or None (wait)
TEXT = ""
Rule = Callable[[str], "str | None"]

_BLANKS = re.compile(r"[ \t\r\n]*")
_NAME = re.compile(r"[^\s<>{}\[\]\"']*")
_HY_SUFFIX = re.compile(r"(?::[^\s<>]{0,64})?")


def _blank_end(s: str, i: int) -> int:
    return _BLANKS.match(s, i).end()  # type: ignore[union-attr]


def _literal(s: str, i: int, options: tuple[tuple[str, str], ...]) -> str | Literal[False] | None:
    """Which of ``options`` (literal, answer) ``s`` has at ``i``: its answer; None while
    ``s[i:]`` is a proper prefix of one (it may still become that one); False if none."""
    rest = s[i : i + max(len(lit) for lit, _ in options)]
    if any(len(rest) < len(lit) and lit.startswith(rest) for lit, _ in options):
        return None
    for lit, answer in sorted(options, key=lambda o: -len(o[0])):
        if rest.startswith(lit):
            return answer
    return False


def _tool_call(s: str) -> str | None:
    """``<tool_call>`` (module docstring): JSON, a JSON list, Qwen3-Coder XML or GLM."""
    i = _blank_end(s, len("<tool_call>"))
    if i == len(s):
        return None
    c = s[i]
    if c == "{":
        return "hermes"
    if c == "[":
        return "granite"
    if c == "<":
        xml = (("<function=", "qwen3_coder"), ('<function name="', "qwen3_coder"))
        got = _literal(s, i, (*xml, ("</tool_call>", "glm45")))
        return "hermes" if got is False else got
    end = _NAME.match(s, i).end()  # type: ignore[union-attr]
    if end == i:
        return "hermes"
    j = _blank_end(s, end)
    if j == len(s):
        return None
    tags = (
        ("<arg_key>", "glm45"),
        ("</tool_call>", "glm45"),
        ("<param_key>", "telechat4"),
        ("{", "telechat4"),
    )
    got = _literal(s, j, tags)
    return "hermes" if got is False else got


def _tool_calls(s: str) -> str | None:
    """``<tool_calls`` (module docstring): a JSON block, or HY's XML with its suffix."""
    i = _HY_SUFFIX.match(s, len("<tool_calls")).end()  # type: ignore[union-attr]
    if i == len(s):
        return None
    if s[i] != ">":
        return TEXT
    suffixed = i > len("<tool_calls")
    default = "hy_v4" if suffixed else "jamba"
    i = _blank_end(s, i + 1)
    if i == len(s):
        return None
    if s[i] in "[{" and not suffixed:
        return "jamba"
    got = _literal(s, i, (("<tool_call", "hy"),))
    if got is None:
        return None
    if got is False:
        return default
    i = _HY_SUFFIX.match(s, i + len("<tool_call")).end()  # type: ignore[union-attr]
    if i == len(s):
        return None
    if s[i] != ">":
        return default
    n = s.find("<", i + 1)
    if n < 0:
        return None
    sep = _literal(s, n, (("<tool_sep", "hy_v3"),))
    return "hy_v4" if sep is False else sep


_CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
_CALL_BEGIN = "<｜tool▁call▁begin｜>"
_SEP = "<｜tool▁sep｜>"


def _deepseek(s: str) -> str | None:
    """DeepSeek V3 or V3.1 (module docstring): the header before ``<｜tool▁sep｜>``."""
    i = len(_CALL_BEGIN)
    if s.startswith(_CALLS_BEGIN):
        i = _blank_end(s, len(_CALLS_BEGIN))
        got = _literal(s, i, ((_CALL_BEGIN, "call"),))
        if got is None:
            return None
        if got is False:
            return "deepseek_v31"
        i += len(_CALL_BEGIN)
    n = s.find(_SEP, i)
    if n < 0:
        return None
    if s[i:n].strip() != "function":
        return "deepseek_v31"
    j = _blank_end(s, n + len(_SEP))
    if j == len(s):
        return None
    return "deepseek_v31" if s[j] == "{" else "deepseek_v3"


def _function_name(s: str) -> str | None:
    """A bare ``<function name="...">``: MiniCPM5's ``<param`` or Qwen's ``<parameter``."""
    n = s.find(">", len('<function name="'))
    if n < 0:
        return None
    i = _blank_end(s, n + 1)
    if i == len(s):
        return None
    got = _literal(s, i, (("<parameter", "qwen3_coder"), ("<param", "minicpm5")))
    return "minicpm5" if got is False else got


def _function_eq(s: str) -> str | None:
    """A bare ``<function=NAME>``: Functionary v3.1's JSON body, or Qwen's parameters."""
    n = s.find(">", len("<function="))
    if n < 0:
        return None
    i = _blank_end(s, n + 1)
    if i == len(s):
        return None
    return "functionary_v3_1" if s[i] == "{" else "qwen3_coder"


def _start(s: str) -> str | None:
    """``<|start|>`` (module docstring): Harmony's header has a channel, Muse's none."""
    message = s.find("<|message|>", len("<|start|>"))
    channel = s.find("<|channel|>", len("<|start|>"))
    if channel >= 0 and (message < 0 or channel < message):
        return "openai"
    return "muse_glimmer" if message >= 0 else None


def _fixed(name: str) -> Rule:
    return lambda s: name


#: marker -> (rule, what it decides when the window is whole or the stream ended undecided)
MARKERS: dict[str, tuple[Rule, str]] = {
    "<tool_call>": (_tool_call, "hermes"),
    "<tool_calls": (_tool_calls, "jamba"),
    _CALLS_BEGIN: (_deepseek, "deepseek_v31"),
    _CALL_BEGIN: (_deepseek, "deepseek_v31"),
    '<function name="': (_function_name, "minicpm5"),
    "<function=": (_function_eq, "qwen3_coder"),
    "<|start|>": (_start, "openai"),
}
for _name, _markers in {
    "apertus": ("<|tools_prefix|>",),
    "cohere_command3": ("<|START_ACTION|>",),
    "deepseek_v32": ("<｜DSML｜function_calls>", "<｜DSML｜invoke name="),
    "deepseek_v4": ("<｜DSML｜tool_calls>",),
    "deepseek_v41": ("<｜DSML｜ calls>", "<｜DSML｜ invoke name="),
    "dots": ("<dots_function_call>",),
    "functiongemma": ("<start_function_call>",),
    "gemma4": ("<|tool_call>",),
    "inkling": ("<|message_model|>", "<|content_invoke_tool_json|>"),
    "gigachat35": ("<｜GCML｜tool_calls>", "<｜GCML｜invoke name="),
    "gigachat3": (
        "<|message_sep|>\n\nfunction call<|role_sep|>",
        "function call<|role_sep|>",
        "<|function_call|>",
    ),
    "granite": ("<|tool_call|>",),
    "granite-20b-fc": ("<function_call>",),
    "internlm": ("<|action_start|><|plugin|>", "<|action_start|> <|plugin|>"),
    "kimi_k2": (
        "<|tool_calls_section_begin|>",
        "<|tool_call_section_begin|>",
        "<|tool_call_begin|>",
    ),
    # Kimi K3's XTML tokens (the response channel before the tools channel included)
    "kimi_k3": ("<|open|>", "<|close|>"),
    "lfm2": ("<|tool_call_start|>",),
    "llama3_json": ("<|python_tag|>",),
    "llama4_pythonic": ("<|python_start|>",),
    "longcat": ("<longcat_tool_call>",),
    "iquest_q1": ("<iquest_tool_call>",),
    "k2_horizon": ("<ifm|tool_calls>", "<ifm|tool_call>"),
    "minicpm5": ('<functionĠname="', '<functionname="'),
    "minimax_m2": ("<minimax:tool_call>",),
    "minimax_m3": ("]<]minimax[>[<tool_call>",),
    "mistral": ("[TOOL_CALLS]",),
    "nemotron_toolcall": ("<TOOLCALL>",),
    "olmo3": ("<function_calls>",),
    "openai": ("<|channel|>",),
    "phi4_mini_json": ("functools[",),
    "plamo3": ("<|plamo:begin_tool_requests:plamo|>",),
    "seed_oss": ("<seed:tool_call>", "<seed:think>"),
    "solar_open": ("<|tool_calls|>", "<|tool_call:begin|>"),
    "solar_open2": ("<|tool_call:start|>",),
    # Command R+'s opener is prose followed by a fence: only the opener as the template
    # writes it (or with a blank line) is sniffed, never a bare ```json
    "command_r_plus": ("Action:\n```json", "Action:\n\n```json"),
    "step3": ("<｜tool_calls_begin｜>",),
    "zaya": ("<zyphra_tool_call>",),
}.items():
    for _marker in _markers:
        MARKERS[_marker] = (_fixed(_name), _name)

_FINDER = MarkerFinder(tuple(MARKERS))


def sniff(marker: str, window: str, complete: bool) -> str | None:
    """The decision for ``marker`` from its window (the text from the marker's start): a
    format name, ``TEXT`` (the marker is text), or None (wait: only while not
    ``complete``, the window whole or the stream ended)."""
    rule, default = MARKERS[marker]
    got = rule(window[:WINDOW])
    if got is None and complete:
        return default
    return got


class AutoParser(ToolParser):
    """The format sniffed from the text (module docstring); ``chosen`` names it."""

    names = ("auto",)
    family = "any: the first distinctive marker in the text picks the format"
    #: Harmony's frames are markup once ``openai`` is chosen
    FRAMES: ClassVar[tuple[str, ...]] = HARMONY_FRAMES

    def __init__(self, tools: Tools | None = None, *, id_prefix: str = "call_") -> None:
        super().__init__(tools, id_prefix=id_prefix)
        #: the format chosen, once a marker decided it
        self.chosen: str | None = None
        self._parser: ToolParser | None = None
        self._steps = (self._sniff,)

    def finish(self) -> list[Event]:
        parser = self._parser
        if parser is not None:
            self._finished = True
            return parser.finish()
        out = super().finish()
        parser = self._parser
        if parser is not None:
            out.extend(parser.finish())
        return out

    def _sniff(self, buf: str, pos: int, out: list[Event], final: bool) -> tuple[int, bool]:
        """SNIFF: text up to the next marker; then its rule, on the window."""
        end, resume, marker = _FINDER.take(buf, pos, final)
        if end > pos:
            out.append(Text(buf[pos:end]))
        if marker is None:
            return end, True
        window = buf[end : end + WINDOW]
        name = sniff(marker, window, final or len(window) == WINDOW)
        if name is None:
            return end, True
        if name == TEXT:
            out.append(Text(marker))
            return resume, False
        parser = lookup(name)(self.tools, id_prefix=self.id_prefix)
        self.chosen = name
        self._parser = parser
        # from here on every chunk is the chosen parser's: its own feed answers, bound here
        self.feed = parser.feed  # type: ignore[method-assign]
        out.extend(parser.feed(buf[end:]))
        return len(buf), False
