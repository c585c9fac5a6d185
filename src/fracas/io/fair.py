"""Fair dice for play-by-post: commit, reveal, verify.

The game master commits to a secret and a scenario before any player speaks; players add
nonces; the seed is derived from all three, so neither side can steer it, and anyone can
check the posted log offline. ``docs/fair-dice.md`` walks through a thread.

Derivation ``fracas-fair-v1`` (the only one so far):

* ``commitment = SHA-256("fracas-fair-v1 commitment\\n" + secret + "\\n" + scenario)``
* ``seed = first 8 bytes, big-endian, of
  HMAC-SHA256(key = secret, message = "fracas-fair-v1 seed\\n" + scenario + "\\n" + nonces)``

where ``secret`` is the secret's lower-case hex text, ``scenario`` the 64 hex digits of the
scenario's canonical SHA-256 (:mod:`fracas.io.canonical`) and ``nonces`` the JSON list of
the nonces (each NFC, outer whitespace removed, inner runs of whitespace as one space),
written compact with non-ASCII characters kept (UTF-8).

>>> secret = "00" * 32
>>> scenario = "ab" * 32
>>> commitment(secret, scenario)[:16]
'ab30c0f42b162105'
>>> derive_seed(secret, scenario, ["owl", "7"])
14590465346406816354

Nothing here names a ruleset: the protocol works for any scenario whose ruleset has dice.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import secrets
import unicodedata
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fracas._version import __version__
from fracas.core.errors import FracasError, ScenarioError
from fracas.core.escape import excerpt, printable
from fracas.core.report import Report
from fracas.io.canonical import canonical_json
from fracas.io.reader import read_at_most
from fracas.io.render import FORUM_SIZES, RENDERERS, PostStyle, render_report
from fracas.io.scenario import Scenario, scenario_from_document

DERIVATION = "fracas-fair-v1"
DERIVATIONS = (DERIVATION,)

SEAL_BEGIN = "-----BEGIN FRACAS SEAL-----"
SEAL_END = "-----END FRACAS SEAL-----"
#: Base64 characters per line of a seal (short lines survive forums that wrap long ones).
SEAL_WIDTH = 64
#: The largest seal payload verify will unpack (a bound against hostile posts).
MAX_SEAL_BYTES = 2_000_000

#: Fewest hex digits of a usable secret (128 bits: nobody can guess it from the commitment).
MIN_SECRET_DIGITS = 32
MAX_NONCE_CHARS = 200

#: ``verify``'s exit codes: every check holds (the commitment posted before the nonces
#: included); a check fails; the post cannot be read; every check of the post holds but the
#: commitment posted before the nonces was not given, so nothing ties the post to it.
EXIT_MATCH, EXIT_MISMATCH, EXIT_UNREADABLE, EXIT_UNCHECKED = 0, 1, 2, 3


class UnreadablePost(FracasError):
    """The post cannot be checked at all (no seal, truncated, damaged, unknown derivation)."""


# ---------------------------------------------------------------------------------------
# The protocol


def new_secret() -> str:
    """A fresh secret: 64 hex digits (256 bits) from the operating system's random source."""
    return secrets.token_hex(32)


def check_secret(text: str, *, source: str = "secret") -> str:
    """The secret in ``text`` (surrounding whitespace ignored), lower case, or one clear error.

    >>> check_secret("  ABCDEF0123456789abcdef0123456789\\n")
    'abcdef0123456789abcdef0123456789'
    """
    secret = text.strip().lower()
    if not re.fullmatch(r"[0-9a-f]+", secret):
        raise ScenarioError("a secret is hexadecimal digits only", source=source)
    if len(secret) < MIN_SECRET_DIGITS:
        raise ScenarioError(
            f"a secret needs at least {MIN_SECRET_DIGITS} hex digits (it has {len(secret)}); "
            "let 'fracas commit' make one",
            source=source,
        )
    return secret


#: The line ``fracas resolve`` adds to a secret file once the secret is in a post.
REVEALED = "revealed"


#: The most a secret file may hold: a secret is one line of 32 to a few hundred hex digits.
MAX_SECRET_BYTES = 64 * 1024


