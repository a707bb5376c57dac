"""Static catalogues of the shipping account: carriers, their services and price lists,
warehouses, and the rules that turn a parcel and a destination into a price, a transit time and
a tracking number."""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta

# code, name, account number, tracking URL prefix
CARRIERS: tuple[tuple[str, str, str, str], ...] = (
    ("ups", "UPS", "A7X93R", "https://www.ups.com/track?tracknum="),
    ("fedex", "FedEx", "602118457", "https://www.fedex.com/fedextrack/?trknbr="),
    ("usps", "USPS", "CRID 48213307", "https://tools.usps.com/go/TrackConfirmAction?tLabels="),
    ("dhl", "DHL eCommerce", "5319004217", "https://www.dhl.com/us-en/home/tracking.html?tracking-id="),
)

# carrier code, service code, name, level, transit business days, base cents, cents per pound
SERVICES: tuple[tuple[str, str, str, str, int, int, int], ...] = (
    ("ups", "ups_ground", "UPS Ground", "ground", 5, 895, 95),
    ("ups", "ups_2nd_day_air", "UPS 2nd Day Air", "two_day", 2, 1895, 210),
    ("ups", "ups_next_day_air", "UPS Next Day Air", "overnight", 1, 3495, 380),
    ("fedex", "fedex_ground", "FedEx Ground", "ground", 5, 875, 92),
    ("fedex", "fedex_2day", "FedEx 2Day", "two_day", 2, 1850, 205),
    ("fedex", "fedex_standard_overnight", "FedEx Standard Overnight", "overnight", 1, 3395, 370),
    ("usps", "usps_ground_advantage", "USPS Ground Advantage", "ground", 4, 595, 70),
    ("usps", "usps_priority_mail", "USPS Priority Mail", "two_day", 2, 995, 110),
    ("usps", "usps_priority_mail_express", "USPS Priority Mail Express", "overnight", 1, 2895, 260),
    ("dhl", "dhl_ecommerce_ground", "DHL eCommerce Ground", "ground", 6, 545, 65),
    ("dhl", "dhl_ecommerce_expedited", "DHL eCommerce Expedited", "two_day", 3, 795, 85),
)

# code, name, street, city, region, postal code, timezone
WAREHOUSES: tuple[tuple[str, str, str, str, str, str, str], ...] = (
    ("EWR1", "Newark fulfilment center", "400 Doremus Ave", "Newark", "NJ", "07105", "America/New_York"),
    ("RNO1", "Reno fulfilment center", "1155 Gentry Way", "Reno", "NV", "89502", "America/Los_Angeles"),
)

HUBS = {"ups": "Louisville, KY", "fedex": "Memphis, TN", "usps": "Kansas City, MO", "dhl": "Cincinnati, OH"}
"""The sorting hub every carrier routes through."""

PARCEL_KINDS: tuple[tuple[str, int, int, int], ...] = (
    ("Poly mailer", 10, 13, 1), ("Small box", 8, 6, 4), ("Medium box", 12, 10, 6), ("Large box", 18, 14, 8),
    ("Tube", 26, 4, 4), ("Flat rate envelope", 12, 9, 1),
)
"""Packaging: name and inner dimensions (length, width, height in inches)."""


def zone(origin_postal: str, destination_postal: str) -> int:
    """The carrier zone (2-8) between two US ZIP codes: farther apart, higher."""
    a, b = origin_postal[:1], destination_postal[:1]
    if not (a.isdigit() and b.isdigit()):
        return 5
    return 2 + min(6, abs(int(a) - int(b)))


def warehouse_for(destination_postal: str) -> int:
    """Index in WAREHOUSES of the centre that ships to a ZIP code: the east coast and middle
    (ZIPs 0-4) from Newark, the rest from Reno."""
    first = destination_postal[:1]
    return 0 if first.isdigit() and int(first) <= 4 else 1


def price_cents(base_cents: int, per_lb_cents: int, weight_oz: int, zone_number: int) -> int:
    """A service's price for a weight (rounded up to the pound) and zone."""
    pounds = max(1, math.ceil(weight_oz / 16))
    return ((base_cents + per_lb_cents * pounds) * (100 + 8 * (zone_number - 2)) + 50) // 100


def transit_days(service_days: int, level: str, zone_number: int) -> int:
    """Business days in transit: ground gets slower with distance; expedited services hold."""
    if level == "ground":
        return max(1, service_days - 3 + (zone_number + 1) // 3)
    return service_days


def add_business_days(day: date, days: int) -> date:
    """`days` business days (Monday to Friday) after `day`."""
    while days > 0:
        day += timedelta(days=1)
        if day.weekday() < 5:
            days -= 1
    return day


def next_business_day(moment: datetime) -> date:
    """The first business day after `moment`'s date."""
    return add_business_days(moment.date(), 1)


def tracking_number(carrier: str, account: str, label_id: int) -> str:
    """The tracking number of a label, in its carrier's format; unique per label id."""
    n = (label_id * 48_271 + 7_919) % 100_000_000
    if carrier == "ups":
        return f"1Z{account}03{n:08d}"
    if carrier == "fedex":
        return f"7{label_id % 10}{n:08d}{label_id % 97:02d}"
    if carrier == "usps":
        return f"9400111899{label_id % 100:02d}{n:08d}{label_id % 1000:03d}"
    return f"GM{5319 + label_id % 100:04d}{n:08d}"


def pickup_confirmation(carrier: str, pickup_id: int) -> str:
    """A pickup's confirmation number."""
    n = (pickup_id * 7_477 + 1_093) % 1_000_000
    prefix = {"ups": "29", "fedex": "CPU", "usps": "WTC", "dhl": "DP"}.get(carrier, "PU")
    return f"{prefix}{n:06d}{pickup_id % 10}"
