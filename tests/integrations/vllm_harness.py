"""Real vLLM serving code around a scripted engine: the harness of test_vllm_real.py.

What is real: vLLM's ``ModelConfig`` (``model_config``: built from the tokenizer's
directory, as ``vllm serve DIRECTORY`` builds it), its ``OpenAIServingChat`` (request
parsing, ``adjust_request``, the effective ``chat_template_kwargs``, its streaming
generator and its non-streaming path), its ``HfRenderer``/``OnlineRenderer`` (the chat template is rendered), its tokenizer
loader, its parser manager and its tool and reasoning parsers. What is not: the engine.
``ScriptedEngine.generate`` turns a scripted model output into the ``RequestOutput``s a
real engine would stream (delta output kind), ``tokens_per_delta`` tokens at a time,
decoding the text incrementally with the request's ``skip_special_tokens`` and holding back
a UTF-8 character cut between two tokens, as vLLM's detokenizer does.

The tokenizer is ``tokenizer_kit``'s: ``make_tokenizer`` trains a small byte-level BPE
(the ``tokenizers`` package) on the scripted outputs, with the model family's markers as
special tokens, and saves it with a chat template into a directory named like the model
(vLLM reports that path as the tokenizer's ``name_or_path``). Real checkpoints tokenize
differently; what matters here is that markers are single special tokens, text is split
into multi-character tokens, and some tokens cut a UTF-8 character in two.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest.mock import MagicMock

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from serving_sse import sse_chunks
from tokenizer_kit import CHATML, make_tokenizer  # noqa: F401  (the tests import them from here)
from vllm.config import ModelConfig
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.serving import OpenAIServingChat
from vllm.entrypoints.openai.models.serving import (
    BaseModelPath,
    OpenAIServingModels,
)
from vllm.outputs import CompletionOutput, RequestOutput
from vllm.renderers.hf import HfRenderer
from vllm.renderers.online_renderer import OnlineRenderer
from vllm.sampling_params import RequestOutputKind
from vllm.tokenizers.registry import cached_tokenizer_from_config
from vllm.v1.engine.async_llm import AsyncLLM

import streamcall.integrations.streamcall_vllm_plugin as plugin

#: the file ``vllm serve --tool-parser-plugin`` is given
PLUGIN_FILE = plugin.__file__


def model_config(directory: Path | str) -> ModelConfig:
    """vLLM's own ``ModelConfig`` for a directory ``make_tokenizer`` wrote, as ``vllm serve
    DIRECTORY`` builds it (the served name is the path, as without ``--served-model-name``).
    The first one built in a process takes vLLM some seconds (it inspects its model
    registry); the next ones are immediate."""
    return ModelConfig(model=str(directory), tokenizer=str(directory))


@dataclass
class _ParallelConfig:
    _api_process_rank: int = 0


@dataclass
class _VllmConfig:
    """The members of ``VllmConfig`` the renderer reads. vLLM's own cannot be built here:
    0.34 checks the platform first, and on an x86 CPU without Triton it refuses."""

    model_config: ModelConfig
    parallel_config: _ParallelConfig = field(default_factory=_ParallelConfig)


class ScriptedEngine:
    """An engine client whose model writes ``script.text`` (set before each request)."""

    def __init__(self, model_config: ModelConfig) -> None:
        self.mock = MagicMock(spec=AsyncLLM)
        self.mock.errored = False
        self.mock.model_config = model_config
        self.mock.input_processor = MagicMock()
        tokenizer = cached_tokenizer_from_config(model_config)
        self.tokenizer = tokenizer
        self.mock.renderer = HfRenderer(_VllmConfig(model_config), tokenizer)
        self.mock.generate = self.generate
        self.text = ""
        self.tokens_per_delta = 1
        self.max_tokens: int | None = None  # cut the output here, finish_reason "length"
        self.sampling_params: Any = None  # what vLLM sent with the last request
        self.prompt_token_ids: list[int] = []
        self._ids: dict[str, list[int]] = {}
        self._deltas: dict[tuple[tuple[int, ...], int, bool], list[tuple[str, list[int]]]] = {}

    def output_token_ids(self) -> list[int]:
        ids: list[int] = self.tokenizer.encode(self.text, add_special_tokens=False)
        return ids

    def deltas(self, ids: list[int], n: int, skip: bool) -> list[tuple[str, list[int]]]:
        """``(text, token_ids)`` per delta of ``n`` tokens, decoded incrementally as vLLM's
        detokenizer does: a window from the previous delta's tokens on, and text that
        ends in a cut UTF-8 character held until the character is complete."""
        key = (tuple(ids), n, skip)
        cached = self._deltas.get(key)
        if cached is not None:
            return cached
        out: list[tuple[str, list[int]]] = []
        prefix = read = 0
        for start in range(0, len(ids), n):
            end = min(start + n, len(ids))
            before = self.tokenizer.decode(ids[prefix:read], skip_special_tokens=skip)
            text = self.tokenizer.decode(ids[prefix:end], skip_special_tokens=skip)
            delta = ""
            if len(text) > len(before) and (not text.endswith("\ufffd") or end == len(ids)):
                delta = text[len(before) :]
                prefix, read = read, end
            out.append((delta, ids[start:end]))
        self._deltas[key] = out
        return out

    async def generate(self, engine_input: Any, sampling_params: Any, request_id: str, **kw: Any):  # type: ignore[no-untyped-def]
        self.sampling_params = sampling_params
        prompt_ids = list(engine_input.get("prompt_token_ids") or [])
        self.prompt_token_ids = prompt_ids
        ids = self._ids.get(self.text)
        if ids is None:
            ids = self._ids[self.text] = self.output_token_ids()
        finish = "stop"
        if self.max_tokens is not None and len(ids) > self.max_tokens:
            ids, finish = ids[: self.max_tokens], "length"
        # streaming asks for deltas; the non-streaming path for the final output only
        kind = sampling_params.output_kind
        assert kind in (RequestOutputKind.DELTA, RequestOutputKind.FINAL_ONLY), kind
        n = self.tokens_per_delta if kind == RequestOutputKind.DELTA else max(len(ids), 1)
        deltas = self.deltas(ids, n, sampling_params.skip_special_tokens)
        for i, (text, token_ids) in enumerate(deltas):
            last = i == len(deltas) - 1
            yield RequestOutput(
                request_id=request_id,
                prompt=None,
                prompt_token_ids=prompt_ids,
                prompt_logprobs=None,
                outputs=[
                    CompletionOutput(
                        index=0,
                        text=text,
                        token_ids=token_ids,
                        cumulative_logprob=None,
                        logprobs=None,
                        finish_reason=finish if last else None,
                    )
                ],
                finished=last,
            )
            await asyncio.sleep(0)


def make_serving(
    engine: ScriptedEngine,
    *,
    tool_parser: str | None,
    reasoning_parser: str = "",
    served_name: str | None = None,
    default_chat_template_kwargs: dict[str, Any] | None = None,
) -> OpenAIServingChat:
    """vLLM's chat serving object, built as ``vllm serve`` builds it."""
    config = engine.mock.model_config
    name = served_name or config.model
    models_ = OpenAIServingModels(
        engine_client=engine.mock,
        base_model_paths=[BaseModelPath(name=name, model_path=config.model)],
    )
    renderer = OnlineRenderer(
        model_config=config,
        renderer=engine.mock.renderer,
        request_logger=None,
        chat_template=None,
        chat_template_content_format="auto",
        enable_auto_tools=tool_parser is not None,
        tool_parser=tool_parser,
        reasoning_parser=reasoning_parser or None,
        default_chat_template_kwargs=default_chat_template_kwargs,
    )
    return OpenAIServingChat(
        engine.mock,
        models_,
        response_role="assistant",
        online_renderer=renderer,
        chat_template=None,
        chat_template_content_format="auto",
        request_logger=None,
        reasoning_parser=reasoning_parser,
        tool_parser=tool_parser,
        enable_auto_tools=tool_parser is not None,
        default_chat_template_kwargs=default_chat_template_kwargs,
    )


async def _chat(serving: OpenAIServingChat, body: dict[str, Any]) -> Any:
    request = ChatCompletionRequest(**body)
    result = await serving.create_chat_completion(request)
    if not body.get("stream"):
        return json.loads(result.model_dump_json())  # type: ignore[union-attr]
    assert not hasattr(result, "error"), result
    return await sse_chunks(result)  # type: ignore[arg-type]


def chat(serving: OpenAIServingChat, body: dict[str, Any]) -> Any:
    """One request through vLLM's serving code: the SSE chunks, or the response body."""
    return asyncio.run(_chat(serving, body))
