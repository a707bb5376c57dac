"""The airline tools: find airports and flights, price and book trips, and service reservations."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from functools import cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from mcpgym.servers.flights.data import cabin_of_seat, cabin_seats, distance_km
from mcpgym.servers.flights.models import (
    CREDIT_VALID_DAYS,
    FARE_CABINS,
    FREE_CANCELLATION_HOURS,
    MAX_CONNECTION_MINUTES,
    MIN_CONNECTION_MINUTES,
    QUOTE_VALID_MINUTES,
    Airport,
    FareClass,
    Flight,
    Passenger,
    Payment,
    PaymentMethod,
    Quote,
    Reservation,
    ReservationPassenger,
    SeatAssignment,
    Segment,
    pnr_for,
)
from mcpgym.servers.kernel.database import quote
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import (
    DateTimeArg,
    Page,
    PerPage,
    Timestamp,
    next_page,
    page_slice,
)
from mcpgym.servers.kernel.lookup import missing, row_or_raise
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()

MAX_BAGS_PER_PASSENGER = 3

FareCode = Literal["basic", "standard", "flex", "business"]
Cabin = Literal["economy", "business"]
FlightStatus = Literal["scheduled", "delayed", "departed", "landed", "cancelled"]
ReservationStatus = Literal["booked", "cancelled", "flown"]

AirportCode = Annotated[str, Field(pattern=r"^[A-Za-z]{3}$", description="IATA airport code, e.g. 'JFK'.")]
Pnr = Annotated[str, Field(pattern=r"^[A-Za-z0-9]{6}$", description="The 6-character reservation code (PNR), e.g. 'K7QX2M'.")]
PassengerId = Annotated[int, Field(description="The passenger's id (see get_passenger_by_email or search_passengers).")]
FlightId = Annotated[int, Field(description="The flight's id (see search_flights or list_flights).")]

AIRPORT_HINT = "Use find_airports to look up IATA codes by city, name or country."
FLIGHT_HINT = "Use search_flights or list_flights to find flight ids."
PASSENGER_HINT = "Use get_passenger_by_email or search_passengers to find passenger ids."
RESERVATION_HINT = "Use list_passenger_reservations to find a passenger's reservation codes."
QUOTE_HINT = "Use price_itinerary to get a quote."
METHOD_HINT = "Use list_payment_methods to see a passenger's payment methods."


# ---------------------------------------------------------------- result models


class AirportOut(BaseModel):
    code: str
    name: str
    city: str
    country: str
    latitude: float
    longitude: float
    timezone: str = Field(description="IANA time zone of local times at this airport.")
    is_hub: bool


class AirportPage(BaseModel):
    airports: list[AirportOut]
    total: int
    page: int
    next_page: int | None


class NearbyAirport(BaseModel):
    code: str
    name: str
    city: str
    country: str
    is_hub: bool
    distance_km: int = Field(description="Great-circle distance from the city centre, in km.")


class NearestAirports(BaseModel):
    city: str
    country: str
    has_own_airports: bool = Field(description="True when the airports listed are the city's own.")
    airports: list[NearbyAirport]


class RouteOut(BaseModel):
    flight_number: str
    origin: str
    destination: str
    distance_km: int
    duration_minutes: int
    aircraft: str
    departure_time_local: str = Field(description="Scheduled local departure time at the origin, HH:MM.")
    operating_days: list[str] = Field(description="Weekdays the route is flown, e.g. ['Mon', 'Thu'].")


class RouteList(BaseModel):
    routes: list[RouteOut]


class FlightSummary(BaseModel):
    flight_id: int
    flight_number: str
    origin: str
    destination: str
    departure_date: date = Field(description="Local departure date at the origin.")
    scheduled_departure: Timestamp
    scheduled_arrival: Timestamp
    departure_local: str = Field(description="Scheduled departure in the origin's local time, with UTC offset.")
    arrival_local: str = Field(description="Scheduled arrival in the destination's local time, with UTC offset.")
    duration_minutes: int
    aircraft: str
    status: str
    delay_minutes: int = Field(description="Announced or actual departure delay.")


class FlightDetail(FlightSummary):
    fares: dict[str, int] = Field(description="Per-passenger one-way fare in USD for each fare class.")
    seats_left: dict[str, int] = Field(description="Seats still for sale per cabin.")
    capacity: dict[str, int] = Field(description="Seats per cabin on this aircraft.")


class FlightPage(BaseModel):
    flights: list[FlightDetail]
    total: int
    page: int
    next_page: int | None


class Itinerary(BaseModel):
    segments: list[FlightSummary]
    stops: int
    connection_minutes: list[int] = Field(description="Time on the ground between consecutive flights.")
    departure: Timestamp
    arrival: Timestamp
    duration_minutes: int
    fares: dict[str, int] = Field(description="Per-passenger price in USD of the whole itinerary, per fare class of the cabin.")
    seats_left: int = Field(description="Fewest seats for sale in the cabin over the segments.")


class ItineraryPage(BaseModel):
    cabin: str
    itineraries: list[Itinerary]
    total: int
    page: int
    next_page: int | None


class SeatRow(BaseModel):
    row: int
    available: list[str] = Field(description="Seat letters that are free.")
    taken: list[str] = Field(description="Seat letters already assigned.")


class CabinMap(BaseModel):
    cabin: str
    capacity: int
    passengers_booked: int = Field(description="Passengers booked in the cabin, with or without a seat.")
    seats_left: int = Field(description="Seats still for sale.")
    seats_assigned: int
    rows: list[SeatRow]


class SeatMap(BaseModel):
    flight_id: int
    flight_number: str
    aircraft: str
    cabins: list[CabinMap]


class FareRule(BaseModel):
    fare_class: str
    name: str
    cabin: str
    changes_allowed: bool
    change_fee: int = Field(description="USD per passenger per changed flight, plus any fare increase.")
    refund: str = Field(description="On cancellation: 'none', 'travel_credit' (minus the cancellation fee) or 'original_payment' (full).")
    cancellation_fee: int = Field(description="USD per passenger deducted from a travel credit.")
    free_checked_bags: int = Field(description="Checked bags included per passenger.")
    bag_fee: int = Field(description="USD per extra checked bag per passenger, for the whole trip.")
    seat_selection: bool = Field(description="Whether seats can be chosen before check-in.")


class FareRules(BaseModel):
    fare_classes: list[FareRule]
    notes: list[str]


class PassengerOut(BaseModel):
    passenger_id: int
    person_id: str = Field(description="Shared world person id, e.g. per_0042.")
    name: str
    first_name: str
    last_name: str
    email: str
    phone: str
    organization_name: str
    date_of_birth: date
    loyalty_number: str
    home_airport: str
    member_since: Timestamp


class PassengerPage(BaseModel):
    passengers: list[PassengerOut]
    total: int
    page: int
    next_page: int | None


class PaymentMethodOut(BaseModel):
    payment_method_id: int
    passenger_id: int
    kind: str = Field(description="credit_card, gift_card or travel_certificate.")
    description: str
    brand: str | None
    last4: str
    expiry_month: int | None
    expiry_year: int | None
    balance: int | None = Field(description="Remaining USD on a gift card or travel certificate.")
    expires_at: Timestamp | None
    usable: bool = Field(description="False for expired cards and certificates or an empty balance.")


class PaymentMethodList(BaseModel):
    passenger_id: int
    payment_methods: list[PaymentMethodOut]


class QuoteOut(BaseModel):
    quote_id: int
    lead_passenger_id: int
    passenger_ids: list[int]
    fare_class: str
    cabin: str
    segments: list[FlightSummary]
    price_per_passenger: int
    total: int = Field(description="USD to pay in book_reservation, exactly.")
    created_at: Timestamp
    expires_at: Timestamp
    status: str = Field(description="open, expired or used.")
    reservation_pnr: str | None


class TravellerOut(BaseModel):
    passenger_id: int
    name: str
    email: str
    checked_bags: int


class SeatOut(BaseModel):
    passenger_id: int
    seat: str


class SegmentOut(BaseModel):
    position: int
    flight: FlightSummary
    fare: int = Field(description="Per-passenger fare paid for this flight, USD.")
    status: str = Field(description="scheduled, delayed, departed, flown, cancelled_by_airline, or cancelled with the reservation.")
    seats: list[SeatOut]


class PaymentOut(BaseModel):
    payment_id: int
    payment_method_id: int
    method: str
    kind: str = Field(description="fare, change, baggage or refund.")
    amount: int = Field(description="USD; negative for refunds.")
    description: str
    created_at: Timestamp


class ReservationOut(BaseModel):
    pnr: str
    status: str
    fare_class: str
    cabin: str
    lead_passenger_id: int
    passengers: list[TravellerOut]
    segments: list[SegmentOut]
    payments: list[PaymentOut]
    total_charged: int
    total_refunded: int
    net_paid: int
    created_at: Timestamp
    updated_at: Timestamp
    cancelled_at: Timestamp | None


class ReservationSummary(BaseModel):
    pnr: str
    status: str
    fare_class: str
    lead_passenger_id: int
    itinerary: str = Field(description="Airports in travel order, e.g. 'BOS-JFK-LHR-JFK-BOS'.")
    first_departure: Timestamp
    last_arrival: Timestamp
    passenger_count: int
    created_at: Timestamp


class ReservationPage(BaseModel):
    reservations: list[ReservationSummary]
    total: int
    page: int
    next_page: int | None


class TravelSummary(BaseModel):
    passenger_id: int
    name: str
    reservations: dict[str, int] = Field(description="Reservations the passenger is on, created in the period, per status.")
    flights_flown: int = Field(description="Landed flights departing in the period, on reservations not cancelled.")
    distance_flown_km: int
    amount_charged: int = Field(description="USD charged in the period on reservations the passenger leads.")
    amount_refunded: int
    net_spend: int


class ChangeResult(BaseModel):
    reservation: ReservationOut
    change_fee_per_passenger: int
    fare_difference_per_passenger: int
    amount_charged: int


class SeatResult(BaseModel):
    pnr: str
    flight_id: int
    passenger_id: int
    seat: str
    previous_seat: str | None


class BaggageResult(BaseModel):
    pnr: str
    passenger_id: int
    checked_bags: int
    free_checked_bags: int
    fee_charged: int


class CancelResult(BaseModel):
    reservation: ReservationOut
    refund_amount: int
    refund_to: str = Field(description="original_payment, travel_credit or none.")
    travel_credit_payment_method_id: int | None
    cancellation_fee: int


class PaymentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    payment_method_id: int = Field(description="Id of one of the lead passenger's payment methods.")
    amount: int = Field(ge=1, description="Whole USD to take from this method.")


# ---------------------------------------------------------------- helpers

FLIGHT_COLUMNS = ("flights.*, routes.origin_id, routes.destination_id, routes.duration_minutes, "
                  "origins.code AS origin, origins.timezone AS origin_timezone, "
                  "destinations.code AS destination, destinations.timezone AS destination_timezone")
"""A flight's columns with what its summary needs from its route and airports."""

