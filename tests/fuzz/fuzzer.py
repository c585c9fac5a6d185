"""A structure-aware fuzzer for scenarios: every input ends in a result or one clear line.

Cases are built by hypothesis from the example scenarios and the rulesets' own schemas:
keys deleted, values swapped for other types, extreme numbers, hostile unicode (markup,
control characters, lone surrogates, very long text), deep nesting, YAML alias bombs,
duplicate names, unknown and schema-known keys added, and raw text cut or corrupted. Each
case goes through the library (parse, validate, resolve or another action, render), and a
sample through the command line; each runs under a time and a memory limit.

Every case ends in one outcome class:

* ``ok`` — it resolved (or the action succeeded) and rendered;
* ``rejected`` — a :class:`~fracas.core.errors.FracasError` whose message is one
  printable line of bounded length (exit code 2 on the command line);
* ``multi_line`` — an error message that is not one such line;
* ``crash`` — any other exception (a traceback for the user), or a CLI exit code other
  than 0 and 2;
* ``hang`` — over the per-case time limit;
* ``memory`` — over the per-case memory limit.

Run it with ``make fuzz`` (the long run) or ``python tests/fuzz/fuzzer.py --cases N``;
``tests/fuzz/test_fuzz.py`` runs a quick version in ``make test``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import multiprocessing
import os
import random
import resource
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(ROOT.glob("examples/*/*.yaml"))
OUTCOMES = ("ok", "rejected", "multi_line", "crash", "hang", "memory")
FAILURES = ("multi_line", "crash", "hang", "memory")
#: The longest error line the command line prints (see fracas.cli.common).
MESSAGE_LENGTH = 520


class CaseTimeout(BaseException):
    """Raised in a worker by the per-case alarm (a BaseException, so no handler eats it)."""


# ── the cases ──────────────────────────────────────────────────────────────────────────


@dataclass
class Case:
    """One generated input: a document or raw text, what to do with it, and how."""

    example: str
    mutations: list[str]
    document: Any
    fmt: str  # yaml, json, memory (the document itself), raw (text given as is)
    text: str | None
    action: str
    seed: int
    output: str
    cli: bool


def _examples() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{path.parent.name}/{path.name}", yaml.safe_load(path.read_text(encoding="utf-8")))
        for path in EXAMPLES
    ]


def _schema_keys() -> dict[str, list[str]]:
    """Every property name each ruleset's document schema knows (for "known key" mutations)."""
    from fracas.rulesets import available_rulesets

    keys: dict[str, list[str]] = {}
    for ruleset in available_rulesets():
        names: set[str] = set()
        stack: list[Any] = [ruleset.json_schema()]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                properties = node.get("properties")
                if isinstance(properties, dict):
                    names.update(properties)
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
        keys[ruleset.name] = sorted(names)
    return keys


SEEDS = _examples()
SCHEMA_KEYS = _schema_keys()

HOSTILE_TEXT = [
    "",
    " ",
    "[/b]",
    "[bold]x",
    "[url=http://x]y[/url]",
    "[/code]",
    "*a* _b_ `c` |d| <i>e</i> &amp; $x$",
    "# heading",
    "- item",
    "1. item",
    "a\nb",
    "a\r\nb",
    "x\x00y",
    "\x1b[31mred\x1b[0m",
    "x\ud800",
    "\udcff",
    "\u2028\u2029",
    "\u202eevil",
    "🐉" * 10,
    "x" * 20_000,
    "<script>alert(1)</script>",
    "\"quoted\" 'single'",
    "%s %d {0} {name}",
    "\\",
    "\t",
]

EXTREME_NUMBERS: list[Any] = [
    0,
    -1,
    1,
    2,
    -(2**31),
    2**31,
    2**53 + 1,
    2**63,
    -(2**63),
    10**18,
    10**19,
    10**20,
    10**21,
    10**300,
    10**400,
    10**4299,
    0.0,
    -0.0,
    0.5,
    1e-300,
    5e-324,
    1e300,
    1.7976931348623157e308,
    float("inf"),
    float("-inf"),
    float("nan"),
    True,
    False,
    None,
]