def secret_from_file(path: Path, *, create: bool = False) -> tuple[str, bool]:
    """Read the secret in ``path``; with ``create`` (for ``fracas commit``), make one there
    first if it is missing, and refuse one that a post has already revealed.

    Returns the secret and whether it was created. A created file is readable by its owner
    only, and never overwrites an existing file.
    """
    if create:
        secret = new_secret()
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        except OSError as exc:
            raise ScenarioError(f"cannot create secret: {exc.strerror}", source=str(path)) from None
        else:
            with os.fdopen(handle, "w", encoding="ascii") as stream:
                stream.write(secret + "\n")
            return secret, True
    try:
        data = read_at_most(path, MAX_SECRET_BYTES)  # it may be a pipe, or /dev/zero
    except OSError as exc:
        raise ScenarioError(f"cannot read secret: {exc.strerror}", source=str(path)) from None
    if len(data) > MAX_SECRET_BYTES:
        raise ScenarioError(
            f"a secret file is at most {MAX_SECRET_BYTES:,} bytes; this one is larger "
            "(a secret is one line of hex digits)",
            source=str(path),
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError("a secret file holds hex digits only", source=str(path)) from None
    first, _, rest = text.strip().partition("\n")
    if create and rest.strip() == REVEALED:
        # Players who saw the secret could choose their nonces to steer the next seed.
        raise ScenarioError(
            "this secret was revealed by an earlier 'fracas resolve'; a new battle needs a "
            "new secret: delete the file or name another --secret-file",
            source=str(path),
        )
    return check_secret(first, source=str(path)), False


def mark_revealed(path: Path) -> None:
    """Note in the secret file that a post now shows the secret, so it is never committed
    to again (re-running the same resolution with it stays possible)."""
    text = path.read_text(encoding="utf-8")
    if text.strip().partition("\n")[2].strip() != REVEALED:
        with path.open("a", encoding="ascii") as stream:
            stream.write(("" if text.endswith("\n") else "\n") + REVEALED + "\n")


def normalise_nonce(nonce: str) -> str:
    """A nonce as the derivation uses it: NFC, outer whitespace gone, inner runs as one space.

    Forums collapse and trim whitespace; the derivation must not depend on it.

    >>> normalise_nonce("  red\\t  dragon \\r\\n")
    'red dragon'
    """
    return " ".join(unicodedata.normalize("NFC", nonce).split())


def check_nonces(nonces: Sequence[str]) -> tuple[str, ...]:
    """Normalised nonces, in the order given; an empty or over-long one is an error."""
    result = []
    for index, nonce in enumerate(nonces, start=1):
        clean = normalise_nonce(nonce)
        if not clean:
            raise ScenarioError(f"nonce {index} is empty", source="command line")
        if len(clean) > MAX_NONCE_CHARS:
            raise ScenarioError(
                f"nonce {index} is longer than {MAX_NONCE_CHARS} characters",
                source="command line",
            )
        result.append(clean)
    return tuple(result)


def commitment(secret: str, scenario_sha256: str) -> str:
    """The commitment a game master posts before the nonces (64 hex digits)."""
    message = f"{DERIVATION} commitment\n{secret}\n{scenario_sha256}"
    return hashlib.sha256(message.encode("ascii")).hexdigest()


_HASH = re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
_SCENARIO_HASH = re.compile(r"scenario\s+sha256:\s*([0-9a-f]{8,64})")
#: What surrounds a commitment copied from a thread: spaces, quotes, backticks, brackets.
_WRAPPING = " \t\r\n'\"`\u2018\u2019\u201c\u201d<>[]()"


@dataclass(frozen=True)
class PostedCommitment:
    """A commitment as a thread shows it: its hash and, when the line names it, the start
    of the scenario's hash."""

    hash: str
    scenario: str | None = None


def read_commitment(text: str) -> PostedCommitment:
    """The commitment in ``text``: the whole line ``fracas commit`` prints, or the hash
    alone, in either case, with the spaces and quotes a copy from a thread brings along.

    >>> line = "fracas-fair-v1 commitment " + "AB" * 32 + " · scenario sha256:9f0bae5215f4e59e"
    >>> read_commitment(f'  "{line}" ').scenario
    '9f0bae5215f4e59e'
    >>> read_commitment("`" + "ab" * 32 + "`") == read_commitment(line.lower())
    False
    >>> read_commitment("`" + "ab" * 32 + "`").hash == read_commitment(line).hash
    True
    >>> read_commitment("2b88")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fracas.core.errors.ScenarioError: --commitment: '2b88' holds no commitment: give the 64 ...
    """
    plain = text.strip(_WRAPPING).lower()
    found = _HASH.findall(plain.split("commitment", 1)[-1])
    if len(found) != 1:
        raise ScenarioError(
            f"{excerpt(text.strip())} holds no commitment: give the 64 hex digits, or the "
            "whole line `fracas commit` printed",
            source="--commitment",
        )
    scenario = _SCENARIO_HASH.search(plain)
    return PostedCommitment(found[0], scenario.group(1) if scenario else None)


def derive_seed(secret: str, scenario_sha256: str, nonces: Sequence[str]) -> int:
    """The dice seed (an integer below 2**64) from the secret, the scenario and the nonces."""
    nonce_list = json.dumps(list(nonces), ensure_ascii=False, separators=(",", ":"))
    message = f"{DERIVATION} seed\n{scenario_sha256}\n{nonce_list}".encode()
    digest = hmac.new(secret.encode("ascii"), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class FairRoll:
    """Everything the protocol fixes for one resolution."""

    secret: str
    scenario_sha256: str
    nonces: tuple[str, ...]
    derivation: str = DERIVATION
    commitment: str = field(init=False)
    seed: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "commitment", commitment(self.secret, self.scenario_sha256))
        object.__setattr__(
            self, "seed", derive_seed(self.secret, self.scenario_sha256, self.nonces)
        )

    def record(self) -> dict[str, Any]:
        """The report's ``fair`` record (printed under the footer, and in JSON)."""
        return {
            "derivation": self.derivation,
            "commitment": self.commitment,
            "nonces": list(self.nonces),
            "secret": self.secret,
        }


def fair_resolve(scenario: Scenario, secret: str, nonces: Sequence[str]) -> Report:
    """Resolve ``scenario`` with the seed the protocol derives; the report carries the record.

    >>> from fracas.io.scenario import parse_scenario
    >>> scenario = parse_scenario('''fracas: 1
    ... ruleset: d100
    ... sides:
    ... - {name: A, action: raid, units: [{name: X, pax: 5}]}
    ... - {name: B, action: defend, units: [{name: Y, pax: 5}]}''')
    >>> report = fair_resolve(scenario, "0" * 64, ["owl"])
    >>> report.seed == derive_seed("0" * 64, scenario.canonical_sha256, ["owl"])
    True
    >>> report.fair_lines()[1]
    'nonces "owl"'
    """
    if scenario.ruleset.deterministic:
        raise ScenarioError(
            f"ruleset {scenario.ruleset.name!r} has no dice: there is nothing to make fair",
            source=scenario.source,
        )
    roll = FairRoll(check_secret(secret), scenario.canonical_sha256, check_nonces(nonces))
    report = scenario.resolve(seed=roll.seed)
    return replace(report, fair=roll.record())


# ---------------------------------------------------------------------------------------
# The seal: the scenario and the protocol's inputs, packed into the post


def seal_payload(scenario: Scenario, report: Report, fmt: str, style: PostStyle) -> dict[str, Any]:
    """What a verifier needs besides the log: the canonical scenario and how it was written."""
    if report.fair is None:
        raise ValueError("only a report made with the fair-dice protocol can be sealed")
    return {
        "seal": 1,
        "derivation": report.fair["derivation"],
        "fracas": report.version,
        "source": report.source,
        "overrides": list(report.overrides),
        "scenario": scenario.document,
        "scenario_sha256": scenario.canonical_sha256,
        "secret": report.fair["secret"],
        "nonces": report.fair["nonces"],
        "commitment": report.fair["commitment"],
        "seed": report.seed,
        "format": fmt,
        "style": {"forum": style.forum, "ascii_only": style.ascii_only, "fold": style.fold},
    }


def seal_text(payload: dict[str, Any]) -> str:
    """The payload as compressed base64 lines between the BEGIN and END lines."""
    packed = zlib.compress(canonical_json(payload).encode("utf-8"), 9)
    encoded = base64.b64encode(packed).decode("ascii")
    lines = [encoded[i : i + SEAL_WIDTH] for i in range(0, len(encoded), SEAL_WIDTH)]
    return "\n".join([SEAL_BEGIN, *lines, SEAL_END])


def seal_block(fmt: str, seal: str) -> str:
    """The seal in a block the format's forums keep as it is (code, collapsed where possible)."""
    if fmt == "bbcode":
        return f"[spoiler][code]{seal}[/code][/spoiler]\n"
    if fmt == "markdown":
        return f"<details><summary>fracas seal</summary>\n\n```\n{seal}\n```\n\n</details>\n"
    return f"{seal}\n"


def post(scenario: Scenario, report: Report, fmt: str, style: PostStyle | None = None) -> str:
    """The whole post: the log in ``fmt`` and, after it, the seal (for JSON: a ``seal`` key)."""
    style = style or PostStyle()
    payload = seal_payload(scenario, report, fmt, style)
    seal = seal_text(payload)
    if fmt == "json":
        fair = {**dict(report.fair or {}), "seal": seal.splitlines()}
        return render_report(replace(report, fair=fair), fmt, style)
    return render_report(report, fmt, style) + "\n" + seal_block(fmt, seal)


_SEAL = re.compile(
    re.escape(SEAL_BEGIN) + r"(?P<body>.*?)(?P<end>" + re.escape(SEAL_END) + r"|\Z)", re.DOTALL
)


def read_seal(text: str) -> dict[str, Any]:
    """Unpack the seal in a post. Anything but base64 between the lines is ignored (quote
    marks, line breaks a forum added); a missing or damaged seal is :class:`UnreadablePost`."""
    match = _SEAL.search(text)
    if match is None:
        if re.search(r"ruleset \S+ .*fracas \S+", text):
            raise UnreadablePost(
                "the post has a fracas footer but no seal: it was cut short, made without "
                f"--secret-file, or copied from the rendered page ({COPY_THE_SOURCE})"
            )
        raise UnreadablePost("no fracas footer or seal: this is not a fracas post")
    if not match.group("end"):
        raise UnreadablePost("the seal has no end line: the post is truncated")
    body = re.sub(r"[^A-Za-z0-9+/=]", "", match.group("body"))
    try:
        packed = base64.b64decode(body, validate=True)
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_SEAL_BYTES)
        if inflater.unconsumed_tail:
            raise UnreadablePost(f"the seal unpacks to more than {MAX_SEAL_BYTES} bytes")
        if not inflater.eof:
            raise UnreadablePost("the seal is cut short: the post is truncated or damaged")
        if inflater.unused_data:
            raise UnreadablePost("the seal is damaged (characters added after its data ends)")
        payload = json.loads(raw.decode("utf-8"))
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError, RecursionError):
        # ValueError covers bad JSON and numbers too long to read; RecursionError, nesting
        # too deep to read: neither comes from fracas.
        raise UnreadablePost("the seal is damaged (a character changed or missing)") from None
    if not isinstance(payload, dict) or payload.get("seal") != 1:
        raise UnreadablePost("the seal is not one this fracas reads")
    return payload


