"""Escaping user text for every output format, and short excerpts for error messages.

Reports hold plain text: unit names, side names, titles exactly as the scenario spells them.
A renderer that wraps them in markup escapes them first with the function of its format, so
a unit called ``[url=x]`` or ``<b>`` prints literally everywhere and cannot inject markup.
Here: HTML/XML/SVG and rich console markup, and the spelling-out of control characters
(BBCode and Markdown escapes live with the forum renderers in :mod:`fracas.io`).

>>> escape_html('<b class="x">Tom & Jerry</b>')
'&lt;b class=&quot;x&quot;&gt;Tom &amp; Jerry&lt;/b&gt;'
>>> excerpt("line one\\nline two\\x1b[31m")
"'line one\\\\nline two\\\\x1b[31m'"
"""

from __future__ import annotations

import re
from typing import Any

#: An error message quotes at most this many characters of a bad value.
EXCERPT_LENGTH = 40

# C0 and C1 controls, DEL, lone surrogates, the Unicode line/paragraph separators and the
# bidirectional overrides: none of them may reach a terminal raw (escape sequences, text
# shown in another order than it is) or split a one-line message.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _visible(char: str) -> str:
    code = ord(char)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
    if named:
        return named
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every control character, line break and lone surrogate spelled out.

    >>> printable("a\\tb\\x00c\\ud800")
    'a\\\\tb\\\\x00c\\\\ud800'
    """
    return _UNPRINTABLE.sub(lambda match: _visible(match.group()), text)


def excerpt(value: Any, limit: int = EXCERPT_LENGTH) -> str:
    """A short, one-line, printable quotation of ``value`` for an error message.

    Strings are quoted, numbers shown plainly, containers by their kind and size: the
    message never walks a deep or huge value (a ``repr`` of a nested or aliased document
    can take minutes and megabytes), never prints a control character, and stays short.

    >>> excerpt("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'"
    >>> excerpt(10**5000)
    'an integer of 5001 digits'
    >>> excerpt([[[[1]]]]), excerpt([3, 1]), excerpt({"a": 1}), excerpt(list(range(9)))
    ('a list of 1 item', '[3, 1]', "{'a': 1}", 'a list of 9 items')
    """
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        digits = digit_count(value)
        if digits > limit:
            return f"an integer of {digits} digits"
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        shown = printable(value[: limit * 2])
        if len(shown) > limit - 2 or len(value) > limit * 2:
            shown = shown[: limit - 3] + "…"
        return f"'{shown}'"
    if isinstance(value, list | tuple):
        count = len(value)
        if count <= _SHOWN_ITEMS and all(map(_is_scalar, value)):
            shown = "[" + ", ".join(excerpt(item, _ITEM_LENGTH) for item in value) + "]"
            if len(shown) <= limit:
                return shown
        return f"a list of {count} item{'' if count == 1 else 's'}"
    if isinstance(value, dict):
        count = len(value)
        if count <= _SHOWN_ITEMS and all(map(_is_scalar, [*value, *value.values()])):
            pairs = (
                f"{excerpt(key, _ITEM_LENGTH)}: {excerpt(item, _ITEM_LENGTH)}"
                for key, item in value.items()
            )
            shown = "{" + ", ".join(pairs) + "}"
            if len(shown) <= limit:
                return shown
        return f"a mapping of {count} key{'' if count == 1 else 's'}"
    return f"a value of type {type(value).__name__}"


_SHOWN_ITEMS = 6
_ITEM_LENGTH = 12


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def one_line(text: str, limit: int = 300) -> str:
    r"""``text`` as one printable line of at most ``limit`` characters (for messages).

    >>> print(one_line("two\nlines\x1b[0m"))
    two\nlines\x1b[0m
    >>> one_line("x" * 500, 10)
    'xxxxxxxxx…'
    """
    # Stricter than printable(): a message shows no format or unassigned character either.
    shown = "".join(
        char if char.isprintable() or char == " " else _visible(char)
        for char in printable(text[: limit * 4])
    )
    if len(shown) > limit:
        return shown[: limit - 1] + "…"
    return shown


def digit_count(value: int) -> int:
    """Decimal digits of ``value``, also for integers too long for ``str()``.

    >>> digit_count(-12345), digit_count(10**5000) in (5000, 5001, 5002)
    (5, True)
    """
    # str() of a huge integer is refused (and slow); bit_length gives the digits closely.
    bits = abs(value).bit_length()
    if bits < 10_000:
        return len(str(abs(value)))
    return int(bits * 0.30103) + 1


def printable_lines(text: str) -> str:
    """Like :func:`printable`, but keeps line breaks (for multi-line paragraphs).

    >>> printable_lines("a\\nb\\x1b")
    'a\\nb\\\\x1b'
    """
    return "\n".join(printable(line) for line in text.split("\n"))


def shell_word(word: str, *, file: bool = False) -> str:
    """``word`` quoted for a POSIX shell line a user copies: ``shlex.quote``, but a word
    holding a control or bidirectional character is written ``$'…'`` with that character
    escaped (a terminal would act on it, and it could reorder the line it is shown in),
    and a ``file`` that starts with ``-`` is given ``./`` (else it reads as an option).

    >>> shell_word("units[0].models=20"), shell_word("Red Fang")
    ("'units[0].models=20'", "'Red Fang'")
    >>> print(shell_word("x\x1b[31m\u202ey'"))
    $'x\\x1b[31m\\u202ey\\''
    >>> shell_word("-rf", file=True)
    './-rf'
    """
    import shlex

    if file and word.startswith("-"):
        word = "./" + word
    if word.isprintable():
        return shlex.quote(word)
    spelled = []
    for char in word:
        if char in "\\'":
            spelled.append("\\" + char)
        elif char.isprintable():
            spelled.append(char)
        elif ord(char) < 0x100:
            spelled.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            spelled.append(f"\\u{ord(char):04x}")
        else:
            spelled.append(f"\\U{ord(char):08x}")
    return "$'" + "".join(spelled) + "'"


def escape_html(text: str) -> str:
    """Text for HTML, XML and SVG content and attribute values.

    Besides ``& < > " '``, characters that XML 1.0 forbids (controls, lone surrogates)
    are spelled out, so the document stays well-formed.

    >>> escape_html("it's <x>\\x07")
    'it&#x27;s &lt;x&gt;\\\\x07'
    """
    return (
        printable_lines(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#x27;")
    )


def escape_rich(text: str) -> str:
    """Text for rich console markup: every ``[`` is escaped, so no tag can open or close.

    >>> escape_rich("[/b] [bold]x")
    '\\\\[/b] \\\\[bold]x'
    """
    # rich reads the backslashes before a "[" that looks like a tag (or at the end, before
    # markup that follows) as escapes: those are doubled so they print as themselves. Before
    # any other "[" it only turns "\\[" into "[", so the backslashes stay as they are. Either
    # way the "[" then gets its own.
    text = _RICH_BRACKET.sub(_escape_bracket, printable_lines(text))
    trailing = len(text) - len(text.rstrip("\\"))
    return text + "\\" * trailing


#: A "[" with the backslashes before it; group 2 is set when rich would read a tag there.
_RICH_BRACKET = re.compile(r"(\\*)\[(?=([a-z#/@][^[]*?\])?)")


def _escape_bracket(match: re.Match[str]) -> str:
    backslashes = match.group(1)
    return backslashes * (2 if match.group(2) is not None else 1) + "\\["