def _walk(document: Any, *, max_depth: int = 8, cap: int = 3_000) -> list[tuple[Any, ...]]:
    """Key paths into ``document`` (breadth first, bounded: mutations may have made it deep
    or an alias bomb)."""
    found: list[tuple[Any, ...]] = []
    queue: list[tuple[Any, tuple[Any, ...]]] = [(document, ())]
    seen: set[int] = set()
    while queue and len(found) < cap:
        node, path = queue.pop(0)
        found.append(path)
        if len(path) >= max_depth or id(node) in seen:
            continue
        if isinstance(node, dict):
            seen.add(id(node))
            queue += [(value, (*path, key)) for key, value in node.items()]
        elif isinstance(node, list):
            seen.add(id(node))
            queue += [(value, (*path, index)) for index, value in enumerate(node)]
    return found


def _key_paths(document: Any) -> list[tuple[Any, ...]]:
    return [path for path in _walk(document) if path]


def _containers(document: Any) -> list[tuple[Any, ...]]:
    return [path for path in _walk(document) if isinstance(_get(document, path), dict | list)]


def _get(document: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        document = document[part]
    return document


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def _alias_bomb(width: int, levels: int) -> Any:
    # The same list object referenced many times: yaml.dump writes anchors and aliases.
    layer: Any = ["lol"] * width
    for _ in range(levels):
        layer = [layer] * width
    return layer


def _shared_value(document: Any) -> Any:
    """A value that several places share (YAML writes it once, with an anchor)."""
    containers = [p for p in _containers(document) if p]
    return _get(document, containers[0]) if containers else {"a": 1}


@st.composite
def odd_values(draw: st.DrawFn, document: Any) -> tuple[str, Any]:
    kind = draw(
        st.sampled_from(
            [
                *("plausible", "plausible", "plausible", "number", "number", "text", "text"),
                *("type", "nesting", "alias", "list", "mapping", "shared"),
            ]
        )
    )
    if kind == "plausible":
        # Near what the field holds: the case gets past validation and into the rules.
        value = draw(
            st.one_of(
                st.integers(0, 30),
                st.integers(-5, 1000),
                st.sampled_from([0.5, 1.5, 2.0, 0.0, "front", "flank", "rear", "open", "lair"]),
                st.sampled_from(_names(document) or ["x"]),
            )
        )
    elif kind == "number":
        value = draw(
            st.one_of(
                st.sampled_from(EXTREME_NUMBERS),
                st.integers(),
                st.integers(min_value=-(10**40), max_value=10**40),
                st.floats(),
            )
        )
    elif kind == "text":
        value = draw(
            st.one_of(
                st.sampled_from(HOSTILE_TEXT),
                st.text(max_size=30),
                st.text(alphabet=st.characters(codec="utf-8"), max_size=10),
            )
        )
    elif kind == "type":
        value = draw(
            st.sampled_from([None, True, [], {}, "1", "true", "null", 1.5, [1, 2], {"x": 1}])
        )
    elif kind == "nesting":
        depth = draw(st.sampled_from([5, 20, 31, 33, 100, 1000, 5000]))
        value = _nested(depth, draw(st.sampled_from([1, "x", None])))
    elif kind == "alias":
        value = _alias_bomb(draw(st.integers(2, 10)), draw(st.integers(1, 9)))
    elif kind == "list":
        value = draw(st.lists(st.sampled_from([0, 1, -1, "x", None, 10**20]), max_size=6))
    elif kind == "mapping":
        value = draw(
            st.dictionaries(st.sampled_from(["a", "name", "x\n", ""]), st.integers(), max_size=3)
        )
    else:
        value = _shared_value(document)
    return kind, value


def _names(document: Any) -> list[str]:
    """Names and ids used in the document (to refer to a real unit, or duplicate one)."""
    found = []
    for path in _walk(document):
        if path and path[-1] in ("name", "id", "side", "unit", "enemy", "target"):
            item = _get(document, path)
            if isinstance(item, str):
                found.append(item)
    return found


def _ruleset_of(document: Any) -> str:
    name = document.get("ruleset") if isinstance(document, dict) else None
    return {"hexgrid": "hex"}.get(str(name), str(name))


@st.composite
def mutate_once(draw: st.DrawFn, document: Any) -> str:
    """Change ``document`` in place in one way; return what was done."""
    # The header has its own mutation: changed everywhere, most cases would stop there.
    paths = [p for p in _key_paths(document) if p[0] not in ("fracas", "ruleset")]
    containers = _containers(document)
    action = draw(
        st.sampled_from(
            [
                *("delete", "replace", "replace", "replace", "known_key", "unknown_key"),
                *("duplicate", "duplicate_name", "swap_header"),
            ]
        )
    )
    if action == "delete" and paths:
        path = draw(st.sampled_from(paths))
        parent = _get(document, path[:-1])
        del parent[path[-1]]
        return f"delete {path}"
    if action == "replace" and paths:
        path = draw(st.sampled_from(paths))
        kind, value = draw(odd_values(document))
        _get(document, path[:-1])[path[-1]] = value
        return f"replace {path} with {kind}"
    if action in ("known_key", "unknown_key"):
        maps = [p for p in containers if isinstance(_get(document, p), dict)]
        if maps:
            where = draw(st.sampled_from(maps))
            known = SCHEMA_KEYS.get(_ruleset_of(document), ["x"])
            key = (
                draw(st.sampled_from(known))
                if action == "known_key"
                else draw(st.sampled_from(["zzz", "a\nb", "\x1b[2J", "x" * 500, "", "[/b]"]))
            )
            kind, value = draw(odd_values(document))
            _get(document, where)[key] = value
            return f"{action} {key!r} at {where} = {kind}"
    if action == "duplicate":
        lists = [p for p in containers if isinstance(_get(document, p), list)]
        if lists:
            where = draw(st.sampled_from(lists))
            items = _get(document, where)
            if items:
                index = draw(st.integers(0, len(items) - 1))
                items.append(items[index])
                return f"duplicate {where}[{index}]"
    if action == "duplicate_name":
        named = [
            p
            for p in containers
            if isinstance(_get(document, p), dict)
            and any(k in _get(document, p) for k in ("name", "id"))
        ]
        if len(named) >= 2:
            first, second = draw(st.sampled_from(named)), draw(st.sampled_from(named))
            for key in ("name", "id"):
                if key in _get(document, first) and key in _get(document, second):
                    _get(document, second)[key] = _get(document, first)[key]
            return f"same name {first} {second}"
    if action == "swap_header":
        key = draw(st.sampled_from(["fracas", "ruleset", "seed", "title"]))
        document[key] = draw(
            st.sampled_from([2, "1", None, "hex", "d100", "rankflank", "nope", 10**30, -1])
        )
        return f"header {key}"
    return "none"


def _expanded_size(document: Any, cap: int) -> int:
    """Values in ``document`` counting shared ones at each use, up to ``cap``."""
    stack, count = [document], 0
    while stack and count <= cap:
        node = stack.pop()
        count += 1
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


@contextlib.contextmanager
def _deep_recursion() -> Iterator[None]:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, 40_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def _dump(document: Any, fmt: str) -> str:
    """The document as text. An alias bomb stays YAML (JSON would expand it)."""
    with _deep_recursion():
        if fmt == "json" and _expanded_size(document, 100_000) <= 100_000:
            return json.dumps(document, ensure_ascii=False, default=str)
        try:
            return yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=10**6)
        except (yaml.YAMLError, ValueError, RecursionError):
            return json.dumps(document, default=str)


