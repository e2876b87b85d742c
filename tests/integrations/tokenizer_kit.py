"""A small trained tokenizer saved as a model directory: the integration harnesses' stand-in
for a checkpoint (``vllm_harness``, ``sglang_harness``).

No tokenizer can be downloaded here, so ``make_tokenizer`` trains a small byte-level BPE
(the ``tokenizers`` package) on the scripted outputs, with the model family's markers as
special tokens, and saves it with a chat template into a directory named like the model
(the engines report that path as the tokenizer's ``name_or_path``). Real checkpoints
tokenize differently; what matters here is that markers are single special tokens, text is
split into multi-character tokens, and some tokens cut a UTF-8 character in two.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

__all__ = ["CHATML", "make_tokenizer"]

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking is defined and not enable_thinking %}<think>\n\n</think>\n\n"
    "{% endif %}{% endif %}"
)


def make_tokenizer(
    directory: Path, specials: Iterable[str], corpus: Iterable[str], chat_template: str = CHATML
) -> Path:
    """Train and save a byte-level BPE tokenizer; ``directory``'s name is the model's."""
    specials = list(dict.fromkeys(["<|im_start|>", "<|im_end|>", *specials]))
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator([*corpus, "user assistant system Hello"], trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", additional_special_tokens=specials
    )
    fast.chat_template = chat_template
    directory.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(str(directory))
    # a config.json vLLM's ModelConfig can read: a model it knows, a long enough context
    (directory / "config.json").write_text(
        json.dumps(
            {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_positions": 1 << 16}
        )
    )
    return directory
