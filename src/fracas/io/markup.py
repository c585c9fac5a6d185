"""Escaping user text for forum markup, and plain-ASCII output for boards that mangle symbols.

Every name, title, description and note in a scenario is user text. Put into a BBCode or
Markdown post as it is, ``[url=…]`` or ``**`` in a unit's name becomes live markup. These
functions make such text display literally and nothing else:

>>> escape_bbcode("[url=http://x]Orcs[/url]")
'[[i][/i]url=http://x]Orcs[[i][/i]/url]'
>>> escape_markdown("*Elves* <b>")
'\\\\*Elves\\\\* \\\\<b\\\\>'
>>> to_ascii("Attack 5 × 2 − 1 → hit — “ok”")
'Attack 5 x 2 - 1 -> hit -- "ok"'
"""

from __future__ import annotations

import re
import unicodedata

# An empty [i][/i] right after "[" keeps every board's parser from seeing a tag there, and
# shows nothing. Every bracket gets it, so no tag survives, whatever the dialect calls it.
_BBCODE_OPEN = "[[i][/i]"


def escape_bbcode(text: str) -> str:
    """User text for a BBCode post outside [code]: no tag in it stays a tag."""
    return text.replace("[", _BBCODE_OPEN)


_CODE_CLOSE = re.compile(r"\[(/code)", re.IGNORECASE)


def escape_bbcode_code(text: str) -> str:
    """User text inside a [code] block: only a closing [/code] could end it early.

    >>> escape_bbcode_code("a [/CODE] b")
    'a [ /CODE] b'
    """
    return _CODE_CLOSE.sub(r"[ \1", text)


# Characters that start Markdown markup anywhere in a line (CommonMark lets a backslash
# escape any ASCII punctuation, so escaping these is safe in every flavour) …
_MD_ANYWHERE = re.compile(r"([\\`*_\[\]<>|~&!#$])")
# … and those that do only at the start of a line (lists, headings, quotes, rules).
_MD_LINE_START = re.compile(r"^(\s*)([-+=]|\d+)([.)]?)", re.MULTILINE)


def escape_markdown(text: str) -> str:
    """User text for Markdown: it displays as itself, with no emphasis, link, HTML tag,
    heading, list or table cell break (``(d100) + 20`` stays readable in the source)."""
    text = _MD_ANYWHERE.sub(r"\\\1", text)
    return _MD_LINE_START.sub(_escape_line_start, text)


def _escape_line_start(match: re.Match[str]) -> str:
    indent, mark, after = match.groups()
    if mark.isdigit():
        # "1." starts a list; "1\." does not (a backslash cannot escape a digit).
        return f"{indent}{mark}\\{after}" if after else match.group(0)
    return f"{indent}\\{mark}{after}"


_ASCII = {
    "×": "x",
    "−": "-",
    "→": "->",
    "←": "<-",
    "—": "--",
    "–": "-",
    "•": "*",
    "·": "|",
    "»": ">>",
    "«": "<<",
    "≥": ">=",
    "≤": "<=",
    "═": "=",
    "─": "-",
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "…": "...",
    "½": "1/2",
    "⅓": "1/3",
    "¼": "1/4",
    "±": "+/-",
}
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


def to_ascii(text: str) -> str:
    """``text`` with only ASCII characters: the symbols reports use spelled in ASCII, accents
    dropped (``é`` → ``e``), anything else as ``?``."""

    def replace(match: re.Match[str]) -> str:
        char = match.group(0)
        if char in _ASCII:
            return _ASCII[char]
        plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode("ascii")
        return plain or "?"

    return _NOT_ASCII.sub(replace, text)