@st.composite
def raw_corruption(draw: st.DrawFn, text: str) -> tuple[str, str]:
    kind = draw(st.sampled_from(["truncate", "insert", "replace_char", "repeat"]))
    at = draw(st.integers(0, max(len(text) - 1, 0)))
    if kind == "truncate":
        return kind, text[:at]
    if kind == "insert":
        junk = draw(st.sampled_from(["{", "[", "*", "&a ", "!!python/object:os.system", ":", "\t"]))
        return kind, text[:at] + junk + text[at:]
    if kind == "replace_char":
        return kind, text[:at] + draw(st.characters()) + text[at + 1 :]
    return kind, text + text[at:]


ACTIONS = ("resolve", "resolve", "resolve", "forecast", "advise", "picture", "odds", "validate")
OUTPUTS = ("text", "markdown", "bbcode", "json")


@st.composite
def cases(draw: st.DrawFn, cli_every: int = 50) -> Case:
    """One fuzz case from a random example, mutated 1 to 4 times."""
    example, original = draw(st.sampled_from(SEEDS))
    document = json.loads(json.dumps(original))
    count = draw(st.sampled_from([1, 1, 1, 1, 2, 2, 3, 4]))
    mutations = [draw(mutate_once(document)) for _ in range(count)]
    fmt = draw(st.sampled_from(["yaml", "yaml", "yaml", "json", "json", "memory", "memory", "raw"]))
    text = None
    if fmt in ("yaml", "json"):
        text = _dump(document, fmt)
        fmt = "json" if text.startswith("{") else "yaml"
    elif fmt == "raw":
        kind, text = draw(raw_corruption(yaml.safe_dump(original, allow_unicode=True)))
        mutations = [f"raw {kind}"]
        document = None
    seed = draw(st.integers(0, 2**63))
    return Case(
        example=example,
        mutations=mutations,
        document=document,
        fmt=fmt,
        text=text,
        action=draw(st.sampled_from(ACTIONS)),
        seed=seed,
        output=draw(st.sampled_from(OUTPUTS)),
        # Not a draw: hypothesis favours small numbers, and would pick the CLI too often.
        cli=random.Random(repr((seed, mutations))).randrange(cli_every) == 0,
    )


