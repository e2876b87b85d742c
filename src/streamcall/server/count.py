"""``POST /v1/messages/count_tokens``: the prompt's tokens, counted where they can be.

A Messages request (``max_tokens`` not needed) is translated as ``/v1/messages`` does,
then counted exactly, by the first of these that can:

1. ``--model-dir`` with a ``tokenizer.json`` and the ``tokenizers`` package installed: the
   prompt the proxy renders (``--upstream-tools render``; otherwise the checkpoint's chat
   template renders it all the same) counted by the checkpoint's own tokenizer;
2. the upstream's ``/tokenize`` (vLLM, SGLang and llama.cpp serve one, beside ``/v1``):
   sent the rendered prompt in ``render`` mode (``prompt``, and ``content`` as llama.cpp
   names it), else the chat messages and tools for its own template (vLLM's chat form);
   its ``count`` (vLLM) or the length of its ``tokens`` (llama.cpp, SGLang) is the answer.

When neither can, the answer is a 501 in Anthropic's error shape that says what would
make counting work. Nothing is estimated: an agent that gets a number trusts it.

Sans-IO here: the request to send and the reading of the answer; ``app.py`` sends it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["CountUnavailable", "local_count", "read_count", "tokenize_body"]


class CountUnavailable(Exception):
    """The proxy cannot count this prompt exactly; the message says what would."""


def tokenize_body(chat: dict[str, Any], prompt: str | None) -> dict[str, Any]:
    """The upstream ``/tokenize`` request for a chat request (rendered ``prompt`` or not)."""
    body: dict[str, Any] = {"model": chat.get("model")}
    if prompt is not None:
        body.update(prompt=prompt, content=prompt, add_special_tokens=False)
        return body
    body["messages"] = chat["messages"]
    if chat.get("tools"):
        body["tools"] = chat["tools"]
    if chat.get("chat_template_kwargs"):
        body["chat_template_kwargs"] = chat["chat_template_kwargs"]
    body["add_generation_prompt"] = True
    return body


def read_count(answer: Any) -> int:
    """The token count in a ``/tokenize`` answer (``CountUnavailable`` if it has none)."""
    if isinstance(answer, dict):
        count = answer.get("count")
        if isinstance(count, int) and not isinstance(count, bool):
            return count
        tokens = answer.get("tokens")
        if isinstance(tokens, list):
            return len(tokens)
    raise CountUnavailable(
        "the upstream's /tokenize answered without a count or a token list: "
        f"{json.dumps(answer)[:200]}"
    )


def local_count(model_dir: str | None, prompt: str | None) -> int | None:
    """The prompt counted by the checkpoint's tokenizer, or None when there is none to
    use (no ``--model-dir``, no ``tokenizer.json``, no ``tokenizers`` package)."""
    if model_dir is None or prompt is None:
        return None
    path = Path(model_dir) / "tokenizer.json"
    if not path.is_file():
        return None
    try:
        from tokenizers import Tokenizer  # type: ignore[import-not-found]
    except ImportError:
        return None
    tokenizer = Tokenizer.from_file(str(path))
    return len(tokenizer.encode(prompt, add_special_tokens=False).ids)
