"""How the proxy runs: ``ServerConfig``, its checks, and the configs made from a
checkpoint directory or the bundled examples.

A config is plain data, made once per process (the command line makes it; a ``--workers``
process reads it back from ``STREAMCALL_SERVER_CONFIG`` as JSON). ``check_config`` says what
in it cannot run, before anything starts. ``Counters`` are the per-process counts
``/health`` shows.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamcall import bundled
from streamcall.derive.build import DERIVED
from streamcall.detect import detect
from streamcall.prompt import Prompter, load_chat_template
from streamcall.toolchoice import unknown_calls_error

__all__ = [
    "CONFIG_ENV",
    "HOSTED_TOOLS",
    "UPSTREAM_TOOLS",
    "Counters",
    "ServerConfig",
    "check_config",
    "config_for_examples",
    "config_with_model_dir",
    "prompter_for",
]

CONFIG_ENV = "STREAMCALL_SERVER_CONFIG"
#: what ``--upstream-tools`` may say
UPSTREAM_TOOLS = ("pass", "strip", "none", "render")
#: what ``--hosted-tools`` may say
HOSTED_TOOLS = ("drop", "refuse")


@dataclass
class ServerConfig:
    """How the proxy runs. ``upstream`` is a base URL ending in ``/v1``."""

    upstream: str | None = None
    format: str | None = None
    reasoning: str | None = None
    #: the upstream's key (sent as ``Authorization: Bearer``); never shown to clients
    api_key: str | None = None
    timeout: float = 600.0
    connect_timeout: float = 10.0
    replay_delay: float = 0.02
    max_connections: int = 1000
    #: model id -> (tool-call format, reasoning format), for models whose id does not route
    models: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    #: what reaches the upstream of the request's tools: "pass", "strip", "none", or
    #: "render" (the proxy renders the prompt and calls the upstream's /v1/completions)
    upstream_tools: str = "pass"
    #: a call to a function the request's tools do not declare: "keep" it as a call (the
    #: default) or make it "text" (content, in the format's syntax); see streamcall.toolchoice
    unknown_calls: str = "keep"
    #: keys a client must send (``Authorization: Bearer KEY``); empty: no check
    client_keys: list[str] = field(default_factory=list)
    #: the largest request body accepted, in bytes (larger: 413)
    max_body: int = 16 << 20
    #: a checkpoint's response template (``--model-dir``): every answer is parsed with the
    #: ``hf`` format built from it, and ``format``/``reasoning`` say ``hf``
    response_template: dict[str, Any] | None = None
    #: a checkpoint's syntax derived from its chat template (``--model-dir``, no
    #: fingerprint known; ``streamcall.derive.Derived``): where ``format`` or
    #: ``reasoning`` says ``derived``, answers are parsed with it
    derived: Any = None
    #: the checkpoint directory (``--model-dir``); with ``upstream_tools="render"`` its chat
    #: template renders every prompt
    model_dir: str | None = None
    #: a hosted tool in a request (web search, code interpreter, MCP, ...: run by the API's
    #: own servers, so neither the proxy nor the model can): "drop" it (not offered to the
    #: model; said once in the log, counted in /health) or "refuse" the request (400)
    hosted_tools: str = "drop"


@dataclass
class Counters:
    """Per-process counters, shown by ``/health``."""

    requests: int = 0
    streams: int = 0
    bad_requests: int = 0
    unauthorized: int = 0
    upstream_errors: int = 0  # unreachable, broken off, or a 5xx
    upstream_refusals: int = 0  # a 4xx: the upstream refused the client's request
    upstream_disconnects: int = 0
    rejected_chunks: int = 0
    parser_errors: int = 0


def check_config(config: ServerConfig) -> None:
    """Raises ``ValueError`` saying what in ``config`` cannot run."""
    if not config.upstream:
        raise ValueError("create_app needs config.upstream (a base URL ending in /v1)")
    if config.upstream_tools not in UPSTREAM_TOOLS:
        raise ValueError(
            f"upstream_tools must be one of {', '.join(UPSTREAM_TOOLS)}: {config.upstream_tools!r}"
        )
    why = unknown_calls_error(config.unknown_calls)
    if why is not None:
        raise ValueError(why)
    if config.hosted_tools not in HOSTED_TOOLS:
        raise ValueError(
            f"hosted_tools must be one of {', '.join(HOSTED_TOOLS)}: {config.hosted_tools!r}"
        )


def prompter_for(config: ServerConfig) -> Prompter:
    """The prompt renderer of ``--upstream-tools render``: the checkpoint's chat template
    (``model_dir``), else streamcall's template for ``format``'s family, else the family of
    each request's ``model`` (a request whose model routes to none gets a 400)."""
    from streamcall.prompt import FAMILIES, family_for

    fmt = config.format if config.format not in (None, "auto", "hf", DERIVED) else None
    if config.model_dir:
        return Prompter(template=load_chat_template(config.model_dir), format=fmt)
    if fmt is not None and family_for(fmt) is None:
        have = ", ".join(sorted(f for fam in FAMILIES for f in fam.formats))
        raise ValueError(
            f"--upstream-tools render: streamcall ships no chat template for the format "
            f"{fmt!r} (it has one for {have}); give --model-dir, the checkpoint whose "
            "chat template renders the prompt"
        )
    return Prompter(format=fmt)


def config_with_model_dir(config: ServerConfig, directory: str | os.PathLike[str]) -> ServerConfig:
    """``config`` with the formats ``detect`` reads off a checkpoint directory (an explicit
    ``format`` or ``reasoning`` in ``config`` wins); returns it with ``detect``'s reason.

    A response template decides both (``hf``). No tool-call format found: the syntax
    derived from the chat template by rendering it (``derived``; ``streamcall.derive``),
    else ``auto``, the format sniffed from each answer; no reasoning format found: the
    derived reasoning markers, else none.
    """
    found = detect(Path(directory))
    if found.template is not None:
        return dataclasses.replace(
            config,
            format="hf",
            reasoning=found.reasoning,
            response_template=found.template,
            model_dir=str(directory),
        )
    derived = found.derived
    calls = found.format is None and derived is not None and derived.calls is not None
    reasons = found.reasoning is None and derived is not None and derived.reasoning is not None
    return dataclasses.replace(
        config,
        format=config.format or found.format or (DERIVED if calls else "auto"),
        reasoning=config.reasoning or found.reasoning or (DERIVED if reasons else "none"),
        model_dir=str(directory),
        derived=derived if calls or reasons else None,
    )


def config_for_examples(config: ServerConfig) -> ServerConfig:
    """``config`` with the bundled examples' models and formats added."""
    models = dict(config.models)
    for ex in bundled.examples():
        models.setdefault(ex.model, (ex.format, ex.reasoning))
    config.models = models
    return config