# ── running one case ───────────────────────────────────────────────────────────────────


def _one_line(message: str) -> bool:
    return (
        bool(message)
        and "\n" not in message
        and message.isprintable()
        and len(message) <= MESSAGE_LENGTH
    )


def _pick(rng: random.Random, items: list[str]) -> str:
    return items[rng.randrange(len(items))] if items else "nobody"


def run_library(case: Case) -> None:
    """Parse, load and act on a case through the library (raises what fracas raises)."""
    from fracas.io.render import RENDERERS
    from fracas.io.scenario import parse_scenario, scenario_from_document

    if case.fmt == "memory":
        scenario = scenario_from_document(case.document, source="fuzz")
    else:
        assert case.text is not None
        fmt = "json" if case.fmt == "json" else "yaml"
        scenario = parse_scenario(case.text, source=f"fuzz.{fmt}", fmt=fmt)
    rng = random.Random(case.seed)
    ruleset = scenario.ruleset
    if case.action == "validate":
        return
    if case.action == "odds":
        from fracas.analysis.odds import odds

        odds(scenario, method="auto", runs=50, seed=case.seed, exact_budget=20_000)
        return
    if case.action in ("forecast", "picture") and ruleset.name == "hex":
        ids = [unit.id for unit in scenario.model.board.units]
        attacker, target = _pick(rng, ids), _pick(rng, ids)
        if case.action == "forecast":
            report = scenario.forecast(attacker, target)
        else:
            ruleset.picture(scenario.model, attacker=attacker, target=target)
            return
    elif case.action == "advise" and ruleset.name == "hex":
        report = scenario.advise(_pick(rng, list(scenario.model.board.sides())))
    else:
        report = scenario.resolve(seed=case.seed)
    RENDERERS[case.output](report).encode("utf-8")


def run_cli(case: Case, directory: Path) -> tuple[int, str]:
    """The same case through the ``fracas`` command (in process); exit code and stderr."""
    suffix = ".json" if case.fmt == "json" else ".yaml"
    path = directory / f"case{suffix}"
    text = case.text if case.text is not None else _dump(case.document, "json")
    # A lone surrogate has no UTF-8 bytes: written as such, the file is not UTF-8 (a case
    # of its own for the reader).
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    command = case.action if case.action in ("resolve", "validate", "odds") else "resolve"
    args = [command, str(path)]
    if command != "validate":
        args += ["--seed", str(case.seed % 10**6), "--format", case.output]
    if command == "odds":
        # One process: the fuzz workers are daemons, which may not start a pool of their
        # own (the parallel odds have their own tests).
        args += ["--runs", "50", "--exact-budget", "20000", "--workers", "1"]
    from typer.testing import CliRunner

    from fracas.cli import app

    result = CliRunner().invoke(app, args)
    return result.exit_code, result.stderr


