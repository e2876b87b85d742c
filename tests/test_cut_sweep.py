"""A deterministic sweep of the cuts that coverage-guided fuzzing reaches slowly.

Most chunking bugs the campaign (``fuzz/``) found share one shape: something a parser holds
at the end of a chunk (blanks after a call, a marker's first characters) is handled
differently from the same text read whole, and it shows only when a chunk ends right there
and the text goes on in a particular way. The fuzzer needs hours to hit such a cut (the
last one, Step-3's blanks before ``<｜tool_call_end｜>``, took a whole campaign round);
``fuzz.sweep`` tries every one of a small family at once. This is its narrow set, for every
format (``python -m fuzz.sweep --narrow``); the wide one (``python -m fuzz.sweep``) runs
outside CI. The random chunkings of ``test_contract_fuzz.py`` and the campaign cover the
rest.
"""

from __future__ import annotations

from typing import Any

import pytest
from fuzz import sweep

from streamcall import Text, formats
from streamcall.formats.registry import tool_parser


@pytest.mark.parametrize("target", [t for t in sweep.targets() if t.startswith("tool:")])
def test_every_cut_near_a_markup_boundary_gives_the_whole_result(target: str) -> None:
    found = sweep.sweep(target)
    assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize("name", [t for t in sweep.targets() if t.startswith("reasoning:")])
@pytest.mark.parametrize("opened", [None, True, False])
def test_every_cut_near_a_reasoning_marker_gives_the_whole_result(
    name: str, opened: bool | None
) -> None:
    found = sweep.reasoning_differences(name.partition(":")[2], opened)
    assert not found, "\n".join(map(str, found))


def test_every_format_that_renders_is_swept() -> None:
    swept = {t.partition(":")[2] for t in sweep.targets() if t.startswith("tool:")}
    assert swept == {n for n in formats() if sweep.renders(n)}
    assert "hermes" in swept and "hf" not in swept


class _DropsHeldBlanks:
    """Hermes, but blanks that end a chunk are lost: the bug class the sweep is for."""

    def __init__(self) -> None:
        self._inner = tool_parser("hermes")

    def feed(self, text: str) -> list[Any]:
        return self._inner.feed(text.rstrip(" "))

    def finish(self) -> list[Any]:
        return self._inner.finish()


def test_the_sweep_finds_a_cut_that_differs() -> None:
    rendered = tool_parser("hermes").render(list(sweep.NARROW_CALLS))
    found = [
        d
        for text, cuts in sweep.tool_cases(rendered)
        if (d := sweep.first_difference("tool:hermes*", _DropsHeldBlanks, text, cuts))
    ]
    assert found
    first = found[0]
    cut = first.cuts[0]
    assert first.text[:cut].endswith(" ") and first.whole != first.got
    assert "tool:hermes*: cuts" in str(first)


def test_a_raise_is_a_difference() -> None:
    class Raises:
        def feed(self, text: str) -> list[Any]:
            if len(text) < 3:
                raise ValueError("short chunk")
            return [Text(text)]

        def finish(self) -> list[Any]:
            return []

    diff = sweep.first_difference("t", Raises, "abcdef", [(1,), (4,)])
    assert diff is not None and diff.cuts == (1,) and "raised ValueError: short chunk" in diff.got


def test_the_command_sweeps_the_targets_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert sweep.main(["--narrow", "tool:hermes", "reasoning:qwen3"]) == 0
    out = capsys.readouterr().out
    assert "tool:hermes" in out and "reasoning:qwen3" in out and "2 targets (narrow)" in out
    assert sweep.main(["no-such-target"]) == 2
