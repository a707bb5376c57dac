"""Flights: an airline booking system of airports, routes, flights, fares, passengers and reservations."""

from mcpgym.servers.flights.data import AIRLINE_CODE, AIRLINE_NAME
from mcpgym.servers.flights.models import Base
from mcpgym.servers.flights.seed import populate
from mcpgym.servers.flights.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="flights",
    title=f"{AIRLINE_NAME} reservations",
    instructions=(
        f"You are a reservations agent of {AIRLINE_NAME} (flight numbers {AIRLINE_CODE}101..), acting for its passengers. "
        "Airports are IATA codes (JFK); reservations are 6-character PNR codes (K7QX2M); flights, passengers, "
        "quotes and payment methods have integer ids. Times are UTC, ISO 8601 with a Z; flights also show "
        "local times with their UTC offset. Amounts are whole US dollars. To book: search_flights, "
        "price_itinerary (a quote valid 30 minutes), then book_reservation paying exactly the quote's total "
        "with the lead passenger's payment methods. Fare rules (get_fare_rules) decide changes, refunds and bags."
    ),
    base=Base,
    populate=populate,
    tools=tools,
)

__all__ = ["SERVER"]
