"""``--upstream-tools render``: the proxy writes the prompt, the upstream only completes it.

For servers that take no tools at all (llama.cpp's server without ``--jinja``, any plain
completion server): the chat request is rendered into one prompt (``streamcall.prompt``:
the checkpoint's chat template from ``--model-dir``, else streamcall's template for the
format's family), with the tools, earlier calls and tool results written in the model's
own syntax, and sent to the upstream's ``/v1/completions``. Its answer, a text completion
(``choices[].text``), is turned back into chat-completion chunks here, so the rest of the
proxy parses it exactly as it parses a raw-text chat stream.

What the upstream gets: the prompt; ``stop`` (the request's own stop strings and the
strings that end the family's turn); ``skip_special_tokens: false``, so that call markers
which are special tokens (``<|tool_call_begin|>``, ...) reach the parser (vLLM and SGLang
read it; llama.cpp keeps special tokens in completions anyway and ignores the member);
and the sampling members that the completions API shares with chat (``max_tokens``,
``temperature``, ``top_p``, ``seed``, penalties, ``stream_options``, ...).
``max_completion_tokens`` becomes ``max_tokens``; ``logprobs`` with ``top_logprobs``
becomes the completions API's ``logprobs`` count; ``response_format`` is passed on (vLLM
and SGLang read it on both routes). Members read here (``READ``: the messages, tools and
switches the prompt is rendered from) are not sent; members ignored on purpose
(``IGNORED``, each with its reason) are not sent either; the members render mode cannot
honour (``REFUSED``: audio, predicted outputs, web search, the deprecated functions) are a
400 that names them; any other member (an engine's own) passes on as it came.

A completion chunk that is not one (not JSON, no ``choices`` list) is passed on as it
came, so that the chunk layer rejects it and the client is told, as for any other chunk.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from streamcall.prompt import Prompt
from streamcall.sse import SSEDecoder, SSEEncoder

__all__ = ["IGNORED", "READ", "REFUSED", "chat_answer", "chat_chunks", "completion_body", "refused"]

_ENCODER = SSEEncoder()

#: request members that mean the same in the completions API, passed on as they are
_SHARED = (
    "model",
    "stream",
    "stream_options",
    "max_tokens",
    "temperature",
    "top_p",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "logit_bias",
    "user",
    # engine extensions that vLLM, SGLang and llama.cpp read on both routes
    "top_k",
    "min_p",
    "repetition_penalty",
    "ignore_eos",
)


#: chat members read where the prompt is rendered or the answer parsed, not sent on
READ = (
    "messages",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "chat_template_kwargs",
    "reasoning_effort",
    "max_completion_tokens",
    "logprobs",
    "top_logprobs",
    "response_format",
    "stop",
    "n",
)
#: chat members accepted and not sent, on purpose, with the reason (README)
IGNORED = {
    "metadata": "stored nowhere: the proxy stores nothing",
    "store": "the proxy stores nothing",
    "service_tier": "one upstream, one tier",
    "prompt_cache_key": "the upstream's prefix cache works on its own",
    "prompt_cache_retention": "the upstream's prefix cache works on its own",
    "prompt_cache_options": "the upstream's prefix cache works on its own",
    "safety_identifier": "nothing here tracks users",
    "verbosity": "a switch of OpenAI's own models",
    "moderation": "no moderation here",
    "modalities": "text only: the completion is text",
}
#: chat members render mode cannot honour: a 400 when set
REFUSED = {
    "audio": "audio output needs a chat upstream that makes audio",
    "prediction": "predicted outputs need OpenAI's server",
    "web_search_options": "web search runs on OpenAI's server",
    "functions": "the deprecated functions list: give 'tools'",
    "function_call": "the deprecated function_call: give 'tool_choice'",
}


def refused(body: Mapping[str, Any]) -> tuple[str, str] | None:
    """A member of a chat request that render mode cannot honour, and why (or None)."""
    for key, why in REFUSED.items():
        if body.get(key) is not None:
            return key, why
    return None


def completion_body(body: Mapping[str, Any], prompt: Prompt) -> dict[str, Any]:
    """The ``/v1/completions`` request for a chat request and its rendered prompt."""
    out: dict[str, Any] = {k: body[k] for k in _SHARED if body.get(k) is not None}
    if "max_tokens" not in out and body.get("max_completion_tokens") is not None:
        out["max_tokens"] = body["max_completion_tokens"]
    if body.get("logprobs"):
        # chat's switch and count as the completions API's one number
        out["logprobs"] = body.get("top_logprobs") or 0
    if body.get("response_format") is not None:
        out["response_format"] = body["response_format"]  # vLLM and SGLang read it here too
    for key, value in body.items():
        # anything else, an engine's own member, passes on as the chat route passes it
        if key not in out and key not in READ and key not in IGNORED and key not in _SHARED:
            out[key] = value
    out["prompt"] = prompt.text
    stop = body.get("stop")
    asked = [stop] if isinstance(stop, str) else list(stop) if isinstance(stop, list) else []
    out["stop"] = [*asked, *(s for s in prompt.stop if s not in asked)] or None
    if out["stop"] is None:
        del out["stop"]
    out["skip_special_tokens"] = False
    return out


def _as_chat_choice(choice: Any, streamed: bool) -> Any:
    if not isinstance(choice, dict):
        return choice
    text = choice.get("text")
    inner = {"role": "assistant", "content": text if isinstance(text, str) else ""}
    out: dict[str, Any] = {
        "index": choice.get("index", 0),
        "delta" if streamed else "message": inner,
        "finish_reason": choice.get("finish_reason"),
    }
    if streamed:
        del inner["role"]
    for key in ("logprobs", "stop_reason", "matched_stop"):  # the stop string that matched
        if key in choice:
            out[key] = choice[key]
    return out


def _as_chat(answer: Any, streamed: bool) -> Any:
    if not isinstance(answer, dict) or not isinstance(answer.get("choices"), list):
        return None
    out = dict(answer)
    out["object"] = "chat.completion.chunk" if streamed else "chat.completion"
    out["choices"] = [_as_chat_choice(c, streamed) for c in answer["choices"]]
    return out


def chat_answer(answer: Any) -> Any:
    """A ``text_completion`` body as a ``chat.completion`` (unchanged if it is not one)."""
    converted = _as_chat(answer, streamed=False)
    return answer if converted is None else converted


async def chat_chunks(source: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """A completions SSE stream as a chat-completions SSE stream, event by event."""
    decoder = SSEDecoder()
    async for data in source:
        parts: list[bytes] = []
        for event in decoder.feed(data):
            parts.append(_convert(event.data))
        if parts:
            yield b"".join(parts)
    for event in decoder.close():
        yield _convert(event.data)


def _convert(data: str) -> bytes:
    if data.strip() == "[DONE]":
        return _ENCODER.done()
    try:
        chunk = json.loads(data)
    except (ValueError, RecursionError):
        chunk = None
    converted = _as_chat(chunk, streamed=True)
    if converted is None:  # not a completion chunk: the chunk layer reports it
        return b"".join(b"data: " + line.encode() + b"\n" for line in data.split("\n")) + b"\n"
    return _ENCODER.encode_json(converted)
