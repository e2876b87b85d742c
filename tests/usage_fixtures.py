"""Usage objects shared by the usage tests (decoder, StreamParser, proxy)."""

from __future__ import annotations

from typing import Any

#: What OpenAI sends with ``stream_options.include_usage``: totals and both details.
OPENAI_USAGE: dict[str, Any] = {
    "prompt_tokens": 2006,
    "completion_tokens": 640,
    "total_tokens": 2646,
    "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
    "completion_tokens_details": {
        "reasoning_tokens": 512,
        "audio_tokens": 0,
        "accepted_prediction_tokens": 0,
        "rejected_prediction_tokens": 0,
    },
}
#: The same with provider members (DeepSeek's cache counts, OpenRouter's cost).
PROVIDER_USAGE: dict[str, Any] = {
    **OPENAI_USAGE,
    "prompt_cache_hit_tokens": 1920,
    "prompt_cache_miss_tokens": 86,
    "cost": 0.00042,
    "is_byok": False,
    "cost_details": {"upstream_inference_cost": None},
}