# ---------------------------------------------------------------------------------------
# Verification


@dataclass(frozen=True)
class Check:
    """One line of a verification: what was checked, whether it holds, and how it reads."""

    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        # Details quote the post, which may hold anything: no control character gets out.
        return printable(f"{'ok' if self.ok else 'MISMATCH'} {self.name}: {self.detail}")


@dataclass(frozen=True)
class Verification:
    """Every check of a post, in order; the post verifies when all hold.

    ``unchecked`` names what the thread showed before the result and verify was not given
    (the commitment, the nonces): the post holds together, but nothing tied it to those.
    """

    checks: tuple[Check, ...]
    unchecked: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    @property
    def exit_code(self) -> int:
        if not self.ok:
            return EXIT_MISMATCH
        return EXIT_UNCHECKED if "commitment" in self.unchecked else EXIT_MATCH

    def lines(self) -> list[str]:
        failed = [check.name for check in self.checks if not check.ok]
        if failed:
            summary = f"NOT VERIFIED: {', '.join(failed)}"
        elif "commitment" in self.unchecked:
            summary = (
                "verified within the post only: the commitment posted before the nonces "
                "was not checked"
            )
        else:
            summary = "verified: every check holds"
        notes = [_UNCHECKED[name] for name in self.unchecked]
        return [check.line() for check in self.checks] + notes + [summary]


