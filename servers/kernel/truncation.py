"""Cutting long tool results to a size a model can read, with a note saying so."""

from __future__ import annotations


def truncate_result(text: str, max_chars: int) -> str:
    """`text` if it has at most `max_chars` characters, else its start and a note of what was cut."""
    if len(text) <= max_chars:
        return text
    cut = len(text) - max_chars
    return text[:max_chars] + f"... [truncated {cut} characters; ask for fewer results per page]"
