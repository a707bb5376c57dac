"""Search text as the servers' search tools read it."""

from __future__ import annotations


def search_words(text: str | None) -> list[str]:
    """The distinct words of a search text, lowercased, in order of first appearance.

    Each word becomes one condition, so repeating a word costs nothing; the text itself is
    bounded by the argument's `maxLength`, which bounds the number of conditions.
    """
    return list(dict.fromkeys((text or "").lower().split()))
