"""The airline tools: find airports and flights, price and book trips, and service reservations."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import ColumnElement, delete, func, or_, select
from sqlalchemy.orm import Session

from mcpgym.servers.flights.data import cabin_of_seat, cabin_seats, distance_km
from mcpgym.servers.flights.models import (
    CREDIT_VALID_DAYS,
    FARE_CABINS,
    FREE_CANCELLATION_HOURS,
    MAX_CONNECTION_MINUTES,
    MIN_CONNECTION_MINUTES,
    QUOTE_VALID_MINUTES,
    Airport,
    City,
    FareClass,
    Flight,
    Organization,
    Passenger,
    Payment,
    PaymentMethod,
    Quote,
    Reservation,
    ReservationPassenger,
    Route,
    SeatAssignment,
    Segment,
    pnr_for,
)
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import (
    DateTimeArg,
    Page,
    PerPage,
    Timestamp,
    next_page,
    page_slice,
)
from mcpgym.servers.kernel.lookup import get_or_raise
from mcpgym.servers.kernel.query import contains_text, fetch_page
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


def _code(ctx: ToolContext, code: str) -> Airport:
    airport = ctx.db.scalar(select(Airport).where(Airport.code == code.upper()))
    if airport is None:
        raise NotFoundError(f"no airport with code {code.upper()}. {AIRPORT_HINT}")
    return airport


def _airport_out(a: Airport) -> AirportOut:
    return AirportOut(code=a.code, name=a.name, city=a.city, country=a.country, latitude=a.latitude,
                      longitude=a.longitude, timezone=a.timezone, is_hub=a.is_hub)


def _local(t: datetime, timezone: str) -> str:
    return t.replace(tzinfo=UTC).astimezone(ZoneInfo(timezone)).isoformat()


def _flight(ctx: ToolContext, flight_id: int) -> Flight:
    return get_or_raise(ctx, Flight, flight_id, "flight", FLIGHT_HINT)


def _summaries(db: Session, flights: list[Flight]) -> list[FlightSummary]:
    """Summaries of `flights`, their routes and airports read in two statements."""
    routes = {r.id: r for r in db.scalars(select(Route).where(Route.id.in_({f.route_id for f in flights})))}
    ends = {r.origin_id for r in routes.values()} | {r.destination_id for r in routes.values()}
    airports = {a.id: a for a in db.scalars(select(Airport).where(Airport.id.in_(ends)))}
    summaries = []
    for f in flights:
        route = routes[f.route_id]
        origin, destination = airports[route.origin_id], airports[route.destination_id]
        summaries.append(FlightSummary(
            flight_id=f.id, flight_number=f.flight_number, origin=origin.code, destination=destination.code,
            departure_date=f.departure_date, scheduled_departure=f.scheduled_departure,
            scheduled_arrival=f.scheduled_arrival, departure_local=_local(f.scheduled_departure, origin.timezone),
            arrival_local=_local(f.scheduled_arrival, destination.timezone),
            duration_minutes=route.duration_minutes, aircraft=f.aircraft, status=f.status,
            delay_minutes=f.delay_minutes,
        ))
    return summaries


def _capacity(aircraft: str) -> dict[str, int]:
    return {cabin: len(cabin_seats(aircraft, cabin)) for cabin in ("economy", "business")}


def _booked(db: Session, flight_ids: list[int]) -> dict[tuple[int, str], int]:
    """Passengers on active reservations per (flight id, cabin)."""
    rows = db.execute(
        select(Segment.flight_id, Reservation.fare_class, func.count(ReservationPassenger.id))
        .join(Reservation, Reservation.id == Segment.reservation_id)
        .join(ReservationPassenger, ReservationPassenger.reservation_id == Reservation.id)
        .where(Segment.flight_id.in_(flight_ids), Reservation.status != "cancelled")
        .group_by(Segment.flight_id, Reservation.fare_class)
    )
    booked: dict[tuple[int, str], int] = defaultdict(int)
    for flight_id, fare_class, n in rows:
        booked[(flight_id, FARE_CABINS[fare_class])] += n
    return booked


def _seats_left(f: Flight, booked: dict[tuple[int, str], int]) -> dict[str, int]:
    return {cabin: max(0, n - booked[(f.id, cabin)]) for cabin, n in _capacity(f.aircraft).items()}


def _fares(f: Flight) -> dict[str, int]:
    return {"basic": f.fare_basic, "standard": f.fare_standard, "flex": f.fare_flex, "business": f.fare_business}


def _details(db: Session, flights: list[Flight]) -> list[FlightDetail]:
    booked = _booked(db, [f.id for f in flights])
    return [
        FlightDetail(**summary.model_dump(), fares=_fares(f), seats_left=_seats_left(f, booked),
                     capacity=_capacity(f.aircraft))
        for f, summary in zip(flights, _summaries(db, flights))
    ]


def _departed(f: Flight, now: datetime) -> bool:
    return f.status in ("departed", "landed") or f.scheduled_departure + timedelta(minutes=f.delay_minutes) <= now


def _check_bookable(f: Flight, now: datetime) -> None:
    if f.status == "cancelled":
        raise ForbiddenError(f"flight {f.flight_number} on {f.departure_date} (id {f.id}) is cancelled; "
                             "use search_flights to find another flight")
    if _departed(f, now):
        raise ForbiddenError(f"flight {f.flight_number} on {f.departure_date} (id {f.id}) has already departed")


def _check_seats(db: Session, flights: list[Flight], cabin: str, party: int) -> None:
    booked = _booked(db, [f.id for f in flights])
    for f in flights:
        left = _seats_left(f, booked)[cabin]
        if left < party:
            raise ForbiddenError(f"flight {f.flight_number} on {f.departure_date} has only {left} {cabin} "
                                 f"seat(s) left for {party} passenger(s); overbooking is not allowed")


def _check_not_double_booked(db: Session, flights: list[Flight], passenger_ids: list[int]) -> None:
    clash = db.execute(
        select(Reservation.pnr, ReservationPassenger.passenger_id, Segment.flight_id)
        .join(Segment, Segment.reservation_id == Reservation.id)
        .join(ReservationPassenger, ReservationPassenger.reservation_id == Reservation.id)
        .where(Segment.flight_id.in_([f.id for f in flights]),
               ReservationPassenger.passenger_id.in_(passenger_ids), Reservation.status != "cancelled")
        .order_by(Reservation.pnr)
    ).first()
    if clash is not None:
        pnr, passenger_id, flight_id = clash
        raise ForbiddenError(f"passenger {passenger_id} is already booked on flight {flight_id} "
                             f"in reservation {pnr}")


def _passenger(ctx: ToolContext, passenger_id: int) -> Passenger:
    return get_or_raise(ctx, Passenger, passenger_id, "passenger", PASSENGER_HINT)


def _passenger_out(db: Session, p: Passenger) -> PassengerOut:
    org, home = db.get(Organization, p.organization_id), db.get(Airport, p.home_airport_id)
    assert org is not None and home is not None
    return PassengerOut(
        passenger_id=p.id, person_id=p.person_id, name=p.name, first_name=p.first_name,
        last_name=p.last_name, email=p.email, phone=p.phone, organization_name=org.name,
        date_of_birth=p.date_of_birth, loyalty_number=p.loyalty_number, home_airport=home.code,
        member_since=p.member_since,
    )


def _method_text(m: PaymentMethod) -> str:
    if m.kind == "credit_card":
        return f"{(m.brand or 'card').title()} card ending {m.last4}, expires {m.expiry_month:02d}/{m.expiry_year}"
    if m.kind == "gift_card":
        return f"Gift card ending {m.last4}, balance ${m.balance}"
    expiry = m.expires_at.date().isoformat() if m.expires_at else "never"
    return f"Travel certificate ending {m.last4}, balance ${m.balance}, expires {expiry}"


def _method_problem(m: PaymentMethod, now: datetime, amount: int) -> str | None:
    """Why `m` cannot pay `amount` now, or None when it can."""
    if m.kind == "credit_card":
        if (m.expiry_year or 0, m.expiry_month or 0) < (now.year, now.month):
            return f"card ending {m.last4} expired {m.expiry_month:02d}/{m.expiry_year}"
        return None
    if m.expires_at is not None and m.expires_at <= now:
        return f"{m.kind.replace('_', ' ')} ending {m.last4} expired on {m.expires_at.date()}"
    if (m.balance or 0) < amount:
        return f"{m.kind.replace('_', ' ')} ending {m.last4} has a balance of ${m.balance}, less than ${amount}"
    return None


def _method_out(m: PaymentMethod, now: datetime) -> PaymentMethodOut:
    return PaymentMethodOut(
        payment_method_id=m.id, passenger_id=m.passenger_id, kind=m.kind, description=_method_text(m),
        brand=m.brand, last4=m.last4, expiry_month=m.expiry_month, expiry_year=m.expiry_year,
        balance=m.balance, expires_at=m.expires_at, usable=_method_problem(m, now, 1) is None,
    )


def _charge(ctx: ToolContext, reservation: Reservation, method_id: int, amount: int, kind: str, text: str) -> None:
    """Take `amount` from one of the lead passenger's methods and record the payment."""
    method = get_or_raise(ctx, PaymentMethod, method_id, "payment method", METHOD_HINT)
    if method.passenger_id != reservation.passenger_id:
        raise ForbiddenError(f"payment method {method_id} belongs to another passenger; only the lead "
                             f"passenger's (id {reservation.passenger_id}) methods can pay. {METHOD_HINT}")
    problem = _method_problem(method, ctx.now, amount)
    if problem is not None:
        raise ForbiddenError(f"{problem}; use another payment method or add_payment_method")
    if method.balance is not None:
        method.balance -= amount
    ctx.db.add(Payment(reservation_id=reservation.id, payment_method_id=method.id, kind=kind,
                       amount=amount, description=text, created_at=ctx.now))


