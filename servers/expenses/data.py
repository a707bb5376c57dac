"""Static catalogues of the expense tool: categories and their limits, currencies, merchants
and the words of seeded reports."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

# code, name, limit (USD cents) or None, basis, GL account, description
CATEGORIES: tuple[tuple[str, str, int | None, str, str, str], ...] = (
    ("meals", "Meals", 7_500, "per_day", "6110", "Meals while travelling or working late; the limit is per day covered."),
    ("lodging", "Lodging", 25_000, "per_night", "6120", "Hotel rooms; the limit is per night, taxes included."),
    ("airfare", "Airfare", 150_000, "per_item", "6130", "Flights booked for business trips; economy unless justified."),
    ("ground_transport", "Ground transport", 15_000, "per_item", "6140", "Taxis, rideshares, trains and parking."),
    ("car_rental", "Car rental", 9_000, "per_day", "6150", "Rental cars on trips; the limit is per rental day."),
    ("client_entertainment", "Client entertainment", 50_000, "per_item", "6210", "Meals and events with customers or prospects."),
    ("software", "Software and subscriptions", 30_000, "per_item", "6310", "Tools and subscriptions bought for work."),
    ("office_supplies", "Office supplies", 20_000, "per_item", "6320", "Supplies and small equipment for the (home) office."),
    ("conference", "Conferences and training", 200_000, "per_item", "6410", "Conference passes, courses and certifications."),
    ("phone_internet", "Phone and internet", 10_000, "per_item", "6330", "The monthly phone or internet bill used for work."),
    ("other", "Other", None, "per_item", "6990", "Anything else a manager agrees is a business expense; no fixed limit."),
)
"""The expense categories, in the order the tool lists them."""

CURRENCY_RATES: dict[str, Decimal] = {
    "USD": Decimal("1"), "EUR": Decimal("1.085"), "GBP": Decimal("1.27"), "CAD": Decimal("0.73"),
}
"""US dollars per unit of each accepted currency (the company's fixed rates)."""


def to_usd_cents(amount_cents: int, currency: str) -> int:
    """`amount_cents` of `currency` in US cents at the company rate, rounded half to even."""
    return int((Decimal(amount_cents) * CURRENCY_RATES[currency]).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


MERCHANTS: dict[str, tuple[str, ...]] = {
    "meals": ("Sweetgreen", "Chipotle", "Panera Bread", "Pret A Manger", "Shake Shack", "Blue Bottle Coffee",
              "Le Pain Quotidien", "Starbucks", "Cava", "Corner Bistro"),
    "lodging": ("Marriott", "Hilton", "Hyatt Regency", "Courtyard by Marriott", "Holiday Inn Express", "Westin",
                "Hampton Inn", "Sheraton"),
    "ground_transport": ("Uber", "Lyft", "Yellow Cab", "Amtrak", "Airport Express", "SpotHero"),
    "car_rental": ("Hertz", "Enterprise", "Avis", "National"),
    "client_entertainment": ("The Capital Grille", "Morton's The Steakhouse", "Topgolf", "Nobu",
                             "Ruth's Chris Steak House", "Eataly"),
    "software": ("GitHub", "Figma", "JetBrains", "Notion", "Zoom", "Adobe", "Atlassian", "Loom"),
    "office_supplies": ("Staples", "Office Depot", "Amazon Business", "Best Buy", "IKEA"),
    "conference": ("AWS re:Invent", "SaaStr Annual", "KubeCon", "Web Summit", "Gartner Symposium", "Coursera",
                   "O'Reilly Learning"),
    "phone_internet": ("Verizon Wireless", "AT&T", "Comcast Business", "T-Mobile"),
    "other": ("FedEx Office", "USPS", "UPS Store", "Parking.com"),
}
"""Merchants by category."""

# (category, low, high) in USD cents
OFFICE_ITEMS: tuple[tuple[str, int, int, str], ...] = (
    ("software", 1_200, 24_000, "Monthly subscription"),
    ("software", 9_900, 42_000, "Annual license"),
    ("office_supplies", 1_500, 18_000, "Supplies for the home office"),
    ("office_supplies", 8_000, 32_000, "Monitor and keyboard"),
    ("phone_internet", 4_500, 12_000, "Monthly phone bill"),
    ("phone_internet", 5_000, 9_500, "Home internet"),
    ("meals", 1_200, 9_500, "Working lunch with the team"),
    ("client_entertainment", 12_000, 68_000, "Dinner with a customer"),
    ("ground_transport", 1_800, 9_000, "Rideshare to a customer meeting"),
    ("conference", 29_900, 249_000, "Conference pass"),
    ("other", 900, 12_000, "Shipping of equipment"),
)
"""The expenses of a month that is not a trip: category, amount range (USD cents), description."""

JUSTIFICATIONS: dict[str, tuple[str, ...]] = {
    "meals": ("Dinner with the customer's team, four people.", "Late working session before the launch."),
    "lodging": ("Conference hotel; nothing cheaper within walking distance.", "Rates were high during a trade fair."),
    "airfare": ("Overnight flight straight into customer meetings.", "Booked late at the customer's request."),
    "ground_transport": ("Late-night return from the customer site, no train.", "Shared ride for the whole team."),
    "car_rental": ("Van needed to carry the demo equipment.", "Only larger cars were left."),
    "client_entertainment": ("Closing dinner for a renewal, eight guests.", "Executive sponsor dinner."),
    "software": ("Team license for a year, approved by the engineering manager.", "Replaces two older tools."),
    "office_supplies": ("Ergonomic chair recommended by occupational health.", "Replacement laptop dock for the team."),
    "conference": ("Speaker slot included; training budget agreed with my manager.", "Certification required for the role."),
    "phone_internet": ("International roaming during the customer trip.", "Upgrade agreed for on-call duty."),
    "other": ("Agreed with my manager beforehand.",),
}
"""Justifications employees give for items over their category's limit."""

REJECTION_REASONS = (
    "Receipt is unreadable; please attach a clearer copy.",
    "The client dinner needs the names of the guests.",
    "Personal expenses are included; remove them and resubmit.",
    "Wrong category for the software purchase.",
    "Please split the hotel bill: the minibar is not reimbursable.",
)
APPROVAL_COMMENTS = ("", "", "Thanks!", "Approved.", "Looks good.", "OK, thanks for the detail.")

TRIP_PURPOSES = (
    "Customer meetings in {city}", "Quarterly business review with customers in {city}", "Conference in {city}",
    "Partner workshop in {city}", "Sales kickoff in {city}", "Onsite implementation in {city}",
)
OFFICE_TITLES = ("{month} expenses", "Expenses for {month}", "{month} office and software")
