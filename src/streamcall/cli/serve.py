"""``streamcall serve``: the OpenAI-compatible proxy (``streamcall.server``), from options.

This module checks the options, builds a ``ServerConfig`` and calls ``server.run``; the
proxy itself lives in ``streamcall.server``. The server stack (starlette, uvicorn, httpx:
the ``server`` extra) is imported only when the verb runs, and its absence is one line
saying which extra to install.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from streamcall.cli.common import (
    CLIError,
    Subparsers,
    directory,
    note,
    os_reason,
    port_number,
    positive_int,
    positive_seconds,
    seconds,
)

if TYPE_CHECKING:
    from streamcall.server import ServerConfig

__all__ = ["API_KEY_ENV", "CLIENT_KEY_ENV", "add_parser", "bind_error", "parse_size", "run"]

API_KEY_ENV = "STREAMCALL_API_KEY"
CLIENT_KEY_ENV = "STREAMCALL_CLIENT_KEY"


def add_parser(sub: Subparsers) -> None:
    """The ``serve`` verb's options."""
    s = sub.add_parser(
        "serve",
        help="run the OpenAI-compatible proxy (needs the server extra)",
        description=(
            "An OpenAI-compatible proxy in front of a server whose model writes tool calls as "
            "raw text. With no --upstream it replays the bundled examples."
        ),
    )
    s.add_argument("--upstream", metavar="URL", help="upstream base URL, ending in /v1")
    s.add_argument(
        "--format",
        metavar="NAME",
        help="tool-call format (default: routed from the request's model)",
    )
    s.add_argument(
        "--reasoning", metavar="NAME", help="reasoning format (default: routed from the model)"
    )
    s.add_argument(
        "--model-dir",
        metavar="DIR",
        help=(
            "read the formats off the served checkpoint's directory (its response template, "
            "else its chat template: `streamcall detect DIR`)"
        ),
    )
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    s.add_argument("--port", type=port_number, default=8000, help="port (default 8000)")
    s.add_argument(
        "--workers", type=positive_int, default=1, help="worker processes (needs --upstream)"
    )
    s.add_argument(
        "--api-key",
        metavar="KEY",
        default=os.environ.get(API_KEY_ENV) or None,
        help=f"API key for the upstream (also ${API_KEY_ENV}; default: the client's own)",
    )
    s.add_argument(
        "--client-key",
        metavar="KEY",
        action="append",
        help=(
            f"a key clients must send as 'Authorization: Bearer KEY' (repeatable; also "
            f"${CLIENT_KEY_ENV}); /health stays open"
        ),
    )
    _add_request_options(s)
    s.set_defaults(func=run)


def _add_request_options(s: argparse.ArgumentParser) -> None:
    """What the proxy does with a request: its tools, its size, its upstream's time."""
    s.add_argument(
        "--upstream-tools",
        choices=["pass", "strip", "none", "render"],
        default="pass",
        help=(
            "what the upstream gets of the request's tools: pass them (default); render: "
            "streamcall writes the prompt itself (tools, calls and tool results in the "
            "model's syntax: the --model-dir checkpoint's chat template, else its own for the "
            "format) and calls the upstream's /v1/completions (llama.cpp without --jinja, "
            'any completion server); none: keep tools, send tool_choice "none" (vLLM/SGLang '
            "without a tool parser); strip: drop tools and tool_choice (the model is told "
            "of no tool)"
        ),
    )
    s.add_argument(
        "--unknown-calls",
        choices=["keep", "text"],
        default="keep",
        help=(
            "a call to a function the request's tools do not declare: keep it as a tool call "
            "(default, as vLLM's common parsers do), or text: the client gets it as content, "
            "in the model's syntax (requests without tools keep every call)"
        ),
    )
    s.add_argument(
        "--hosted-tools",
        choices=["drop", "refuse"],
        default="drop",
        help=(
            "a hosted tool in a request (web search, file search, code interpreter, computer "
            "use, image generation, MCP: the API's own servers run them): drop it (default; "
            "not offered to the model, said once in the log and counted in /health), or "
            "refuse the request with a 400 that names it"
        ),
    )
    s.add_argument(
        "--max-body",
        metavar="SIZE",
        default="16MB",
        help="largest request body accepted, e.g. 16MB, 512KB, 1048576 (default 16MB)",
    )
    s.add_argument(
        "--timeout", type=positive_seconds, default=600.0, help="upstream read timeout, seconds"
    )
    s.add_argument(
        "--replay-delay",
        type=seconds,
        default=0.02,
        help="built-in upstream: seconds between chunks",
    )
    s.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )


def run(args: argparse.Namespace) -> int:
    """Check the options, then serve until interrupted; the address is tried before the
    banner, so that a port in use is one line and nothing else."""
    _require_server_extra()
    from streamcall.server import run as serve

    config = _config(args)
    problem = bind_error(args.host, args.port)
    if problem is not None:
        raise CLIError(f"cannot serve on {args.host}:{args.port}: {problem}", 1)
    try:
        serve(
            config, host=args.host, port=args.port, workers=args.workers, log_level=args.log_level
        )
    except OSError as exc:
        raise CLIError(f"cannot serve on {args.host}:{args.port}: {os_reason(exc)}", 1) from None
    except SystemExit as exc:  # uvicorn's own exit when it could not start (its log says why)
        if exc.code:
            raise CLIError(
                f"cannot serve on {args.host}:{args.port}: the server did not start "
                f"(exit status {exc.code}; its log above says why)",
                1,
            ) from None
    return 0


def _require_server_extra() -> None:
    try:
        import httpx  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise CLIError(
            f"`streamcall serve` needs the server extra ({exc.name} is missing): "
            "pip install -e '.[server]' (from a clone of streamcall)",
            code=1,
        ) from None


def _config(args: argparse.Namespace) -> ServerConfig:
    """The proxy's configuration from the options, each checked; says on stderr which
    template renders the prompts when streamcall renders them."""
    from streamcall.server import ServerConfig

    if args.format is not None:
        from streamcall.formats.registry import formats

        if args.format not in (*formats(), "auto"):
            raise CLIError(f"unknown tool-call format {args.format!r}; see `streamcall formats`")
    if args.workers > 1 and args.upstream is None:
        raise CLIError(
            "--workers needs --upstream (the built-in replay upstream runs in one process)"
        )
    client_keys = list(args.client_key or [])
    if not client_keys and os.environ.get(CLIENT_KEY_ENV):
        client_keys = [os.environ[CLIENT_KEY_ENV]]
    if any(not k.strip() for k in client_keys):
        raise CLIError("--client-key must not be empty")
    config = ServerConfig(
        upstream=args.upstream,
        format=args.format,
        reasoning=args.reasoning,
        api_key=args.api_key,
        timeout=args.timeout,
        replay_delay=args.replay_delay,
        upstream_tools=args.upstream_tools,
        unknown_calls=args.unknown_calls,
        hosted_tools=args.hosted_tools,
        client_keys=client_keys,
        max_body=parse_size(args.max_body, "--max-body"),
    )
    if args.model_dir is not None:
        from streamcall.server.app import config_with_model_dir

        if args.format is not None:
            raise CLIError("--model-dir decides the tool-call format: drop --format")
        directory(args.model_dir, "--model-dir")
        try:
            config = config_with_model_dir(config, args.model_dir)
        except (OSError, ValueError) as exc:
            raise CLIError(str(exc)) from None
    if config.upstream_tools == "render":
        from streamcall.prompt import TemplateError
        from streamcall.server.app import prompter_for

        try:
            note(f"prompts rendered with {prompter_for(config).source}")
        except (TemplateError, ValueError, OSError) as exc:
            raise CLIError(str(exc)) from None
    return config


def bind_error(host: str, port: int) -> str | None:
    """Why the proxy could not listen on ``host:port`` (a port in use, a host that does
    not resolve), or None. Bound as uvicorn binds (asyncio's ``create_server``: every
    address the host resolves to, ``SO_REUSEADDR``, IPv6 sockets IPv6 only), then let go."""
    import socket

    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except OSError as exc:
        return os_reason(exc)
    for family, kind, proto, _, address in infos:
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind(address)
        except OSError as exc:
            return os_reason(exc)
    return None


_SIZE_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20}
_SIZE_UNITS |= {"g": 1 << 30, "gb": 1 << 30, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}


def parse_size(text: str, option: str) -> int:
    """``16MB``, ``512kb``, ``1048576``: a byte count (K, M and G are powers of 1024)."""
    import re

    found = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", text)
    unit = _SIZE_UNITS.get(found.group(2).lower()) if found else None
    if found is None or unit is None or int(found.group(1)) == 0:
        raise CLIError(f"{option} must be a positive size such as 16MB, 512KB or 1048576: {text!r}")
    return int(found.group(1)) * unit