ROUTE_JOINS = ("JOIN routes ON routes.id = flights.route_id "
               "JOIN airports AS origins ON origins.id = routes.origin_id "
               "JOIN airports AS destinations ON destinations.id = routes.destination_id")
"""The joins from `flights` that `FLIGHT_COLUMNS` reads."""

PASSENGER_COLUMNS = "passengers.*, organizations.name AS organization_name, airports.code AS home_airport"
PASSENGER_TABLES = ("passengers JOIN organizations ON organizations.id = passengers.organization_id "
                    "JOIN airports ON airports.id = passengers.home_airport_id")
"""A passenger's columns with their organisation's name and home airport's code, and the
tables they come from."""

SQLITE_INTEGERS = range(-(2**63), 2**63)
"""The ids SQLite can store; a lookup of any other fails as sqlite3 does (`OverflowError`)."""


def _ids(values: Iterable[int]) -> list[int]:
    """Ids as a list parameter (`IN (SELECT value FROM json_each(?))`), ascending."""
    return sorted(set(values))


def _lookup_error(entity_id: int, label: str, hint: str) -> Exception:
    """The error a lookup of `entity_id` alone gives when it names no row: `OverflowError` beyond
    64 bits (as sqlite3 raises for such a parameter), else `NotFoundError`."""
    if entity_id not in SQLITE_INTEGERS:
        return OverflowError(f"{label} id {entity_id} does not fit in 64 bits")
    return missing(label, entity_id, hint)


def _pick(rows: Mapping[int, Row], entity_id: int, label: str, hint: str) -> Row:
    """The row of `entity_id` among rows read by id, or the error a lookup of that one id gives."""
    row = rows.get(entity_id)
    if row is None:
        raise _lookup_error(entity_id, label, hint)
    return row


def _code(ctx: ToolContext, code: str) -> int:
    """The id of the airport with IATA `code` (any case)."""
    airport_id = ctx.sql.scalar("SELECT id FROM airports WHERE code = ?", [code.upper()])
    if airport_id is None:
        raise NotFoundError(f"no airport with code {code.upper()}. {AIRPORT_HINT}")
    return int(airport_id)


def _local(t: datetime, timezone: str) -> str:
    return t.replace(tzinfo=UTC).astimezone(ZoneInfo(timezone)).isoformat()


def _flights(ctx: ToolContext, flight_ids: Collection[int]) -> dict[int, Row]:
    """Flights by id, read as `FLIGHT_COLUMNS` in one statement; ids that name none are left out."""
    rows = ctx.sql.all(f"SELECT {FLIGHT_COLUMNS} FROM flights {ROUTE_JOINS} "
                       "WHERE flights.id IN (SELECT value FROM json_each(?))", [_ids(flight_ids)], Flight)
    return {row["id"]: row for row in rows}


def _flights_in_order(ctx: ToolContext, flight_ids: Sequence[int]) -> list[Row]:
    """The flights of `flight_ids` in the order given; the first id that names none is the error."""
    found = _flights(ctx, flight_ids)
    return [_pick(found, flight_id, "flight", FLIGHT_HINT) for flight_id in flight_ids]


def _flight(ctx: ToolContext, flight_id: int) -> Row:
    return _flights_in_order(ctx, [flight_id])[0]


def _summary_fields(f: Row) -> dict[str, Any]:
    """The fields of a flight's summary, from a row of `FLIGHT_COLUMNS`."""
    return dict(
        flight_id=f["id"], flight_number=f["flight_number"], origin=f["origin"], destination=f["destination"],
        departure_date=f["departure_date"], scheduled_departure=f["scheduled_departure"],
        scheduled_arrival=f["scheduled_arrival"], departure_local=_local(f["scheduled_departure"], f["origin_timezone"]),
        arrival_local=_local(f["scheduled_arrival"], f["destination_timezone"]),
        duration_minutes=f["duration_minutes"], aircraft=f["aircraft"], status=f["status"],
        delay_minutes=f["delay_minutes"],
    )


def _summaries(flights: Sequence[Row]) -> list[FlightSummary]:
    return [FlightSummary(**_summary_fields(f)) for f in flights]


@cache
def _cabin_seats(aircraft: str, cabin: str) -> tuple[str, ...]:
    """Every seat of one cabin of an aircraft type, front to back (listed once per cabin)."""
    return tuple(cabin_seats(aircraft, cabin))


def _capacity(aircraft: str) -> dict[str, int]:
    return {cabin: len(_cabin_seats(aircraft, cabin)) for cabin in ("economy", "business")}


def _booked(ctx: ToolContext, flight_ids: Collection[int]) -> dict[tuple[int, str], int]:
    """Passengers on active reservations per (flight id, cabin)."""
    rows = ctx.sql.all(
        "SELECT segments.flight_id, reservations.fare_class, count(reservation_passengers.id) AS n FROM segments "
        "JOIN reservations ON reservations.id = segments.reservation_id "
        "JOIN reservation_passengers ON reservation_passengers.reservation_id = reservations.id "
        "WHERE segments.flight_id IN (SELECT value FROM json_each(?)) AND reservations.status != 'cancelled' "
        "GROUP BY segments.flight_id, reservations.fare_class", [_ids(flight_ids)])
    booked: dict[tuple[int, str], int] = defaultdict(int)
    for row in rows:
        booked[(row["flight_id"], FARE_CABINS[row["fare_class"]])] += row["n"]
    return booked


def _seats_left(f: Row, booked: dict[tuple[int, str], int]) -> dict[str, int]:
    return {cabin: max(0, n - booked[(f["id"], cabin)]) for cabin, n in _capacity(f["aircraft"]).items()}


def _fares(f: Row) -> dict[str, int]:
    return {"basic": f["fare_basic"], "standard": f["fare_standard"], "flex": f["fare_flex"],
            "business": f["fare_business"]}


def _details(ctx: ToolContext, flights: Sequence[Row]) -> list[FlightDetail]:
    booked = _booked(ctx, [f["id"] for f in flights])
    return [
        FlightDetail(**_summary_fields(f), fares=_fares(f), seats_left=_seats_left(f, booked),
                     capacity=_capacity(f["aircraft"]))
        for f in flights
    ]


def _departed(f: Row, now: datetime) -> bool:
    return f["status"] in ("departed", "landed") or f["scheduled_departure"] + timedelta(minutes=f["delay_minutes"]) <= now


def _check_bookable(f: Row, now: datetime) -> None:
    if f["status"] == "cancelled":
        raise ForbiddenError(f"flight {f['flight_number']} on {f['departure_date']} (id {f['id']}) is cancelled; "
                             "use search_flights to find another flight")
    if _departed(f, now):
        raise ForbiddenError(f"flight {f['flight_number']} on {f['departure_date']} (id {f['id']}) has already departed")


def _check_seats(ctx: ToolContext, flights: Sequence[Row], cabin: str, party: int) -> None:
    booked = _booked(ctx, [f["id"] for f in flights])
    for f in flights:
        left = _seats_left(f, booked)[cabin]
        if left < party:
            raise ForbiddenError(f"flight {f['flight_number']} on {f['departure_date']} has only {left} {cabin} "
                                 f"seat(s) left for {party} passenger(s); overbooking is not allowed")


def _check_not_double_booked(ctx: ToolContext, flights: Sequence[Row], passenger_ids: Sequence[int]) -> None:
    clash = ctx.sql.one(
        "SELECT reservations.pnr, reservation_passengers.passenger_id, segments.flight_id FROM reservations "
        "JOIN segments ON segments.reservation_id = reservations.id "
        "JOIN reservation_passengers ON reservation_passengers.reservation_id = reservations.id "
        "WHERE segments.flight_id IN (SELECT value FROM json_each(?)) "
        "AND reservation_passengers.passenger_id IN (SELECT value FROM json_each(?)) "
        "AND reservations.status != 'cancelled' "
        "ORDER BY reservations.pnr, segments.flight_id, reservation_passengers.passenger_id LIMIT 1",
        [_ids(f["id"] for f in flights), _ids(passenger_ids)])
    if clash is not None:
        raise ForbiddenError(f"passenger {clash['passenger_id']} is already booked on flight {clash['flight_id']} "
                             f"in reservation {clash['pnr']}")


