"""``streamcall parse``: model text or an SSE capture, fed through the library in chunks.

The input comes from a file, a bundled example (``examples/NAME``, whose model picks the
formats) or stdin, and is either raw model text or an SSE capture of an OpenAI-compatible
chat stream (told apart by its first line, or by ``--sse``/``--text``). Text is cut every
``--chunk`` characters, a capture every ``--chunk`` bytes: the result is the same in every
chunking, which is what the option shows.

Which parser reads it, in order: ``--model-dir`` or ``--response-template`` (through
``streamcall.detect``; neither goes with ``--format`` or ``--model``), else ``--format``
and ``--model``, else ``auto`` (sniffed from the text). stderr says what a checkpoint
decided, and what the sniffing chose once it has chosen. The events go to a sink
(``cli.sinks``): JSON lines, the final message or a live view.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from typing import Any, Protocol

from streamcall import bundled
from streamcall.cli.common import (
    CLIError,
    Subparsers,
    cannot_read,
    directory,
    existing_path,
    input_file,
    load_tools,
    note,
    positive_int,
    seconds,
    write,
)
from streamcall.cli.sinks import Fold, Progress, make_sink
from streamcall.events import Event, StreamError, Text

__all__ = ["add_parser", "looks_like_sse", "run"]

_SSE_PREFIXES = (b"data:", b"event:", b"id:", b"retry:", b": ", b":\n")


def add_parser(sub: Subparsers) -> None:
    """The ``parse`` verb's options."""
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
        "--tools",
        metavar="FILE",
        help=(
            "OpenAI tools list as JSON (types untyped values); examples/tools.json is the "
            "bundled one"
        ),
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
        type=positive_int,
        metavar="N",
        help="replay the input in chunks of N (characters of text, bytes of SSE)",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--message", action="store_true", help="print the final message as JSON")
    out.add_argument("--live", action="store_true", help="render the stream as it is parsed")
    p.add_argument("--plain", action="store_true", help="with --live: plain text, no rich")
    p.add_argument("--delay", type=seconds, metavar="S", help="sleep S seconds between chunks")
    p.set_defaults(func=run)


class _Feeder(Protocol):
    def feed(self, data: Any) -> list[Event]: ...
    def finish(self) -> list[Event]: ...


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


def _read_input(source: str) -> tuple[bytes, bundled.Example | None]:
    """The input's bytes, and the bundled example it is if it is one."""
    if source == "-":
        return sys.stdin.buffer.read(), None
    resolved = input_file(source)
    try:
        data = resolved.read_bytes()
    except OSError as exc:
        raise cannot_read(source, exc) from None
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
        try:
            found = detect(directory(args.model_dir, "--model-dir"))
        except (OSError, ValueError) as exc:
            raise CLIError(str(exc)) from None
    else:
        from streamcall.response_templates import load_response_template

        if args.reasoning is not None:
            raise CLIError("--response-template decides the reasoning too: drop --reasoning")
        existing_path(args.response_template, "--response-template")
        try:
            template = load_response_template(args.response_template).as_dict()
        except (OSError, ValueError, LookupError) as exc:
            raise CLIError(f"--response-template {args.response_template!r}: {exc}") from None
        found = detect_response_template(template, where=args.response_template)
    derived = found.derived
    tool = found.format or (
        "derived from the chat template"
        if found.tool_syntax == "derived"
        else "none found (sniffed from the text)"
    )
    reasoning = found.reasoning or (
        "derived from the chat template"
        if derived is not None and derived.reasoning is not None
        else "none"
    )
    note(f"{source}: tool-call format {tool}, reasoning {reasoning} ({found.why})")
    if args.reasoning is not None:
        if found.template is not None:
            note("--reasoning is ignored: the response template decides the reasoning")
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
        fmt = "auto"  # sniffed from the text; run says what was chosen
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
            note(
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
        note(
            f"{why}: the format sniffed from the text is {sniffer.chosen} "
            f"(its first tool-call marker decided); {hint}"
        )
        return
    what = "delta.content" if sse else "the text"
    note(
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


def run(args: argparse.Namespace) -> int:
    data, example = _read_input(args.file)
    chosen = (args.format, args.model, args.model_dir, args.response_template)
    if example is not None and chosen == (None, None, None, None):
        # a bundled example knows its model: use its formats unless told otherwise
        args.format = example.format
        if args.reasoning is None:
            args.reasoning = example.reasoning
    sse = args.sse or (not args.text and looks_like_sse(data))
    tools = None if args.tools is None else load_tools(args.tools)
    feeder = _make_feeder(args, sse, tools)

    live = args.live
    chunk = args.chunk
    delay = args.delay
    if live and chunk is None:
        chunk = 64 if sse else 6
    if live and delay is None:
        delay = 0.012
    sink = make_sink(args, live)
    progress = Progress(len(data), not live)
    fold = Fold()
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
        write(json.dumps(fold.message(), ensure_ascii=False, indent=2) + "\n")
    return 0
