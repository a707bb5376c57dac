"""How an order's totals are computed: subtotal, shipping, sales tax and total, in cents."""

from __future__ import annotations

from collections.abc import Iterable

from mcpgym.servers.retail.data import TAX_RATE_BPS
from mcpgym.servers.retail.models import EXPRESS_SHIPPING_CENTS, FREE_SHIPPING_CENTS, STANDARD_SHIPPING_CENTS


def shipping_cents(subtotal_cents: int, express: bool) -> int:
    """Express costs the same at any size; standard is free from `FREE_SHIPPING_CENTS` up."""
    if express:
        return EXPRESS_SHIPPING_CENTS
    return 0 if subtotal_cents >= FREE_SHIPPING_CENTS else STANDARD_SHIPPING_CENTS


def tax_cents(subtotal_cents: int, region: str) -> int:
    """Sales tax of the ship-to region on the items (rounded half up to the cent)."""
    return (subtotal_cents * TAX_RATE_BPS.get(region, 0) + 5000) // 10000


def order_totals(lines: Iterable[tuple[int, int]], region: str, express: bool) -> dict[str, int]:
    """The money columns of an order of (unit price, quantity) lines shipped to `region`."""
    subtotal = sum(price * quantity for price, quantity in lines)
    shipping = shipping_cents(subtotal, express)
    tax = tax_cents(subtotal, region)
    return {"subtotal_cents": subtotal, "shipping_cents": shipping, "tax_cents": tax,
            "total_cents": subtotal + shipping + tax}