def _reservation(ctx: ToolContext, pnr: str) -> Reservation:
    r = ctx.db.scalar(select(Reservation).where(Reservation.pnr == pnr.upper()))
    if r is None:
        raise NotFoundError(f"no reservation with code {pnr.upper()}. {RESERVATION_HINT}")
    return r


def _rule(db: Session, fare_class: str) -> FareClass:
    rule = db.scalar(select(FareClass).where(FareClass.code == fare_class))
    assert rule is not None
    return rule


def _segments(db: Session, r: Reservation) -> list[Segment]:
    return list(db.scalars(select(Segment).where(Segment.reservation_id == r.id).order_by(Segment.position)))


def _travellers(db: Session, r: Reservation) -> list[ReservationPassenger]:
    return list(db.scalars(select(ReservationPassenger).where(ReservationPassenger.reservation_id == r.id)
                           .order_by(ReservationPassenger.id)))


def _segment_status(r: Reservation, f: Flight) -> str:
    if r.status == "cancelled":
        return "cancelled"
    return {"cancelled": "cancelled_by_airline", "landed": "flown"}.get(f.status, f.status)


def _reservation_out(db: Session, r: Reservation) -> ReservationOut:
    travellers = [
        TravellerOut(passenger_id=p.id, name=p.name, email=p.email, checked_bags=t.checked_bags)
        for t, p in db.execute(select(ReservationPassenger, Passenger)
                               .join(Passenger, Passenger.id == ReservationPassenger.passenger_id)
                               .where(ReservationPassenger.reservation_id == r.id).order_by(ReservationPassenger.id))
    ]
    legs = list(db.execute(select(Segment, Flight).join(Flight, Flight.id == Segment.flight_id)
                           .where(Segment.reservation_id == r.id).order_by(Segment.position)).all())
    seats: dict[int, list[SeatOut]] = {s.id: [] for s, _ in legs}
    for a in db.scalars(select(SeatAssignment).where(SeatAssignment.segment_id.in_(list(seats)))
                        .order_by(SeatAssignment.passenger_id)):
        seats[a.segment_id].append(SeatOut(passenger_id=a.passenger_id, seat=a.seat))
    summaries = _summaries(db, [f for _, f in legs])
    segments = [
        SegmentOut(position=s.position, flight=summary, fare=s.fare, status=_segment_status(r, f), seats=seats[s.id])
        for (s, f), summary in zip(legs, summaries)
    ]
    payments = []
    rows = db.execute(select(Payment, PaymentMethod).join(PaymentMethod, PaymentMethod.id == Payment.payment_method_id)
                      .where(Payment.reservation_id == r.id).order_by(Payment.created_at, Payment.id))
    for p, m in rows:
        payments.append(PaymentOut(payment_id=p.id, payment_method_id=m.id, method=_method_text(m), kind=p.kind,
                                   amount=p.amount, description=p.description, created_at=p.created_at))
    charged = sum(p.amount for p in payments if p.amount > 0)
    refunded = -sum(p.amount for p in payments if p.amount < 0)
    return ReservationOut(
        pnr=r.pnr, status=r.status, fare_class=r.fare_class, cabin=FARE_CABINS[r.fare_class],
        lead_passenger_id=r.passenger_id, passengers=travellers, segments=segments, payments=payments,
        total_charged=charged, total_refunded=refunded, net_paid=charged - refunded,
        created_at=r.created_at, updated_at=r.updated_at, cancelled_at=r.cancelled_at,
    )


