"""The ``streamcall`` command line: ``parse``, ``formats``, ``detect``, ``serve``, ``bench``,
``examples``.

- ``parse`` reads model text or an SSE capture (from a file, a bundled example or stdin),
  feeds it through the library in chunks of ``--chunk`` and writes JSON-lines events, the
  final message (``--message``), or a live view (``--live``: rich when it is installed
  and stdout is a terminal, a plain growing transcript otherwise). The formats come from
  ``--format``/``--reasoning``, a model id (``--model``), a checkpoint directory
  (``--model-dir``, through ``detect``) or a response template (``--response-template``);
  with none of them the tool-call format is sniffed (``auto``), and stderr says what was
  chosen.
- ``formats`` lists tool-call formats (model family, routing patterns) and reasoning formats.
- ``detect`` says which formats a checkpoint writes, read off its directory, its
  ``tokenizer_config.json`` or a chat template file (``streamcall.detect``).
- ``serve`` starts the OpenAI-compatible proxy (``streamcall.server``; needs the ``server``
  extra, imported only here); ``--model-dir`` reads its formats off the served checkpoint.
- ``bench`` runs ``python -m benchmarks`` from a source checkout.

Only the standard library is imported at module level; rich and the server stack are
imported lazily by the commands that need them. Bad input never ends in a traceback: it
gets one line on stderr and exit status 2 (1 for a failure at run time, 130 on ^C).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

from streamcall import bundled
from streamcall.events import (
    Event,
    Finish,
    Reasoning,
    StreamError,
    Text,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)

__all__ = ["CLIError", "event_json", "main"]

PROG = "streamcall"
API_KEY_ENV = "STREAMCALL_API_KEY"
CLIENT_KEY_ENV = "STREAMCALL_CLIENT_KEY"
_SSE_PREFIXES = (b"data:", b"event:", b"id:", b"retry:", b": ", b":\n")


class CLIError(Exception):
    """Bad input or usage: reported as one line on stderr, exit status ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


# --- events as JSON ----------------------------------------------------------------------

_EVENT_TYPES: dict[type, str] = {
    Text: "text",
    Reasoning: "reasoning",
    ToolCallStart: "tool_call_start",
    ToolCallArgs: "tool_call_args",
    ToolCallEnd: "tool_call_end",
    UsageEvent: "usage",
    Finish: "finish",
    StreamError: "error",
}


def event_json(ev: Event) -> dict[str, Any]:
    """One event as a JSON-ready dict: ``{"type": ..., <its fields>}``."""
    out: dict[str, Any] = {"type": _EVENT_TYPES[type(ev)]}
    for name in ev.__slots__:
        out[name] = getattr(ev, name)
    return out


# --- the parse pipeline ------------------------------------------------------------------


class _Feeder(Protocol):
    def feed(self, data: Any) -> list[Event]: ...
    def finish(self) -> list[Event]: ...


@dataclass
class _Fold:
    """Folds events into an OpenAI-shaped assistant message."""

    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    #: an SSE stream that ended with neither a finish_reason nor [DONE]
    cut: bool = False

    def add(self, ev: Event) -> None:
        if isinstance(ev, Text):
            self.content.append(ev.text)
        elif isinstance(ev, Reasoning):
            self.reasoning.append(ev.text)
        elif isinstance(ev, ToolCallStart):
            self.calls[ev.index] = {"id": ev.id, "name": ev.name, "args": [], "incomplete": False}
        elif isinstance(ev, ToolCallArgs):
            self.calls[ev.index]["args"].append(ev.delta)
        elif isinstance(ev, ToolCallEnd):
            self.calls[ev.index]["incomplete"] = ev.incomplete
        elif isinstance(ev, Finish):
            self.finish_reason = ev.reason
        elif isinstance(ev, UsageEvent):
            self.usage = ev.to_dict()  # the server's usage object, details included
        elif isinstance(ev, StreamError):
            self.errors.append(event_json(ev))

    def message(self) -> dict[str, Any]:
        calls = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": "".join(c["args"])},
                **({"incomplete": True} if c["incomplete"] else {}),
            }
            for _, c in sorted(self.calls.items())
        ]
        reason = self.finish_reason
        if reason == "stop" and calls:
            reason = "tool_calls"
        elif reason is None and not self.cut:  # model text has no finish of its own
            reason = "tool_calls" if calls else "stop"
        out: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(self.content) or None,
            "reasoning_content": "".join(self.reasoning) or None,
            "tool_calls": calls,
            "finish_reason": reason,
        }
        if self.usage is not None:
            out["usage"] = self.usage
        if self.errors:
            out["errors"] = self.errors
        return out


