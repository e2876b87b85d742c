"""Check the ported transformers fixtures against transformers itself.

    python tests/reference/check_transformers_fixtures.py [--chunkings]

Every case in ``tests/fixtures/response_templates/transformers_cases.json`` must reproduce
with the installed transformers (they were ported from its tests and checked with 5.24.0):
one-shot ``parse_response`` for every case, and for the streaming kinds every chunking too.
Prints the counts and exits non-zero on any mismatch. ``--chunkings`` also feeds every
one-shot case through the streaming parser in every chunking and lists where transformers'
own stream disagrees with its one-shot result (a report, not a failure: transformers' tests
pin chunking invariance only for their streaming fixtures).

Needs only transformers (not streamcall): run it with any interpreter that has it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# Run as a script, tests/ is not on the path (under pytest it is).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference import transformers_ref as ref


# No return annotation: get_json_schema would add a "return" entry to the schema.
def set_alarm(hour: int, enabled: bool, label: str | None = None):
    """
    Set an alarm.

    Args:
        hour: The hour the alarm should ring at.
        enabled: Whether the alarm starts out enabled.
        label: An optional label for the alarm.
    """


def check_case(data: dict[str, Any], case: dict[str, Any]) -> list[str]:
    """What fails for one case (empty when it reproduces)."""
    template = ref.case_template(data, case)
    prefix, tools, kind = case["prefix"], case.get("tools"), case["kind"]
    problems = []
    if kind == "flush":
        got = ref.flushed(template, case["text"], prefix=prefix)
        if got != case["expected"]["flushed"]:
            problems.append(f"flushed {got!r}, expected {case['expected']['flushed']!r}")
        return problems
    if kind == "stream":
        chunks = case["text"]
        out = ref.parse_chunks(template, chunks, prefix=prefix, tools=tools)
        if (why := ref.check_outcome(case, out)) is not None:
            problems.append(f"streamed {chunks!r}: {why}")
        early = [e for e in out.events if e["type"] == "region_close" and e["feed"] == 0]
        if early:
            problems.append(f"a region closed on the first chunk: {early}")
        whole = "".join(chunks)
    else:
        whole = case["text"]
    one_shot = ref.parse(template, whole, prefix=prefix, tools=tools)
    if (why := ref.check_outcome(case, one_shot)) is not None:
        problems.append(f"one-shot: {why}")
    if kind == "chunked":
        for name, chunks in ref.chunkings(whole):
            out = ref.parse_chunks(template, chunks, prefix=prefix, tools=tools)
            if (why := ref.check_outcome(case, out)) is not None:
                problems.append(f"{name}: {why}")
    return problems


def check_difference(d: dict[str, Any]) -> list[str]:
    """A documented stream/one-shot difference still reproduces, both ways."""
    template = ref.resolve_template(d["template"])
    problems = []
    one_shot = ref.parse(template, "".join(d["chunks"]), prefix=d["prefix"])
    if (one_shot.value, one_shot.error) != (d["one_shot"], None):
        problems.append(f"one-shot {one_shot.describe()}")
    for chunks, want in (
        (d["chunks"], d["streamed"]),
        (list("".join(d["chunks"])), d["one_char_chunks_streamed"]),
    ):
        got = ref.parse_chunks(template, chunks, prefix=d["prefix"])
        if (got.value, got.error) != (want, None):
            problems.append(f"streamed {chunks!r}: {got.describe()}")
    return problems


def stream_disagreements(data: dict[str, Any], case: dict[str, Any]) -> list[str]:
    """The chunkings in which transformers' stream differs from its own one-shot result."""
    if case["kind"] not in ("parse", "chunked"):
        return []
    template = ref.case_template(data, case)
    prefix, tools = case["prefix"], case.get("tools")
    one_shot = ref.parse(template, case["text"], prefix=prefix, tools=tools)
    out = []
    for name, chunks in ref.chunkings(case["text"]):
        got = ref.parse_chunks(template, chunks, prefix=prefix, tools=tools)
        if (got.value, got.error) != (one_shot.value, one_shot.error):
            out.append(f"{name}: {got.describe()} (one-shot {one_shot.describe()})")
    return out


def main(argv: list[str]) -> int:
    reason = ref.skip_reason()
    if reason is not None:
        print(reason, file=sys.stderr)
        return 2
    data = ref.load_cases()
    print(f"transformers {ref.version()} (fixtures checked with {ref.REFERENCE_VERSION})")
    failures = 0
    for case in data["cases"]:
        for problem in check_case(data, case):
            failures += 1
            print(f"FAIL {case['id']}: {problem}")
    for c in data["coerce_cases"]:
        if (got := ref.coerce(c["raw"], c["types"])) != c["expected"]:
            failures += 1
            print(f"FAIL coerce {c['raw']!r} {c['types']}: {got!r}, expected {c['expected']!r}")
    for c in data["schema_types_cases"]:
        if (got := ref.schema_types(c["schema"])) != c["expected"]:
            failures += 1
            print(f"FAIL schema_types {c['schema']}: {got!r}, expected {c['expected']!r}")
    for c in data["coerce_call_cases"]:
        if (got := ref.coerce_tool_calls(c["tools"], c["value"])) != c["expected"]:
            failures += 1
            print(f"FAIL coerce_tool_calls {c['value']}: {got!r}, expected {c['expected']!r}")
    # The callable-tools case stores the schema transformers derives from a function: check it.
    (callable_case,) = [c for c in data["cases"] if c["id"] == "callable_tools_schema"]
    if ref.json_schema(set_alarm) != callable_case["tools"][0]:
        failures += 1
        print(f"FAIL callable_tools_schema: get_json_schema gives {ref.json_schema(set_alarm)}")
    differences = ref.load_differences()
    for d in differences["disagreements"]:
        for problem in check_difference(d):
            failures += 1
            print(f"FAIL {d['id']}: {problem}")
    for q in differences["quirks"]:
        got = ref.parse(ref.resolve_template(q["template"]), q["text"], prefix=q["prefix"])
        if (got.value, got.error) != (q["one_shot"], None):
            failures += 1
            print(f"FAIL {q['id']}: one-shot {got.describe()}")
    ecosystem = ref.load_ecosystem()
    named = [(s, n, t) for s in ("trl", "transformers_serve") for n, t in ecosystem[s].items()]
    for source, name, template in named:
        if (got := ref.parse(template, "")).error is not None:
            failures += 1
            print(f"FAIL {source}:{name} does not load: {got.describe()}")
    units = len(data["coerce_cases"]) + len(data["schema_types_cases"])
    units += len(data["coerce_call_cases"])
    others = len(differences["disagreements"]) + len(differences["quirks"]) + len(named)
    total = len(data["cases"]) + units + others
    print(f"{total - failures} passed, {failures} failed")
    print(
        f"  ({len(data['cases'])} parse cases, {units} argument-typing cases, "
        f"{len(differences['disagreements'])} stream/one-shot differences, "
        f"{len(differences['quirks'])} quirks, {len(named)} ecosystem templates loaded)"
    )
    if "--chunkings" in argv:
        print("\nwhere transformers' streaming parser disagrees with its one-shot parse_response:")
        found = 0
        for case in data["cases"]:
            diffs = stream_disagreements(data, case)
            if diffs:
                found += 1
                print(f"  {case['id']}: {len(diffs)} chunkings, e.g. {diffs[0]}")
        print(f"  {found} of {len(data['cases'])} cases")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
