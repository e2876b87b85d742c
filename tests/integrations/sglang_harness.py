"""Real SGLang serving code around a scripted engine: the harness of test_sglang_real.py and
of ``benchmarks/sglang_serving.py``.

What is real: SGLang's plugin loader (``load_plugins()``, which runs streamcall's entry
point), its published server configuration (``ServerArgs``, as ``sglang serve`` publishes
it), its ``TemplateManager`` (the tokenizer's chat template loaded and inspected), its
``OpenAIServingChat`` (request checks, the chat template rendered, ``skip_special_tokens``
decided, the streaming generator with ``_process_reasoning_stream``,
``_process_tool_call_stream``, ``_check_for_unstreamed_tool_args`` and the finish reason,
and the non-streaming path), and its tool and reasoning parsers. What is not: the
tokenizer manager's engine side. ``ScriptedTokenizerManager.generate_request`` turns a
scripted model output into what SGLang's detokenizer hands the serving code: per step of
``tokens_per_step`` tokens, the text so far (decoded with the request's
``skip_special_tokens``, a UTF-8 character cut between two tokens held back) and the
finish reason on the last step; the non-streaming path gets the whole text in one item.

The tokenizer is ``tokenizer_kit``'s (a small byte-level BPE trained on the outputs).
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from unittest.mock import Mock

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from serving_sse import sse_chunks
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
from sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat
from sglang.srt.parser.template_manager import TemplateManager
from sglang.srt.plugins import load_plugins
from sglang.srt.runtime_context import SpawnRanks, publish, reset_context
from sglang.srt.server_args import ServerArgs
from tokenizer_kit import CHATML, make_tokenizer  # noqa: F401  (the tests import them from here)
from transformers import AutoTokenizer


class ScriptedTokenizerManager:
    """The tokenizer manager's members SGLang's chat serving reads; the model writes
    ``text`` (set before each request), ``tokens_per_step`` tokens a step."""

    def __init__(self, directory: Path, server_args: ServerArgs) -> None:
        self.server_args = server_args
        self.model_path = str(directory)
        self.served_model_name = str(directory)
        self.tokenizer = AutoTokenizer.from_pretrained(str(directory))
        hf_config = Mock(model_type="gpt2", architectures=["GPT2LMHeadModel"])
        self.model_config = Mock(is_multimodal=False, context_len=1 << 16, hf_config=hf_config)
        self.model_config.get_default_sampling_params = Mock(return_value={})
        self.processor = None  # no multimodal processor: the chat template is the tokenizer's
        self.num_reserved_tokens = 0
        self.request_logger = Mock(log_requests=False, log_requests_level=0)
        self.create_abort_task = Mock(return_value=None)
        self.text = ""
        self.tokens_per_step = 1
        self.max_tokens: int | None = None  # cut the output here, finish_reason "length"
        self.last_request: Any = None
        self._steps: dict[tuple[str, int, bool, int | None], list[tuple[str, int]]] = {}

    def config_value(self, name: str) -> Any:
        return getattr(self.server_args, name)

    def steps(self, n: int, skip: bool) -> list[tuple[str, int]]:
        """``(text so far, tokens so far)`` per step of ``n`` tokens."""
        key = (self.text, n, skip, self.max_tokens)
        cached = self._steps.get(key)
        if cached is not None:
            return cached
        ids: list[int] = self.tokenizer.encode(self.text, add_special_tokens=False)
        if self.max_tokens is not None:
            ids = ids[: self.max_tokens]
        out: list[tuple[str, int]] = []
        shown = ""
        for end in [*range(n, len(ids), n), len(ids)]:
            text = self.tokenizer.decode(ids[:end], skip_special_tokens=skip)
            if not text.endswith("\ufffd") or end == len(ids):
                shown = text
            out.append((shown, end))
        self._steps[key] = out
        return out

    def _finish(self) -> dict[str, Any]:
        ids = self.tokenizer.encode(self.text, add_special_tokens=False)
        if self.max_tokens is not None and len(ids) > self.max_tokens:
            return {"type": "length", "length": self.max_tokens}
        return {"type": "stop", "matched": None}

    async def _generate(self, request: Any) -> AsyncIterator[dict[str, Any]]:
        params = request.sampling_params or {}
        skip = params.get("skip_special_tokens", True)
        stream = bool(request.stream)
        steps = self.steps(self.tokens_per_step if stream else 1 << 30, skip)
        rid = f"chatcmpl-{uuid.uuid4().hex}"
        for i, (text, count) in enumerate(steps):
            last = i == len(steps) - 1
            yield {
                "text": text,
                "index": 0,
                "meta_info": {
                    "id": rid,
                    "finish_reason": self._finish() if last else None,
                    "prompt_tokens": 1,
                    "completion_tokens": count,
                    "cached_tokens": 0,
                    "weight_version": "default",
                },
            }
            await asyncio.sleep(0)

    def generate_request(self, request: Any, raw_request: Any = None) -> AsyncIterator[Any]:
        self.last_request = request
        return self._generate(request)


def make_serving(
    directory: Path, *, tool_call_parser: str | None, reasoning_parser: str | None = None
) -> tuple[OpenAIServingChat, ScriptedTokenizerManager]:
    """SGLang's chat serving object for a directory ``make_tokenizer`` wrote, with the
    configuration ``sglang serve --model-path DIRECTORY --tool-call-parser ...`` publishes
    (after loading the plugins, as it does: streamcall's entry point registers its
    detectors)."""
    load_plugins()
    server_args = ServerArgs(
        model_path=str(directory),
        tool_call_parser=tool_call_parser,
        reasoning_parser=reasoning_parser,
        device="cpu",  # no accelerator here; nothing in the serving layer reads it
    )
    reset_context()
    publish(server_args, role="test", ranks=SpawnRanks(world_rank=0, dp_rank=None))
    manager = ScriptedTokenizerManager(directory, server_args)
    templates = TemplateManager()
    templates.initialize_templates(manager, str(directory))  # type: ignore[arg-type]
    return OpenAIServingChat(manager, templates), manager  # type: ignore[arg-type]


async def _chat(serving: OpenAIServingChat, body: dict[str, Any]) -> Any:
    request = ChatCompletionRequest(**body)
    raw = Mock(headers={})
    result = await serving.handle_request(request, raw)
    if not body.get("stream"):
        if hasattr(result, "model_dump_json"):
            return json.loads(result.model_dump_json())
        return json.loads(bytes(result.body))  # an error response
    return await sse_chunks(result.body_iterator)  # type: ignore[union-attr]


def chat(serving: OpenAIServingChat, body: dict[str, Any]) -> Any:
    """One request through SGLang's serving code: the SSE chunks, or the response body."""
    return asyncio.run(_chat(serving, body))
