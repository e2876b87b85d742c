"""streamcall's chat-template rendering against transformers' ``apply_chat_template``.

Ten families' real templates (``cases.TEMPLATES``), each with an agent loop's requests
(tools; an earlier call and its result; a plain chat) and thinking on, off and unsaid.

- With transformers installed (``scripts/test-transformers``): streamcall's prompt equals
  transformers' own, for every case, the templates that write today's date included.
- Always: streamcall's prompt equals the one transformers rendered into
  tests/fixtures/prompts/transformers.json (``python tests/prompt/transformers_side.py``),
  for every template that writes no date.
"""

from __future__ import annotations

import copy
import json

import pytest
from prompt_cases import CONVERSATIONS, TEMPLATES, THINKING, cases, template_source
from transformers_side import GOLDENS, dated

from streamcall import render_prompt
from streamcall.prompt import ChatTemplate


def ours(family: str, conversation: str, thinking: str) -> str:
    messages, tools = CONVERSATIONS[conversation]
    template = ChatTemplate.from_string(
        template_source(family), special_tokens=TEMPLATES[family][2]
    )
    return render_prompt(
        copy.deepcopy(messages),
        tools=copy.deepcopy(tools),
        template=template,
        chat_template_kwargs=THINKING[thinking],
    )


def _goldens() -> list[dict[str, str]]:
    return list(json.loads(GOLDENS.read_text(encoding="utf-8"))["rows"])


@pytest.mark.parametrize(
    "row", _goldens(), ids=lambda r: f"{r['family']}-{r['conversation']}-{r['thinking']}"
)
def test_equals_the_prompt_transformers_rendered(row: dict[str, str]) -> None:
    assert ours(row["family"], row["conversation"], row["thinking"]) == row["prompt"]


def test_the_goldens_cover_every_undated_case() -> None:
    have = {(r["family"], r["conversation"], r["thinking"]) for r in _goldens()}
    assert have == {c for c in cases() if not dated(c[0])}
    assert len({r["family"] for r in _goldens()}) >= 8  # two of the ten write the date


@pytest.mark.parametrize(("family", "conversation", "thinking"), cases())
def test_equals_transformers_apply_chat_template(
    family: str, conversation: str, thinking: str
) -> None:
    pytest.importorskip(
        "transformers", reason="transformers is not installed: scripts/test-transformers runs this"
    )
    from transformers_side import transformers_prompt

    assert ours(family, conversation, thinking) == transformers_prompt(
        family, conversation, thinking
    )


def test_the_ten_families_render_differently() -> None:
    """The cases are not vacuous: every family writes its own syntax for the same call."""
    prompts = {f: ours(f, "call-and-result", "default") for f in TEMPLATES}
    assert len(set(prompts.values())) == len(TEMPLATES)
    for family, prompt in prompts.items():
        assert "get_weather" in prompt and "Paris" in prompt, family
        assert "21" in prompt, family  # the tool result


def test_kimi_k2_instruct_template_fails_as_in_transformers() -> None:
    """Kimi-K2-Instruct's current template appends to a list, which transformers'
    immutable sandbox refuses: streamcall refuses it too, and says where."""
    from prompt_cases import FIXTURES, SECOND, TOOLS

    from streamcall import TemplateError

    source = (FIXTURES / "Kimi-K2-Instruct.jinja").read_text(encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        render_prompt(copy.deepcopy(SECOND), tools=TOOLS, template=source)
    assert info.value.line == 41
    assert "access to attribute 'append' of 'list' object is unsafe" in str(info.value)
    try:
        from tokenizers import Tokenizer
        from tokenizers.models import WordLevel
        from transformers import PreTrainedTokenizerFast
    except ImportError:
        return
    tok = PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer(WordLevel({"<unk>": 0}, unk_token="<unk>")),
        chat_template=source,
    )
    with pytest.raises(Exception, match="append"):
        tok.apply_chat_template(copy.deepcopy(SECOND), tools=TOOLS, tokenize=False)