def _passenger(ctx: ToolContext, passenger_id: int) -> Row:
    return row_or_raise(ctx, Passenger, passenger_id, "passenger", PASSENGER_HINT)


def _passenger_out(p: Row) -> PassengerOut:
    """A passenger's profile from a row of `PASSENGER_COLUMNS`."""
    return PassengerOut(
        passenger_id=p["id"], person_id=p["person_id"], name=f"{p['first_name']} {p['last_name']}",
        first_name=p["first_name"], last_name=p["last_name"], email=p["email"], phone=p["phone"],
        organization_name=p["organization_name"], date_of_birth=p["date_of_birth"],
        loyalty_number=p["loyalty_number"], home_airport=p["home_airport"], member_since=p["member_since"],
    )


def _method_text(m: Row) -> str:
    if m["kind"] == "credit_card":
        return f"{(m['brand'] or 'card').title()} card ending {m['last4']}, expires {m['expiry_month']:02d}/{m['expiry_year']}"
    if m["kind"] == "gift_card":
        return f"Gift card ending {m['last4']}, balance ${m['balance']}"
    expiry = m["expires_at"].date().isoformat() if m["expires_at"] else "never"
    return f"Travel certificate ending {m['last4']}, balance ${m['balance']}, expires {expiry}"


def _method_problem(m: Row, now: datetime, amount: int) -> str | None:
    """Why `m` cannot pay `amount` now, or None when it can."""
    if m["kind"] == "credit_card":
        if (m["expiry_year"] or 0, m["expiry_month"] or 0) < (now.year, now.month):
            return f"card ending {m['last4']} expired {m['expiry_month']:02d}/{m['expiry_year']}"
        return None
    kind = m["kind"].replace("_", " ")
    if m["expires_at"] is not None and m["expires_at"] <= now:
        return f"{kind} ending {m['last4']} expired on {m['expires_at'].date()}"
    if (m["balance"] or 0) < amount:
        return f"{kind} ending {m['last4']} has a balance of ${m['balance']}, less than ${amount}"
    return None


def _method_out(m: Row, now: datetime) -> PaymentMethodOut:
    return PaymentMethodOut(
        payment_method_id=m["id"], passenger_id=m["passenger_id"], kind=m["kind"], description=_method_text(m),
        brand=m["brand"], last4=m["last4"], expiry_month=m["expiry_month"], expiry_year=m["expiry_year"],
        balance=m["balance"], expires_at=m["expires_at"], usable=_method_problem(m, now, 1) is None,
    )


def _charge(ctx: ToolContext, reservation: Row, method_id: int, amount: int, kind: str, text: str) -> None:
    """Take `amount` from one of the lead passenger's methods and record the payment."""
    method = row_or_raise(ctx, PaymentMethod, method_id, "payment method", METHOD_HINT)
    if method["passenger_id"] != reservation["passenger_id"]:
        raise ForbiddenError(f"payment method {method_id} belongs to another passenger; only the lead "
                             f"passenger's (id {reservation['passenger_id']}) methods can pay. {METHOD_HINT}")
    problem = _method_problem(method, ctx.now, amount)
    if problem is not None:
        raise ForbiddenError(f"{problem}; use another payment method or add_payment_method")
    if method["balance"] is not None:
        ctx.sql.update_row(PaymentMethod, method, {**method, "balance": method["balance"] - amount})
    ctx.sql.insert_row(Payment, dict(reservation_id=reservation["id"], payment_method_id=method_id, kind=kind,
                                  amount=amount, description=text, created_at=ctx.now))


def _reservation(ctx: ToolContext, pnr: str) -> Row:
    r = ctx.sql.one("SELECT * FROM reservations WHERE pnr = ?", [pnr.upper()], Reservation)
    if r is None:
        raise NotFoundError(f"no reservation with code {pnr.upper()}. {RESERVATION_HINT}")
    return r


def _rule(ctx: ToolContext, fare_class: str) -> Row:
    rule = ctx.sql.one("SELECT * FROM fare_classes WHERE code = ?", [fare_class], FareClass)
    assert rule is not None
    return rule


def _segments(ctx: ToolContext, r: Row) -> list[Row]:
    """A reservation's segments in travel order."""
    return ctx.sql.all("SELECT * FROM segments WHERE reservation_id = ? ORDER BY position, id", [r["id"]])


def _traveller_ids(ctx: ToolContext, r: Row) -> list[int]:
    """The passenger ids of a reservation, in the order they were added."""
    return ctx.sql.column("SELECT passenger_id FROM reservation_passengers WHERE reservation_id = ? ORDER BY id",
                          [r["id"]])


def _segment_status(r: Row, f: Row) -> str:
    if r["status"] == "cancelled":
        return "cancelled"
    return {"cancelled": "cancelled_by_airline", "landed": "flown"}.get(f["status"], f["status"])


def _reservation_out(ctx: ToolContext, r: Row) -> ReservationOut:
    """A reservation as stored now: travellers, legs with seats, and payments, in four statements."""
    travellers = [
        TravellerOut(passenger_id=t["id"], name=f"{t['first_name']} {t['last_name']}", email=t["email"],
                     checked_bags=t["checked_bags"])
        for t in ctx.sql.all(
            "SELECT passengers.id, passengers.first_name, passengers.last_name, passengers.email, "
            "reservation_passengers.checked_bags FROM reservation_passengers "
            "JOIN passengers ON passengers.id = reservation_passengers.passenger_id "
            "WHERE reservation_passengers.reservation_id = ? ORDER BY reservation_passengers.id", [r["id"]])
    ]
    legs = ctx.sql.all(
        f"SELECT segments.id AS segment_id, segments.position, segments.fare, {FLIGHT_COLUMNS} FROM segments "
        f"JOIN flights ON flights.id = segments.flight_id {ROUTE_JOINS} "
        "WHERE segments.reservation_id = ? ORDER BY segments.position, segments.id", [r["id"]], Flight)
    seats: dict[int, list[SeatOut]] = {leg["segment_id"]: [] for leg in legs}
    for a in ctx.sql.all("SELECT segment_id, passenger_id, seat FROM seat_assignments "
                         "WHERE segment_id IN (SELECT value FROM json_each(?)) ORDER BY passenger_id, id", [list(seats)]):
        seats[a["segment_id"]].append(SeatOut(passenger_id=a["passenger_id"], seat=a["seat"]))
    segments = [
        SegmentOut(position=leg["position"], flight=FlightSummary(**_summary_fields(leg)), fare=leg["fare"],
                   status=_segment_status(r, leg), seats=seats[leg["segment_id"]])
        for leg in legs
    ]
    payments = [
        PaymentOut(payment_id=p["payment_id"], payment_method_id=p["payment_method_id"], method=_method_text(p),
                   kind=p["payment_kind"], amount=p["amount"], description=p["description"], created_at=p["created_at"])
        for p in ctx.sql.all(
            "SELECT payments.id AS payment_id, payments.payment_method_id, payments.kind AS payment_kind, "
            "payments.amount, payments.description, payments.created_at, payment_methods.kind, "
            "payment_methods.brand, payment_methods.last4, payment_methods.expiry_month, "
            "payment_methods.expiry_year, payment_methods.balance, payment_methods.expires_at FROM payments "
            "JOIN payment_methods ON payment_methods.id = payments.payment_method_id "
            "WHERE payments.reservation_id = ? ORDER BY payments.created_at, payments.id", [r["id"]],
            (Payment, PaymentMethod))
    ]
    charged = sum(p.amount for p in payments if p.amount > 0)
    refunded = -sum(p.amount for p in payments if p.amount < 0)
    return ReservationOut(
        pnr=r["pnr"], status=r["status"], fare_class=r["fare_class"], cabin=FARE_CABINS[r["fare_class"]],
        lead_passenger_id=r["passenger_id"], passengers=travellers, segments=segments, payments=payments,
        total_charged=charged, total_refunded=refunded, net_paid=charged - refunded,
        created_at=r["created_at"], updated_at=r["updated_at"], cancelled_at=r["cancelled_at"],
    )


def _open_reservation(r: Row) -> None:
    if r["status"] == "cancelled":
        raise ForbiddenError(f"reservation {r['pnr']} was cancelled on {r['cancelled_at']:%Y-%m-%d} and can no longer change")
    if r["status"] == "flown":
        raise ForbiddenError(f"reservation {r['pnr']} has been flown and can no longer change")


def _traveller(ctx: ToolContext, r: Row, passenger_id: int) -> Row:
    t = ctx.sql.one("SELECT * FROM reservation_passengers WHERE reservation_id = ? AND passenger_id = ?",
                    [r["id"], passenger_id])
    if t is None:
        ids = ", ".join(str(x) for x in _traveller_ids(ctx, r))
        raise InvalidArgumentError(f"passenger {passenger_id} is not on reservation {r['pnr']}; its passengers are {ids}")
    return t


def _segment_of(r: Row, segments: Sequence[Row], flight_id: int) -> Row:
    for s in segments:
        if s["flight_id"] == flight_id:
            return s
    ids = ", ".join(str(s["flight_id"]) for s in segments)
    raise InvalidArgumentError(f"flight {flight_id} is not part of reservation {r['pnr']}; its flight ids are {ids}")


# ---------------------------------------------------------------- airports and network


