"""The text layer: what every parser of model text is built on.

It sits right above ``streamcall.events`` and below every parser (``formats/``,
``reasoning/``, ``partial/``, ``stream.py``); it imports only ``streamcall.events`` and the
standard library, and nothing in it knows a format.

- ``loop``: ``FeedLoop``, the feed loop and its rules (a mode table of steps, each
  returning ``(pos, hold)``);
- ``markers``: finding markers, holding back a cut one (``MarkerFinder``,
  ``PartialMarkers``, ``StopMarkers``, ``partial_marker_len``, ``cut_marker``);
- ``jsonstring``: JSON string bodies decoded as they arrive, quoting, and the patterns;
- ``jsonscan``: ``JsonScan``, the resumable validating scan of one JSON value;
- ``args``: the argument streamers built on it;
- ``members``: ``ShortMembers``, tagged members read whole by one regex, a cut one held
  whole (``tagged_member_pattern`` builds the regex of one);
- ``bare``: objects written with bare keys and delimited strings, read as JSON;
- ``pyliteral``, ``pyargs``: Python literals read as JSON, and ``PythonArgs``, a call's
  arguments written as Python streamed as one JSON object;
- ``newlines``: ``EscapedNewlines``, a newline a tokenizer wrote as ``\\n`` recovered
  outside code and math (``NewlineEvents`` applies it to an event stream);
- ``fast``: the one switch that sends every fast read to its reference path.
"""

from __future__ import annotations

from streamcall.text import fast
from streamcall.text.args import MAX_MEMBER, ArgsStep, ArgsStreamer
from streamcall.text.bare import BareMembers, bare_scalar
from streamcall.text.jsonscan import (
    KEY_EXPECTED,
    KEY_OR_CLOSE_EXPECTED,
    MAX_DEPTH,
    NUMBER,
    WS,
    JsonScan,
    skip_ws,
    too_deep,
)
from streamcall.text.jsonstring import (
    CONTROL,
    CUT_ESCAPE,
    HIGH_SURROGATE_TAIL,
    STRICT_RUN,
    STRING_RUN,
    decode_json_string,
    decode_string_run,
    json_quote,
    raw_offset,
)
from streamcall.text.loop import FeedLoop, Step, StepFn, not_text, step_table
from streamcall.text.markers import (
    MarkerFinder,
    PartialMarkers,
    StopMarkers,
    cut_marker,
    header_match,
    partial_marker_len,
)
from streamcall.text.members import (
    MAX_CUT_VALUE,
    MAX_SHORT_MEMBER,
    ShortMembers,
    any_prefix,
    tagged_member_pattern,
)
from streamcall.text.pyargs import PythonArgs

__all__ = [
    "CONTROL",
    "CUT_ESCAPE",
    "HIGH_SURROGATE_TAIL",
    "KEY_EXPECTED",
    "KEY_OR_CLOSE_EXPECTED",
    "MAX_CUT_VALUE",
    "MAX_DEPTH",
    "MAX_MEMBER",
    "MAX_SHORT_MEMBER",
    "NUMBER",
    "STRICT_RUN",
    "STRING_RUN",
    "WS",
    "ArgsStep",
    "ArgsStreamer",
    "BareMembers",
    "FeedLoop",
    "JsonScan",
    "MarkerFinder",
    "PartialMarkers",
    "PythonArgs",
    "ShortMembers",
    "Step",
    "StepFn",
    "StopMarkers",
    "any_prefix",
    "bare_scalar",
    "cut_marker",
    "decode_json_string",
    "decode_string_run",
    "fast",
    "header_match",
    "json_quote",
    "not_text",
    "partial_marker_len",
    "raw_offset",
    "skip_ws",
    "step_table",
    "tagged_member_pattern",
    "too_deep",
]
