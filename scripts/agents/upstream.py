"""A scripted raw-text "Qwen3" upstream for ``scripts/test-agents`` (loopback only).

It answers what a raw-text server answers and writes what a Qwen3 model would write:
``<think>...</think>`` (unless thinking is off), two newlines, then either a plain answer or
one Hermes call ``<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>``. Streams
come 1 to 4 characters an SSE event.

Routes:

- ``POST /v1/chat/completions``: the proxy's ``pass``/``none``/``strip`` modes. The tools
  are read from the request's ``tools``, the conversation from ``messages``.
- ``POST /v1/completions``: the proxy's ``render`` mode. The tools are read from the
  rendered prompt's ``<tools>`` block, the conversation from its ``<|im_start|>`` turns.
- ``GET /v1/models``: the one model id it serves.

What the "model" decides, from what it was sent:

1. The last turn is a tool result (a ``tool`` message, ``<tool_response>`` in the prompt):
   a final answer, ``LOOP-OK: the tool returned '...'`` (the result's last line that says ``hi``, else its last line).
2. The last user turn asks for the weather and a ``get_weather`` tool is described: a call
   ``get_weather({"city": "Paris"})``.
3. The last user turn asks to run ``echo hi`` and a shell tool is described (``Bash``,
   ``bash``, ``shell``, ``exec_command``, ``run_shell_command``, ``shell_command``, ... also
   under a namespace prefix): a call to it, its arguments written from its schema (the
   command as a string, or ``["bash", "-lc", "echo hi"]`` where the schema wants a list).
4. No tools at all and the last user turn asks to create ``hello.txt`` (Aider, which edits
   files through text): that file in Aider's ``whole`` edit format, a line with the path and
   a fenced block holding ``hi``, then ``LOOP-OK: created hello.txt``.
5. Else a plain answer, ``LOOP-OK: hello`` (no tool is ever called that the request did not
   describe).

Every request is appended to ``--log`` (JSON lines: time, route, body, what was decided),
which ``scripts/agents/run.py`` reads back per client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

MODEL = "Qwen/Qwen3-8B"
MARKER = "LOOP-OK"

#: shell tools the agents declare, most specific first (matched after any namespace prefix)
SHELL_TOOLS = (
    "Bash",
    "bash",
    "shell",
    "shell_command",
    "exec_command",
    "run_shell_command",
    "local_shell",
    "run_command",
    "execute_command",
    "terminal",
)
COMMAND_KEYS = ("command", "cmd", "script", "commands")


class View:
    """What the model sees: tools described, last user text, a trailing tool result."""

    def __init__(
        self, tools: list[dict[str, Any]], user: str, result: str | None, thinking: bool
    ) -> None:
        self.tools = tools  # [{"name", "parameters"}]
        self.user = user
        self.result = result
        self.thinking = thinking


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                parts.append(str(part.get("text") or part.get("content") or ""))
            else:
                parts.append(str(part))
        return "\n".join(parts)
    return "" if content is None else str(content)


def chat_view(body: dict[str, Any]) -> View:
    tools = []
    for tool in body.get("tools") or []:
        fn = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(fn, dict) and fn.get("name"):
            tools.append({"name": fn["name"], "parameters": fn.get("parameters") or {}})
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    users = [m for m in messages if m.get("role") == "user"]
    user = _text(users[-1].get("content")) if users else ""
    result = None
    if messages and messages[-1].get("role") == "tool":
        result = _text(messages[-1].get("content"))
    kwargs = body.get("chat_template_kwargs") or {}
    return View(tools, user, result, kwargs.get("enable_thinking") is not False)


_TURN = re.compile(r"<\|im_start\|>(\w+)\n(.*?)(?:<\|im_end\|>|\Z)", re.S)


def prompt_view(prompt: str) -> View:
    tools = []
    block = re.search(r"<tools>\n(.*?)\n</tools>", prompt, re.S)
    if block is not None:
        for line in block.group(1).splitlines():
            try:
                tool = json.loads(line)
            except ValueError:
                continue
            fn = tool.get("function", tool) if isinstance(tool, dict) else None
            if isinstance(fn, dict) and fn.get("name"):
                tools.append({"name": fn["name"], "parameters": fn.get("parameters") or {}})
    turns = [(role, text) for role, text in _TURN.findall(prompt) if role != "assistant"]
    user, result = "", None
    if turns and turns[-1][0] == "user":
        last = turns[-1][1]
        if "<tool_response>" in last:
            result = last.split("<tool_response>", 1)[1].split("</tool_response>", 1)[0].strip()
    for role, text in reversed(turns):
        if role == "user" and "<tool_response>" not in text:
            user = text
            break
    return View(tools, user, result, not prompt.endswith("</think>\n\n"))


def _leaf(name: str) -> str:
    return re.split(r"\.|/|__|:", name)[-1]


def shell_tool(tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    for wanted in SHELL_TOOLS:
        for tool in tools:
            if _leaf(tool["name"]) == wanted:
                return tool
    return None


def _fill(name: str, schema: dict[str, Any], command: str) -> Any:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if name in COMMAND_KEYS:
        return ["bash", "-lc", command] if kind == "array" else command
    if name == "description":
        return "Print hi"
    if schema.get("enum"):
        return schema["enum"][0]
    return {"boolean": False, "integer": 0, "number": 0, "array": [], "object": {}}.get(
        str(kind), ""
    )


def shell_arguments(tool: dict[str, Any], command: str) -> dict[str, Any]:
    params = tool.get("parameters") or {}
    props = params.get("properties") or {}
    required = list(params.get("required") or [])
    args: dict[str, Any] = {}
    for key in COMMAND_KEYS:
        if key in props:
            args[key] = _fill(key, props[key], command)
            break
    else:
        args["command"] = command
    for key in required:
        if key not in args:
            args[key] = _fill(key, props.get(key) or {}, command)
    return args


def decide(view: View) -> tuple[str, dict[str, Any]]:
    """The model's text and a note of what it chose."""
    think = ""
    if view.result is not None:
        lines = [line.strip() for line in view.result.splitlines() if line.strip()]
        said = [line for line in lines if re.search(r"\bhi\b", line)]
        short = (said or lines or [""])[-1][:80]
        answer = f"{MARKER}: the tool returned {short!r}"
        thought = "The tool answered; I can reply."
        note: dict[str, Any] = {"kind": "final", "result": view.result[:500]}
    else:
        user = view.user.lower()
        names = {_leaf(t["name"]): t for t in view.tools}
        shell = shell_tool(view.tools)
        if "weather" in user and "get_weather" in names:
            call = {"name": names["get_weather"]["name"], "arguments": {"city": "Paris"}}
        elif "echo hi" in user and shell is not None:
            call = {"name": shell["name"], "arguments": shell_arguments(shell, "echo hi")}
        else:
            call = None
        if call is None and not view.tools and "create hello.txt" in user:
            thought = "I should write the file."
            answer = f"hello.txt\n```\nhi\n```\n{MARKER}: created hello.txt"
            note = {"kind": "edit"}
        elif call is not None:
            thought = f"I should call {call['name']}."
            answer = "<tool_call>\n" + json.dumps(call) + "\n</tool_call>"
            note = {"kind": "call", "tool": call["name"], "arguments": call["arguments"]}
        else:
            thought = "No tool is needed here."
            answer = f"{MARKER}: hello"
            note = {"kind": "plain"}
    if view.thinking:
        think = f"<think>\n{thought}\n</think>\n\n"
    note["tools"] = [t["name"] for t in view.tools]
    return think + answer, note


