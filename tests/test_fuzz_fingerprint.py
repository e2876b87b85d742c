"""The fuzz ledger's fingerprint (``fuzz/fingerprint.py``): which code a run tested, and
whether that code is still the same. No atheris needed: the fingerprint runs the target's
own check on a corpus under a profile hook."""

from __future__ import annotations

import json
import re
import textwrap
import types
from pathlib import Path

from fuzz import fingerprint as fp
from fuzz.__main__ import status

from support import pure_only


def _function(
    source: str, name: str = "f", **space: object
) -> tuple[types.CodeType, types.ModuleType]:
    module = types.ModuleType("streamcall.fake")
    module.__dict__.update(space)
    exec(compile(textwrap.dedent(source), "<fake>", "exec"), module.__dict__)
    return module.__dict__[name].__code__, module


def test_a_digest_holds_what_the_code_does_not_where_it_is() -> None:
    base = fp.code_digest(*_function("def f(x):\n    return x + 1\n"))
    moved = fp.code_digest(*_function("\n\n\ndef f(x):\n    return x + 1\n"))
    documented = fp.code_digest(*_function('def f(x):\n    """Add one."""\n    return x + 1\n'))
    assert base == moved == documented
    assert fp.code_digest(*_function("def f(x):\n    return x + 2\n")) != base
    assert fp.code_digest(*_function("def f(x):\n    return x - 1\n")) != base
    # a string constant that is used is not a docstring
    used = fp.code_digest(*_function('def f(x):\n    "a"\n    return "a"\n'))
    other = fp.code_digest(*_function('def f(x):\n    "a"\n    return "b"\n'))
    assert used != other


def test_a_digest_holds_the_module_data_the_function_names() -> None:
    source = "def f(x):\n    return _P.match(x) and LIMIT\n"
    one = fp.code_digest(*_function(source, _P=re.compile("a+"), LIMIT=5))
    assert fp.code_digest(*_function(source, _P=re.compile("a++"), LIMIT=5)) != one
    assert fp.code_digest(*_function(source, _P=re.compile("a+"), LIMIT=6)) != one
    # data the function does not name is not in its digest
    assert fp.code_digest(*_function(source, _P=re.compile("a+"), LIMIT=5, OTHER=1)) == one
    # nested functions are part of their parent
    outer = "def f(x):\n    def g():\n        return {n}\n    return g\n"
    assert fp.code_digest(*_function(outer.format(n=1))) != fp.code_digest(
        *_function(outer.format(n=2))
    )


def test_sets_are_read_in_a_stable_order() -> None:
    assert fp._data(frozenset({"b", "a", "c"})) == fp._data(frozenset({"c", "b", "a"}))
    code, _ = _function('def f(x):\n    return x in {"x", "y", "z", "w"}\n')
    assert "'w','x','y','z'" in fp._code_text(code)
    assert fp._data(object()) is None  # an object's identity is not data


def _corpus(tmp_path: Path, inputs: list[bytes]) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i, data in enumerate(inputs):
        (corpus / f"{i:03}").write_bytes(data)
    return corpus


@pure_only
def test_a_fingerprint_names_the_code_its_corpus_reaches(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [b"<think>a</think>b", b"x</think>y", b"<thi"])
    taken = fp.take("reasoning:qwen3", corpus)
    digests = taken["digests"]
    assert taken["inputs"] == 3 and taken["partial"] is False
    assert "streamcall.reasoning._engine.MarkerReasoningParser._reasoning" in digests
    assert "class streamcall.reasoning._engine.MarkerReasoningParser" in digests
    assert "streamcall.testing.check_contract" in digests  # the check is tested code too
    assert not any(".formats." in key for key in digests)  # no tool-call format ran
    assert fp.changed(digests) == []
    key = "streamcall.reasoning._engine._Finder.find"
    assert fp.changed({**digests, key: "0" * 16}) == [key]
    assert fp.changed({"streamcall.gone.f": "0" * 16}) == ["streamcall.gone.f"]


