"""Text rules of the social server, shared by the seeding and the tools: how a post mentions
an account (@handle) and tags a topic (#hashtag), and how handles are made."""

from __future__ import annotations

import re

from mcpgym.servers.social.models import MAX_HANDLE_CHARS

MENTION = re.compile(r"(?<![A-Za-z0-9_@])@([A-Za-z0-9_]{1,15})(?![A-Za-z0-9_])")
"""A mention: `@handle`, not inside a word or an email address."""

HASHTAG = re.compile(r"(?<![A-Za-z0-9_#&])#([A-Za-z][A-Za-z0-9_]{0,59})(?![A-Za-z0-9_])")
"""A hashtag: `#` then a letter and up to 59 letters, digits or underscores."""

HANDLE = re.compile(r"@?[A-Za-z0-9_]{1,15}")
"""A handle argument, with or without its '@'."""


def mentioned_handles(text: str) -> list[str]:
    """The handles a text mentions, lowercased, each once, in order of first mention."""
    return list(dict.fromkeys(match.group(1).lower() for match in MENTION.finditer(text)))


def hashtags(text: str) -> list[str]:
    """The hashtags of a text, lowercased and without '#', each once, in order."""
    return list(dict.fromkeys(match.group(1).lower() for match in HASHTAG.finditer(text)))


def handle_stem(*words: str, camel: bool = False) -> str:
    """Letters and digits of `words` joined into a handle stem of at most 15 characters."""
    parts = ["".join(ch for ch in word if ch.isascii() and ch.isalnum()) for word in words]
    parts = [part.capitalize() if camel else part.lower() for part in parts if part]
    return "".join(parts)[:MAX_HANDLE_CHARS] or "user"


def bare_handle(handle: str) -> str:
    """A handle argument without its '@' and surrounding spaces."""
    return handle.strip().removeprefix("@")
