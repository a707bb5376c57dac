"""Static catalogues of the payments world: Northwind's plans, card brands, reasons, services."""

from __future__ import annotations

# nickname, product, interval, unit amount (cents per seat), active, seats (low, high), weight
PLANS: tuple[tuple[str, str, str, int, bool, tuple[int, int], int], ...] = (
    ("Starter Monthly", "Northwind Cloud Starter", "month", 2900, True, (1, 5), 10),
    ("Starter Annual", "Northwind Cloud Starter", "year", 29000, True, (1, 5), 4),
    ("Team Monthly", "Northwind Cloud Team", "month", 4900, True, (3, 25), 12),
    ("Team Annual", "Northwind Cloud Team", "year", 49000, True, (3, 25), 6),
    ("Business Monthly", "Northwind Cloud Business", "month", 9900, True, (10, 60), 6),
    ("Business Annual", "Northwind Cloud Business", "year", 99000, True, (10, 60), 4),
    ("Premium Support Monthly", "Premium Support", "month", 19900, True, (1, 1), 0),
    ("Pro Monthly (2023)", "Northwind Cloud Pro", "month", 3900, False, (2, 15), 5),
)
"""Plans in id order; legacy plans (inactive) are kept by the customers who had them."""

ADD_ON = "Premium Support Monthly"
"""A plan some customers take beside their main plan."""

CARD_BRANDS = (("visa", 50), ("mastercard", 30), ("amex", 12), ("discover", 8))
CARD_FUNDING = ("credit", "credit", "credit", "debit")

FAILURE_CODES = ("card_declined", "insufficient_funds", "expired_card", "incorrect_cvc")

DISPUTE_REASONS = (("fraudulent", 40), ("product_not_received", 25), ("product_unacceptable", 15),
                   ("duplicate", 8), ("credit_not_processed", 7), ("general", 5))

REFUND_REASONS = ("requested_by_customer", "duplicate", "fraudulent")

SERVICES = (
    ("Onboarding workshop (half day)", 150000),
    ("Data migration service", 320000),
    ("Custom integration, engineering hours", 18000),
    ("Admin training session", 45000),
    ("Dedicated sandbox environment", 60000),
    ("Security review and questionnaire", 90000),
)
"""One-off services invoiced outside subscriptions: description, unit amount in cents."""

BANK_NAME = "JPMorgan Chase"
BANK_LAST4 = "6789"
