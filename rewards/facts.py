"""Finding an expected fact in free text: numbers by value, times in common forms, text by words."""

from __future__ import annotations

import math
import re
from typing import Any

NUMBER = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.])-?\d+(?:\.\d+)?")
ISO_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?Z?$")


def numbers_in(text: str) -> list[float]:
    """Every number written in `text` (`1,234.5` counts as 1234.5)."""
    return [float(m.group(0).replace(",", "")) for m in NUMBER.finditer(text)]


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


def number_found(value: float, text: str) -> bool:
    """Whether `value` is written in `text`; non-integers match to the precision written."""
    for found in numbers_in(text):
        if float(value).is_integer():
            if found == value:
                return True
        elif math.isclose(found, value, rel_tol=0, abs_tol=0.005 + 1e-9) or math.isclose(
            found, value, rel_tol=0.0005
        ):
            return True
    return False


def text_forms(value: str) -> list[str]:
    """The ways a value may be written: an ISO time also as `YYYY-MM-DD HH:MM[:SS]`."""
    forms = [value]
    match = ISO_TIME.match(value)
    if match:
        day, minute, second = match.groups()
        forms += [f"{day} {minute}{second or ''}", f"{day} {minute}", f"{day}T{minute}"]
    return forms


def fact_found(value: Any, text: str) -> bool:
    """Whether the final answer `text` states `value` (lists: every element)."""
    if isinstance(value, bool):
        words = set(re.findall(r"[a-z]+", text.lower()))
        return bool(words & ({"yes", "true"} if value else {"no", "false"}))
    if isinstance(value, int | float):
        return number_found(value, text)
    if isinstance(value, list):
        return bool(value) and all(fact_found(item, text) for item in value)
    if isinstance(value, str):
        haystack = _normalise(text)
        return any(_normalise(form) in haystack for form in text_forms(value) if form.strip())
    return False