def _open_reservation(r: Reservation) -> None:
    if r.status == "cancelled":
        raise ForbiddenError(f"reservation {r.pnr} was cancelled on {r.cancelled_at:%Y-%m-%d} and can no longer change")
    if r.status == "flown":
        raise ForbiddenError(f"reservation {r.pnr} has been flown and can no longer change")


def _traveller(db: Session, r: Reservation, passenger_id: int) -> ReservationPassenger:
    t = db.scalar(select(ReservationPassenger).where(ReservationPassenger.reservation_id == r.id,
                                                     ReservationPassenger.passenger_id == passenger_id))
    if t is None:
        ids = ", ".join(str(x.passenger_id) for x in _travellers(db, r))
        raise InvalidArgumentError(f"passenger {passenger_id} is not on reservation {r.pnr}; its passengers are {ids}")
    return t


def _segment_of(db: Session, r: Reservation, flight_id: int) -> Segment:
    segments = _segments(db, r)
    for s in segments:
        if s.flight_id == flight_id:
            return s
    ids = ", ".join(str(s.flight_id) for s in segments)
    raise InvalidArgumentError(f"flight {flight_id} is not part of reservation {r.pnr}; its flight ids are {ids}")


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
    clauses: list[ColumnElement[bool]] = []
    if query:
        clauses.append(or_(func.lower(Airport.code) == query.strip().lower(),
                           contains_text(query, Airport.name, Airport.city)))
    if country:
        clauses.append(func.lower(Airport.country) == country.strip().lower())
    if hubs_only:
        clauses.append(Airport.is_hub.is_(True))
    statement = select(Airport).where(*clauses).order_by(Airport.code)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return AirportPage(airports=[_airport_out(a) for a in rows], total=total, page=page, next_page=following)


