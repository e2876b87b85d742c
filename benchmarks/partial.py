"""Partial JSON: streaming reads and single-shot parses, side by side with the peers.

``python -m benchmarks partial``

A document is fed in 7-character chunks and its value read after every chunk, the way a
UI renders a half-written tool call. Two documents: one long string value (a file being
written) and many small keys. streamcall's PartialJSON feeds each chunk once; the peers
re-parse the whole buffer on every read, as their users do:

- jiter           ``jiter.from_json(buf.encode(), partial_mode="trailing-strings")``
- partial-json-parser ``partial_json_parser.loads(buf)``
- json-repair     ``json_repair.loads(buf)``
- langchain-core  ``langchain_core.utils.json.parse_partial_json(buf)``

streamcall's ``.value`` rows drop each snapshot once read, as a UI that renders and
discards does; PartialJSON then brings its copy of a big open container up to date in
place at the next read instead of copying it again. The "previous kept" row holds each
snapshot until the next read (to diff frames, say), so every read must copy: the worst
case. (Keeping every snapshot costs the same CPU per read, plus memory quadratic in the
document: a separate copy of the growing string or object each time.)

Single shot: ``parse_partial_json`` once on a 64 KB document, complete and cut at 2/3 (a
tool call's arguments still streaming), beside each peer's one parse, in these shapes: the
long string above, a code file (one long ASCII string with escapes on every line), ASCII
prose (one long string with no escape), many keys, and a list of small objects (bracket-
dense). The cut document is also timed with streamcall's one-shot fast path off (the whole
text through the scanner), interleaved with it on, and, where the optional compiled JSON
library (orjson, the ``fast`` extra) is installed, without it: the pure-Python figure.

A peer whose quadratic loop would take too long is timed at evenly spaced reads only, and
its total is the mean read time times the number of reads: the output says so. Times are
CPU time (time.process_time); absolute times on a shared machine are still noise: the
ratios and growth exponents are the figures.
"""

from __future__ import annotations

import gc
import json
import math
import random
import time
from collections.abc import Callable
from typing import Any

from benchmarks._util import best_of, growth_exponent, table
from streamcall import PartialJSON, parse_partial_json
from streamcall.text import jsonstring

CHUNK = 7
SIZES = (4096, 16384, 65536)
PEER_BUDGET_S = 3.0  # per peer and document, for the quadratic re-parse loop
# CPU time: on a shared machine, wall time is mostly the other processes' load.
CLOCK = time.process_time
NOT_INSTALLED = "not installed"

Parser = Callable[[str], Any]


def long_string_document(size: int) -> str:
    """A tool call writing a file: one string value of about `size` characters."""
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "北京", "naïve", "x = 1\n", "\ttab", 'say "hi"']
    words += ["😀", "path\\to", "<b>&</b>"]
    out: list[str] = []
    n = 0
    while n < size:
        word = rng.choice(words)
        out.append(word)
        n += len(json.dumps(word, ensure_ascii=False)) - 1
    return json.dumps({"path": "notes.md", "content": " ".join(out)}, ensure_ascii=False)


def many_keys_document(size: int) -> str:
    """A flat object of many small entries: numbers, short strings, booleans, nulls."""
    rng = random.Random(11)
    items: dict[str, Any] = {}
    text = "{}"
    i = 0
    while len(text) < size:
        for _ in range(20):
            items[f"key_{i:05d}"] = rng.choice([i, f"v{i}", True, None, i * 0.25, -i])
            i += 1
        text = json.dumps(items)
    return text


def code_file_document(size: int) -> str:
    """A tool call writing a source file: one long ASCII string value with the escapes code
    has (a newline per line, quotes, a backslash now and then), one per 20 characters or so.
    """
    lines: list[str] = []
    n = 0
    i = 0
    while n < size:
        j = i // 6
        line = [
            f"def handler_{j}(request, limit={j % 7}):",
            "    # Look the item up, keep the rows under the limit, and render them in order.",
            "    rows = [row for row in fetch(request.item_id) if row.size <= limit]",
            f'    name = request.get("name", "item-{j}")',
            f'    return render(name, rows, path="C:\\tmp\\{j}.txt")',
            "",
        ][i % 6]
        lines.append(line)
        n += len(json.dumps(line)) - 1
        i += 1
    return json.dumps({"path": "app/handlers.py", "content": "\n".join(lines)})