@dataclass
class Tally:
    """Counts per outcome class, per ruleset example, and a few failures to look at."""

    outcomes: Counter[str] = field(default_factory=Counter)
    cli: Counter[str] = field(default_factory=Counter)
    slowest: float = 0.0
    failures: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.outcomes.update(other.outcomes)
        self.cli.update(other.cli)
        self.slowest = max(self.slowest, other.slowest)
        self.failures += other.failures[: 20 - len(self.failures)]


def _describe(case: Case, outcome: str, detail: str) -> str:
    text = case.text if case.text is not None else _dump(case.document, "json")
    shown = text[:300].encode("unicode_escape").decode("ascii")
    return (
        f"[{outcome}] {case.example} {case.fmt} {case.action} seed={case.seed} "
        f"{case.mutations}: {detail}\n    {shown}"
    )


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: Any) -> None:
        raise CaseTimeout

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_case(case: Case, tally: Tally, time_limit: float, directory: Path) -> str:
    """Run one case and count its outcome class (and the CLI's, for sampled cases)."""
    from fracas.core.errors import FracasError

    started = time.perf_counter()
    outcome, detail = "ok", ""
    try:
        with _alarm(time_limit):
            try:
                run_library(case)
            except FracasError as exc:
                message = str(exc)
                outcome = "rejected" if _one_line(message) else "multi_line"
                detail = message[:300]
    except CaseTimeout:
        outcome, detail = "hang", f"over {time_limit} s"
    except MemoryError:
        outcome, detail = "memory", "MemoryError"
    except Exception as exc:
        outcome = "crash"
        detail = "".join(traceback.format_exception_only(exc)).strip()[:300]
        frames = traceback.extract_tb(exc.__traceback__)[-3:]
        detail += " at " + " < ".join(f"{Path(f.filename).name}:{f.lineno}" for f in frames)
    tally.slowest = max(tally.slowest, time.perf_counter() - started)
    tally.outcomes[outcome] += 1
    if outcome in FAILURES and len(tally.failures) < 20:
        tally.failures.append(_describe(case, outcome, detail))
    if case.cli and outcome not in ("hang", "memory"):
        try:
            with _alarm(time_limit):
                code, stderr = run_cli(case, directory)
            lines = stderr.splitlines()
            if code == 0:
                cli_outcome = "ok"
            elif code == 2:
                # validate lists every problem of the file, each on a line of its own.
                allowed = len(lines) >= 1 if case.action == "validate" else len(lines) == 1
                one = allowed and all(line.startswith("fracas: error: ") for line in lines)
                cli_outcome = "rejected" if one and all(map(_one_line, lines)) else "multi_line"
            else:
                cli_outcome = "crash"
            if cli_outcome in FAILURES and len(tally.failures) < 20:
                tally.failures.append(_describe(case, f"cli {cli_outcome}", stderr[:300]))
        except CaseTimeout:
            cli_outcome = "hang"
        except MemoryError:
            cli_outcome = "memory"
        tally.cli[cli_outcome] += 1
    return outcome


# ── workers ────────────────────────────────────────────────────────────────────────────


def _limit_memory(megabytes: int) -> None:
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def fuzz_in_process(
    cases_wanted: int,
    *,
    seed: int = 0,
    time_limit: float = 10.0,
    cli_every: int = 50,
    chunk: int = 500,
    progress: Any = None,
) -> Tally:
    """Run ``cases_wanted`` cases here, in chunks of hypothesis runs with derived seeds."""
    import tempfile

    tally = Tally()
    done = 0
    with tempfile.TemporaryDirectory(prefix="fracas-fuzz-") as scratch:
        directory = Path(scratch)
        while done < cases_wanted:
            batch = min(chunk, cases_wanted - done)

            @settings(
                max_examples=batch,
                database=None,
                deadline=None,
                phases=[Phase.generate],
                suppress_health_check=list(HealthCheck),
                derandomize=False,
            )
            @hypothesis_seed(seed * 1_000_003 + done)
            @given(case=cases(cli_every))
            def loop(case: Case) -> None:
                run_case(case, tally, time_limit, directory)

            loop()
            done = sum(tally.outcomes.values())
            if progress is not None:
                progress(done)
    return tally


