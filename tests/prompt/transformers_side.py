"""transformers' side of the comparison: ``apply_chat_template`` of a real tokenizer.

The tokenizer is a real ``PreTrainedTokenizerFast`` (a one-word vocabulary: nothing is
tokenized here) given the checkpoint's chat template and special tokens, so the prompt
comes from transformers' own ``apply_chat_template(..., tokenize=False)``, the path every
transformers user takes.

``python tests/prompt/transformers_side.py`` (with transformers installed, as
``scripts/test-transformers`` makes it) writes tests/fixtures/prompts/transformers.json:
every case's prompt as transformers renders it, for the templates whose output does not
depend on today's date, so that the main suite holds streamcall to them without
transformers installed.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from prompt_cases import CONVERSATIONS, TEMPLATES, THINKING, cases, template_source

GOLDENS = Path(__file__).resolve().parent.parent / "fixtures" / "prompts" / "transformers.json"


def tokenizer(family: str) -> Any:
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast

    _, _, tokens = TEMPLATES[family]
    return PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer(WordLevel({"<unk>": 0}, unk_token="<unk>")),
        chat_template=template_source(family),
        **tokens,
    )


def transformers_prompt(family: str, conversation: str, thinking: str) -> str:
    messages, tools = CONVERSATIONS[conversation]
    return str(
        tokenizer(family).apply_chat_template(
            copy.deepcopy(messages),
            tools=copy.deepcopy(tools),
            tokenize=False,
            add_generation_prompt=True,
            **THINKING[thinking],
        )
    )


def dated(family: str) -> bool:
    """Whether the template writes today's date (``strftime_now``)."""
    return "strftime_now" in template_source(family)


def main() -> int:
    import transformers

    rows = [
        {
            "family": f,
            "conversation": c,
            "thinking": t,
            "prompt": transformers_prompt(f, c, t),
        }
        for f, c, t in cases()
        if not dated(f)
    ]
    GOLDENS.parent.mkdir(parents=True, exist_ok=True)
    out = {"transformers": transformers.__version__, "rows": rows}
    GOLDENS.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(rows)} prompts from transformers {transformers.__version__} to {GOLDENS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