@tools.tool(examples=[{"query": "international", "country": "United States", "per_page": 5}])
def find_airports(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="IATA code, or part of the airport name or city (case-insensitive).")] = None,
    country: Annotated[str | None, Field(description="Only airports in this country, e.g. 'Germany'.")] = None,
    hubs_only: Annotated[bool, Field(description="Only the airline's hubs.")] = False,
    page: Page = 1,
    per_page: PerPage = 25,
) -> AirportPage:
    """Find airports served by the airline by code, name, city or country, sorted by code."""
    clauses = ["1"]
    params: list[Any] = []
    if query:
        needle = query.strip().lower()
        clauses.append("(lower(code) = ? OR lower(name) LIKE ? ESCAPE '/' OR lower(city) LIKE ? ESCAPE '/')")
        params += [needle, contains_pattern(needle), contains_pattern(needle)]
    if country:
        clauses.append("lower(country) = ?")
        params.append(country.strip().lower())
    if hubs_only:
        clauses.append("is_hub = 1")
    found = ctx.sql.page("*", f"FROM airports WHERE {' AND '.join(clauses)} ORDER BY code, id", params, page,
                         per_page, Airport)
    return AirportPage(airports=[AirportOut(**a) for a in found.rows], total=found.total, page=page,
                       next_page=found.next_page)


@tools.tool(examples=[{"city": "Oxford", "country": "United Kingdom", "limit": 2}])
def nearest_airports(
    ctx: ToolContext,
    city: Annotated[str, Field(min_length=1, description="City name in English without accents, e.g. 'Zurich'.")],
    country: Annotated[str | None, Field(description="Country, to tell apart cities with the same name.")] = None,
    limit: Annotated[int, Field(ge=1, le=10, description="Most airports to return when the city has none of its own.")] = 3,
) -> NearestAirports:
    """Airports for a city: its own airports if it has any, else the nearest ones by distance."""
    clauses = ["lower(name) = ?"]
    params = [city.strip().lower()]
    if country:
        clauses.append("lower(country) = ?")
        params.append(country.strip().lower())
    matches = ctx.sql.all(f"SELECT * FROM cities WHERE {' AND '.join(clauses)} ORDER BY country, id", params)
    if not matches:
        raise NotFoundError(f"no city named {city!r}{' in ' + country if country else ''} in the city list. "
                            "Check the spelling (English names without accents), or use find_airports "
                            "with a country to list that country's airports.")
    if len(matches) > 1:
        options = "; ".join(f"{c['name']}, {c['country']}" for c in matches)
        raise InvalidArgumentError(f"several cities are named {city!r}: {options}. Give the country too.")
    place = matches[0]
    airports = ctx.sql.all("SELECT * FROM airports ORDER BY code, id", (), Airport)
    own = [a for a in airports if a["city"] == place["name"] and a["country"] == place["country"]]

    def distance(a: Row) -> float:
        return distance_km(place["latitude"], place["longitude"], a["latitude"], a["longitude"])

    ranked = sorted(own or airports, key=lambda a: (distance(a), a["code"]))
    chosen = ranked if own else ranked[:limit]
    return NearestAirports(
        city=place["name"], country=place["country"], has_own_airports=bool(own),
        airports=[NearbyAirport(code=a["code"], name=a["name"], city=a["city"], country=a["country"],
                                is_hub=a["is_hub"], distance_km=round(distance(a)))
                  for a in chosen],
    )


@tools.tool(examples=[{"origin": "ORD", "destination": "MIA"}])
def list_routes(
    ctx: ToolContext,
    origin: Annotated[AirportCode | None, Field(description="Only routes leaving this airport (IATA code).")] = None,
    destination: Annotated[AirportCode | None, Field(description="Only routes arriving at this airport (IATA code).")] = None,
) -> RouteList:
    """The nonstop routes of the network from and/or to an airport, with weekly schedule and aircraft."""
    if origin is None and destination is None:
        raise InvalidArgumentError("give origin, destination or both")
    clauses = ["1"]
    params: list[Any] = []
    if origin is not None:
        clauses.append("routes.origin_id = ?")
        params.append(_code(ctx, origin))
    if destination is not None:
        clauses.append("routes.destination_id = ?")
        params.append(_code(ctx, destination))
    days = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
    rows = ctx.sql.all(
        "SELECT routes.*, origins.code AS origin, destinations.code AS destination FROM routes "
        "JOIN airports AS origins ON origins.id = routes.origin_id "
        "JOIN airports AS destinations ON destinations.id = routes.destination_id "
        f"WHERE {' AND '.join(clauses)} ORDER BY routes.flight_number, routes.id", params)
    return RouteList(routes=[
        RouteOut(flight_number=r["flight_number"], origin=r["origin"], destination=r["destination"],
                 distance_km=r["distance_km"], duration_minutes=r["duration_minutes"], aircraft=r["aircraft"],
                 departure_time_local=r["departure_time"],
                 operating_days=[days[int(c) - 1] for c in r["operating_days"]])
        for r in rows
    ])


# ---------------------------------------------------------------- flights


def _legs(ctx: ToolContext, now: datetime, where: str, params: list[Any]) -> list[Row]:
    """Bookable flights (not departed, not cancelled) matching `where`, as rows of `FLIGHT_COLUMNS`,
    in departure order."""
    return ctx.sql.all(
        f"SELECT {FLIGHT_COLUMNS} FROM flights {ROUTE_JOINS} WHERE flights.status IN ('scheduled', 'delayed') "
        f"AND flights.scheduled_departure > ? AND {where} ORDER BY flights.scheduled_departure, flights.id",
        [now, *params], Flight)


def _itineraries(ctx: ToolContext, origin_id: int, destination_id: int, days: list[date],
                 max_stops: int, now: datetime) -> list[list[Row]]:
    firsts = _legs(ctx, now, "routes.origin_id = ? AND flights.departure_date IN (SELECT value FROM json_each(?))",
                   [origin_id, [day.isoformat() for day in days]])
    found = [[f] for f in firsts if f["destination_id"] == destination_id]
    onward = [f for f in firsts if f["destination_id"] != destination_id]
    if max_stops == 0 or not onward:
        return found
    shortest, longest = timedelta(minutes=MIN_CONNECTION_MINUTES), timedelta(minutes=MAX_CONNECTION_MINUTES)
    seconds = _legs(ctx, now, "routes.destination_id = ? AND routes.origin_id IN (SELECT value FROM json_each(?)) "
                    "AND flights.scheduled_departure BETWEEN ? AND ?",
                    [destination_id, _ids(f["destination_id"] for f in onward),
                     min(f["scheduled_arrival"] for f in onward) + shortest,
                     max(f["scheduled_arrival"] for f in onward) + longest])
    for first in onward:
        for second in seconds:
            gap = second["scheduled_departure"] - first["scheduled_arrival"]
            if second["origin_id"] == first["destination_id"] and shortest <= gap <= longest:
                found.append([first, second])
    return found