def pieces(text: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, 4)
        out.append(text[i : i + n])
        i += n
    return out


class Upstream:
    def __init__(self, log: str | None) -> None:
        self.log = log
        self.count = 0

    def record(self, route: str, body: Any, note: dict[str, Any]) -> None:
        if self.log is None:
            return
        line = {"t": time.time(), "route": route, "note": note, "body": body}
        with open(self.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")

    def app(self) -> Starlette:
        async def chat(request: Request) -> Response:
            body = await request.json()
            text, note = decide(chat_view(body))
            self.record("chat", body, note)
            return self.answer(body, text, chat=True)

        async def completions(request: Request) -> Response:
            body = await request.json()
            prompt = body.get("prompt")
            if isinstance(prompt, list):
                prompt = prompt[0] if prompt else ""
            text, note = decide(prompt_view(str(prompt)))
            self.record("completions", body, note)
            return self.answer(body, text, chat=False)

        async def models(request: Request) -> Response:
            model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "test"}
            return JSONResponse({"object": "list", "data": [model]})

        return Starlette(
            routes=[
                Route("/v1/chat/completions", chat, methods=["POST"]),
                Route("/v1/completions", completions, methods=["POST"]),
                Route("/v1/models", models, methods=["GET"]),
            ]
        )

    def answer(self, body: dict[str, Any], text: str, chat: bool) -> Response:
        self.count += 1
        model = body.get("model") or MODEL
        stops = body.get("stop") or []
        for stop in [stops] if isinstance(stops, str) else stops:
            text = text.split(stop, 1)[0]
        sent = body.get("messages") if chat else body.get("prompt")
        prompt_tokens = max(1, len(json.dumps(sent)) // 4)
        completion_tokens = max(1, len(text) // 4)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        ident = f"up-{self.count}"
        kind = "chat.completion" if chat else "text_completion"
        if not body.get("stream"):
            choice: dict[str, Any] = {"index": 0, "finish_reason": "stop", "logprobs": None}
            if chat:
                choice["message"] = {"role": "assistant", "content": text}
            else:
                choice["text"] = text
            out = {"id": ident, "object": kind, "created": int(time.time()), "model": model}
            out.update({"choices": [choice], "usage": usage})
            return JSONResponse(out)

        def chunk(piece: str | None, finish: str | None = None) -> bytes:
            choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
            if chat:
                choice["delta"] = {} if piece is None else {"content": piece}
            else:
                choice["text"] = piece or ""
            data = {
                "id": ident,
                "object": kind + (".chunk" if chat else ""),
                "created": int(time.time()),
                "model": model,
                "choices": [choice],
            }
            return f"data: {json.dumps(data)}\n\n".encode()

        async def events() -> AsyncIterator[bytes]:
            if chat:
                first = {"index": 0, "delta": {"role": "assistant", "content": ""}}
                data = {"id": ident, "object": "chat.completion.chunk", "model": model}
                data["choices"] = [{**first, "finish_reason": None}]
                yield f"data: {json.dumps(data)}\n\n".encode()
            for piece in pieces(text, self.count):
                yield chunk(piece)
                await asyncio.sleep(0.001)
            yield chunk(None, "stop")
            if (body.get("stream_options") or {}).get("include_usage"):
                data = {"id": ident, "object": kind, "model": model, "choices": [], "usage": usage}
                yield f"data: {json.dumps(data)}\n\n".encode()
            yield b"data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", default=None, help="JSON lines file of every request")
    args = parser.parse_args()
    import uvicorn

    uvicorn.run(Upstream(args.log).app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
