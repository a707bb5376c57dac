"""Text rules of the chat server, shared by the seeding and the tools: how a mention is
written in a message, what a channel name may be, and how an emoji is named."""

from __future__ import annotations

import re

from mcpgym.servers.chat.models import MAX_NAME_CHARS

MENTION = re.compile(r"<@(\d{1,18})>")
"""A mention in message text: `<@12>` mentions user 12 (Slack's own form)."""

CHANNEL_NAME = re.compile(r"[a-z0-9_-]+")
"""The characters a channel name is made of, in full."""

EMOJI_ARGUMENT = r"^:?[a-z0-9_+'-]{1,58}:?$"
"""The pattern of an emoji argument: its name, with or without the surrounding colons."""


def mentioned_ids(text: str) -> list[int]:
    """The user ids mentioned in `text`, each once, in order of first mention."""
    return list(dict.fromkeys(int(match.group(1)) for match in MENTION.finditer(text)))


def mention(user_id: int) -> str:
    """How a message mentions user `user_id`."""
    return f"<@{user_id}>"


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a channel name (the rule it breaks), or None if it can."""
    if not name:
        return "channel names cannot be empty"
    if len(name) > MAX_NAME_CHARS:
        return f"channel names are at most {MAX_NAME_CHARS} characters"
    if not CHANNEL_NAME.fullmatch(name):
        return ("channel names are lowercase and use only letters a-z, digits, hyphens and underscores "
                f"(for example '{slug(name) or 'team-updates'}')")
    return None


def slug(text: str, limit: int = MAX_NAME_CHARS) -> str:
    """`text` as a channel name: lowercase, runs of other characters as one hyphen, at most
    `limit` characters, no hyphen at either end."""
    words = re.split(r"[^a-z0-9]+", text.lower())
    return "-".join(word for word in words if word)[:limit].strip("-")


def emoji_name(emoji: str) -> str:
    """An emoji argument without its colons (`:tada:` -> `tada`)."""
    return emoji.strip(":")