def test_status_counts_a_clean_run_on_code_that_stayed(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [b"<think>a</think>b"])
    digests = fp.take("reasoning:qwen3", corpus)["digests"]
    ledger = tmp_path / "ledger.jsonl"

    def line(target: str, clean: float, found: dict[str, str], **more: object) -> str:
        run = {"target": target, "when": "2026-12-03T07:00:00Z", "commit": "abc1234def"}
        run |= {"seconds": 600, "inputs": 1000, "failures": 0, "clean_last_s": clean}
        run |= {"fingerprint": {"version": fp.VERSION, "partial": False, "digests": found}}
        run |= more
        return json.dumps(run)

    key = "streamcall.reasoning._engine._Finder.find"
    ledger.write_text(
        "\n".join(
            [
                line("reasoning:qwen3", 603, digests),
                line("reasoning:glm45", 603, {**digests, key: "0" * 16}),
                line("reasoning:glm47", 300, digests, failures=12),
                line("reasoning:mimo", 603, digests, dirty=True),
                line("reasoning:step3", 603, digests),
                line("reasoning:step3", 30, digests, failures=1, when="2026-12-03T08:00:00Z"),
                line("reasoning:step5", 603, digests),
                line("reasoning:step5", 60, digests, when="2026-12-03T08:00:00Z"),
            ]
        )
    )
    names = ["reasoning:qwen3", "reasoning:glm45", "reasoning:glm47", "reasoning:mimo", "sse"]
    names += ["reasoning:step3", "reasoning:step5"]
    rows = {name: (counts, why) for name, counts, why in status(names, ledger, 600)}
    assert rows["reasoning:qwen3"][0] is True
    assert rows["reasoning:glm45"] == (
        False,
        "1,000 inputs, clean 603 s, abc1234 2026-12-03T07:00:00Z; changed since: "
        "reasoning._engine._Finder.find",
    )
    assert rows["reasoning:glm47"] == (False, "no run clean for 600 s (newest: 12 failed)")
    assert rows["reasoning:mimo"][0] is False and "uncommitted" in rows["reasoning:mimo"][1]
    assert rows["sse"] == (False, "never run")
    # a later run that failed undoes a clean one; a later short clean run does not
    assert rows["reasoning:step3"][0] is False
    assert rows["reasoning:step3"][1].endswith("a later run failed (2026-12-03T08:00:00Z)")
    assert rows["reasoning:step5"][0] is True


def test_a_run_is_recorded_with_its_fingerprint(tmp_path: Path) -> None:
    from fuzz.__main__ import _git, _record, read_ledger

    corpus = _corpus(tmp_path, [b"<think>a</think>b", b"x"])
    ledger = tmp_path / "ledger.jsonl"
    result = {"target": "reasoning:qwen3", "seconds": 600, "inputs": 5, "failures": 0}
    head = _git("rev-parse", "HEAD")
    _record({**result, "clean_last_s": 601.0}, head, corpus, ledger, 60)
    _record({**result, "target": "reasoning:nope", "clean_last_s": 3.0}, head, corpus, ledger, 60)
    first, second = read_ledger(ledger)
    assert first["target"] == "reasoning:qwen3" and first["clean_last_s"] == 601.0
    assert first["fingerprint"]["inputs"] == 2 and first["fingerprint"]["partial"] is False
    assert fp.changed(first["fingerprint"]["digests"]) == []
    assert first["commit"] == _git("rev-parse", "HEAD")  # "" outside a git checkout
    assert first["when"].endswith("Z")
    # a fingerprint that cannot be taken is said, and the run is still recorded
    assert "fingerprint" not in second and "nope" in second["fingerprint_error"]
    rows = status(["reasoning:qwen3", "reasoning:nope"], ledger, 600)
    assert [counts for _, counts, _ in rows] == [not first["dirty"], False]


@pure_only
def test_defaults_and_cached_functions_are_covered() -> None:
    code, module = _function("def f(x=1):\n    return x\n")
    fn1 = module.__dict__["f"]
    fn2 = _function("def f(x=2):\n    return x\n")[1].__dict__["f"]
    assert fp._defaults(fn1) != fp._defaults(fn2)
    assert fp.code_digest(code, module, fp._defaults(fn1)) != fp.code_digest(
        fn2.__code__, module, fp._defaults(fn2)
    )
    # a function behind functools.cache is found by its name (markers' pattern builders)
    fp.load()
    index = fp.Index()
    assert "streamcall.text.markers._finder_re" in index.by_key


def test_the_committed_ledger_reads() -> None:
    """The ledger is committed (a campaign is longer than one sitting): every line names a
    target that exists and holds what ``--status`` reads."""
    from fuzz.__main__ import HERE, read_ledger
    from fuzz.targets import target_names

    names = set(target_names())
    for n, run in enumerate(read_ledger(HERE / "ledger.jsonl"), 1):
        where = f"fuzz/ledger.jsonl line {n}"
        assert run["target"] in names, where
        assert re.fullmatch(r"[0-9a-f]{40}", run["commit"]), where
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", run["when"]), where
        assert isinstance(run["dirty"], bool), where
        assert run["inputs"] >= 0 and run["failures"] >= 0 and run["clean_last_s"] >= 0, where
        if "fingerprint" in run:
            assert run["fingerprint"]["target"] == run["target"], where
            assert run["fingerprint"]["digests"], where
        else:
            assert run["fingerprint_error"], where
