"""Hotels: a hotel booking platform of properties, room types, rate plans, nightly inventory,
reservations, guests and a loyalty programme."""

from mcpgym.servers.hotels.data import BOOKING_WINDOW_DAYS, CHECK_IN_HOUR, MAX_NIGHTS, MAX_ROOMS, PLATFORM_NAME
from mcpgym.servers.hotels.models import Base
from mcpgym.servers.hotels.seed import populate
from mcpgym.servers.hotels.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="hotels",
    title=f"{PLATFORM_NAME} hotel bookings",
    instructions=(
        f"You are a customer-service agent of {PLATFORM_NAME}, a hotel booking platform, acting for its guests. "
        "Properties (hotels) stand in cities around the world; each has room types (beds, maximum guests per room) "
        "and each room type has rate plans: Flexible (refundable, free cancellation until a deadline) or "
        "Non-refundable (cheaper), with or without breakfast. Reservations have a 10-digit confirmation number "
        "and a status: confirmed, checked_in, completed or cancelled. Guests are found by email or name; loyalty "
        "members earn points on completed stays and redeem them at 1 point = 1 cent. Properties, room types, "
        "rate plans and guests have integer ids. Money is integer US cents (fields ending in _cents); dates "
        "(check_in, check_out, nights) are the property's local calendar days; times are UTC, ISO 8601 with a Z; "
        "'today' is the UTC date. To book: search_stays or get_property to pick a rate plan, price_stay to quote "
        "it, then create_reservation (cards on file are charged the total less any points redeemed).\n"
        "Policy (the tools refuse anything else, and change nothing):\n"
        "- Free cancellation: a refundable booking may be cancelled (full refund, points given back) or changed "
        "only until its free_cancellation_until time, which is the property's cancellation window in hours "
        f"before {CHECK_IN_HOUR}:00 local time on the check-in day; after it, it can no longer be cancelled or "
        "changed online.\n"
        "- Non-refundable rates are never cancelled, refunded or changed (dates, room, rate or guests); only "
        "their special requests may be updated.\n"
        "- A booking or a change must fit the availability of every night: no night may have fewer rooms left "
        "than the rooms asked for.\n"
        "- Occupancy: guests may not exceed the room type's maximum guests times the number of rooms.\n"
        "- Points: only loyalty members redeem points, never more than their balance, and never worth more "
        "than what is still to be paid in cash on the booking.\n"
        "- Status: only confirmed bookings (not yet checked in) are changed, cancelled or given points; "
        "check-in opens on the check-in day and closes at check-out; only checked-in stays are checked out.\n"
        f"- New stays start today or later, end within {BOOKING_WINDOW_DAYS} days from today, last at most "
        f"{MAX_NIGHTS} nights and take at most {MAX_ROOMS} rooms."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("flights",),
)

__all__ = ["SERVER"]