def _itinerary_out(legs: list[Row], cabin: str, booked: dict[tuple[int, str], int]) -> Itinerary:
    classes = [c for c, k in FARE_CABINS.items() if k == cabin]
    gaps = [int((b["scheduled_departure"] - a["scheduled_arrival"]).total_seconds() // 60) for a, b in zip(legs, legs[1:])]
    return Itinerary(
        segments=_summaries(legs), stops=len(legs) - 1, connection_minutes=gaps,
        departure=legs[0]["scheduled_departure"], arrival=legs[-1]["scheduled_arrival"],
        duration_minutes=int((legs[-1]["scheduled_arrival"] - legs[0]["scheduled_departure"]).total_seconds() // 60),
        fares={c: sum(_fares(f)[c] for f in legs) for c in classes},
        seats_left=min(_seats_left(f, booked)[cabin] for f in legs),
    )


@tools.tool(examples=[{"origin": "ORD", "destination": "MIA", "date": "2025-12-22", "max_stops": 0, "flexible_days": 1, "sort_by": "price"}])
def search_flights(
    ctx: ToolContext,
    origin: Annotated[AirportCode, Field(description="Departure airport, IATA code.")],
    destination: Annotated[AirportCode, Field(description="Arrival airport, IATA code.")],
    date: Annotated[date, Field(description="Local departure date at the origin, YYYY-MM-DD.")],
    cabin: Annotated[Cabin, Field(description="Cabin to price and check seats in.")] = "economy",
    passengers: Annotated[int, Field(ge=1, le=9, description="Seats needed; itineraries with fewer seats left are left out.")] = 1,
    max_stops: Annotated[Literal[0, 1], Field(description="0 for nonstop only, 1 to include one-stop connections.")] = 1,
    flexible_days: Annotated[int, Field(ge=0, le=3, description="Also search this many days before and after the date.")] = 0,
    sort_by: Annotated[Literal["departure", "price", "duration"], Field(description="Sort key; price is the cheapest fare of the cabin.")] = "departure",
    page: Page = 1,
    per_page: PerPage = 10,
) -> ItineraryPage:
    """Search bookable itineraries (nonstop and one-stop) between two airports on a date.

    Connections need 60 minutes to 20 hours between flights. Fares are per passenger, in USD,
    for each fare class of the cabin. Only flights not yet departed and not cancelled are offered.
    """
    origin_id, destination_id = _code(ctx, origin), _code(ctx, destination)
    if origin_id == destination_id:
        raise InvalidArgumentError("origin and destination are the same airport")
    days = [date + timedelta(days=k) for k in range(-flexible_days, flexible_days + 1)]
    if max(days) < ctx.now.date():
        raise InvalidArgumentError(f"{date} is in the past (today is {ctx.now.date()}); "
                                   "use list_flights to look up flights that already operated")
    found = _itineraries(ctx, origin_id, destination_id, days, max_stops, ctx.now)
    booked = _booked(ctx, {f["id"] for legs in found for f in legs})
    options = [_itinerary_out(legs, cabin, booked) for legs in found]
    options = [i for i in options if i.seats_left >= passengers]
    keys = {"departure": lambda i: (i.departure, i.duration_minutes),
            "price": lambda i: (min(i.fares.values()), i.departure),
            "duration": lambda i: (i.duration_minutes, i.departure)}
    options.sort(key=lambda i: (*keys[sort_by](i), [s.flight_id for s in i.segments]))
    offset, limit = page_slice(page, per_page)
    return ItineraryPage(cabin=cabin, itineraries=options[offset:offset + limit], total=len(options),
                         page=page, next_page=next_page(page, per_page, len(options)))


@tools.tool(examples=[{"origin": "MIA", "destination": "ORD", "departure_after": "2025-12-26T00:00:00Z", "departure_before": "2026-01-05T00:00:00Z", "status": ["scheduled"]}])
def list_flights(
    ctx: ToolContext,
    flight_number: Annotated[str | None, Field(description="Flight number, e.g. 'MR101'.")] = None,
    origin: Annotated[AirportCode | None, Field(description="Departure airport, IATA code.")] = None,
    destination: Annotated[AirportCode | None, Field(description="Arrival airport, IATA code.")] = None,
    departure_after: Annotated[DateTimeArg | None, Field(description="Only flights scheduled to depart at or after this time (ISO 8601, UTC).")] = None,
    departure_before: Annotated[DateTimeArg | None, Field(description="Only flights scheduled to depart strictly before this time (ISO 8601, UTC).")] = None,
    status: Annotated[list[FlightStatus] | None, Field(description="Only flights with one of these statuses.")] = None,
    sort_order: Annotated[Literal["asc", "desc"], Field(description="By scheduled departure.")] = "asc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> FlightPage:
    """List operated and scheduled flights with their status, fares and seats left.

    The schedule holds every flight from 92 days ago to 92 days ahead; older flights are
    kept only when a reservation includes them.
    """
    if departure_after and departure_before and departure_after >= departure_before:
        raise InvalidArgumentError("departure_after must be earlier than departure_before")
    clauses = ["1"]
    params: list[Any] = []
    if flight_number:
        clauses.append("flights.flight_number = ?")
        params.append(flight_number.replace(" ", "").upper())
    if origin:
        clauses.append("routes.origin_id = ?")
        params.append(_code(ctx, origin))
    if destination:
        clauses.append("routes.destination_id = ?")
        params.append(_code(ctx, destination))
    if departure_after:
        clauses.append("flights.scheduled_departure >= ?")
        params.append(departure_after)
    if departure_before:
        clauses.append("flights.scheduled_departure < ?")
        params.append(departure_before)
    if status:
        clauses.append("flights.status IN (SELECT value FROM json_each(?))")
        params.append(status)
    direction = "ASC" if sort_order == "asc" else "DESC"
    found = ctx.sql.page("flights.id", f"FROM flights JOIN routes ON routes.id = flights.route_id "
                         f"WHERE {' AND '.join(clauses)} ORDER BY flights.scheduled_departure {direction}, flights.id",
                         params, page, per_page)
    flights = _flights(ctx, [row["id"] for row in found.rows])
    return FlightPage(flights=_details(ctx, [flights[row["id"]] for row in found.rows]), total=found.total, page=page,
                      next_page=found.next_page)


@tools.tool(examples=[{"flight_id": 10153}])
def get_flight(ctx: ToolContext, flight_id: FlightId) -> FlightDetail:
    """Get one flight: route, UTC and local times, status and delay, fares and seats left per cabin."""
    return _details(ctx, [_flight(ctx, flight_id)])[0]


@tools.tool(examples=[{"flight_id": 10153, "cabin": "economy"}])
def get_seat_map(
    ctx: ToolContext,
    flight_id: FlightId,
    cabin: Annotated[Cabin | None, Field(description="Only this cabin; both when omitted.")] = None,
) -> SeatMap:
    """The seat map of a flight: per row, which seat letters are free and which are taken."""
    f = _flight(ctx, flight_id)
    taken = set(ctx.sql.column("SELECT seat FROM seat_assignments WHERE flight_id = ?", [f["id"]]))
    booked = _booked(ctx, [f["id"]])
    cabins = []
    for name in (cabin,) if cabin else ("business", "economy"):
        rows: dict[int, SeatRow] = {}
        for seat in _cabin_seats(f["aircraft"], name):
            number = int(seat[:-1])
            row = rows.get(number)
            if row is None:
                row = rows[number] = SeatRow(row=number, available=[], taken=[])
            (row.taken if seat in taken else row.available).append(seat[-1])
        capacity = _capacity(f["aircraft"])[name]
        cabins.append(CabinMap(cabin=name, capacity=capacity, passengers_booked=booked[(f["id"], name)],
                               seats_left=_seats_left(f, booked)[name],
                               seats_assigned=sum(len(r.taken) for r in rows.values()), rows=list(rows.values())))
    return SeatMap(flight_id=f["id"], flight_number=f["flight_number"], aircraft=f["aircraft"], cabins=cabins)


@tools.tool(examples=[{}])
def get_fare_rules(ctx: ToolContext) -> FareRules:
    """The fare classes and their rules: changes, refunds, checked bags and seat selection."""
    rules = [FareRule(fare_class=r["code"], name=r["name"], cabin=r["cabin"], changes_allowed=r["changeable"],
                      change_fee=r["change_fee"], refund=r["refund"], cancellation_fee=r["cancellation_fee"],
                      free_checked_bags=r["free_bags"], bag_fee=r["bag_fee"], seat_selection=r["seat_selection"])
             for r in ctx.sql.all("SELECT * FROM fare_classes ORDER BY id", (), FareClass)]
    notes = [
        f"Any reservation cancelled within {FREE_CANCELLATION_HOURS} hours of booking is refunded in full to the original payment.",
        "If the airline cancels a flight, changing it is free for every fare class and cancelling refunds in full.",
        "A change also charges any increase in fare; a lower new fare is not refunded.",
        f"Travel credits are issued as travel certificates valid {CREDIT_VALID_DAYS} days.",
        f"At most {MAX_BAGS_PER_PASSENGER} checked bags per passenger; bags are added before the first flight departs.",
        "Flights that have departed, and reservations that are cancelled or flown, cannot be changed.",
    ]
    return FareRules(fare_classes=rules, notes=notes)


# ---------------------------------------------------------------- passengers


@tools.tool(examples=[{"email": "karen.walton@griffinllc.com"}])
def get_passenger_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, description="The passenger's email address (case-insensitive).")],
) -> PassengerOut:
    """Look up a passenger profile by email: name, organisation, loyalty number and home airport."""
    p = ctx.sql.one(f"SELECT {PASSENGER_COLUMNS} FROM {PASSENGER_TABLES} WHERE lower(passengers.email) = ? "
                    "ORDER BY passengers.id LIMIT 1", [email.strip().lower()], Passenger)
    if p is None:
        raise NotFoundError(f"no passenger with email {email.strip()}. Use search_passengers to search by name.")
    return _passenger_out(p)


@tools.tool(examples=[{"query": "walton", "organization": "griffin"}])
def search_passengers(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name, email or loyalty number (case-insensitive).")] = None,
    organization: Annotated[str | None, Field(description="Part of the passenger's organisation name.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> PassengerPage:
    """Find passengers by name, email, loyalty number or organisation, sorted by last name."""
    clauses = ["1"]
    params: list[Any] = []
    if query:
        clauses.append("(lower(first_name || ' ' || last_name) LIKE ? ESCAPE '/' OR lower(email) LIKE ? ESCAPE '/' "
                       "OR lower(loyalty_number) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 3
    if organization:
        clauses.append("organization_id IN (SELECT id FROM organizations WHERE lower(name) LIKE ? ESCAPE '/')")
        params.append(contains_pattern(organization.strip().lower()))
    found = ctx.sql.page("id", f"FROM passengers WHERE {' AND '.join(clauses)} ORDER BY last_name, first_name, id",
                         params, page, per_page)
    profiles = {p["id"]: p for p in ctx.sql.all(
        f"SELECT {PASSENGER_COLUMNS} FROM {PASSENGER_TABLES} WHERE passengers.id IN (SELECT value FROM json_each(?))",
        [[row["id"] for row in found.rows]], Passenger)}
    return PassengerPage(passengers=[_passenger_out(profiles[row["id"]]) for row in found.rows], total=found.total,
                         page=page, next_page=found.next_page)


@tools.tool(examples=[{"passenger_id": 239}])
def list_payment_methods(ctx: ToolContext, passenger_id: PassengerId) -> PaymentMethodList:
    """A passenger's credit cards, gift cards and travel certificates, with balances and whether each is usable."""
    _passenger(ctx, passenger_id)
    methods = ctx.sql.all("SELECT * FROM payment_methods WHERE passenger_id = ? ORDER BY id", [passenger_id],
                          PaymentMethod)
    return PaymentMethodList(passenger_id=passenger_id, payment_methods=[_method_out(m, ctx.now) for m in methods])


@tools.tool(writes=True, destructive=False, idempotent=True, title="Add a payment method", examples=[{"passenger_id": 239, "brand": "visa", "last4": "4242", "expiry_month": 8, "expiry_year": 2028}])
def add_payment_method(
    ctx: ToolContext,
    passenger_id: PassengerId,
    brand: Annotated[Literal["visa", "mastercard", "amex"], Field(description="Card network.")],
    last4: Annotated[str, Field(pattern=r"^\d{4}$", description="Last 4 digits of the card number.")],
    expiry_month: Annotated[int, Field(ge=1, le=12, description="Expiry month, 1-12.")],
    expiry_year: Annotated[int, Field(ge=2000, le=2100, description="Expiry year, 4 digits.")],
) -> PaymentMethodOut:
    """Add a credit card to a passenger's payment methods; expired or duplicate cards are refused."""
    _passenger(ctx, passenger_id)
    if (expiry_year, expiry_month) < (ctx.now.year, ctx.now.month):
        raise ForbiddenError(f"the card expired {expiry_month:02d}/{expiry_year}; ask for a card that is still valid")
    same = ctx.sql.scalar(
        "SELECT id FROM payment_methods WHERE passenger_id = ? AND kind = 'credit_card' AND brand = ? AND last4 = ? "
        "AND expiry_month = ? AND expiry_year = ? ORDER BY id LIMIT 1",
        [passenger_id, brand, last4, expiry_month, expiry_year])
    if same is not None:
        raise ForbiddenError(f"this card is already on file as payment method {same}")
    method: Row = dict(passenger_id=passenger_id, kind="credit_card", brand=brand, last4=last4,
                       expiry_month=expiry_month, expiry_year=expiry_year, balance=None, expires_at=None,
                       issued_for_reservation_id=None, created_at=ctx.now)
    method_id = ctx.sql.insert_row(PaymentMethod, method)
    return _method_out({**method, "id": method_id}, ctx.now)


# ---------------------------------------------------------------- quotes and booking


def _quote_out(q: Row, flights: Mapping[int, Row], now: datetime) -> QuoteOut:
    """A quote from its row (with the `reservation_pnr` it was used for, if any) and its flights by id."""
    pnr = q["reservation_pnr"]
    status = "used" if pnr else ("expired" if q["expires_at"] <= now else "open")
    return QuoteOut(
        quote_id=q["id"], lead_passenger_id=q["passenger_id"], passenger_ids=list(q["passenger_ids"]),
        fare_class=q["fare_class"], cabin=FARE_CABINS[q["fare_class"]],
        segments=_summaries([flights[i] for i in q["flight_ids"] if i in flights]),
        price_per_passenger=q["price_per_passenger"], total=q["total"], created_at=q["created_at"],
        expires_at=q["expires_at"], status=status, reservation_pnr=pnr,
    )


def _quote(ctx: ToolContext, quote_id: int) -> Row:
    """A quote's row with the PNR of the reservation it was used for (`reservation_pnr`, or None)."""
    q = ctx.sql.one("SELECT quotes.*, reservations.pnr AS reservation_pnr FROM quotes "
                    "LEFT JOIN reservations ON reservations.id = quotes.reservation_id WHERE quotes.id = ?",
                    [quote_id], Quote)
    if q is None:
        raise missing("quote", quote_id, QUOTE_HINT)
    return q


def _check_connections(flights: Sequence[Row]) -> None:
    for a, b in zip(flights, flights[1:]):
        if a["destination_id"] != b["origin_id"]:
            raise InvalidArgumentError(f"flight {b['id']} does not leave from where flight {a['id']} arrives; "
                                       "list the flights in travel order")
        if b["scheduled_departure"] < a["scheduled_arrival"] + timedelta(minutes=MIN_CONNECTION_MINUTES):
            raise ForbiddenError(f"flight {b['id']} leaves less than {MIN_CONNECTION_MINUTES} minutes after "
                                 f"flight {a['id']} arrives; pick a later flight")


@tools.tool(writes=True, destructive=False, idempotent=False, title="Price an itinerary", examples=[{"flight_ids": [9032, 9099], "fare_class": "business", "passenger_ids": [318, 219]}])
def price_itinerary(
    ctx: ToolContext,
    flight_ids: Annotated[list[int], Field(min_length=1, max_length=6, description="Flight ids in travel order; a round trip lists the outbound then the return flights.")],
    fare_class: Annotated[FareCode, Field(description="Fare class for every flight (see get_fare_rules).")],
    passenger_ids: Annotated[list[int], Field(min_length=1, max_length=9, description="Passenger ids; the first is the lead passenger, who pays.")],
) -> QuoteOut:
    """Price an itinerary for some passengers and hold the price as a quote for 30 minutes.

    Returns the quote id and the exact total (USD) that book_reservation must be paid with.
    """
    if len(set(passenger_ids)) != len(passenger_ids):
        raise InvalidArgumentError("a passenger is listed twice")
    if len(set(flight_ids)) != len(flight_ids):
        raise InvalidArgumentError("a flight is listed twice")
    known = set(ctx.sql.column("SELECT id FROM passengers WHERE id IN (SELECT value FROM json_each(?))",
                               [_ids(passenger_ids)]))
    for pid in passenger_ids:
        if pid not in known:
            raise _lookup_error(pid, "passenger", PASSENGER_HINT)
    flights = _flights_in_order(ctx, flight_ids)
    for f in flights:
        _check_bookable(f, ctx.now)
    _check_connections(flights)
    _check_seats(ctx, flights, FARE_CABINS[fare_class], len(passenger_ids))
    price = sum(_fares(f)[fare_class] for f in flights)
    q: Row = dict(passenger_id=passenger_ids[0], passenger_ids=list(passenger_ids), flight_ids=list(flight_ids),
                  fare_class=fare_class, price_per_passenger=price, total=price * len(passenger_ids),
                  created_at=ctx.now, expires_at=ctx.now + timedelta(minutes=QUOTE_VALID_MINUTES), reservation_id=None)
    quote_id = ctx.sql.insert_row(Quote, q)
    return _quote_out({**q, "id": quote_id, "reservation_pnr": None}, {f["id"]: f for f in flights}, ctx.now)


@tools.tool(examples=[{"quote_id": 1}])
def get_quote(ctx: ToolContext, quote_id: Annotated[int, Field(description="The quote's id from price_itinerary.")]) -> QuoteOut:
    """Get a quote: its flights, passengers, total, expiry and whether it was used."""
    q = _quote(ctx, quote_id)
    return _quote_out(q, _flights(ctx, q["flight_ids"]), ctx.now)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Book a flight reservation", examples=[{"quote_id": 108, "payments": [{"payment_method_id": 295, "amount": 299}]}])
def book_reservation(
    ctx: ToolContext,
    quote_id: Annotated[int, Field(description="An open quote from price_itinerary.")],
    payments: Annotated[list[PaymentIn], Field(min_length=1, max_length=3, description="How to pay: amounts per payment method of the lead passenger, summing exactly to the quote's total.")],
) -> ReservationOut:
    """Book a quoted itinerary and pay for it; returns the new reservation with its PNR.

    Cards must not be expired; gift cards and travel certificates need enough balance.
    """
    q = _quote(ctx, quote_id)
    if q["reservation_id"] is not None:
        raise ForbiddenError(f"quote {quote_id} was already used for reservation {q['reservation_pnr'] or '?'}")
    if q["expires_at"] <= ctx.now:
        raise ForbiddenError(f"quote {quote_id} expired at {q['expires_at']:%Y-%m-%dT%H:%M:%SZ}; "
                             "call price_itinerary again for a current price")
    ids = [p.payment_method_id for p in payments]
    if len(set(ids)) != len(ids):
        raise InvalidArgumentError("a payment method is listed twice; give one amount per method")
    paid = sum(p.amount for p in payments)
    if paid != q["total"]:
        raise InvalidArgumentError(f"payments add up to ${paid} but the quote's total is ${q['total']}; pay exactly the total")
    flights = _flights_in_order(ctx, q["flight_ids"])
    for f in flights:
        _check_bookable(f, ctx.now)
    _check_seats(ctx, flights, FARE_CABINS[q["fare_class"]], len(q["passenger_ids"]))
    _check_not_double_booked(ctx, flights, q["passenger_ids"])
    rid = (ctx.sql.scalar("SELECT max(id) FROM reservations") or 0) + 1
    r: Row = dict(id=rid, pnr=pnr_for(rid), passenger_id=q["passenger_id"], fare_class=q["fare_class"],
                  status="booked", created_at=ctx.now, updated_at=ctx.now, cancelled_at=None)
    ctx.sql.insert_row(Reservation, r)
    # One statement each for the travellers and the legs, inserted in the quote's order.
    ctx.sql.execute("INSERT INTO reservation_passengers (reservation_id, passenger_id, checked_bags) "
                    "SELECT ?, value, 0 FROM json_each(?) ORDER BY key", [rid, list(q["passenger_ids"])])
    ctx.sql.execute("INSERT INTO segments (reservation_id, position, flight_id, fare) "
                    "SELECT ?, key + 1, json_extract(value, '$[0]'), json_extract(value, '$[1]') "
                    "FROM json_each(?) ORDER BY key", [rid, [[f["id"], _fares(f)[q["fare_class"]]] for f in flights]])
    text = f"Fare: {len(q['passenger_ids'])} passenger(s) x ${q['price_per_passenger']}"
    for p in payments:
        _charge(ctx, r, p.payment_method_id, p.amount, "fare", text)
    ctx.sql.execute("UPDATE quotes SET reservation_id = ? WHERE id = ?", [rid, quote_id])
    return _reservation_out(ctx, r)


# ---------------------------------------------------------------- reservations


@tools.tool(examples=[{"pnr": "U6LCXG"}])
def get_reservation(ctx: ToolContext, pnr: Pnr) -> ReservationOut:
    """Get a reservation by PNR: passengers and bags, flights with seats, payments and refunds."""
    return _reservation_out(ctx, _reservation(ctx, pnr))


def _reservation_summaries(ctx: ToolContext, reservations: list[Row]) -> list[ReservationSummary]:
    """Summaries of a page of reservations; their legs (with airports) and traveller counts are
    read in one statement each, whatever the page's size."""
    if not reservations:
        return []
    ids = [r["id"] for r in reservations]
    legs: dict[int, list[Row]] = {i: [] for i in ids}
    for leg in ctx.sql.all(
        "SELECT segments.reservation_id, flights.scheduled_departure, flights.scheduled_arrival, "
        "origins.code AS origin, destinations.code AS destination FROM segments "
        f"JOIN flights ON flights.id = segments.flight_id {ROUTE_JOINS} "
        "WHERE segments.reservation_id IN (SELECT value FROM json_each(?)) "
        "ORDER BY segments.reservation_id, segments.position, segments.id", [ids], Flight):
        legs[leg["reservation_id"]].append(leg)
    counts = {row["reservation_id"]: row["n"] for row in ctx.sql.all(
        "SELECT reservation_id, count(*) AS n FROM reservation_passengers "
        "WHERE reservation_id IN (SELECT value FROM json_each(?)) GROUP BY reservation_id", [ids])}
    summaries = []
    for r in reservations:
        itinerary: list[str] = []
        for leg in legs[r["id"]]:
            for code in (leg["origin"], leg["destination"]):
                if not itinerary or itinerary[-1] != code:
                    itinerary.append(code)
        flights = legs[r["id"]]
        summaries.append(ReservationSummary(
            pnr=r["pnr"], status=r["status"], fare_class=r["fare_class"], lead_passenger_id=r["passenger_id"],
            itinerary="-".join(itinerary), first_departure=flights[0]["scheduled_departure"],
            last_arrival=flights[-1]["scheduled_arrival"], passenger_count=counts.get(r["id"], 0),
            created_at=r["created_at"],
        ))
    return summaries


@tools.tool(examples=[{"passenger_id": 239, "status": ["booked"]}])
def list_passenger_reservations(
    ctx: ToolContext,
    passenger_id: PassengerId,
    status: Annotated[list[ReservationStatus] | None, Field(description="Only reservations with one of these statuses.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> ReservationPage:
    """Reservations a passenger travels on (as lead or companion), newest booking first."""
    _passenger(ctx, passenger_id)
    where = "id IN (SELECT reservation_id FROM reservation_passengers WHERE passenger_id = ?)"
    params: list[Any] = [passenger_id]
    if status:
        where += " AND status IN (SELECT value FROM json_each(?))"
        params.append(status)
    found = ctx.sql.page("*", f"FROM reservations WHERE {where} ORDER BY created_at DESC, id DESC", params, page,
                         per_page, Reservation)
    return ReservationPage(reservations=_reservation_summaries(ctx, found.rows), total=found.total, page=page,
                           next_page=found.next_page)


@tools.tool(examples=[{"passenger_id": 239, "start": "2025-01-01T00:00:00Z", "end": "2025-11-01T00:00:00Z"}])
def passenger_travel_summary(
    ctx: ToolContext,
    passenger_id: PassengerId,
    start: Annotated[DateTimeArg | None, Field(description="Period start, inclusive (ISO 8601, UTC); from the beginning when omitted.")] = None,
    end: Annotated[DateTimeArg | None, Field(description="Period end, exclusive (ISO 8601, UTC); up to now when omitted.")] = None,
) -> TravelSummary:
    """A passenger's travel and spend over a period: reservations, flights and km flown, money paid and refunded."""
    p = _passenger(ctx, passenger_id)
    start = start or datetime(1970, 1, 1)
    end = end or ctx.now
    if start >= end:
        raise InvalidArgumentError("start must be earlier than end")
    counts = {s: 0 for s in ("booked", "cancelled", "flown")}
    for row in ctx.sql.all(
        "SELECT status, count(*) AS n FROM reservations WHERE id IN "
        "(SELECT reservation_id FROM reservation_passengers WHERE passenger_id = ?) "
        "AND created_at >= ? AND created_at < ? GROUP BY status", [passenger_id, start, end]):
        counts[row["status"]] = row["n"]
    # Joined from the passenger's own reservations (one row each: the pair is unique), so that
    # every table is read by its key rather than scanning all landed flights.
    flown = ctx.sql.one(
        "SELECT count(*) AS flights, coalesce(sum(routes.distance_km), 0) AS km FROM reservation_passengers "
        "JOIN reservations ON reservations.id = reservation_passengers.reservation_id "
        "JOIN segments ON segments.reservation_id = reservations.id "
        "JOIN flights ON flights.id = segments.flight_id JOIN routes ON routes.id = flights.route_id "
        "WHERE reservation_passengers.passenger_id = ? AND reservations.status != 'cancelled' "
        "AND flights.status = 'landed' AND flights.scheduled_departure >= ? AND flights.scheduled_departure < ?",
        [passenger_id, start, end])
    paid = ctx.sql.one(
        "SELECT coalesce(sum(CASE WHEN payments.amount > 0 THEN payments.amount END), 0) AS charged, "
        "coalesce(-sum(CASE WHEN payments.amount < 0 THEN payments.amount END), 0) AS refunded FROM payments "
        "JOIN reservations ON reservations.id = payments.reservation_id "
        "WHERE reservations.passenger_id = ? AND payments.created_at >= ? AND payments.created_at < ?",
        [passenger_id, start, end])
    assert flown is not None and paid is not None
    return TravelSummary(passenger_id=p["id"], name=f"{p['first_name']} {p['last_name']}", reservations=counts,
                         flights_flown=flown["flights"], distance_flown_km=flown["km"],
                         amount_charged=paid["charged"], amount_refunded=paid["refunded"],
                         net_spend=paid["charged"] - paid["refunded"])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Change a reservation's flights", examples=[{"pnr": "U6LCXG", "old_flight_id": 10153, "new_flight_id": 10387, "payment_method_id": 375}])
def change_flight(
    ctx: ToolContext,
    pnr: Pnr,
    old_flight_id: Annotated[int, Field(description="The reservation's flight to replace.")],
    new_flight_id: Annotated[int, Field(description="The replacement flight: same origin and destination, not yet departed.")],
    payment_method_id: Annotated[int | None, Field(description="Lead passenger's payment method for the fee and fare difference; needed when the change costs money.")] = None,
) -> ChangeResult:
    """Move every passenger of a reservation from one of its flights to another flight on the same route.

    Applies the fare rules: basic fares cannot change; standard pays the change fee; all fares pay
    any fare increase. Free when the airline cancelled the old flight. Seats on the old flight are released.
    """
    before = _reservation(ctx, pnr)
    _open_reservation(before)
    segments = _segments(ctx, before)
    segment = _segment_of(before, segments, old_flight_id)
    flights = _flights(ctx, [old_flight_id, new_flight_id, *(s["flight_id"] for s in segments)])
    old = _pick(flights, old_flight_id, "flight", FLIGHT_HINT)
    new = _pick(flights, new_flight_id, "flight", FLIGHT_HINT)
    if _departed(old, ctx.now):
        raise ForbiddenError(f"flight {old['flight_number']} (id {old['id']}) has already departed; it cannot be changed")
    rule = _rule(ctx, before["fare_class"])
    airline_cancelled = old["status"] == "cancelled"
    if not rule["changeable"] and not airline_cancelled:
        raise ForbiddenError(f"{rule['name']} fares cannot be changed; the reservation can only be cancelled "
                             "(see get_fare_rules)")
    if new["id"] == old["id"]:
        raise InvalidArgumentError("the new flight is the same as the old one")
    if (new["origin_id"], new["destination_id"]) != (old["origin_id"], old["destination_id"]):
        raise ForbiddenError("the new flight must fly the same origin and destination as the old one; "
                             "to go elsewhere, cancel and book a new reservation")
    _check_bookable(new, ctx.now)
    earlier = [flights[s["flight_id"]] for s in segments if s["position"] < segment["position"]][-1:]
    later = [flights[s["flight_id"]] for s in segments if s["position"] > segment["position"]][:1]
    _check_connections([*earlier, new, *later])
    passenger_ids = _traveller_ids(ctx, before)
    _check_seats(ctx, [new], FARE_CABINS[before["fare_class"]], len(passenger_ids))
    _check_not_double_booked(ctx, [new], passenger_ids)
    new_fare = _fares(new)[before["fare_class"]]
    fee = 0 if airline_cancelled else rule["change_fee"]
    difference = 0 if airline_cancelled else max(0, new_fare - segment["fare"])
    amount = (fee + difference) * len(passenger_ids)
    if amount > 0:
        if payment_method_id is None:
            raise InvalidArgumentError(f"this change costs ${amount} (change fee ${fee} + fare difference "
                                       f"${difference}, per passenger x {len(passenger_ids)}); give payment_method_id")
        _charge(ctx, before, payment_method_id, amount, "change",
                f"Change {old['flight_number']} {old['departure_date']} -> {new['flight_number']} {new['departure_date']}: "
                f"fee ${fee} + fare difference ${difference}, x {len(passenger_ids)}")
    ctx.sql.execute("DELETE FROM seat_assignments WHERE segment_id = ?", [segment["id"]])
    ctx.sql.update_row(Segment, segment, {**segment, "flight_id": new["id"], "fare": segment["fare"] + difference})
    r = {**before, "updated_at": ctx.now}
    ctx.sql.update_row(Reservation, before, r)
    return ChangeResult(reservation=_reservation_out(ctx, r), change_fee_per_passenger=fee,
                        fare_difference_per_passenger=difference, amount_charged=amount)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Choose a seat", examples=[{"pnr": "U6LCXG", "flight_id": 10153, "passenger_id": 239, "seat": "14C"}])
def select_seat(
    ctx: ToolContext,
    pnr: Pnr,
    flight_id: Annotated[int, Field(description="One of the reservation's flights.")],
    passenger_id: Annotated[int, Field(description="A passenger on the reservation.")],
    seat: Annotated[str, Field(pattern=r"^\d{1,2}[A-Ka-k]$", description="Seat like '14C' (row then letter), in the reservation's cabin.")],
) -> SeatResult:
    """Assign a free seat on one flight of a reservation to one of its passengers (replacing their seat)."""
    r = _reservation(ctx, pnr)
    _open_reservation(r)
    segment = _segment_of(r, _segments(ctx, r), flight_id)
    _traveller(ctx, r, passenger_id)
    f = _flight(ctx, flight_id)
    if f["status"] == "cancelled":
        raise ForbiddenError(f"flight {f['flight_number']} (id {f['id']}) was cancelled by the airline; use change_flight first")
    if _departed(f, ctx.now):
        raise ForbiddenError(f"flight {f['flight_number']} (id {f['id']}) has already departed")
    rule = _rule(ctx, r["fare_class"])
    if not rule["seat_selection"]:
        raise ForbiddenError(f"{rule['name']} fares do not include seat selection; seats are assigned at check-in")
    seat = seat.upper()
    cabin = cabin_of_seat(f["aircraft"], seat)
    if cabin is None:
        raise NotFoundError(f"seat {seat} does not exist on this {f['aircraft']}; use get_seat_map to see the seats")
    if cabin != FARE_CABINS[r["fare_class"]]:
        raise ForbiddenError(f"seat {seat} is in {cabin}, but the reservation is in {FARE_CABINS[r['fare_class']]}")
    holder = ctx.sql.scalar("SELECT id FROM seat_assignments WHERE flight_id = ? AND seat = ?", [f["id"], seat])
    mine = ctx.sql.one("SELECT * FROM seat_assignments WHERE segment_id = ? AND passenger_id = ?",
                       [segment["id"], passenger_id])
    if holder is not None and (mine is None or holder != mine["id"]):
        raise ForbiddenError(f"seat {seat} on flight {f['flight_number']} is taken; use get_seat_map to find a free seat")
    if mine is None:
        ctx.sql.insert_row(SeatAssignment, dict(segment_id=segment["id"], passenger_id=passenger_id, flight_id=f["id"],
                                              seat=seat))
    else:
        ctx.sql.update_row(SeatAssignment, mine, {**mine, "seat": seat})
    ctx.sql.update_row(Reservation, r, {**r, "updated_at": ctx.now})
    return SeatResult(pnr=r["pnr"], flight_id=f["id"], passenger_id=passenger_id, seat=seat,
                      previous_seat=mine["seat"] if mine else None)


@tools.tool(writes=True, destructive=True, idempotent=False, title="Add checked bags", examples=[{"pnr": "U6LCXG", "passenger_id": 239, "bags": 1, "payment_method_id": 375}])
def add_baggage(
    ctx: ToolContext,
    pnr: Pnr,
    passenger_id: Annotated[int, Field(description="A passenger on the reservation.")],
    bags: Annotated[int, Field(ge=1, le=MAX_BAGS_PER_PASSENGER, description="Checked bags to add for this passenger.")],
    payment_method_id: Annotated[int | None, Field(description="Lead passenger's payment method; needed when the bags are not free.")] = None,
) -> BaggageResult:
    """Add checked bags for one passenger for the whole trip; bags beyond the fare's free allowance cost the fare's bag fee each."""
    r = _reservation(ctx, pnr)
    _open_reservation(r)
    traveller = _traveller(ctx, r, passenger_id)
    first = ctx.sql.one("SELECT flights.* FROM segments JOIN flights ON flights.id = segments.flight_id "
                        "WHERE segments.reservation_id = ? ORDER BY segments.position, segments.id LIMIT 1",
                        [r["id"]], Flight)
    assert first is not None
    if _departed(first, ctx.now):
        raise ForbiddenError(f"the trip started with flight {first['flight_number']}; "
                             "bags must be added before the first flight departs")
    had = traveller["checked_bags"]
    total = had + bags
    if total > MAX_BAGS_PER_PASSENGER:
        raise ForbiddenError(f"passenger {passenger_id} already has {had} bag(s); "
                             f"at most {MAX_BAGS_PER_PASSENGER} per passenger")
    rule = _rule(ctx, r["fare_class"])
    paid_bags = sum(1 for i in range(had, total) if i >= rule["free_bags"])
    fee = paid_bags * rule["bag_fee"]
    if fee > 0:
        if payment_method_id is None:
            raise InvalidArgumentError(f"{paid_bags} bag(s) cost ${fee} (${rule['bag_fee']} each); give payment_method_id")
        _charge(ctx, r, payment_method_id, fee, "baggage",
                f"{paid_bags} checked bag(s) x ${rule['bag_fee']} for passenger {passenger_id}")
    ctx.sql.update_row(ReservationPassenger, traveller, {**traveller, "checked_bags": total})
    ctx.sql.update_row(Reservation, r, {**r, "updated_at": ctx.now})
    return BaggageResult(pnr=r["pnr"], passenger_id=passenger_id, checked_bags=total,
                         free_checked_bags=rule["free_bags"], fee_charged=fee)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Cancel a flight reservation", examples=[{"pnr": "T58HAG"}])
def cancel_reservation(ctx: ToolContext, pnr: Pnr) -> CancelResult:
    """Cancel a whole reservation before its first flight departs and refund it per the fare rules.

    Full refund to the original payment methods for flex and business fares, within 24 hours of
    booking, or when the airline cancelled a flight; standard fares get a travel certificate of
    the amount paid minus the cancellation fee per passenger; basic fares get nothing back.
    """
    before = _reservation(ctx, pnr)
    _open_reservation(before)
    flights = ctx.sql.all("SELECT flights.* FROM segments JOIN flights ON flights.id = segments.flight_id "
                          "WHERE segments.reservation_id = ? ORDER BY segments.position, segments.id",
                          [before["id"]], Flight)
    if any(_departed(f, ctx.now) for f in flights):
        raise ForbiddenError(f"part of reservation {before['pnr']} has already departed; it cannot be cancelled")
    rule = _rule(ctx, before["fare_class"])
    party = ctx.sql.scalar("SELECT count(*) FROM reservation_passengers WHERE reservation_id = ?", [before["id"]])
    # What each payment method paid net of earlier refunds, with its balance now.
    paid_by = [row for row in ctx.sql.all(
        "SELECT payment_methods.id, payment_methods.balance, sum(payments.amount) AS net FROM payments "
        "JOIN payment_methods ON payment_methods.id = payments.payment_method_id WHERE payments.reservation_id = ? "
        "GROUP BY payment_methods.id ORDER BY payment_methods.id", [before["id"]]) if row["net"] > 0]
    full = (ctx.now - before["created_at"] <= timedelta(hours=FREE_CANCELLATION_HOURS)
            or rule["refund"] == "original_payment" or any(f["status"] == "cancelled" for f in flights))
    refund_to, amount, fee, credit_id = "none", 0, 0, None
    if full:
        refund_to = "original_payment"
        for method in paid_by:
            if method["balance"] is not None:
                ctx.sql.update_row(PaymentMethod, method, {**method, "balance": method["balance"] + method["net"]})
            ctx.sql.insert_row(Payment, dict(reservation_id=before["id"], payment_method_id=method["id"], kind="refund",
                                          amount=-method["net"], description="Refund to original payment",
                                          created_at=ctx.now))
            amount += method["net"]
    elif rule["refund"] == "travel_credit":
        refund_to, fee = "travel_credit", rule["cancellation_fee"] * party
        amount = max(0, sum(method["net"] for method in paid_by) - fee)
        if amount > 0:
            credit_id = ctx.sql.insert_row(PaymentMethod, dict(
                passenger_id=before["passenger_id"], kind="travel_certificate", brand=None,
                last4=f"{before['id']:04d}"[-4:], expiry_month=None, expiry_year=None, balance=amount,
                expires_at=ctx.now + timedelta(days=CREDIT_VALID_DAYS), issued_for_reservation_id=before["id"],
                created_at=ctx.now))
            ctx.sql.insert_row(Payment, dict(reservation_id=before["id"], payment_method_id=credit_id, kind="refund",
                                          amount=-amount, description=f"Travel credit after ${fee} cancellation fee",
                                          created_at=ctx.now))
    ctx.sql.execute("DELETE FROM seat_assignments WHERE segment_id IN (SELECT id FROM segments WHERE reservation_id = ?)",
                    [before["id"]])
    r = {**before, "status": "cancelled", "cancelled_at": ctx.now, "updated_at": ctx.now}
    ctx.sql.update_row(Reservation, before, r)
    return CancelResult(reservation=_reservation_out(ctx, r), refund_amount=amount, refund_to=refund_to,
                        travel_credit_payment_method_id=credit_id, cancellation_fee=fee)