@tools.tool(examples=[{"city": "Oxford", "country": "United Kingdom", "limit": 2}])
def nearest_airports(
    ctx: ToolContext,
    city: Annotated[str, Field(min_length=1, description="City name in English without accents, e.g. 'Zurich'.")],
    country: Annotated[str | None, Field(description="Country, to tell apart cities with the same name.")] = None,
    limit: Annotated[int, Field(ge=1, le=10, description="Most airports to return when the city has none of its own.")] = 3,
) -> NearestAirports:
    """Airports for a city: its own airports if it has any, else the nearest ones by distance."""
    clauses = [func.lower(City.name) == city.strip().lower()]
    if country:
        clauses.append(func.lower(City.country) == country.strip().lower())
    matches = list(ctx.db.scalars(select(City).where(*clauses).order_by(City.country)))
    if not matches:
        raise NotFoundError(f"no city named {city!r}{' in ' + country if country else ''} in the city list. "
                            "Check the spelling (English names without accents), or use find_airports "
                            "with a country to list that country's airports.")
    if len(matches) > 1:
        options = "; ".join(f"{c.name}, {c.country}" for c in matches)
        raise InvalidArgumentError(f"several cities are named {city!r}: {options}. Give the country too.")
    place = matches[0]
    airports = list(ctx.db.scalars(select(Airport).order_by(Airport.code)))
    own = [a for a in airports if a.city == place.name and a.country == place.country]
    ranked = sorted(own or airports,
                    key=lambda a: (distance_km(place.latitude, place.longitude, a.latitude, a.longitude), a.code))
    chosen = ranked if own else ranked[:limit]
    return NearestAirports(
        city=place.name, country=place.country, has_own_airports=bool(own),
        airports=[NearbyAirport(code=a.code, name=a.name, city=a.city, country=a.country, is_hub=a.is_hub,
                                distance_km=round(distance_km(place.latitude, place.longitude, a.latitude, a.longitude)))
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
    clauses: list[ColumnElement[bool]] = []
    if origin is not None:
        clauses.append(Route.origin_id == _code(ctx, origin).id)
    if destination is not None:
        clauses.append(Route.destination_id == _code(ctx, destination).id)
    days = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
    routes = []
    for r in ctx.db.scalars(select(Route).where(*clauses).order_by(Route.flight_number)):
        o, d = ctx.db.get(Airport, r.origin_id), ctx.db.get(Airport, r.destination_id)
        assert o is not None and d is not None
        routes.append(RouteOut(flight_number=r.flight_number, origin=o.code, destination=d.code,
                               distance_km=r.distance_km, duration_minutes=r.duration_minutes, aircraft=r.aircraft,
                               departure_time_local=r.departure_time,
                               operating_days=[days[int(c) - 1] for c in r.operating_days]))
    return RouteList(routes=routes)


# ---------------------------------------------------------------- flights


def _legs(db: Session, now: datetime, *clauses: ColumnElement[bool]) -> list[tuple[Flight, Route]]:
    """Bookable flights (not departed, not cancelled) matching `clauses`, with their routes."""
    stmt = (select(Flight, Route).join(Route, Route.id == Flight.route_id)
            .where(Flight.status.in_(("scheduled", "delayed")), Flight.scheduled_departure > now, *clauses)
            .order_by(Flight.scheduled_departure, Flight.id))
    return [(f, r) for f, r in db.execute(stmt).all()]


def _itineraries(db: Session, origin: Airport, destination: Airport, days: list[date],
                 max_stops: int, now: datetime) -> list[list[Flight]]:
    firsts = _legs(db, now, Route.origin_id == origin.id, Flight.departure_date.in_(days))
    found = [[f] for f, r in firsts if r.destination_id == destination.id]
    onward = [(f, r) for f, r in firsts if r.destination_id != destination.id]
    if max_stops == 0 or not onward:
        return found
    shortest, longest = timedelta(minutes=MIN_CONNECTION_MINUTES), timedelta(minutes=MAX_CONNECTION_MINUTES)
    seconds = _legs(db, now, Route.destination_id == destination.id,
                    Route.origin_id.in_(sorted({r.destination_id for _, r in onward})),
                    Flight.scheduled_departure.between(min(f.scheduled_arrival for f, _ in onward) + shortest,
                                                       max(f.scheduled_arrival for f, _ in onward) + longest))
    for first, first_route in onward:
        for second, second_route in seconds:
            gap = second.scheduled_departure - first.scheduled_arrival
            if second_route.origin_id == first_route.destination_id and shortest <= gap <= longest:
                found.append([first, second])
    return found


def _itinerary_out(db: Session, legs: list[Flight], cabin: str, booked: dict[tuple[int, str], int]) -> Itinerary:
    classes = [c for c, k in FARE_CABINS.items() if k == cabin]
    gaps = [int((b.scheduled_departure - a.scheduled_arrival).total_seconds() // 60) for a, b in zip(legs, legs[1:])]
    return Itinerary(
        segments=_summaries(db, legs), stops=len(legs) - 1, connection_minutes=gaps,
        departure=legs[0].scheduled_departure, arrival=legs[-1].scheduled_arrival,
        duration_minutes=int((legs[-1].scheduled_arrival - legs[0].scheduled_departure).total_seconds() // 60),
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
    o, d = _code(ctx, origin), _code(ctx, destination)
    if o.id == d.id:
        raise InvalidArgumentError("origin and destination are the same airport")
    days = [date + timedelta(days=k) for k in range(-flexible_days, flexible_days + 1)]
    if max(days) < ctx.now.date():
        raise InvalidArgumentError(f"{date} is in the past (today is {ctx.now.date()}); "
                                   "use list_flights to look up flights that already operated")
    found = _itineraries(ctx.db, o, d, days, max_stops, ctx.now)
    booked = _booked(ctx.db, sorted({f.id for legs in found for f in legs}))
    options = [_itinerary_out(ctx.db, legs, cabin, booked) for legs in found]
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
    clauses: list[ColumnElement[bool]] = []
    if flight_number:
        clauses.append(Flight.flight_number == flight_number.replace(" ", "").upper())
    if origin:
        clauses.append(Route.origin_id == _code(ctx, origin).id)
    if destination:
        clauses.append(Route.destination_id == _code(ctx, destination).id)
    if departure_after:
        clauses.append(Flight.scheduled_departure >= departure_after)
    if departure_before:
        clauses.append(Flight.scheduled_departure < departure_before)
    if status:
        clauses.append(Flight.status.in_(status))
    order = Flight.scheduled_departure.asc() if sort_order == "asc" else Flight.scheduled_departure.desc()
    statement = select(Flight).join(Route, Route.id == Flight.route_id).where(*clauses).order_by(order, Flight.id)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return FlightPage(flights=_details(ctx.db, rows), total=total, page=page, next_page=following)


@tools.tool(examples=[{"flight_id": 10153}])
def get_flight(ctx: ToolContext, flight_id: FlightId) -> FlightDetail:
    """Get one flight: route, UTC and local times, status and delay, fares and seats left per cabin."""
    return _details(ctx.db, [_flight(ctx, flight_id)])[0]


@tools.tool(examples=[{"flight_id": 10153, "cabin": "economy"}])
def get_seat_map(
    ctx: ToolContext,
    flight_id: FlightId,
    cabin: Annotated[Cabin | None, Field(description="Only this cabin; both when omitted.")] = None,
) -> SeatMap:
    """The seat map of a flight: per row, which seat letters are free and which are taken."""
    f = _flight(ctx, flight_id)
    taken = set(ctx.db.scalars(select(SeatAssignment.seat).where(SeatAssignment.flight_id == f.id)))
    booked = _booked(ctx.db, [f.id])
    cabins = []
    for name in (cabin,) if cabin else ("business", "economy"):
        rows: dict[int, SeatRow] = {}
        for seat in cabin_seats(f.aircraft, name):
            row = rows.setdefault(int(seat[:-1]), SeatRow(row=int(seat[:-1]), available=[], taken=[]))
            (row.taken if seat in taken else row.available).append(seat[-1])
        capacity = _capacity(f.aircraft)[name]
        cabins.append(CabinMap(cabin=name, capacity=capacity, passengers_booked=booked[(f.id, name)],
                               seats_left=_seats_left(f, booked)[name],
                               seats_assigned=sum(len(r.taken) for r in rows.values()), rows=list(rows.values())))
    return SeatMap(flight_id=f.id, flight_number=f.flight_number, aircraft=f.aircraft, cabins=cabins)


@tools.tool(examples=[{}])
def get_fare_rules(ctx: ToolContext) -> FareRules:
    """The fare classes and their rules: changes, refunds, checked bags and seat selection."""
    rules = [FareRule(fare_class=r.code, name=r.name, cabin=r.cabin, changes_allowed=r.changeable,
                      change_fee=r.change_fee, refund=r.refund, cancellation_fee=r.cancellation_fee,
                      free_checked_bags=r.free_bags, bag_fee=r.bag_fee, seat_selection=r.seat_selection)
             for r in ctx.db.scalars(select(FareClass).order_by(FareClass.id))]
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
    p = ctx.db.scalar(select(Passenger).where(func.lower(Passenger.email) == email.strip().lower()))
    if p is None:
        raise NotFoundError(f"no passenger with email {email.strip()}. Use search_passengers to search by name.")
    return _passenger_out(ctx.db, p)


@tools.tool(examples=[{"query": "walton", "organization": "griffin"}])
def search_passengers(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name, email or loyalty number (case-insensitive).")] = None,
    organization: Annotated[str | None, Field(description="Part of the passenger's organisation name.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> PassengerPage:
    """Find passengers by name, email, loyalty number or organisation, sorted by last name."""
    clauses: list[ColumnElement[bool]] = []
    if query:
        clauses.append(contains_text(query, Passenger.first_name + " " + Passenger.last_name, Passenger.email,
                                     Passenger.loyalty_number))
    if organization:
        clauses.append(Passenger.organization_id.in_(
            select(Organization.id).where(contains_text(organization, Organization.name))))
    statement = select(Passenger).where(*clauses).order_by(Passenger.last_name, Passenger.first_name, Passenger.id)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return PassengerPage(passengers=[_passenger_out(ctx.db, p) for p in rows], total=total, page=page,
                         next_page=following)


@tools.tool(examples=[{"passenger_id": 239}])
def list_payment_methods(ctx: ToolContext, passenger_id: PassengerId) -> PaymentMethodList:
    """A passenger's credit cards, gift cards and travel certificates, with balances and whether each is usable."""
    _passenger(ctx, passenger_id)
    methods = ctx.db.scalars(select(PaymentMethod).where(PaymentMethod.passenger_id == passenger_id)
                             .order_by(PaymentMethod.id))
    return PaymentMethodList(passenger_id=passenger_id, payment_methods=[_method_out(m, ctx.now) for m in methods])


@tools.tool(writes=True, examples=[{"passenger_id": 239, "brand": "visa", "last4": "4242", "expiry_month": 8, "expiry_year": 2028}])
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
    same = ctx.db.scalar(select(PaymentMethod).where(
        PaymentMethod.passenger_id == passenger_id, PaymentMethod.kind == "credit_card", PaymentMethod.brand == brand,
        PaymentMethod.last4 == last4, PaymentMethod.expiry_month == expiry_month,
        PaymentMethod.expiry_year == expiry_year))
    if same is not None:
        raise ForbiddenError(f"this card is already on file as payment method {same.id}")
    method = PaymentMethod(passenger_id=passenger_id, kind="credit_card", brand=brand, last4=last4,
                           expiry_month=expiry_month, expiry_year=expiry_year, balance=None, expires_at=None,
                           issued_for_reservation_id=None, created_at=ctx.now)
    ctx.db.add(method)
    ctx.db.flush()
    return _method_out(method, ctx.now)


# ---------------------------------------------------------------- quotes and booking


def _quote_out(ctx: ToolContext, q: Quote) -> QuoteOut:
    flights = [ctx.db.get(Flight, i) for i in q.flight_ids]
    pnr = None
    if q.reservation_id is not None:
        r = ctx.db.get(Reservation, q.reservation_id)
        pnr = r.pnr if r else None
    status = "used" if pnr else ("expired" if q.expires_at <= ctx.now else "open")
    return QuoteOut(
        quote_id=q.id, lead_passenger_id=q.passenger_id, passenger_ids=list(q.passenger_ids),
        fare_class=q.fare_class, cabin=FARE_CABINS[q.fare_class],
        segments=_summaries(ctx.db, [f for f in flights if f is not None]),
        price_per_passenger=q.price_per_passenger, total=q.total, created_at=q.created_at,
        expires_at=q.expires_at, status=status, reservation_pnr=pnr,
    )


def _ends(db: Session, f: Flight) -> tuple[int, int]:
    route = db.get(Route, f.route_id)
    assert route is not None
    return route.origin_id, route.destination_id


def _check_connections(flights: list[Flight], db: Session) -> None:
    for a, b in zip(flights, flights[1:]):
        if _ends(db, a)[1] != _ends(db, b)[0]:
            raise InvalidArgumentError(f"flight {b.id} does not leave from where flight {a.id} arrives; "
                                       "list the flights in travel order")
        if b.scheduled_departure < a.scheduled_arrival + timedelta(minutes=MIN_CONNECTION_MINUTES):
            raise ForbiddenError(f"flight {b.id} leaves less than {MIN_CONNECTION_MINUTES} minutes after "
                                 f"flight {a.id} arrives; pick a later flight")


@tools.tool(writes=True, examples=[{"flight_ids": [9032, 9099], "fare_class": "business", "passenger_ids": [318, 219]}])
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
    for pid in passenger_ids:
        _passenger(ctx, pid)
    flights = [_flight(ctx, i) for i in flight_ids]
    for f in flights:
        _check_bookable(f, ctx.now)
    _check_connections(flights, ctx.db)
    _check_seats(ctx.db, flights, FARE_CABINS[fare_class], len(passenger_ids))
    price = sum(_fares(f)[fare_class] for f in flights)
    quote = Quote(passenger_id=passenger_ids[0], passenger_ids=list(passenger_ids), flight_ids=list(flight_ids),
                  fare_class=fare_class, price_per_passenger=price, total=price * len(passenger_ids),
                  created_at=ctx.now, expires_at=ctx.now + timedelta(minutes=QUOTE_VALID_MINUTES),
                  reservation_id=None)
    ctx.db.add(quote)
    ctx.db.flush()
    return _quote_out(ctx, quote)


@tools.tool(examples=[{"quote_id": 1}])
def get_quote(ctx: ToolContext, quote_id: Annotated[int, Field(description="The quote's id from price_itinerary.")]) -> QuoteOut:
    """Get a quote: its flights, passengers, total, expiry and whether it was used."""
    return _quote_out(ctx, get_or_raise(ctx, Quote, quote_id, "quote", QUOTE_HINT))


@tools.tool(writes=True, examples=[{"quote_id": 108, "payments": [{"payment_method_id": 295, "amount": 299}]}])
def book_reservation(
    ctx: ToolContext,
    quote_id: Annotated[int, Field(description="An open quote from price_itinerary.")],
    payments: Annotated[list[PaymentIn], Field(min_length=1, max_length=3, description="How to pay: amounts per payment method of the lead passenger, summing exactly to the quote's total.")],
) -> ReservationOut:
    """Book a quoted itinerary and pay for it; returns the new reservation with its PNR.

    Cards must not be expired; gift cards and travel certificates need enough balance.
    """
    quote = get_or_raise(ctx, Quote, quote_id, "quote", QUOTE_HINT)
    if quote.reservation_id is not None:
        used = ctx.db.get(Reservation, quote.reservation_id)
        raise ForbiddenError(f"quote {quote_id} was already used for reservation {used.pnr if used else '?'}")
    if quote.expires_at <= ctx.now:
        raise ForbiddenError(f"quote {quote_id} expired at {quote.expires_at:%Y-%m-%dT%H:%M:%SZ}; "
                             "call price_itinerary again for a current price")
    ids = [p.payment_method_id for p in payments]
    if len(set(ids)) != len(ids):
        raise InvalidArgumentError("a payment method is listed twice; give one amount per method")
    paid = sum(p.amount for p in payments)
    if paid != quote.total:
        raise InvalidArgumentError(f"payments add up to ${paid} but the quote's total is ${quote.total}; pay exactly the total")
    flights = [_flight(ctx, i) for i in quote.flight_ids]
    for f in flights:
        _check_bookable(f, ctx.now)
    _check_seats(ctx.db, flights, FARE_CABINS[quote.fare_class], len(quote.passenger_ids))
    _check_not_double_booked(ctx.db, flights, list(quote.passenger_ids))
    rid = (ctx.db.scalar(select(func.max(Reservation.id))) or 0) + 1
    r = Reservation(id=rid, pnr=pnr_for(rid), passenger_id=quote.passenger_id, fare_class=quote.fare_class,
                    status="booked", created_at=ctx.now, updated_at=ctx.now, cancelled_at=None)
    ctx.db.add(r)
    ctx.db.add_all([ReservationPassenger(reservation_id=rid, passenger_id=p, checked_bags=0) for p in quote.passenger_ids])
    ctx.db.add_all([Segment(reservation_id=rid, position=i, flight_id=f.id, fare=_fares(f)[quote.fare_class])
                    for i, f in enumerate(flights, start=1)])
    ctx.db.flush()
    text = f"Fare: {len(quote.passenger_ids)} passenger(s) x ${quote.price_per_passenger}"
    for p in payments:
        _charge(ctx, r, p.payment_method_id, p.amount, "fare", text)
    quote.reservation_id = rid
    return _reservation_out(ctx.db, r)


# ---------------------------------------------------------------- reservations


@tools.tool(examples=[{"pnr": "U6LCXG"}])
def get_reservation(ctx: ToolContext, pnr: Pnr) -> ReservationOut:
    """Get a reservation by PNR: passengers and bags, flights with seats, payments and refunds."""
    return _reservation_out(ctx.db, _reservation(ctx, pnr))


def _reservation_summaries(db: Session, reservations: list[Reservation]) -> list[ReservationSummary]:
    """Summaries of a page of reservations; their legs, airports and traveller counts are read
    in one statement each, whatever the page's size."""
    if not reservations:
        return []
    ids = [r.id for r in reservations]
    legs: dict[int, list[tuple[Flight, int, int]]] = {i: [] for i in ids}
    for reservation_id, flight, origin_id, destination_id in db.execute(
        select(Segment.reservation_id, Flight, Route.origin_id, Route.destination_id)
        .join(Flight, Flight.id == Segment.flight_id).join(Route, Route.id == Flight.route_id)
        .where(Segment.reservation_id.in_(ids)).order_by(Segment.reservation_id, Segment.position)
    ):
        legs[reservation_id].append((flight, origin_id, destination_id))
    airport_ids = {a for found in legs.values() for _, *ends in found for a in ends}
    codes = {aid: code for aid, code in db.execute(select(Airport.id, Airport.code).where(Airport.id.in_(airport_ids)))}
    counts = {rid: n for rid, n in db.execute(
        select(ReservationPassenger.reservation_id, func.count()).where(ReservationPassenger.reservation_id.in_(ids))
        .group_by(ReservationPassenger.reservation_id))}
    summaries = []
    for r in reservations:
        itinerary: list[str] = []
        for _, *ends in legs[r.id]:
            for code in (codes[a] for a in ends if a in codes):
                if not itinerary or itinerary[-1] != code:
                    itinerary.append(code)
        flights = [f for f, _, _ in legs[r.id]]
        summaries.append(ReservationSummary(
            pnr=r.pnr, status=r.status, fare_class=r.fare_class, lead_passenger_id=r.passenger_id,
            itinerary="-".join(itinerary), first_departure=flights[0].scheduled_departure,
            last_arrival=flights[-1].scheduled_arrival, passenger_count=counts.get(r.id, 0), created_at=r.created_at,
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
    clauses: list[ColumnElement[bool]] = [Reservation.id.in_(
        select(ReservationPassenger.reservation_id).where(ReservationPassenger.passenger_id == passenger_id))]
    if status:
        clauses.append(Reservation.status.in_(status))
    statement = select(Reservation).where(*clauses).order_by(Reservation.created_at.desc(), Reservation.id.desc())
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return ReservationPage(reservations=_reservation_summaries(ctx.db, rows), total=total, page=page,
                           next_page=following)


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
    mine = select(ReservationPassenger.reservation_id).where(ReservationPassenger.passenger_id == passenger_id)
    counts = {s: 0 for s in ("booked", "cancelled", "flown")}
    for status, n in ctx.db.execute(
        select(Reservation.status, func.count()).where(Reservation.id.in_(mine), Reservation.created_at >= start,
                                                       Reservation.created_at < end).group_by(Reservation.status)):
        counts[status] = n
    # Joined from the passenger's own reservations (one row each: the pair is unique), so that
    # every table is read by its key rather than scanning all landed flights.
    flown = ctx.db.execute(
        select(func.count(), func.coalesce(func.sum(Route.distance_km), 0))
        .select_from(ReservationPassenger)
        .join(Reservation, Reservation.id == ReservationPassenger.reservation_id)
        .join(Segment, Segment.reservation_id == Reservation.id)
        .join(Flight, Flight.id == Segment.flight_id).join(Route, Route.id == Flight.route_id)
        .where(ReservationPassenger.passenger_id == passenger_id, Reservation.status != "cancelled",
               Flight.status == "landed", Flight.scheduled_departure >= start, Flight.scheduled_departure < end)
    ).one()
    amounts = list(ctx.db.scalars(
        select(Payment.amount).join(Reservation, Reservation.id == Payment.reservation_id)
        .where(Reservation.passenger_id == passenger_id, Payment.created_at >= start, Payment.created_at < end)))
    charged = sum(a for a in amounts if a > 0)
    refunded = -sum(a for a in amounts if a < 0)
    return TravelSummary(passenger_id=p.id, name=p.name, reservations=counts, flights_flown=flown[0],
                         distance_flown_km=flown[1], amount_charged=charged, amount_refunded=refunded,
                         net_spend=charged - refunded)


@tools.tool(writes=True, examples=[{"pnr": "U6LCXG", "old_flight_id": 10153, "new_flight_id": 10387, "payment_method_id": 375}])
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
    r = _reservation(ctx, pnr)
    _open_reservation(r)
    segment = _segment_of(ctx.db, r, old_flight_id)
    old, new = _flight(ctx, old_flight_id), _flight(ctx, new_flight_id)
    if _departed(old, ctx.now):
        raise ForbiddenError(f"flight {old.flight_number} (id {old.id}) has already departed; it cannot be changed")
    rule = _rule(ctx.db, r.fare_class)
    airline_cancelled = old.status == "cancelled"
    if not rule.changeable and not airline_cancelled:
        raise ForbiddenError(f"{rule.name} fares cannot be changed; the reservation can only be cancelled "
                             "(see get_fare_rules)")
    if new.id == old.id:
        raise InvalidArgumentError("the new flight is the same as the old one")
    if _ends(ctx.db, new) != _ends(ctx.db, old):
        raise ForbiddenError("the new flight must fly the same origin and destination as the old one; "
                             "to go elsewhere, cancel and book a new reservation")
    _check_bookable(new, ctx.now)
    segments = _segments(ctx.db, r)
    before = [s for s in segments if s.position < segment.position][-1:]
    after = [s for s in segments if s.position > segment.position][:1]
    chain = [ctx.db.get(Flight, s.flight_id) for s in before] + [new] + [ctx.db.get(Flight, s.flight_id) for s in after]
    _check_connections([f for f in chain if f is not None], ctx.db)
    travellers = _travellers(ctx.db, r)
    passenger_ids = [t.passenger_id for t in travellers]
    _check_seats(ctx.db, [new], FARE_CABINS[r.fare_class], len(travellers))
    _check_not_double_booked(ctx.db, [new], passenger_ids)
    new_fare = _fares(new)[r.fare_class]
    fee = 0 if airline_cancelled else rule.change_fee
    difference = 0 if airline_cancelled else max(0, new_fare - segment.fare)
    amount = (fee + difference) * len(travellers)
    if amount > 0:
        if payment_method_id is None:
            raise InvalidArgumentError(f"this change costs ${amount} (change fee ${fee} + fare difference "
                                       f"${difference}, per passenger x {len(travellers)}); give payment_method_id")
        _charge(ctx, r, payment_method_id, amount, "change",
                f"Change {old.flight_number} {old.departure_date} -> {new.flight_number} {new.departure_date}: "
                f"fee ${fee} + fare difference ${difference}, x {len(travellers)}")
    ctx.db.execute(delete(SeatAssignment).where(SeatAssignment.segment_id == segment.id))
    segment.flight_id = new.id
    segment.fare += difference
    r.updated_at = ctx.now
    return ChangeResult(reservation=_reservation_out(ctx.db, r), change_fee_per_passenger=fee,
                        fare_difference_per_passenger=difference, amount_charged=amount)


@tools.tool(writes=True, examples=[{"pnr": "U6LCXG", "flight_id": 10153, "passenger_id": 239, "seat": "14C"}])
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
    segment = _segment_of(ctx.db, r, flight_id)
    _traveller(ctx.db, r, passenger_id)
    f = _flight(ctx, flight_id)
    if f.status == "cancelled":
        raise ForbiddenError(f"flight {f.flight_number} (id {f.id}) was cancelled by the airline; use change_flight first")
    if _departed(f, ctx.now):
        raise ForbiddenError(f"flight {f.flight_number} (id {f.id}) has already departed")
    rule = _rule(ctx.db, r.fare_class)
    if not rule.seat_selection:
        raise ForbiddenError(f"{rule.name} fares do not include seat selection; seats are assigned at check-in")
    seat = seat.upper()
    cabin = cabin_of_seat(f.aircraft, seat)
    if cabin is None:
        raise NotFoundError(f"seat {seat} does not exist on this {f.aircraft}; use get_seat_map to see the seats")
    if cabin != FARE_CABINS[r.fare_class]:
        raise ForbiddenError(f"seat {seat} is in {cabin}, but the reservation is in {FARE_CABINS[r.fare_class]}")
    holder = ctx.db.scalar(select(SeatAssignment).where(SeatAssignment.flight_id == f.id, SeatAssignment.seat == seat))
    mine = ctx.db.scalar(select(SeatAssignment).where(SeatAssignment.segment_id == segment.id,
                                                      SeatAssignment.passenger_id == passenger_id))
    if holder is not None and holder is not mine:
        raise ForbiddenError(f"seat {seat} on flight {f.flight_number} is taken; use get_seat_map to find a free seat")
    previous = mine.seat if mine else None
    if mine is None:
        ctx.db.add(SeatAssignment(segment_id=segment.id, passenger_id=passenger_id, flight_id=f.id, seat=seat))
    else:
        mine.seat = seat
    r.updated_at = ctx.now
    ctx.db.flush()
    return SeatResult(pnr=r.pnr, flight_id=f.id, passenger_id=passenger_id, seat=seat, previous_seat=previous)


@tools.tool(writes=True, examples=[{"pnr": "U6LCXG", "passenger_id": 239, "bags": 1, "payment_method_id": 375}])
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
    traveller = _traveller(ctx.db, r, passenger_id)
    first = ctx.db.get(Flight, _segments(ctx.db, r)[0].flight_id)
    assert first is not None
    if _departed(first, ctx.now):
        raise ForbiddenError(f"the trip started with flight {first.flight_number}; "
                             "bags must be added before the first flight departs")
    total = traveller.checked_bags + bags
    if total > MAX_BAGS_PER_PASSENGER:
        raise ForbiddenError(f"passenger {passenger_id} already has {traveller.checked_bags} bag(s); "
                             f"at most {MAX_BAGS_PER_PASSENGER} per passenger")
    rule = _rule(ctx.db, r.fare_class)
    paid_bags = sum(1 for i in range(traveller.checked_bags, total) if i >= rule.free_bags)
    fee = paid_bags * rule.bag_fee
    if fee > 0:
        if payment_method_id is None:
            raise InvalidArgumentError(f"{paid_bags} bag(s) cost ${fee} (${rule.bag_fee} each); give payment_method_id")
        _charge(ctx, r, payment_method_id, fee, "baggage",
                f"{paid_bags} checked bag(s) x ${rule.bag_fee} for passenger {passenger_id}")
    traveller.checked_bags = total
    r.updated_at = ctx.now
    ctx.db.flush()
    return BaggageResult(pnr=r.pnr, passenger_id=passenger_id, checked_bags=total,
                         free_checked_bags=rule.free_bags, fee_charged=fee)


def _net_by_method(db: Session, r: Reservation) -> dict[int, int]:
    rows = db.execute(select(Payment.payment_method_id, func.sum(Payment.amount))
                      .where(Payment.reservation_id == r.id).group_by(Payment.payment_method_id)
                      .order_by(Payment.payment_method_id))
    return {method_id: int(total) for method_id, total in rows if total > 0}


@tools.tool(writes=True, examples=[{"pnr": "T58HAG"}])
def cancel_reservation(ctx: ToolContext, pnr: Pnr) -> CancelResult:
    """Cancel a whole reservation before its first flight departs and refund it per the fare rules.

    Full refund to the original payment methods for flex and business fares, within 24 hours of
    booking, or when the airline cancelled a flight; standard fares get a travel certificate of
    the amount paid minus the cancellation fee per passenger; basic fares get nothing back.
    """
    r = _reservation(ctx, pnr)
    _open_reservation(r)
    flights = [ctx.db.get(Flight, s.flight_id) for s in _segments(ctx.db, r)]
    if any(f is not None and _departed(f, ctx.now) for f in flights):
        raise ForbiddenError(f"part of reservation {r.pnr} has already departed; it cannot be cancelled")
    rule = _rule(ctx.db, r.fare_class)
    party = len(_travellers(ctx.db, r))
    net = _net_by_method(ctx.db, r)
    full = (ctx.now - r.created_at <= timedelta(hours=FREE_CANCELLATION_HOURS) or rule.refund == "original_payment"
            or any(f is not None and f.status == "cancelled" for f in flights))
    refund_to, amount, fee, credit_id = "none", 0, 0, None
    if full:
        refund_to = "original_payment"
        for method_id, paid in net.items():
            method = ctx.db.get(PaymentMethod, method_id)
            assert method is not None
            if method.balance is not None:
                method.balance += paid
            ctx.db.add(Payment(reservation_id=r.id, payment_method_id=method_id, kind="refund", amount=-paid,
                               description="Refund to original payment", created_at=ctx.now))
            amount += paid
    elif rule.refund == "travel_credit":
        refund_to, fee = "travel_credit", rule.cancellation_fee * party
        amount = max(0, sum(net.values()) - fee)
        if amount > 0:
            certificate = PaymentMethod(
                passenger_id=r.passenger_id, kind="travel_certificate", brand=None, last4=f"{r.id:04d}"[-4:],
                expiry_month=None, expiry_year=None, balance=amount,
                expires_at=ctx.now + timedelta(days=CREDIT_VALID_DAYS), issued_for_reservation_id=r.id,
                created_at=ctx.now)
            ctx.db.add(certificate)
            ctx.db.flush()
            credit_id = certificate.id
            ctx.db.add(Payment(reservation_id=r.id, payment_method_id=certificate.id, kind="refund", amount=-amount,
                               description=f"Travel credit after ${fee} cancellation fee", created_at=ctx.now))
    ctx.db.execute(delete(SeatAssignment).where(
        SeatAssignment.segment_id.in_(select(Segment.id).where(Segment.reservation_id == r.id))))
    r.status, r.cancelled_at, r.updated_at = "cancelled", ctx.now, ctx.now
    return CancelResult(reservation=_reservation_out(ctx.db, r), refund_amount=amount, refund_to=refund_to,
                        travel_credit_payment_method_id=credit_id, cancellation_fee=fee)