#: What verify says of each thing the thread showed that it was not given.
_UNCHECKED = {
    "commitment": "not checked: the commitment posted before the nonces (give it with "
    "--commitment, as the thread shows it)",
    "nonces": "not checked: the nonces the thread shows (pass each with --nonce, in order)",
}


#: What to do with a post copied from the page as a browser shows it.
COPY_THE_SOURCE = (
    "a page as the browser shows it loses the markup and folds the seal away: verify the "
    "post's source, which the board's Quote button or its edit view gives"
)
_MARKUP = {
    "bbcode": re.compile(r"\[/?(?:b|i|u|size|color|spoiler|code|table|tr|td|th|list|\*)\b"),
    "markdown": re.compile(r"\*\*|^#+ |^\|.*\|$|<details>|\\[\\`*_{}\[\]()#+\-.!|]"),
}


def _looks_rendered(fmt: str, posted: list[str], expected: list[str]) -> bool:
    """Whether ``posted`` is ``expected`` as a page shows it: the markup the re-run has
    on several lines is on none of the post's."""
    markup = _MARKUP.get(fmt)
    if markup is None:
        return False
    marked = sum(1 for line in expected if markup.search(line))
    return marked >= 3 and not any(markup.search(line) for line in posted)


_QUOTE_TAG = re.compile(r"\[/?quote(?:[=: ][^\]\n]*)?\]", re.IGNORECASE)
_QUOTE_MARK = re.compile(r"^(?:[ \t]*>)+[ \t]?")