def _worker(
    index: int,
    cases_wanted: int,
    seed: int,
    time_limit: float,
    memory_mb: int,
    cli_every: int,
    queue: Any,
) -> None:
    _limit_memory(memory_mb)
    # Output of the cases (a warning, a stray print) must not garble the counts.
    sys.stdout = io.StringIO()

    def progress(done: int) -> None:
        queue.put(("progress", index, done))
        sys.stdout = io.StringIO()

    tally = fuzz_in_process(
        cases_wanted,
        seed=seed + index,
        time_limit=time_limit,
        cli_every=cli_every,
        progress=progress,
    )
    queue.put(("done", index, tally))


def fuzz(
    cases_wanted: int,
    *,
    workers: int = 2,
    seed: int = 0,
    time_limit: float = 10.0,
    memory_mb: int = 3072,
    cli_every: int = 50,
    report: Any = None,
) -> Tally:
    """Run the cases over ``workers`` processes, each case under the time and memory limits."""
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    share = [
        cases_wanted // workers + (1 if i < cases_wanted % workers else 0) for i in range(workers)
    ]
    processes = [
        context.Process(
            target=_worker,
            args=(i, share[i], seed, time_limit, memory_mb, cli_every, queue),
            daemon=True,
        )
        for i in range(workers)
    ]
    for process in processes:
        process.start()
    total = Tally()
    progress = [0] * workers
    finished: set[int] = set()
    started = time.monotonic()
    while len(finished) < workers:
        try:
            # Each case has its own alarm; this only catches a worker stuck below Python, and
            # must outlast a chunk of cases on a loaded machine.
            kind, index, payload = queue.get(timeout=max(900.0, time_limit * 60))
        except Exception:
            # A worker stuck below Python (the alarm could not reach it) or killed by the
            # memory limit: its remaining cases count as hangs.
            for i, process in enumerate(processes):
                if i not in finished and not process.is_alive():
                    total.outcomes["crash"] += 1
                    total.failures.append(f"[crash] worker {i} died (exit {process.exitcode})")
                    finished.add(i)
            if all(process.is_alive() for i, process in enumerate(processes) if i not in finished):
                for i, process in enumerate(processes):
                    if i not in finished:
                        process.kill()
                        total.outcomes["hang"] += 1
                        total.failures.append(f"[hang] worker {i} stuck after {progress[i]} cases")
                        finished.add(i)
            continue
        if kind == "progress":
            progress[index] = payload
            if report is not None:
                report(sum(progress), cases_wanted, time.monotonic() - started)
        else:
            total.add(payload)
            finished.add(index)
    for process in processes:
        process.join(timeout=5)
    return total


def summary(tally: Tally, seconds: float) -> str:
    total = sum(tally.outcomes.values())
    lines = [f"fuzz: {total} cases in {seconds:.0f} s (slowest case {tally.slowest:.2f} s)"]
    for name in OUTCOMES:
        lines.append(f"  {name:<11} {tally.outcomes.get(name, 0):>8}")
    cli_total = sum(tally.cli.values())
    lines.append(f"command line sample: {cli_total} cases")
    for name in OUTCOMES:
        lines.append(f"  {name:<11} {tally.cli.get(name, 0):>8}")
    for failure in tally.failures:
        lines.append(failure)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per case")
    parser.add_argument("--memory", type=int, default=3072, help="MB per worker")
    parser.add_argument("--cli-every", type=int, default=50, help="1 in N cases via the CLI")
    options = parser.parse_args(argv)
    started = time.monotonic()
    tty = sys.stderr.isatty()

    def report(done: int, wanted: int, elapsed: float) -> None:
        rate = done / elapsed if elapsed else 0.0
        left = (wanted - done) / rate if rate else math.inf
        line = f"fuzz: {done}/{wanted} cases, {rate:.0f}/s, about {left:.0f} s left"
        print(f"\r{line}" if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)

    tally = fuzz(
        options.cases,
        workers=options.workers,
        seed=options.seed,
        time_limit=options.time_limit,
        memory_mb=options.memory,
        cli_every=options.cli_every,
        report=report,
    )
    if tty:
        print(file=sys.stderr)
    print(summary(tally, time.monotonic() - started))
    return 1 if any(tally.outcomes[name] or tally.cli[name] for name in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