def prose_document(size: int) -> str:
    """A long ASCII string with no escape at all (a plain-text file being written)."""
    rng = random.Random(5)
    words = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "and", "runs"]
    text = " ".join(rng.choice(words) for _ in range(size // 4))[:size]
    return json.dumps({"path": "notes.txt", "content": text})


def list_of_objects_document(size: int) -> str:
    """Records, each a small object with a nested list and object: bracket-dense."""
    items: list[dict[str, Any]] = []
    n = 2
    i = 0
    while n < size:
        item = {
            "id": i,
            "name": f"item {i}",
            "tags": ["a", "b"][: i % 3],
            "price": i * 0.25,
            "in_stock": i % 2 == 0,
            "dims": {"w": i % 10, "h": None},
        }
        items.append(item)
        n += len(json.dumps(item)) + 2
        i += 1
    return json.dumps(items)


SINGLE_SHOT_DOCS: dict[str, Callable[[int], str]] = {
    "long string": long_string_document,
    "code file": code_file_document,
    "ASCII prose": prose_document,
    "many keys": many_keys_document,
    "list of objects": list_of_objects_document,
}


def chunks_of(doc: str) -> list[str]:
    return [doc[i : i + CHUNK] for i in range(0, len(doc), CHUNK)]


def stream_events(chunks: list[str]) -> None:
    """The delta view a UI can use instead of snapshots: StringAppend / ValueComplete."""
    feed_events = PartialJSON().feed_events
    for chunk in chunks:
        feed_events(chunk)


def stream_ours(
    chunks: list[str], *, live: bool = False, read: bool = True, hold: bool = False
) -> None:
    pj = PartialJSON(live=live)
    feed = pj.feed
    if hold:
        held = None
        for chunk in chunks:
            feed(chunk)
            held = pj.value  # the previous snapshot is still held while this one is built
        del held
    elif read:
        for chunk in chunks:
            feed(chunk)
            pj.value  # noqa: B018 - the read is what is measured (and the value dropped)
    else:
        for chunk in chunks:
            feed(chunk)


def stream_peer(parse: Parser, chunks: list[str]) -> tuple[float, str]:
    """Total time of re-parsing after every chunk: measured, or estimated from samples."""
    prefixes = []
    buf = ""
    for chunk in chunks:
        buf += chunk
        prefixes.append(len(buf))
    doc = buf
    reads = len(prefixes)
    # Time one read of a cut document: a complete one may take a peer's json.loads fast path.
    start = CLOCK()
    parse(doc[:-1])
    full = CLOCK() - start
    estimate = full * reads / 2  # the mean prefix is half the document
    if estimate <= PEER_BUDGET_S:
        # The real loop, as users write it.
        def loop() -> None:
            b = ""
            for chunk in chunks:
                b += chunk
                parse(b)

        return best_of(loop, clock=CLOCK, repeat=1 if estimate > 0.5 else 3), f"all {reads}"
    samples = max(10, int(PEER_BUDGET_S / max(full / 2, 1e-9)))
    step = max(1, reads // samples)
    picked = prefixes[step // 2 :: step]
    start = CLOCK()
    for end in picked:
        parse(doc[:end])
    spent = CLOCK() - start
    return spent / len(picked) * reads, f"{len(picked)} of {reads} (est.)"


def peers() -> dict[str, Parser]:
    found: dict[str, Parser] = {}
    try:
        import jiter

        found["jiter"] = lambda b: jiter.from_json(b.encode(), partial_mode="trailing-strings")
    except ImportError:
        pass
    try:
        import partial_json_parser

        found["partial-json-parser"] = partial_json_parser.loads
    except ImportError:
        pass
    try:
        import json_repair

        found["json-repair"] = json_repair.loads
    except ImportError:
        pass
    try:
        from langchain_core.utils.json import parse_partial_json as lc_parse

        found["langchain-core"] = lc_parse
    except ImportError:
        pass
    return found


def streaming(found: dict[str, Parser]) -> None:
    print(f"Streaming: {CHUNK}-character chunks, value read after every chunk")
    print("(.value rows drop each snapshot once read; 'previous kept' holds it until the next)")
    docs = {"long string": long_string_document, "many keys": many_keys_document}
    growth_rows = []
    for label, make in docs.items():
        ours_times: dict[str, list[float]] = {
            "value": [],
            "held": [],
            "live": [],
            "events": [],
            "feed": [],
        }
        jiter_times: list[float] = []
        for size in SIZES:
            chunks = chunks_of(make(size))
            # As many rounds at each size for the same time: a short run is the noisiest.
            rounds = 5 * SIZES[-1] // size
            ours_times["value"].append(
                best_of(lambda c=chunks: stream_ours(c), clock=CLOCK, repeat=rounds)
            )
            ours_times["held"].append(
                best_of(lambda c=chunks: stream_ours(c, hold=True), clock=CLOCK, repeat=rounds)
            )
            ours_times["live"].append(
                best_of(lambda c=chunks: stream_ours(c, live=True), clock=CLOCK, repeat=rounds)
            )
            ours_times["events"].append(
                best_of(lambda c=chunks: stream_events(c), clock=CLOCK, repeat=rounds)
            )
            ours_times["feed"].append(
                best_of(lambda c=chunks: stream_ours(c, read=False), clock=CLOCK, repeat=rounds)
            )
            if "jiter" in found:
                jiter_times.append(stream_peer(found["jiter"], chunks)[0])
        doc = make(SIZES[-1])
        chunks = chunks_of(doc)
        ours = ours_times["value"][-1]
        rows: list[list[object]] = [
            ["streamcall PartialJSON .value", ours * 1e3, ours / len(chunks) * 1e6, 1.0, "all"],
            [
                "streamcall .value, previous kept",
                ours_times["held"][-1] * 1e3,
                ours_times["held"][-1] / len(chunks) * 1e6,
                ours_times["held"][-1] / ours,
                "all",
            ],
            [
                "streamcall PartialJSON(live=True)",
                ours_times["live"][-1] * 1e3,
                ours_times["live"][-1] / len(chunks) * 1e6,
                ours_times["live"][-1] / ours,
                "all",
            ],
            [
                "streamcall feed_events (deltas)",
                ours_times["events"][-1] * 1e3,
                ours_times["events"][-1] / len(chunks) * 1e6,
                ours_times["events"][-1] / ours,
                "-",
            ],
            [
                "streamcall feed only (no reads)",
                ours_times["feed"][-1] * 1e3,
                ours_times["feed"][-1] / len(chunks) * 1e6,
                ours_times["feed"][-1] / ours,
                "-",
            ],
        ]
        for name, parse in found.items():
            total, note = stream_peer(parse, chunks)
            rows.append([name, total * 1e3, total / len(chunks) * 1e6, total / ours, note])
        print(f"\n{label}: {len(doc):,} characters, {len(chunks):,} chunks")
        print(table(["parser", "total ms", "µs/chunk", "× streamcall .value", "reads timed"], rows))
        sizes = [float(len(make(s))) for s in SIZES]
        for key, name in (
            ("value", "streamcall .value"),
            ("held", "streamcall .value, previous kept"),
            ("live", "streamcall live"),
            ("events", "streamcall feed_events"),
            ("feed", "streamcall feed"),
        ):
            growth_rows.append(
                [f"{label}: {name}", *_ms(ours_times[key]), _exp(sizes, ours_times[key])]
            )
        if jiter_times:
            growth_rows.append(
                [f"{label}: jiter re-parse", *_ms(jiter_times), _exp(sizes, jiter_times)]
            )
    print("\nGrowth from 4 KB to 64 KB (time ∝ size^exponent; 1.0 is linear)")
    print(table(["", "4 KB ms", "16 KB ms", "64 KB ms", "exponent"], growth_rows))


def _oneshot_ab(cut: str, rounds: int = 7, number: int = 3) -> tuple[float, float]:
    """parse_partial_json on a cut document with the one-shot fast path on and off
    (repair._ONESHOT_FAST_ENABLED), interleaved round by round: best CPU time of each."""
    from streamcall.partial import repair as repair_module

    saved = repair_module._ONESHOT_FAST_ENABLED
    best = {True: float("inf"), False: float("inf")}
    try:
        for _ in range(rounds):
            for enabled in (True, False):
                repair_module._ONESHOT_FAST_ENABLED = enabled
                start = CLOCK()
                for _ in range(number):
                    parse_partial_json(cut)
                best[enabled] = min(best[enabled], (CLOCK() - start) / number)
    finally:
        repair_module._ONESHOT_FAST_ENABLED = saved
    return best[True], best[False]


def _interleaved(fns: list[Callable[[], object]], rounds: int = 9, number: int = 5) -> list[float]:
    """Best CPU time per call of each function, timed in alternation round by round."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            start = CLOCK()
            for _ in range(number):
                fn()
            best[i] = min(best[i], (CLOCK() - start) / number)
    return best


def _pure_parse(text: str) -> Any:
    """parse_partial_json as without the optional compiled library (orjson)."""
    saved = jsonstring._compiled_loads
    jsonstring._compiled_loads = None
    try:
        return parse_partial_json(text)
    finally:
        jsonstring._compiled_loads = saved


def single_shot(found: dict[str, Parser]) -> None:
    rows: list[list[object]] = []
    cut_rows: list[list[object]] = []
    for label, make in SINGLE_SHOT_DOCS.items():
        doc = make(SIZES[-1])
        cut = doc[: len(doc) * 2 // 3]
        encoded = doc.encode()

        def scanner(text: str) -> Any:
            pj = PartialJSON()
            pj.feed(text)
            return pj.value

        ours = best_of(lambda d=doc: parse_partial_json(d), clock=CLOCK, repeat=7, number=5)
        cases: list[tuple[str, Callable[[], object]]] = [
            ("streamcall parse_partial_json", lambda d=doc: parse_partial_json(d)),
            ("streamcall PartialJSON (scanner)", lambda d=doc: scanner(d)),
            ("json.loads", lambda d=doc: json.loads(d)),
        ]
        if "jiter" in found:
            import jiter

            cases.append(("jiter.from_json(bytes)", lambda e=encoded: jiter.from_json(e)))
        for name, fn in cases:
            t = best_of(fn, clock=CLOCK, repeat=7, number=5)
            rows.append([f"{label}, complete: {name}", t * 1e6, t / ours])

        # Cut at 2/3 (a tool call's arguments still streaming): json.loads refuses it.
        fast_ab, reference = _oneshot_ab(cut)
        jiter_cut = math.nan
        fast = fast_ab
        pure = math.nan
        fns: list[Callable[[], object]] = [lambda c=cut: parse_partial_json(c)]
        if jsonstring._compiled_loads is not None:
            fns.append(lambda c=cut: _pure_parse(c))
        if "jiter" in found:
            fns.append(lambda c=cut, j=found["jiter"]: j(c))
        # streamcall (with and without orjson) and jiter in alternation, round by round:
        # the same machine state.
        times = _interleaved(fns)
        fast = times[0]
        if jsonstring._compiled_loads is not None:
            pure = times[1]
        if "jiter" in found:
            jiter_cut = times[-1]
        cut_rows.append(
            [f"{label}: streamcall parse_partial_json", fast * 1e6, 1.0, _per(fast, jiter_cut)]
        )
        if not math.isnan(pure):
            cut_rows.append(
                [
                    f"{label}: streamcall, pure Python (no orjson)",
                    pure * 1e6,
                    pure / fast,
                    _per(pure, jiter_cut),
                ]
            )
        cut_rows.append(
            [
                f"{label}: streamcall, one-shot fast path off",
                reference * 1e6,
                reference / fast_ab,  # the on/off A/B's own ratio
                _per(reference, jiter_cut),
            ]
        )
        for name, parse in found.items():
            if name == "jiter":
                t = jiter_cut
                name = "jiter trailing-strings"
            else:
                t = best_of(lambda c=cut, f=parse: f(c), clock=CLOCK, repeat=3)
            cut_rows.append([f"{label}: {name}", t * 1e6, t / fast, _per(t, jiter_cut)])
    print("\nSingle shot, 64 KB document (ratio against streamcall on the complete document)")
    print(table(["", "µs", "× streamcall"], rows))
    print(
        "\nSingle shot, the same documents cut at 2/3 (fast path on/off interleaved A/B;"
        " streamcall and jiter interleaved; target: streamcall within 3× of jiter)"
    )
    print(table(["", "µs", "× streamcall", "× jiter"], cut_rows))
    if "jiter" not in found:
        print(f"jiter is {NOT_INSTALLED} (pip install -e '.[bench]'): no × jiter figures")
        return
    ours = [r for r in cut_rows if str(r[0]).endswith(": streamcall parse_partial_json")]
    worst = max(ours, key=lambda r: float(r[3]))  # type: ignore[arg-type]
    print(f"worst streamcall × jiter on a cut document: {float(worst[3]):.2f} ({worst[0]})")  # type: ignore[arg-type]
    pure_rows = [r for r in cut_rows if "pure Python" in str(r[0])]
    if pure_rows:
        worst = max(pure_rows, key=lambda r: float(r[3]))  # type: ignore[arg-type]
        print(f"worst without orjson: {float(worst[3]):.2f} ({worst[0]})")  # type: ignore[arg-type]
    else:
        print("orjson is not installed: the figures above are the pure-Python ones")


def _per(t: float, peer: float) -> float | str:
    """``t`` against a peer's time; a peer that is not installed has none (not ``nan``)."""
    return NOT_INSTALLED if math.isnan(peer) else t / peer


def _ms(times: list[float]) -> list[float]:
    return [t * 1e3 for t in times]


def _exp(sizes: list[float], times: list[float]) -> float:
    return growth_exponent(sizes, times)


def main() -> None:
    found = peers()
    missing = {"jiter", "partial-json-parser", "json-repair", "langchain-core"} - set(found)
    print("== partial JSON ==")
    if missing:
        print(
            f"(peers not installed, skipped: {', '.join(sorted(missing))}; pip install '.[bench]')"
        )
    gc.collect()
    streaming(found)
    single_shot(found)


if __name__ == "__main__":
    main()
