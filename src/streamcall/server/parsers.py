"""Which parser a request gets: decided here, and nowhere else in the proxy.

In order, the first that applies:

1. ``--model-dir`` with a response template: the ``hf`` format built from it (its
   reasoning as ``detect`` read it);
2. ``--format`` / ``--reasoning`` given to the proxy (``--model-dir`` without a response
   template fills these from the checkpoint's chat template: a format name, or
   ``derived``, the syntax read off the template by rendering it, ``config.derived``);
3. the bundled examples' models, for the built-in replay upstream (``config.models``);
4. the request's ``model`` id, routed (``format_for_model``,
   ``reasoning_format_for_model``).

Each stage may leave a name unset for the next to fill. The request itself decides the
rest, as ``output_parser`` reads it: its ``tools`` type untyped values, its
``tool_choice`` decides which calls are parsed, its thinking switches where reasoning
starts; ``--unknown-calls`` decides a call to an undeclared function. A request whose names
cannot make a parser (an unknown format) is logged and passes its content through as text.
In ``render`` mode the prompt the proxy rendered is the parser's ``generation_prompt``: where
the prompt leaves the model (inside a reasoning block, inside gpt-oss's assistant header)
is where the parser starts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from streamcall.derive.build import DERIVED
from streamcall.detect import Detected, stream_parser_for
from streamcall.formats.registry import format_for_model
from streamcall.reasoning import reasoning_format_for_model
from streamcall.server.config import ServerConfig
from streamcall.stream import StreamParser

__all__ = ["Choice", "choose", "parser_for"]

log = logging.getLogger("streamcall.server")


@dataclass(frozen=True)
class Choice:
    """The formats a request is parsed with, and what chose them."""

    tool_format: str | None
    reasoning_format: str | None
    source: str  # "--model-dir", "config", "examples", "model id" or "none"


def choose(config: ServerConfig, model: Any) -> Choice:
    """The formats for a request's ``model`` under ``config`` (module docstring)."""
    if config.response_template is not None:
        return Choice("hf", config.reasoning, "--model-dir")
    tool, reasoning = config.format, config.reasoning
    source = "config" if tool or reasoning else "none"
    if isinstance(model, str) and model in config.models and (tool is None or reasoning is None):
        known_tool, known_reasoning = config.models[model]
        tool, reasoning = tool or known_tool, reasoning or known_reasoning
        source = "examples" if source == "none" else source
    if isinstance(model, str) and (tool is None or reasoning is None):
        routed_tool = format_for_model(model) if tool is None else tool
        routed_reasoning = reasoning_format_for_model(model) if reasoning is None else reasoning
        if (routed_tool, routed_reasoning) != (tool, reasoning):
            source = "model id" if source == "none" else source
        tool, reasoning = routed_tool, routed_reasoning
    return Choice(tool, reasoning, source)


def parser_for(
    config: ServerConfig, body: dict[str, Any], prefix: str, prompt: str | None = None
) -> StreamParser:
    """A fresh parser for one upstream answer to ``body`` (its call ids start ``prefix``);
    ``prompt``, the prompt the proxy rendered (``render`` mode), gives its start state."""
    model = body.get("model")
    choice = choose(config, model)
    found: Detected | None = None
    start: str | None = None  # (the derived syntax's parser starts where the prompt left it)
    derived = (choice.tool_format, choice.reasoning_format)
    if config.response_template is not None:
        found = Detected("hf", config.reasoning, config.response_template, "--model-dir")
    elif config.derived is not None and DERIVED in derived:
        found = Detected(
            None if choice.tool_format == DERIVED else choice.tool_format,
            None if choice.reasoning_format == DERIVED else choice.reasoning_format,
            None,
            "--model-dir",
            derived=config.derived,
        )
        start = prompt
    if found is not None:
        return stream_parser_for(
            found,
            tools=body.get("tools"),
            id_prefix=prefix,
            request=body,
            tool_choice=body.get("tool_choice"),
            unknown_calls=config.unknown_calls,
            generation_prompt=start,
        )
    try:
        return StreamParser(
            choice.tool_format,
            model=model if isinstance(model, str) else None,
            tools=body.get("tools"),
            reasoning=choice.reasoning_format,
            id_prefix=prefix,
            request=body,
            tool_choice=body.get("tool_choice"),
            unknown_calls=config.unknown_calls,
            generation_prompt=prompt,
        )
    except ValueError as exc:
        log.warning("no parser for model %r (%s): content passes through", model, exc)
        return StreamParser(id_prefix=prefix)
