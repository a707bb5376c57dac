"""Stripe-like ids (`ch_3MtwBwLkdIwHu7ix`) for integer keys, and back.

An id is the kind's prefix and 14 base-62 digits of an affine permutation of the key, salted
by the kind and the world's seed: the same row has the same id in every session of a world,
ids of different kinds never look alike, and decoding needs no lookup table.
"""

from __future__ import annotations

import hashlib
from functools import cache

PREFIXES = {
    "customer": "cus", "payment_method": "pm", "charge": "ch", "refund": "re", "dispute": "dp",
    "plan": "price", "subscription": "sub", "invoice": "in", "payout": "po",
}
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
WIDTH = 14
MODULUS = 62**WIDTH
MULTIPLIER = 7664715031257859653082087
"""About 0.618 of the modulus, so neighbouring keys get unrelated ids; odd and not a multiple of
31, so invertible modulo 62**14."""
INVERSE = pow(MULTIPLIER, -1, MODULUS)
MAX_KEY = 2**62


@cache
def _salt(kind: str, seed: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{kind}:{seed}".encode()).digest()[:12], "big") % MODULUS


def encode(kind: str, seed: int, key: int) -> str:
    """The public id of row `key` of `kind` in the world of `seed`."""
    value = (key * MULTIPLIER + _salt(kind, seed)) % MODULUS
    digits = []
    for _ in range(WIDTH):
        value, digit = divmod(value, 62)
        digits.append(DIGITS[digit])
    return f"{PREFIXES[kind]}_{''.join(reversed(digits))}"


def decode(kind: str, seed: int, text: str) -> int | None:
    """The key behind a public id of `kind`, or None when `text` is not one."""
    prefix, _, body = text.strip().partition("_")
    if prefix != PREFIXES[kind] or len(body) != WIDTH:
        return None
    value = 0
    for char in body:
        digit = DIGITS.find(char)
        if digit < 0:
            return None
        value = value * 62 + digit
    key = ((value - _salt(kind, seed)) * INVERSE) % MODULUS
    return key if 1 <= key < MAX_KEY else None