def comparable_lines(text: str, *, keep_quote_tags: bool = False) -> list[str]:
    """The lines of a post as verify compares them: without quote marks ([quote] tags,
    Markdown ``>``), line-end differences, runs of spaces and blank lines.

    With ``keep_quote_tags``, each ``[quote]`` tag is a line of its own instead: verify
    keeps those of the log, where fracas writes none (a forum shows a quote, and the author
    its tag names, as text of the post), and skips those before the log's title.

    >>> comparable_lines('[quote="GM"]Raid\\r\\n\\n> 1  +  2  \\r\\n[/quote]')
    ['Raid', '1 + 2']
    >>> comparable_lines('[quote="GM"]Raid\\n[quote="X wins"][/quote]', keep_quote_tags=True)
    ['[quote="GM"]', 'Raid', '[quote="X wins"]', '[/quote]']
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _QUOTE_TAG.sub(
        (lambda tag: "\n" + " ".join(tag[0].split()) + "\n") if keep_quote_tags else "\n", text
    )
    lines = []
    for raw in text.split("\n"):
        line = " ".join(_QUOTE_MARK.sub("", raw).split())
        if line:
            lines.append(line)
    return lines


def _log_lines(text: str) -> list[str]:
    """The comparable lines of a post up to its seal, its quote tags kept as lines."""
    return comparable_lines(text.split(SEAL_BEGIN, 1)[0], keep_quote_tags=True)


#: What a differing footer part is about, by how it starts.
_PART_NAMES = (
    ("fair dice", "derivation"),
    ("commitment", "commitment"),
    ("nonces", "nonces"),
    ("secret", "secret"),
    ("scenario sha256", "scenario"),
    ("seed", "seed"),
    ("ruleset", "ruleset"),
    ("fracas", "version"),
    ("--set", "overrides"),
)
_PARTS = re.compile(r"<br>| · | \| ")


def _difference_name(posted: str, expected: str) -> str:
    """Which footer part (nonces, secret, …) two differing lines disagree on, if any."""
    for mine, theirs in zip(_PARTS.split(posted), _PARTS.split(expected), strict=False):
        if mine != theirs:
            plain = _plain(theirs)
            return next((name for prefix, name in _PART_NAMES if plain.startswith(prefix)), "")
    return ""


def _first_difference(posted: list[str], expected: list[str]) -> Check:
    """The log check: the first line where the post and the re-run part ways."""
    start = next((i for i, line in enumerate(posted) if expected and line == expected[0]), 0)
    posted = posted[start:]
    for number, (mine, theirs) in enumerate(zip(posted, expected, strict=False), start=1):
        if mine != theirs:
            what = _difference_name(mine, theirs)
            where = f" ({what})" if what else ""
            quote = (
                ": a quote tag, which fracas never writes in a log (a forum shows the quote "
                "and the author it names)"
                if _QUOTE_TAG.fullmatch(mine)
                else ""
            )
            return Check(
                "log",
                False,
                f"line {number}{where} differs: posted {_clip(mine)!r}, re-run "
                f"{_clip(theirs)!r}{quote}",
            )
    if len(posted) < len(expected):
        return Check(
            "log",
            False,
            f"the post stops after line {len(posted)}; the re-run goes on with "
            f"{_clip(expected[len(posted)])!r} (a truncated post?)",
        )
    if len(posted) > len(expected):
        return Check(
            "log",
            False,
            f"line {len(expected) + 1} is not in the re-run, which ends before it: posted "
            f"{_clip(posted[len(expected)])!r} (added to the post?)",
        )
    return Check("log", True, f"all {len(expected)} lines match the re-run")


def _plain(part: str) -> str:
    return re.sub(r"\[/?size[^\]]*\]|</?sub>", "", part).lstrip("\\ ")


def _clip(line: str, width: int = 90) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"


@dataclass(frozen=True)
class _PostedJson:
    """A JSON report in a post: the document, the first key an object of it repeats (the
    document keeps the last value, a reader may see either), and the post's text before
    and after the document."""

    document: dict[str, Any]
    repeated: str | None
    before: str
    after: str


def _posted_json(text: str) -> _PostedJson | None:
    """The JSON report in the post (as it is, quoted, or inside a code block), or None.

    >>> found = _posted_json('Re {1}:\\n> {"fair": {"a": 1, "a": 2}}\\n> [/code]')
    >>> found.repeated, found.after
    ('a', '\\n> [/code]')
    """
    rows = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    marks = [len(found[0]) if (found := _QUOTE_MARK.match(row)) else 0 for row in rows]
    repeated: list[str] = []

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj and not repeated:
                repeated.append(key)
            obj[key] = value
        return obj

    unquoted = "\n".join(row[mark:] for row, mark in zip(rows, marks, strict=True))
    decoder = json.JSONDecoder(object_pairs_hook=unique)
    start = unquoted.find("{")
    for _ in range(_JSON_STARTS):  # a reply above a quoted post may hold braces too
        if start < 0:
            return None
        repeated.clear()
        try:
            document, end = decoder.raw_decode(unquoted, start)
        except (ValueError, RecursionError):
            document, end = None, start + 1
        if isinstance(document, dict) and isinstance(document.get("fair"), dict):
            break
        start = unquoted.find("{", start + 1)
    else:
        return None
    # Where the document ends in the post as posted (the quote marks put back).
    row = unquoted.count("\n", 0, end)
    column = marks[row] + end - (unquoted.rfind("\n", 0, end) + 1)
    before = "\n".join([*rows[:row], rows[row][:column]])
    after = "\n".join([rows[row][column:], *rows[row + 1 :]])
    return _PostedJson(document, repeated[0] if repeated else None, before, after)


#: How many opening braces of a post may start its JSON report.
_JSON_STARTS = 20


#: What a forum may put inside a seal besides base64: line breaks, spaces, quote marks.
_SEAL_NOISE = re.compile(r"[^A-Za-z0-9+/=\s>]+")


def _foreign_in_seal(text: str) -> str:
    """Visible text between the seal's lines that is not base64 (nor forum noise), or ''.

    >>> _foreign_in_seal(SEAL_BEGIN + "\\n> QUJD\\u200b\\nRA==\\n" + SEAL_END)
    ''
    >>> _foreign_in_seal(SEAL_BEGIN + "\\nQUJD RA== ¡Gewonnen!\\n" + SEAL_END)
    '¡'
    """
    match = _SEAL.search(text)
    for found in _SEAL_NOISE.finditer(match.group("body") if match else ""):
        # Characters that show nothing (zero-width spaces a board breaks long words with).
        shown = "".join(char for char in found[0] if unicodedata.category(char) != "Cf")
        if shown:
            return shown
    return ""


def verify_post(
    text: str,
    *,
    scenario: Scenario | None = None,
    expected_commitment: str | None = None,
    expected_nonces: Sequence[str] | None = None,
) -> Verification:
    """Check a posted log: seal, scenario, commitment, nonces, seed, then the log line by line.

    Raises :class:`UnreadablePost` when the post cannot be checked at all; ``scenario``,
    ``expected_commitment`` (as :func:`read_commitment` reads it) and ``expected_nonces``
    are what the thread showed before the result (each adds a check when given; the
    verification names those not given).
    """
    promised = read_commitment(expected_commitment) if expected_commitment is not None else None
    text = text.lstrip("\ufeff")
    json_post = _posted_json(text)
    if json_post is not None:
        seal_lines = json_post.document["fair"].get("seal")
        if not isinstance(seal_lines, list):
            raise UnreadablePost("the JSON post has no fair.seal")
        seal = "\n".join(str(line) for line in seal_lines)
    else:
        seal = text
    payload = read_seal(seal)
    checks: list[Check] = []
    derivation = payload.get("derivation")
    if derivation not in DERIVATIONS:
        raise UnreadablePost(
            f"unknown derivation {excerpt(derivation)}; this fracas knows {', '.join(DERIVATIONS)}"
        )
    try:
        fmt = str(payload["format"])
        style = PostStyle(**payload["style"])
        secret = check_secret(str(payload["secret"]))
        nonces = tuple(str(nonce) for nonce in payload["nonces"])
        claimed_commitment = str(payload["commitment"])
        claimed_seed = payload["seed"]
        made_with = str(payload["fracas"])
        document = payload["scenario"]
        overrides = tuple(str(override) for override in payload.get("overrides", ()))
        source = str(payload.get("source", "post"))
        known = fmt in RENDERERS and style.forum in FORUM_SIZES
    except (KeyError, TypeError, ValueError, ScenarioError) as exc:
        raise UnreadablePost(f"the seal lacks a usable value ({excerpt(str(exc))})") from None
    if not known:
        raise UnreadablePost(
            f"the seal names an unknown format {excerpt(fmt)} or forum {excerpt(style.forum)}"
        )
    version = (
        ""
        if made_with == __version__
        else f", made with fracas {excerpt(made_with)} (this is {__version__}: a changed rule "
        "changes the log)"
    )
    if json_post is None and fmt == "json":
        raise UnreadablePost(
            "the seal says the post is JSON, but no JSON document with a fair record reads "
            "in it (a character changed or added?)"
        )
    foreign = _foreign_in_seal(seal)
    if foreign:
        checks.append(
            Check(
                "seal",
                False,
                f"{derivation}{version}; the seal holds text that is not base64: "
                f"{_clip(foreign)!r} (added after the post was made?)",
            )
        )
    else:
        checks.append(Check("seal", True, f"{derivation}{version}"))

    try:
        sealed = scenario_from_document(document, source=source)
    except (FracasError, RecursionError) as exc:
        raise UnreadablePost(f"the scenario in the seal does not load: {exc}") from None
    sealed = replace(sealed, overrides=overrides)
    title = sealed.header.title or sealed.ruleset.name
    recorded = str(payload.get("scenario_sha256", ""))
    if recorded != sealed.canonical_sha256:
        checks.append(
            Check(
                "scenario",
                False,
                f"the post's scenario hashes to sha256:{sealed.sha256}, but it was sealed "
                f"as sha256:{recorded[:16]}: the scenario changed",
            )
        )
    elif scenario is not None and scenario.canonical_sha256 != sealed.canonical_sha256:
        checks.append(
            Check(
                "scenario",
                False,
                f"{scenario.source} is sha256:{scenario.sha256}, the post's scenario "
                f"sha256:{sealed.sha256}",
            )
        )
    else:
        given = f", same as {scenario.source}" if scenario is not None else ""
        checks.append(Check("scenario", True, f"{title!r} sha256:{sealed.sha256}{given}"))

    opened = commitment(secret, sealed.canonical_sha256)
    if opened != claimed_commitment:
        cause = "the scenario" if recorded != sealed.canonical_sha256 else "the revealed secret"
        checks.append(
            Check(
                "commitment",
                False,
                f"{claimed_commitment[:16]}… is not opened by the revealed secret and the "
                f"scenario (they give {opened[:16]}…): {cause} is not the one committed to",
            )
        )
    elif promised is not None and promised.hash != opened:
        checks.append(
            Check(
                "commitment",
                False,
                f"the post's {opened[:16]}… is not the {promised.hash[:16]}… "
                "posted before the nonces",
            )
        )
    elif (
        promised is not None
        and promised.scenario
        and not sealed.canonical_sha256.startswith(promised.scenario)
    ):
        checks.append(
            Check(
                "commitment",
                False,
                f"the commitment posted before the nonces names scenario sha256:"
                f"{promised.scenario[:16]}, the post's is sha256:{sealed.sha256}",
            )
        )
    else:
        before = ", the one posted before the nonces" if promised else ""
        checks.append(
            Check(
                "commitment",
                True,
                f"{opened[:16]}… opens with the revealed secret and the scenario{before}",
            )
        )

    shown = ", ".join(json.dumps(n, ensure_ascii=False) for n in nonces)
    if expected_nonces is not None and tuple(check_nonces(expected_nonces)) != nonces:
        wanted = ", ".join(json.dumps(n, ensure_ascii=False) for n in check_nonces(expected_nonces))
        checks.append(Check("nonces", False, f"the post used {shown}, the thread has {wanted}"))
    else:
        checks.append(Check("nonces", True, f"{len(nonces)}: {shown}" if nonces else "none"))

    seed = derive_seed(secret, sealed.canonical_sha256, nonces)
    if seed != claimed_seed:
        checks.append(Check("seed", False, f"the post claims {claimed_seed}, derived {seed}"))
    else:
        checks.append(Check("seed", True, f"{seed}, derived from secret, scenario and nonces"))

    roll = FairRoll(secret, sealed.canonical_sha256, nonces)
    report = replace(sealed.resolve(seed=seed), fair=roll.record())
    if json_post is not None:
        rerun = json.loads(post(sealed, report, "json", style))
        # The seal was checked by what it holds; its bytes may differ from one zlib to another.
        rerun["fair"]["seal"] = json_post.document["fair"]["seal"]
        expected = json.dumps(rerun, indent=2, ensure_ascii=False).splitlines()
        posted = json.dumps(json_post.document, indent=2, ensure_ascii=False).splitlines()
        if json_post.repeated is not None:
            key = json.dumps(json_post.repeated, ensure_ascii=False)
            checks.append(
                Check(
                    "log",
                    False,
                    f"the JSON post has the key {key} twice in one object (fracas writes each "
                    "key once; a reader may see either value)",
                )
            )
        else:
            checks.append(
                _first_difference(
                    [" ".join(line.split()) for line in posted],
                    [" ".join(line.split()) for line in expected],
                )
            )
        unsealed = _text_after(json_post.before, json_post.after)
        if unsealed:
            checks.append(
                Check(
                    "after the document",
                    False,
                    f"{len(unsealed)} line(s) follow the JSON document, which nothing seals: "
                    f"{_clip(unsealed[0])!r} (added after the post was made?)",
                )
            )
    else:
        expected_text = render_report(report, fmt, style) + "\n" + seal_block(fmt, SEAL_BEGIN)
        posted_lines, expected_lines = _log_lines(text), _log_lines(expected_text)
        log = _first_difference(posted_lines, expected_lines)
        if not log.ok and _looks_rendered(fmt, posted_lines, expected_lines):
            log = Check(
                "log",
                False,
                f"{log.detail}; the post looks copied from the rendered page: {COPY_THE_SOURCE}",
            )
        checks.append(log)
        unsealed = _after_seal(text)
        if unsealed:
            checks.append(
                Check(
                    "after the seal",
                    False,
                    f"{len(unsealed)} line(s) follow the seal, which nothing seals: "
                    f"{_clip(unsealed[0])!r} (added after the post was made?)",
                )
            )
    unchecked = tuple(
        name
        for name, given in (("commitment", promised), ("nonces", expected_nonces))
        if given is None
    )
    return Verification(tuple(checks), unchecked)


def _after_seal(text: str) -> list[str]:
    """The lines after the seal that are neither markup nor outside the quoted post."""
    if SEAL_END not in text:
        return []
    return _text_after(*text.split(SEAL_END, 1))


def _text_after(before: str, tail: str) -> list[str]:
    """The lines of ``tail``, which follows the end of what the seal covers (``before``),
    that are neither markup nor outside the quoted post.

    A quote of the post ends at its closing tag (``[/quote]``, ``[/quote:uid]``) or, in
    Markdown, at the first line with text and no ``>``: what follows is the reply's.
    Lines made only of markup that closes blocks (code fences, ``[/code]``, ``[/spoiler]``,
    ``</details>``), however a forum split them, are not text.
    """
    if _QUOTE_OPEN.search(before):  # only a quote opened before the seal ends after it
        tail = _QUOTE_CLOSE.split(tail, maxsplit=1)[0]
    if before.rsplit("\n", 1)[-1].lstrip().startswith(">"):  # a Markdown quote
        rows = tail.replace("\r\n", "\n").split("\n")
        quoted = [rows[0]]
        for row in rows[1:]:
            if row.strip() and not row.lstrip().startswith(">"):
                break
            quoted.append(row)
        tail = "\n".join(quoted)
    lines = []
    for line in comparable_lines(tail):
        if _CLOSING_MARKUP.sub("", line).strip():
            lines.append(line)
    return lines


_QUOTE_OPEN = re.compile(r"\[quote(?:[=: ][^\]]*)?\]", re.IGNORECASE)
_QUOTE_CLOSE = re.compile(r"\[/quote(?::[^\]]*)?\]", re.IGNORECASE)
#: Markup that closes the seal's block or the post's folds, in any format.
_CLOSING_MARKUP = re.compile(r"\[/(code|spoiler|details)[^\]]*\]|</details>|```|~~~", re.IGNORECASE)