class _TextFeeder:
    """Model text through ``streamcall.output`` (or as plain text when no format)."""

    def __init__(self, parser: Any | None) -> None:
        self._parser = parser
        self._decoder = _utf8_decoder()

    def feed(self, data: bytes) -> list[Event]:
        text = self._decoder.decode(data)
        if not text:
            return []
        if self._parser is None:
            return [Text(text)]
        events: list[Event] = self._parser.feed(text)
        return events

    def finish(self) -> list[Event]:
        out: list[Event] = []
        tail = self._decoder.decode(b"", final=True)
        if tail:
            out.extend(self.feed_text(tail))
        if self._parser is not None:
            out.extend(self._parser.finish())
        return out

    def feed_text(self, text: str) -> list[Event]:
        if self._parser is None:
            return [Text(text)]
        events: list[Event] = self._parser.feed(text)
        return events


def _utf8_decoder() -> Any:
    import codecs

    return codecs.getincrementaldecoder("utf-8")(errors="replace")


def _load_tools(path: str | None) -> list[dict[str, Any]] | None:
    if path is None:
        return None
    resolved = bundled.resolve_path(path)
    if resolved is None:
        raise CLIError(f"cannot read tools file {path!r}: no such file")
    try:
        value = json.loads(resolved.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CLIError(f"cannot read tools file {path!r}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CLIError(f"tools file {path!r} is not valid JSON: {exc}") from None
    if isinstance(value, dict) and isinstance(value.get("tools"), list):
        value = value["tools"]
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise CLIError(
            f"tools file {path!r} must hold a JSON list of OpenAI tools "
            '([{"type": "function", "function": {...}}, ...])'
        )
    return value


def _read_input(source: str) -> tuple[bytes, bundled.Example | None]:
    if source == "-":
        return sys.stdin.buffer.read(), None
    resolved = bundled.resolve_path(source)
    if resolved is None:
        hint = ""
        if Path(source).parts[:1] == ("examples",):
            names = ", ".join(ex.file for ex in bundled.examples())
            hint = f" (bundled examples: {names})"
        raise CLIError(f"cannot read {source!r}: no such file{hint}")
    if resolved.is_dir():
        raise CLIError(f"cannot read {source!r}: it is a directory")
    try:
        data = resolved.read_bytes()
    except OSError as exc:
        raise CLIError(f"cannot read {source!r}: {exc.strerror or exc}") from None
    example = None
    if resolved.parent == bundled.example_dir() or resolved.parent.name == "examples":
        example = bundled.find_example(resolved.name)
    return data, example


def looks_like_sse(data: bytes) -> bool:
    """An SSE capture starts (after a BOM and blank lines) with a field or a comment."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf").lstrip(b"\r\n")
    return head.startswith(_SSE_PREFIXES)


def _checkpoint(args: argparse.Namespace) -> Any | None:
    """What ``--model-dir`` or ``--response-template`` says to parse with (a ``Detected``),
    said on stderr; None when neither is given."""
    from streamcall.detect import detect, detect_response_template

    if args.model_dir is None and args.response_template is None:
        return None
    given = [
        flag
        for flag, value in (("--format", args.format), ("--model", args.model))
        if value is not None
    ]
    if args.model_dir is not None and args.response_template is not None:
        given.append("--response-template")
    source = "--model-dir" if args.model_dir is not None else "--response-template"
    if given:
        raise CLIError(f"{source} decides the formats: drop {' and '.join(given)}")
    if args.model_dir is not None:
        if not Path(args.model_dir).is_dir():
            raise CLIError(f"--model-dir {args.model_dir!r}: not a directory")
        try:
            found = detect(Path(args.model_dir))
        except (OSError, ValueError) as exc:
            raise CLIError(str(exc)) from None
    else:
        from streamcall.response_templates import load_response_template

        if args.reasoning is not None:
            raise CLIError("--response-template decides the reasoning too: drop --reasoning")
        try:
            template = load_response_template(args.response_template).as_dict()
        except (OSError, ValueError, LookupError) as exc:
            raise CLIError(f"--response-template {args.response_template!r}: {exc}") from None
        found = detect_response_template(template, where=args.response_template)
    _note(
        f"{source}: tool-call format {found.format or 'none found (sniffed from the text)'}, "
        f"reasoning {found.reasoning or 'none'} ({found.why})"
    )
    if args.reasoning is not None:
        if found.template is not None:
            _note("--reasoning is ignored: the response template decides the reasoning")
        else:
            import dataclasses

            found = dataclasses.replace(found, reasoning=args.reasoning)
    return found


def _make_feeder(args: argparse.Namespace, sse: bool, tools: Any) -> _Feeder:
    fmt, model, reasoning = args.format, args.model, args.reasoning
    thinking = {"on": True, "off": False}.get(args.thinking or "")
    unknown = getattr(args, "unknown_calls", "keep")
    found = _checkpoint(args)
    if found is not None:
        from streamcall.detect import output_parser_for, stream_parser_for

        try:
            if sse:
                return stream_parser_for(
                    found, tools=tools, thinking=thinking, unknown_calls=unknown
                )
            return _TextFeeder(
                output_parser_for(found, tools=tools, thinking=thinking, unknown_calls=unknown)
            )
        except ValueError as exc:
            raise CLIError(str(exc)) from None
    if fmt is None and model is None:
        fmt = "auto"  # sniffed from the text; _cmd_parse says what was chosen
    try:
        if sse:
            from streamcall.stream import StreamParser

            return StreamParser(
                fmt,
                model=model,
                tools=tools,
                reasoning=reasoning,
                thinking=thinking,
                unknown_calls=unknown,
            )
        from streamcall.output import output_parser

        parser = output_parser(
            model,
            tools=tools,
            tool_format=fmt,
            reasoning_format=reasoning,
            thinking=thinking,
            unknown_calls=unknown,
        )
        if parser.tool_format is None and parser.reasoning_format is None and fmt != "none":
            _note(
                f"no tool-call or reasoning format is known for model {model!r}; the text "
                "passes through as is (see `streamcall formats`, or give --format)"
            )
        return _TextFeeder(parser)
    except ValueError as exc:
        raise CLIError(str(exc)) from None


def _sniffer(feeder: _Feeder) -> Any | None:
    """The ``auto`` tool parser inside a feeder, if the format is being sniffed."""
    from streamcall.formats.auto import AutoParser

    output = getattr(feeder, "_parser", None) or getattr(feeder, "_text", None)
    tools = getattr(output, "tools", None)
    return tools if isinstance(tools, AutoParser) else None


def _say_sniffed(sniffer: Any, sse: bool, reasoning: str | None, explicit: str | None) -> None:
    """What the sniffing chose, on stderr: the format, or that the text passed through."""
    hint = (
        "choose a tool-call format with --format NAME, or route one from the model id with "
        "--model ID (see `streamcall formats`)"
    )
    why = "no --format or --model" if explicit is None else explicit
    if sniffer.chosen is not None:
        _note(
            f"{why}: the format sniffed from the text is {sniffer.chosen} "
            f"(its first tool-call marker decided); {hint}"
        )
        return
    what = "delta.content" if sse else "the text"
    _note(
        f"{why}: {what} passes through unparsed (no tool-call marker in it"
        + ("; only --reasoning is applied" if reasoning else "")
        + f"); {hint}"
    )


def _pieces(data: bytes, size: int | None) -> Iterator[bytes]:
    if not size or size >= len(data):
        if data:
            yield data
        return
    for start in range(0, len(data), size):
        yield data[start : start + size]


def _chunked_text_bytes(data: bytes, size: int | None, sse: bool) -> Iterator[bytes]:
    """Model text is cut every ``size`` characters (bytes of an SSE capture)."""
    if sse or not size:
        yield from _pieces(data, size)
        return
    text = data.decode("utf-8", errors="replace")
    for start in range(0, len(text), size):
        yield text[start : start + size].encode("utf-8", "surrogatepass")


class _Progress:
    """Progress on stderr for long inputs, when stderr is a terminal."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled and total >= 4 << 20 and sys.stderr.isatty()
        self._last = time.monotonic()

    def step(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last >= 0.25:
            self._last = now
            pct = 100.0 * self.done / self.total
            sys.stderr.write(f"\rstreamcall: parsed {self.done >> 20} MB ({pct:.0f}%)")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 48 + "\r")
            sys.stderr.flush()


def _cmd_parse(args: argparse.Namespace) -> int:
    if args.chunk is not None and args.chunk <= 0:
        raise CLIError("--chunk must be a positive number")
    data, example = _read_input(args.file)
    chosen = (args.format, args.model, args.model_dir, args.response_template)
    if example is not None and chosen == (None, None, None, None):
        # a bundled example knows its model: use its formats unless told otherwise
        args.format = example.format
        if args.reasoning is None:
            args.reasoning = example.reasoning
    sse = args.sse or (not args.text and looks_like_sse(data))
    tools = _load_tools(args.tools)
    feeder = _make_feeder(args, sse, tools)

    live = args.live
    chunk = args.chunk
    delay = args.delay
    if live and chunk is None:
        chunk = 64 if sse else 6
    if live and delay is None:
        delay = 0.012
    sink = _make_sink(args, live)
    progress = _Progress(len(data), not live)
    fold = _Fold()
    sniffer = _sniffer(feeder)
    explicit = None
    if args.format == "auto":
        explicit = "--format auto"
    elif args.model_dir is not None or args.response_template is not None:
        explicit = "--model-dir" if args.model_dir is not None else "--response-template"
    try:
        for piece in _chunked_text_bytes(data, chunk, sse):
            events = feeder.feed(piece)
            for ev in events:
                fold.add(ev)
            sink.events(events)
            progress.step(len(piece))
            if sniffer is not None and sniffer.chosen is not None:
                _say_sniffed(sniffer, sse, args.reasoning, explicit)
                sniffer = None
            if delay:
                time.sleep(delay)
        events = feeder.finish()
        if sniffer is not None:
            _say_sniffed(sniffer, sse, args.reasoning, explicit)
        if getattr(feeder, "ended_early", False):
            fold.cut = True
            events.append(
                StreamError(
                    "the stream ended early: no finish_reason and no [DONE] (a cut capture, "
                    "or a server that died mid-answer)",
                    "end of stream",
                    "",
                )
            )
        for ev in events:
            fold.add(ev)
        sink.events(events)
    finally:
        progress.close()
        sink.close()
    if args.message:
        _write(json.dumps(fold.message(), ensure_ascii=False, indent=2) + "\n")
    return 0


# --- output sinks: JSON lines, plain live transcript, rich live view ----------------------


class _Sink(Protocol):
    def events(self, events: list[Event]) -> None: ...
    def close(self) -> None: ...


class _NullSink:
    def events(self, events: list[Event]) -> None:
        pass

    def close(self) -> None:
        pass


class _JSONLinesSink:
    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def events(self, events: list[Event]) -> None:
        if events:
            self.out.write(
                "".join(json.dumps(event_json(ev), ensure_ascii=False) + "\n" for ev in events)
            )

    def close(self) -> None:
        self.out.flush()


class _PlainLiveSink:
    """A transcript that grows as the stream is parsed: a label whenever the kind of
    output changes (``[reasoning]``, ``[text]``, ``[call 0 name]``), then its deltas."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.current: str | None = None
        self.labels: dict[int, str] = {}

    def _switch(self, label: str) -> None:
        if self.current != label:
            if self.current is not None:
                self.out.write("\n")
            self.out.write(f"[{label}] ")
            self.current = label

    def events(self, events: list[Event]) -> None:
        for ev in events:
            if isinstance(ev, Text):
                self._switch("text")
                self.out.write(ev.text)
            elif isinstance(ev, Reasoning):
                self._switch("reasoning")
                self.out.write(ev.text)
            elif isinstance(ev, ToolCallStart):
                self.labels[ev.index] = f"call {ev.index} {ev.name}"
                self._switch(self.labels[ev.index])
            elif isinstance(ev, ToolCallArgs):
                self._switch(self.labels.get(ev.index, f"call {ev.index}"))
                self.out.write(ev.delta)
            elif isinstance(ev, ToolCallEnd):
                self.out.write(" (incomplete)" if ev.incomplete else "")
            elif isinstance(ev, Finish):
                self._switch("finish")
                self.out.write(ev.reason)
            elif isinstance(ev, StreamError):
                self._switch("error")
                self.out.write(f"{ev.where}: {ev.message}")
        self.out.flush()

    def close(self) -> None:
        if self.current is not None:
            self.out.write("\n")
        self.out.flush()


class _RichLiveSink:
    """rich's ``Live``: reasoning, text and one panel per call, growing in place."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.live import Live

        self.console = Console()
        self.reasoning: list[str] = []
        self.text: list[str] = []
        self.calls: dict[int, list[Any]] = {}  # index -> [name, [deltas], state]
        self.finish: str | None = None
        self.errors: list[str] = []
        # rendered at each refresh (20 Hz), not per chunk: a long stream stays linear
        self.live = Live(console=self.console, refresh_per_second=20, get_renderable=self._render)
        self.live.start()

    def _render(self) -> Any:
        from rich.console import Group
        from rich.panel import Panel
        from rich.text import Text as RichText

        parts: list[Any] = []
        if self.reasoning:
            parts.append(
                Panel(RichText("".join(self.reasoning), style="dim italic"), title="reasoning")
            )
        if self.text:
            parts.append(Panel(RichText("".join(self.text)), title="text"))
        for index, (name, deltas, state) in sorted(self.calls.items()):
            style = {"open": "yellow", "done": "green", "incomplete": "red"}[state]
            parts.append(
                Panel(
                    RichText("".join(deltas), style="cyan"),
                    title=f"call {index}: {name}",
                    subtitle=state,
                    border_style=style,
                )
            )
        if self.errors:
            parts.append(Panel(RichText("\n".join(self.errors), style="red"), title="errors"))
        if self.finish:
            parts.append(RichText(f"finish: {self.finish}", style="bold"))
        return Group(*parts)

    def events(self, events: list[Event]) -> None:
        if not events:
            return
        for ev in events:
            if isinstance(ev, Text):
                self.text.append(ev.text)
            elif isinstance(ev, Reasoning):
                self.reasoning.append(ev.text)
            elif isinstance(ev, ToolCallStart):
                self.calls[ev.index] = [ev.name, [], "open"]
            elif isinstance(ev, ToolCallArgs):
                self.calls[ev.index][1].append(ev.delta)
            elif isinstance(ev, ToolCallEnd):
                self.calls[ev.index][2] = "incomplete" if ev.incomplete else "done"
            elif isinstance(ev, Finish):
                self.finish = ev.reason
            elif isinstance(ev, StreamError):
                self.errors.append(f"{ev.where}: {ev.message}")

    def close(self) -> None:
        self.live.refresh()
        self.live.stop()


def _make_sink(args: argparse.Namespace, live: bool) -> _Sink:
    if live:
        if args.plain or not sys.stdout.isatty():
            return _PlainLiveSink(sys.stdout)
        try:
            import rich  # noqa: F401
        except ImportError:
            _note("rich is not installed (pip install -e '.[cli]'): plain live output")
            return _PlainLiveSink(sys.stdout)
        return _RichLiveSink()
    if args.message:
        return _NullSink()
    return _JSONLinesSink(sys.stdout)


# --- formats -----------------------------------------------------------------------------


def _format_rows() -> list[dict[str, Any]]:
    from streamcall.formats.registry import ROUTES, formats, parser_class

    rows: list[dict[str, Any]] = []
    for name in formats():
        cls = parser_class(name)
        rows.append(
            {
                "name": name,
                "canonical": cls.names[0] if cls.names else name,
                "family": cls.family,
                "routes": [pattern for pattern, fmt in ROUTES if fmt == name],
                "vllm_differences": cls.vllm_differences,
            }
        )
    return rows


def _reasoning_rows() -> list[dict[str, Any]]:
    from streamcall.reasoning import REASONING_ROUTES, reasoning_formats

    return [
        {"name": name, "routes": [pattern for pattern, fmt in REASONING_ROUTES if fmt == name]}
        for name in reasoning_formats()
    ]


def formats_markdown() -> str:
    """The per-format table of docs/formats.md, generated from the registry."""
    lines = [
        "| format | model family | routed from model ids containing | where streamcall differs "
        "from vLLM on purpose |",
        "|---|---|---|---|",
    ]
    for r in _format_rows():
        alias = f" (alias of `{r['canonical']}`)" if r["canonical"] != r["name"] else ""
        routes = ", ".join(f"`{p}`" for p in r["routes"]) or "–"
        notes = r["vllm_differences"].replace("|", "\\|") or "–"
        lines.append(f"| `{r['name']}` | {r['family']}{alias} | {routes} | {notes} |")
    lines += ["", "| reasoning format | routed from model ids containing |", "|---|---|"]
    for r in _reasoning_rows():
        routes = ", ".join(f"`{p}`" for p in r["routes"]) or "–"
        lines.append(f"| `{r['name']}` | {routes} |")
    return "\n".join(lines) + "\n"


def _cmd_formats(args: argparse.Namespace) -> int:
    if args.response_template is not None:
        return _response_template(args.response_template)
    if args.markdown:
        _write(formats_markdown())
        return 0
    tool_rows = _format_rows()
    reasoning_rows = _reasoning_rows()
    if args.json:
        _write(json.dumps({"tool_call": tool_rows, "reasoning": reasoning_rows}, indent=2) + "\n")
        return 0
    lines = ["Tool-call formats (--format NAME; routed from --model by substring, in order):"]
    width = max((len(r["name"]) for r in tool_rows), default=4)
    for r in tool_rows:
        alias = f" (= {r['canonical']})" if r["canonical"] != r["name"] else ""
        routes = _routes_text(r["routes"], f"--format {r['name']}")
        lines.append(f"  {r['name']:<{width}}  {r['family']}{alias}")
        lines.append(f"  {'':<{width}}  {routes}")
    lines.append(
        f"  {'auto':<{width}}  the format whose marker comes first in the text (sniffed; the "
        "default of `streamcall parse` with neither --format nor --model)"
    )
    lines.append("")
    lines.append("Reasoning formats (--reasoning NAME):")
    width = max((len(r["name"]) for r in reasoning_rows), default=4)
    for r in reasoning_rows:
        routes = _routes_text(r["routes"], f"--reasoning {r['name']}")
        lines.append(f"  {r['name']:<{width}}  {routes}")
    _write("\n".join(lines) + "\n")
    return 0


def _response_template(name: str) -> int:
    from streamcall.response_templates.export import UNEXPRESSIBLE, response_template_for

    try:
        template = response_template_for(name)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if template is None:
        raise CLIError(f"the response-template spec cannot express {name!r}: {UNEXPRESSIBLE[name]}")
    _write(json.dumps(template, indent=2, ensure_ascii=False) + "\n")
    return 0


def _routes_text(routes: list[str], option: str) -> str:
    if routes:
        return "model ids containing: " + ", ".join(routes)
    return f"no routing: no model id picks it; give {option}"


def _cmd_examples(args: argparse.Namespace) -> int:
    exs = bundled.examples()
    if args.json:
        rows = [
            {
                "file": ex.file,
                "path": str(ex.path),
                "model": ex.model,
                "format": ex.format,
                "reasoning": ex.reasoning,
                "about": ex.about,
            }
            for ex in exs
        ]
        _write(json.dumps(rows, indent=2) + "\n")
        return 0
    lines = [f"Bundled examples ({bundled.example_dir()}):"]
    for ex in exs:
        lines.append(f"  examples/{ex.file}")
        lines.append(f"      model {ex.model}; {ex.about}")
    _write("\n".join(lines) + "\n")
    return 0


def _cmd_detect(args: argparse.Namespace) -> int:
    from streamcall.detect import detect

    try:
        found = detect(Path(args.source))
    except (OSError, ValueError) as exc:
        raise CLIError(str(exc)) from None
    if args.json:
        row = {
            "format": found.format,
            "reasoning": found.reasoning,
            "template": found.template,
            "why": found.why,
        }
        _write(json.dumps(row, indent=2, ensure_ascii=False) + "\n")
        return 0
    lines = [
        f"tool-call format:  {found.format or 'none found'}",
        f"reasoning format:  {found.reasoning or 'none found'}",
        f"response template: {'yes' if found.template is not None else 'no'}",
        f"why: {found.why}",
    ]
    _write("\n".join(lines) + "\n")
    return 0


# --- render ------------------------------------------------------------------------------


def _cmd_render(args: argparse.Namespace) -> int:
    from streamcall.prompt import Prompter, TemplateError, family_for, load_chat_template

    raw = sys.stdin.read() if args.request == "-" else _read_file(args.request)
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise CLIError(f"{args.request}: not a JSON chat request ({exc})") from None
    if isinstance(body, list):  # a bare list of messages
        body = {"messages": body}
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise CLIError(f"{args.request}: expected a chat request with a 'messages' list")
    if args.model is not None:
        body["model"] = args.model
    if args.tools is not None:
        try:
            body["tools"] = json.loads(_read_file(args.tools))
        except ValueError as exc:
            raise CLIError(f"{args.tools}: not a JSON tools list ({exc})") from None
    for item in args.kwarg or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise CLIError(f"--kwarg {item!r}: expected NAME=JSON, e.g. enable_thinking=false")
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        body.setdefault("chat_template_kwargs", {})[key] = parsed
    try:
        if args.model_dir is not None or args.template is not None:
            template = load_chat_template(args.model_dir or args.template)
            prompter = Prompter(template=template, format=args.format)
        else:
            if args.format is not None and family_for(args.format) is None:
                raise CLIError(
                    f"streamcall ships no chat template for {args.format!r}: give --model-dir "
                    "or --template"
                )
            prompter = Prompter(format=args.format)
        prompt = prompter.prompt(body)
    except (TemplateError, ValueError, OSError) as exc:
        raise CLIError(str(exc)) from None
    if args.json:
        row = {"prompt": prompt.text, "stop": list(prompt.stop), "template": prompt.source}
        _write(json.dumps(row, indent=2, ensure_ascii=False) + "\n")
    else:
        _write(prompt.text)
    return 0


def _read_file(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CLIError(f"cannot read {path}: {exc.strerror or exc}") from None


# --- serve -------------------------------------------------------------------------------


def _cmd_serve(args: argparse.Namespace) -> int:
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
    from streamcall.server import ServerConfig, run

    if args.format is not None:
        from streamcall.formats.registry import formats

        if args.format not in (*formats(), "auto"):
            raise CLIError(f"unknown tool-call format {args.format!r}; see `streamcall formats`")
    if args.workers < 1:
        raise CLIError("--workers must be at least 1")
    if args.upstream_tools == "render" and args.upstream is None:
        raise CLIError(
            "--upstream-tools render needs --upstream (a completion server's base URL; the "
            "built-in replay upstream serves recorded chat answers only)"
        )
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
        if not Path(args.model_dir).is_dir():
            raise CLIError(f"--model-dir {args.model_dir!r}: not a directory")
        try:
            config = config_with_model_dir(config, args.model_dir)
        except (OSError, ValueError) as exc:
            raise CLIError(str(exc)) from None
    if config.upstream_tools == "render":
        from streamcall.prompt import TemplateError
        from streamcall.server.app import prompter_for

        try:
            print(
                f"streamcall: prompts rendered with {prompter_for(config).source}", file=sys.stderr
            )
        except (TemplateError, ValueError, OSError) as exc:
            raise CLIError(str(exc)) from None
    try:
        run(config, host=args.host, port=args.port, workers=args.workers, log_level=args.log_level)
    except OSError as exc:
        raise CLIError(
            f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}", 1
        ) from None
    return 0


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


# --- bench -------------------------------------------------------------------------------


def _benchmarks_root() -> Path | None:
    here = Path(__file__).resolve()
    for base in (Path.cwd(), *Path.cwd().parents, *here.parents):
        if (base / "benchmarks" / "__main__.py").is_file():
            return base
    return None


def _cmd_bench(args: argparse.Namespace) -> int:
    root = _benchmarks_root()
    if root is None:
        raise CLIError(
            "the benchmarks ship with the source tree, not the wheel: run `streamcall bench` "
            "from a checkout of streamcall",
            code=1,
        )
    available = sorted(
        p.stem for p in (root / "benchmarks").glob("*.py") if not p.stem.startswith("_")
    )
    if args.list:
        _write("\n".join(available) + "\n")
        return 0
    unknown = [n for n in args.names if n not in available]
    if unknown:
        raise CLIError(f"unknown benchmark {unknown[0]!r}; available: {', '.join(available)}")
    names = args.names or available
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    for i, name in enumerate(names, 1):
        _note(f"benchmark {i}/{len(names)}: {name}")
        rc = subprocess.call([sys.executable, "-m", "benchmarks", name], cwd=root, env=env)
        if rc != 0:
            _note(f"benchmark {name} failed (exit status {rc})")
            return rc
    return 0


# --- plumbing ----------------------------------------------------------------------------


def _note(message: str) -> None:
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.stderr.flush()


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Streaming LLM output to clean events: text, reasoning and tool calls with "
            "streamed arguments, for every model's tool-call format."
        ),
        epilog="Start here: streamcall parse examples/hermes_think.txt --message",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "parse",
        help="parse model text or an SSE capture into events or a final message",
        description=(
            "Parse model text (raw tool-call markup) or an SSE capture of an OpenAI-"
            "compatible chat stream. Prints one JSON event per line, the final message "
            "(--message) or a live view (--live). FILE may be a bundled example "
            "(examples/NAME; see `streamcall examples`), whose model picks the formats."
        ),
    )
    p.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="input file, or - for stdin"
    )
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--sse", action="store_true", help="the input is an SSE capture")
    kind.add_argument("--text", action="store_true", help="the input is raw model text")
    p.add_argument("--format", metavar="NAME", help="tool-call format (see `streamcall formats`)")
    p.add_argument("--model", metavar="ID", help="route the formats from a model id")
    p.add_argument(
        "--model-dir",
        metavar="DIR",
        help=(
            "read the formats off a checkpoint directory (its response template, else its "
            "chat template's markers, else its model id: `streamcall detect DIR`)"
        ),
    )
    p.add_argument(
        "--response-template",
        metavar="FILE",
        help=(
            "parse with a Hugging Face response template (the hf format): a JSON file "
            "holding one, a tokenizer_config.json or a model directory"
        ),
    )
    p.add_argument("--reasoning", metavar="NAME", help="reasoning format (e.g. qwen3, deepseek_r1)")
    p.add_argument(
        "--thinking",
        choices=["on", "off"],
        help=(
            "whether the prompt switched thinking on (as chat_template_kwargs.enable_thinking "
            "does): off reads the output as content from its first character; default: the "
            "reasoning format's own"
        ),
    )
    p.add_argument(
        "--tools", metavar="FILE", help="OpenAI tools list as JSON (types untyped values)"
    )
    p.add_argument(
        "--unknown-calls",
        choices=["keep", "text"],
        default="keep",
        help=(
            "a call to a function --tools does not declare: keep it as a call (default) or "
            "text (content, in the model's syntax); without --tools every call is kept"
        ),
    )
    p.add_argument(
        "--chunk",
        type=int,
        metavar="N",
        help="replay the input in chunks of N (characters of text, bytes of SSE)",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--message", action="store_true", help="print the final message as JSON")
    out.add_argument("--live", action="store_true", help="render the stream as it is parsed")
    p.add_argument("--plain", action="store_true", help="with --live: plain text, no rich")
    p.add_argument("--delay", type=float, metavar="S", help="sleep S seconds between chunks")
    p.set_defaults(func=_cmd_parse)

    f = sub.add_parser("formats", help="list tool-call and reasoning formats and their routing")
    f.add_argument("--json", action="store_true", help="machine-readable output")
    f.add_argument(
        "--markdown", action="store_true", help="the per-format table of docs/formats.md"
    )
    f.add_argument(
        "--response-template",
        metavar="NAME",
        help="print format NAME as a Hugging Face response template (JSON for tokenizer_config.json)",
    )
    f.set_defaults(func=_cmd_formats)

    e = sub.add_parser("examples", help="list the bundled recorded outputs")
    e.add_argument("--json", action="store_true", help="machine-readable output")
    e.set_defaults(func=_cmd_examples)

    d = sub.add_parser(
        "detect",
        help="say which formats a checkpoint writes (from its chat template or response template)",
        description=(
            "Read a model directory, its tokenizer_config.json or a chat template file and "
            "say which tool-call and reasoning formats its output is in, and why."
        ),
    )
    d.add_argument("source", metavar="DIR|FILE", help="model directory or file")
    d.add_argument("--json", action="store_true", help="machine-readable output")
    d.set_defaults(func=_cmd_detect)

    r = sub.add_parser(
        "render",
        help="print the prompt that `serve --upstream-tools render` sends for a chat request",
        description=(
            "Render a chat request (a JSON file or -, with messages, tools and "
            "chat_template_kwargs) into the model's prompt: with a checkpoint's chat template "
            "(--model-dir, --template), as transformers' apply_chat_template renders it, or "
            "with streamcall's template for a format (--format, or routed from --model)."
        ),
    )
    r.add_argument("request", metavar="FILE|-", help="a chat request body, or a messages list")
    r.add_argument("--model-dir", metavar="DIR", help="the checkpoint whose chat template to use")
    r.add_argument("--template", metavar="FILE", help="a .jinja file or tokenizer_config.json")
    r.add_argument("--format", metavar="NAME", help="use streamcall's template for this format")
    r.add_argument("--model", metavar="ID", help="the request's model (routes to a format)")
    r.add_argument("--tools", metavar="FILE", help="an OpenAI tools list to add to the request")
    r.add_argument(
        "--kwarg",
        metavar="NAME=JSON",
        action="append",
        help="a chat_template_kwargs member, e.g. enable_thinking=false (repeatable)",
    )
    r.add_argument("--json", action="store_true", help="the prompt, stop strings and template")
    r.set_defaults(func=_cmd_render)

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
    s.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    s.add_argument("--workers", type=int, default=1, help="worker processes (needs --upstream)")
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
    s.add_argument("--timeout", type=float, default=600.0, help="upstream read timeout, seconds")
    s.add_argument(
        "--replay-delay", type=float, default=0.02, help="built-in upstream: seconds between chunks"
    )
    s.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    s.set_defaults(func=_cmd_serve)

    b = sub.add_parser("bench", help="run the benchmarks (python -m benchmarks NAME ...)")
    b.add_argument("names", nargs="*", metavar="NAME", help="benchmark names (default: all)")
    b.add_argument("--list", action="store_true", help="list the benchmarks")
    b.set_defaults(func=_cmd_bench)
    return parser


def _version() -> str:
    from streamcall import __version__

    return f"{PROG} {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except CLIError as exc:
        _note(f"error: {exc}")
        return exc.code
    except KeyboardInterrupt:
        _note("interrupted")
        return 130
    except BrokenPipeError:
        # the reader went away (streamcall parse ... | head): not an error; point stdout
        # at /dev/null so that the interpreter's final flush does not complain
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
