"""The hotel platform's tools: find properties and stays, price and book them, and service
reservations and loyalty accounts within the platform's policy."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from mcpgym.servers.hotels.data import (
    AMENITIES,
    BOOKING_WINDOW_DAYS,
    CENTS_PER_POINT,
    CHECK_IN_HOUR,
    ENROLMENT_BONUS_POINTS,
    MAX_NIGHTS,
    MAX_ROOMS,
    POINTS_PER_USD,
    TIER_BY_NAME,
    TIERS,
    confirmation_for,
    loyalty_number_for,
    tier_for,
)
from mcpgym.servers.hotels.models import (
    Guest,
    LoyaltyAccount,
    LoyaltyTransaction,
    Payment,
    Property,
    RatePlan,
    Reservation,
    ReservationNight,
    RoomNight,
    RoomType,
)
from mcpgym.servers.hotels.results import (
    CalendarNight,
    CancelResult,
    ChangeResult,
    CheckOutResult,
    GuestOut,
    GuestPage,
    LoyaltyAccountOut,
    LoyaltyTransactionOut,
    NightPrice,
    OccupancyReport,
    PaymentOut,
    PropertyDetail,
    PropertyPage,
    PropertySummary,
    QuoteNight,
    RatePlanDetail,
    RatePlanOut,
    RedeemResult,
    ReservationOut,
    ReservationPage,
    ReservationSummary,
    RoomCalendar,
    RoomTypeOccupancy,
    RoomTypeOut,
    StayOffer,
    StayOfferPage,
    StayQuote,
    StaySummary,
)
from mcpgym.servers.hotels.seed import free_cancellation_until
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Page, PerPage, format_timestamp
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()

Status = Literal["confirmed", "checked_in", "completed", "cancelled"]
Amenity = Literal[AMENITIES]  # type: ignore[valid-type]

PropertyId = Annotated[int, Field(description="The property's id (see search_properties or search_stays).")]
RoomTypeId = Annotated[int, Field(description="The room type's id (see get_property).")]
RatePlanId = Annotated[int, Field(description="The rate plan's id (see get_property or search_stays).")]
GuestId = Annotated[int, Field(description="The guest's id (see get_guest_by_email or search_guests).")]
Confirmation = Annotated[str, Field(pattern=r"^\d{10}$", description="The booking's 10-digit confirmation number, e.g. '4827391556'.")]
CheckIn = Annotated[date, Field(description="Arrival date (the first night), YYYY-MM-DD, property local.")]
CheckOut = Annotated[date, Field(description="Departure date (the morning after the last night), YYYY-MM-DD.")]
Rooms = Annotated[int, Field(ge=1, le=MAX_ROOMS, description=f"Rooms of the same type (1-{MAX_ROOMS}).")]
Guests = Annotated[int, Field(ge=1, le=4 * MAX_ROOMS, description="Guests staying, in all rooms together.")]

PROPERTY_HINT = "Use search_properties to find properties by city or name."
ROOM_TYPE_HINT = "Use get_property to see a property's room types."
RATE_PLAN_HINT = "Use get_property or search_stays to find rate plan ids."
GUEST_HINT = "Use get_guest_by_email or search_guests to find guest ids."
RESERVATION_HINT = "Use list_guest_reservations to find a guest's confirmation numbers."

RESERVATION_COLUMNS = (
    "reservations.*, properties.name AS property_name, properties.city, properties.timezone, "
    "properties.cancellation_hours, room_types.name AS room_type_name, room_types.max_guests, "
    "rate_plans.name AS rate_plan_name, rate_plans.refundable, rate_plans.breakfast_included, "
    "guests.first_name || ' ' || guests.last_name AS guest_name, guests.email AS guest_email"
)
RESERVATION_TABLES = (
    "reservations JOIN properties ON properties.id = reservations.property_id "
    "JOIN room_types ON room_types.id = reservations.room_type_id "
    "JOIN rate_plans ON rate_plans.id = reservations.rate_plan_id JOIN guests ON guests.id = reservations.guest_id"
)
RESERVATION_MODELS = (Reservation, RatePlan)
PLAN_COLUMNS = (
    "rate_plans.*, room_types.name AS room_type_name, room_types.max_guests, room_types.property_id, "
    "properties.name AS property_name, properties.city, properties.timezone, properties.cancellation_hours, "
    "properties.breakfast_cents"
)
PLAN_TABLES = ("rate_plans JOIN room_types ON room_types.id = rate_plans.room_type_id "
               "JOIN properties ON properties.id = room_types.property_id")
GUEST_COLUMNS = (
    "guests.*, organizations.name AS organization_name, loyalty_accounts.id AS account_id, "
    "loyalty_accounts.number AS loyalty_number, loyalty_accounts.tier AS loyalty_tier, "
    "loyalty_accounts.points_balance, loyalty_accounts.lifetime_points, loyalty_accounts.qualifying_nights, "
    "loyalty_accounts.enrolled_at"
)
GUEST_MODELS = (Guest, LoyaltyAccount)
GUEST_TABLES = ("guests JOIN organizations ON organizations.id = guests.organization_id "
                "LEFT JOIN loyalty_accounts ON loyalty_accounts.guest_id = guests.id")


# ---------------------------------------------------------------- helpers


def _today(ctx: ToolContext) -> date:
    return ctx.now.date()


def _last_night(ctx: ToolContext) -> date:
    return _today(ctx) + timedelta(days=BOOKING_WINDOW_DAYS)


def _stay_dates(ctx: ToolContext, check_in: date, check_out: date, limit: int = MAX_NIGHTS) -> list[date]:
    """The nights of a stay searched or quoted: invalid_arguments unless on sale."""
    if check_out <= check_in:
        raise InvalidArgumentError("check_out must be after check_in")
    if check_in < _today(ctx) or check_out > _last_night(ctx) + timedelta(days=1):
        raise InvalidArgumentError(f"nights on sale run from today ({_today(ctx)}) to {_last_night(ctx)}; "
                                   "choose dates in that window")
    if (check_out - check_in).days > limit:
        raise InvalidArgumentError(f"at most {limit} nights at a time")
    return [check_in + timedelta(days=i) for i in range((check_out - check_in).days)]


def _bookable_dates(ctx: ToolContext, check_in: date, check_out: date) -> list[date]:
    """The nights of a stay booked or changed to: the booking-window rule, as a refusal."""
    if check_out <= check_in:
        raise InvalidArgumentError("check_out must be after check_in")
    if check_in < _today(ctx):
        raise ForbiddenError(f"booking window: new stays start today ({_today(ctx)}) or later")
    if check_out > _last_night(ctx) + timedelta(days=1):
        raise ForbiddenError(f"booking window: nights are on sale up to {_last_night(ctx)} "
                             f"({BOOKING_WINDOW_DAYS} days ahead); check-out may be {_last_night(ctx) + timedelta(days=1)} at the latest")
    if (check_out - check_in).days > MAX_NIGHTS:
        raise ForbiddenError(f"booking window: a stay lasts at most {MAX_NIGHTS} nights")
    return [check_in + timedelta(days=i) for i in range((check_out - check_in).days)]


def _price(base_cents: int, plan: Row, breakfast_cents: int) -> int:
    """A rate plan's price of one room for one night."""
    return base_cents * (100 - plan["discount_pct"]) // 100 + (breakfast_cents if plan["breakfast_included"] else 0)


def _plan(ctx: ToolContext, rate_plan_id: int) -> Row:
    plan = ctx.sql.one(f"SELECT {PLAN_COLUMNS} FROM {PLAN_TABLES} WHERE rate_plans.id = ?", [rate_plan_id], RatePlan)
    if plan is None:
        raise missing("rate plan", rate_plan_id, RATE_PLAN_HINT)
    return plan


def _inventory(ctx: ToolContext, room_type_id: int, nights: list[date]) -> dict[date, Row]:
    """The room type's inventory rows of `nights`, by night."""
    rows = ctx.sql.all("SELECT night, base_price_cents, rooms_total - rooms_sold AS rooms_left FROM room_nights "
                       "WHERE room_type_id = ? AND night >= ? AND night < ? ORDER BY night",
                       [room_type_id, nights[0], nights[-1] + timedelta(days=1)], RoomNight)
    return {row["night"]: row for row in rows}


def _deadline(plan: Row, check_in: date) -> datetime | None:
    """When free cancellation of a booking on `plan` checking in on `check_in` ends (None: non-refundable)."""
    if not plan["refundable"]:
        return None
    return free_cancellation_until(check_in, plan["timezone"], plan["cancellation_hours"])


def _guest(ctx: ToolContext, guest_id: int) -> Row:
    guest = ctx.sql.one(f"SELECT {GUEST_COLUMNS} FROM {GUEST_TABLES} WHERE guests.id = ?", [guest_id], GUEST_MODELS)
    if guest is None:
        raise missing("guest", guest_id, GUEST_HINT)
    return guest


def _guest_out(row: Row) -> GuestOut:
    return GuestOut(**row, name=f"{row['first_name']} {row['last_name']}", member_since=row["created_at"])


def _reservation(ctx: ToolContext, confirmation_number: str) -> Row:
    row = ctx.sql.one(f"SELECT {RESERVATION_COLUMNS} FROM {RESERVATION_TABLES} WHERE reservations.confirmation_number = ?",
                      [confirmation_number], RESERVATION_MODELS)
    if row is None:
        raise NotFoundError(f"no reservation with confirmation number {confirmation_number}. {RESERVATION_HINT}")
    return row


def _render(row: Row, nights: list[Row], payments: list[Row]) -> ReservationOut:
    return ReservationOut(
        **{k: v for k, v in row.items() if k != "nights"},
        nights=(row["check_out"] - row["check_in"]).days,
        nightly_prices=[NightPrice(night=n["night"], price_cents=n["price_cents"]) for n in nights],
        cash_cents=row["total_cents"] - row["points_redeemed"] * CENTS_PER_POINT,
        net_paid_cents=sum(p["amount_cents"] for p in payments),
        payments=[PaymentOut(**p) for p in payments],
    )


def _payments(ctx: ToolContext, reservation_id: int) -> list[Row]:
    return ctx.sql.all("SELECT kind, amount_cents, description, created_at FROM payments WHERE reservation_id = ? "
                       "ORDER BY created_at, id", [reservation_id], Payment)


def _reservation_out(ctx: ToolContext, row: Row) -> ReservationOut:
    nights = ctx.sql.all("SELECT night, price_cents FROM reservation_nights WHERE reservation_id = ? ORDER BY night",
                         [row["id"]], ReservationNight)
    return _render(row, nights, _payments(ctx, row["id"]))


def _pay(ctx: ToolContext, reservation_id: int, amount: int, description: str) -> Row:
    """A charge (amount > 0) or refund (amount < 0) of a reservation, as written."""
    payment = {"reservation_id": reservation_id, "kind": "charge" if amount > 0 else "refund", "amount_cents": amount,
               "description": description, "created_at": ctx.now}
    ctx.sql.insert_row(Payment, payment)
    return payment


def _points(ctx: ToolContext, account_id: int, reservation_id: int | None, kind: str, points: int, text: str) -> None:
    ctx.sql.insert_row(LoyaltyTransaction, {"account_id": account_id, "reservation_id": reservation_id, "kind": kind,
                                            "points": points, "description": text, "created_at": ctx.now})


def _account(ctx: ToolContext, guest_id: int) -> Row | None:
    return ctx.sql.one("SELECT * FROM loyalty_accounts WHERE guest_id = ?", [guest_id], LoyaltyAccount)


def _open(row: Row, action: str) -> None:
    """The status rule: only confirmed bookings are changed, cancelled or given points."""
    if row["status"] != "confirmed":
        raise ForbiddenError(f"status: booking {row['confirmation_number']} is {row['status']}; only confirmed "
                             f"bookings (not yet checked in) can be {action}")


def _changeable(ctx: ToolContext, row: Row, action: str) -> None:
    """The status, non-refundable and free-cancellation rules for a change or cancellation."""
    _open(row, action)
    if not row["refundable"]:
        raise ForbiddenError(f"non-refundable rate: booking {row['confirmation_number']} is on the "
                             f"{row['rate_plan_name']} rate, which is never cancelled, refunded or changed")
    deadline = row["free_cancellation_until"]
    if deadline is not None and ctx.now > deadline:
        raise ForbiddenError(f"free cancellation: it ended for booking {row['confirmation_number']} at "
                             f"{format_timestamp(deadline)} ({row['cancellation_hours']} hours before check-in); "
                             f"it can no longer be {action} online")


def _availability(inventory: dict[date, Row], nights: list[date], rooms: int, held: dict[date, int]) -> None:
    """The availability rule: every night must have `rooms` left (counting `held`, the rooms this
    booking already holds)."""
    for night in nights:
        row = inventory.get(night)
        left = (row["rooms_left"] if row else 0) + held.get(night, 0)
        if left < rooms:
            raise ForbiddenError(f"availability: only {left} room(s) of this type left on the night of {night}; "
                                 f"{rooms} asked for")


def _occupancy(max_guests: int, rooms: int, guests: int, room_name: str) -> None:
    if guests > max_guests * rooms:
        raise ForbiddenError(f"occupancy: a {room_name} sleeps at most {max_guests}; {guests} guests need more than "
                             f"{rooms} room(s)")


# ---------------------------------------------------------------- properties and stays


@tools.tool(title="Search properties", examples=[{"city": "London", "min_stars": 4, "amenities": ["gym"], "sort_by": "review_score"}])
def search_properties(
    ctx: ToolContext,
    city: Annotated[str | None, Field(description="City name, e.g. 'London' (case-insensitive, exact).")] = None,
    country: Annotated[str | None, Field(description="Country name, e.g. 'Japan' (case-insensitive, exact).")] = None,
    query: Annotated[str | None, Field(description="Part of the property's name (case-insensitive).")] = None,
    min_stars: Annotated[int | None, Field(ge=1, le=5, description="Only properties with at least this many stars.")] = None,
    min_review_score: Annotated[float | None, Field(ge=0, le=10, description="Only properties reviewed at least this well (0-10).")] = None,
    amenities: Annotated[list[Amenity] | None, Field(description="Only properties offering every one of these amenities.")] = None,
    sort_by: Annotated[Literal["review_score", "stars", "name"], Field(description="Order: best reviewed, most stars (then reviews), or by name.")] = "review_score",
    page: Page = 1,
    per_page: PerPage = 25,
) -> PropertyPage:
    """Find properties by city, country, name, stars, review score and amenities. Use it to
    find a hotel a guest names, or to list the hotels of a destination."""
    clauses, params = ["1"], []
    if city:
        clauses.append("lower(city) = ?")
        params.append(city.strip().lower())
    if country:
        clauses.append("lower(country) = ?")
        params.append(country.strip().lower())
    if query:
        clauses.append("lower(name) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(query.strip().lower()))
    if min_stars is not None:
        clauses.append("stars >= ?")
        params.append(min_stars)
    if min_review_score is not None:
        clauses.append("review_score >= ?")
        params.append(min_review_score)
    if amenities:
        clauses.append("NOT EXISTS (SELECT 1 FROM json_each(?) AS wanted WHERE wanted.value NOT IN "
                       "(SELECT value FROM json_each(properties.amenities)))")
        params.append(sorted(set(amenities)))
    order = {"review_score": "review_score DESC, review_count DESC", "stars": "stars DESC, review_score DESC",
             "name": "name"}[sort_by]
    found = ctx.sql.page("*", f"FROM properties WHERE {' AND '.join(clauses)} ORDER BY {order}, id", params, page,
                         per_page, Property)
    return PropertyPage(properties=[PropertySummary(**row) for row in found.rows], total=found.total, page=page,
                        next_page=found.next_page)


@tools.tool(title="Get property", examples=[{"property_id": 1}])
def get_property(ctx: ToolContext, property_id: PropertyId) -> PropertyDetail:
    """A property with its room types (beds, max guests) and their rate plans (refundable or
    not, breakfast), its cancellation window and breakfast price."""
    prop = ctx.sql.one("SELECT * FROM properties WHERE id = ?", [property_id], Property)
    if prop is None:
        raise missing("property", property_id, PROPERTY_HINT)
    rooms = ctx.sql.all("SELECT * FROM room_types WHERE property_id = ? ORDER BY id", [property_id], RoomType)
    plans = ctx.sql.all("SELECT rate_plans.* FROM rate_plans JOIN room_types ON room_types.id = rate_plans.room_type_id "
                        "WHERE room_types.property_id = ? ORDER BY rate_plans.id", [property_id], RatePlan)
    return PropertyDetail(
        **prop, check_in_time=f"{CHECK_IN_HOUR:02d}:00",
        room_types=[RoomTypeOut(**room, rate_plans=[RatePlanOut(**p) for p in plans if p["room_type_id"] == room["id"]])
                    for room in rooms])


@tools.tool(title="Get rate plan", examples=[{"rate_plan_id": 1}])
def get_rate_plan(ctx: ToolContext, rate_plan_id: RatePlanId) -> RatePlanDetail:
    """A rate plan's rules: refundable or not, its free-cancellation window, breakfast, and
    the room type and property it sells."""
    plan = _plan(ctx, rate_plan_id)
    if plan["refundable"]:
        policy = (f"Free cancellation and changes until {plan['cancellation_hours']} hours before {CHECK_IN_HOUR}:00 "
                  "local time on the check-in day; after that the booking can no longer be cancelled or changed.")
    else:
        policy = "Non-refundable: paid in full at booking, never cancelled, refunded or changed."
    return RatePlanDetail(**{**plan, "cancellation_hours": plan["cancellation_hours"] if plan["refundable"] else None},
                          policy=policy)


@tools.tool(title="Get room calendar", examples=[{"room_type_id": 1, "start": "2025-12-01", "end": "2025-12-08"}])
def get_room_calendar(
    ctx: ToolContext,
    room_type_id: RoomTypeId,
    start: Annotated[date, Field(description="First night, YYYY-MM-DD.")],
    end: Annotated[date, Field(description="The day after the last night (exclusive), at most 62 days after start.")],
) -> RoomCalendar:
    """A room type's nights on sale between two dates: base price and rooms left per night,
    and which nights are sold out. Nights before today or beyond the booking window are not listed."""
    if end <= start or (end - start).days > 62:
        raise InvalidArgumentError("end must be after start, at most 62 days later")
    room = ctx.sql.one("SELECT room_types.*, properties.name AS property_name FROM room_types "
                       "JOIN properties ON properties.id = room_types.property_id WHERE room_types.id = ?",
                       [room_type_id], RoomType)
    if room is None:
        raise missing("room type", room_type_id, ROOM_TYPE_HINT)
    rows = ctx.sql.all("SELECT night, base_price_cents, rooms_total - rooms_sold AS rooms_left FROM room_nights "
                       "WHERE room_type_id = ? AND night >= ? AND night < ? ORDER BY night",
                       [room_type_id, start, end], RoomNight)
    return RoomCalendar(room_type_id=room_type_id, room_type_name=room["name"], property_id=room["property_id"],
                        property_name=room["property_name"], last_night_on_sale=_last_night(ctx),
                        nights=[CalendarNight(**r, sold_out=r["rooms_left"] <= 0) for r in rows])


@tools.tool(title="Search stays", examples=[{"city": "Vienna", "check_in": "2025-12-10", "check_out": "2025-12-13", "guests": 2, "sort_by": "price"}])
def search_stays(
    ctx: ToolContext,
    city: Annotated[str, Field(min_length=1, description="City name, e.g. 'Paris' (case-insensitive, exact).")],
    check_in: CheckIn,
    check_out: CheckOut,
    guests: Guests = 1,
    rooms: Rooms = 1,
    min_stars: Annotated[int | None, Field(ge=1, le=5, description="Only properties with at least this many stars.")] = None,
    refundable_only: Annotated[bool, Field(description="Only refundable (free-cancellation) rates.")] = False,
    breakfast_only: Annotated[bool, Field(description="Only rates that include breakfast.")] = False,
    max_total_cents: Annotated[int | None, Field(ge=0, description="Only offers whose whole stay costs at most this.")] = None,
    sort_by: Annotated[Literal["price", "review_score", "stars"], Field(description="Cheapest first, best reviewed first, or most stars first.")] = "price",
    page: Page = 1,
    per_page: PerPage = 25,
) -> StayOfferPage:
    """Bookable offers in a city for given dates: every rate plan of every room type that has
    enough rooms left on every night and sleeps the guests, with the price of the whole stay."""
    nights = _stay_dates(ctx, check_in, check_out)
    clauses = ["lower(properties.city) = ?"]
    params: list[Any] = [city.strip().lower()]
    if min_stars is not None:
        clauses.append("properties.stars >= ?")
        params.append(min_stars)
    if refundable_only:
        clauses.append("rate_plans.refundable")
    if breakfast_only:
        clauses.append("rate_plans.breakfast_included")
    clauses.append("room_types.max_guests * ? >= ?")
    params = [rooms, *params, rooms, guests, check_in, check_out, len(nights), rooms]
    having = "count(*) = ? AND min(room_nights.rooms_total - room_nights.rooms_sold) >= ?"
    if max_total_cents is not None:
        having += " AND total_cents <= ?"
        params.append(max_total_cents)
    order = {"price": "total_cents", "review_score": "review_score DESC, total_cents",
             "stars": "stars DESC, total_cents"}[sort_by]
    price = ("room_nights.base_price_cents * (100 - rate_plans.discount_pct) / 100 "
             "+ CASE WHEN rate_plans.breakfast_included THEN properties.breakfast_cents ELSE 0 END")
    found = ctx.sql.page(
        "properties.id AS property_id, properties.name AS property_name, properties.stars, properties.review_score, "
        "room_types.id AS room_type_id, room_types.name AS room_type_name, room_types.max_guests, "
        "rate_plans.id AS rate_plan_id, rate_plans.name AS rate_plan_name, rate_plans.refundable, "
        "rate_plans.breakfast_included, min(room_nights.rooms_total - room_nights.rooms_sold) AS rooms_left, "
        f"sum({price}) * ? AS total_cents",
        f"FROM rate_plans JOIN room_types ON room_types.id = rate_plans.room_type_id "
        f"JOIN properties ON properties.id = room_types.property_id "
        f"JOIN room_nights ON room_nights.room_type_id = room_types.id "
        f"WHERE {' AND '.join(clauses)} AND room_nights.night >= ? AND room_nights.night < ? "
        f"GROUP BY rate_plans.id HAVING {having} ORDER BY {order}, rate_plans.id",
        params, page, per_page, RatePlan)
    return StayOfferPage(city=city.strip(), check_in=check_in, check_out=check_out, nights=len(nights),
                         offers=[StayOffer(**row) for row in found.rows], total=found.total, page=page,
                         next_page=found.next_page)


@tools.tool(title="Price a stay", examples=[{"rate_plan_id": 1, "check_in": "2025-12-10", "check_out": "2025-12-13", "rooms": 1, "guests": 1}])
def price_stay(
    ctx: ToolContext,
    rate_plan_id: RatePlanId,
    check_in: CheckIn,
    check_out: CheckOut,
    rooms: Rooms = 1,
    guests: Guests = 1,
) -> StayQuote:
    """Quote a rate plan for dates: the price of each night, the total, whether every night has
    the rooms, whether the guests fit, and until when it would cancel for free. Books nothing."""
    nights = _stay_dates(ctx, check_in, check_out)
    plan = _plan(ctx, rate_plan_id)
    inventory = _inventory(ctx, plan["room_type_id"], nights)
    quoted = [QuoteNight(night=n, price_cents=_price(inventory[n]["base_price_cents"], plan, plan["breakfast_cents"]),
                         rooms_left=inventory[n]["rooms_left"]) for n in nights if n in inventory]
    short = [q.night for q in quoted if q.rooms_left < rooms]
    return StayQuote(
        rate_plan_id=plan["id"], rate_plan_name=plan["name"], refundable=plan["refundable"],
        breakfast_included=plan["breakfast_included"], room_type_id=plan["room_type_id"],
        room_type_name=plan["room_type_name"], property_id=plan["property_id"], property_name=plan["property_name"],
        check_in=check_in, check_out=check_out, rooms=rooms, guests=guests, nights=quoted,
        total_cents=sum(q.price_cents for q in quoted) * rooms, available=not short, sold_out_nights=short,
        fits_guests=guests <= plan["max_guests"] * rooms, free_cancellation_until=_deadline(plan, check_in))


# ---------------------------------------------------------------- guests and loyalty


@tools.tool(title="Get guest by email", examples=[{"email": "ann.olson@northwindsystems.com"}])
def get_guest_by_email(
    ctx: ToolContext,
    email: Annotated[str, Field(min_length=3, description="The guest's email address (case-insensitive).")],
) -> GuestOut:
    """Look up a guest by email: name, organisation, phone and loyalty membership."""
    row = ctx.sql.one(f"SELECT {GUEST_COLUMNS} FROM {GUEST_TABLES} WHERE lower(guests.email) = ?",
                      [email.strip().lower()], GUEST_MODELS)
    if row is None:
        raise NotFoundError(f"no guest with email {email.strip()}. Use search_guests to search by name.")
    return _guest_out(row)


@tools.tool(title="Search guests", examples=[{"query": "olson", "organization": "northwind"}])
def search_guests(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the name, email or loyalty number (case-insensitive).")] = None,
    organization: Annotated[str | None, Field(description="Part of the guest's organisation name.")] = None,
    loyalty_tier: Annotated[Literal["member", "silver", "gold", "platinum"] | None, Field(description="Only loyalty members of this tier.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> GuestPage:
    """Find guests by name, email, loyalty number, organisation or loyalty tier, sorted by last name."""
    clauses, params = ["1"], []
    if query:
        clauses.append("(lower(guests.first_name || ' ' || guests.last_name) LIKE ? ESCAPE '/' "
                       "OR lower(guests.email) LIKE ? ESCAPE '/' OR lower(coalesce(loyalty_accounts.number, '')) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 3
    if organization:
        clauses.append("lower(organizations.name) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(organization.strip().lower()))
    if loyalty_tier:
        clauses.append("loyalty_accounts.tier = ?")
        params.append(loyalty_tier)
    found = ctx.sql.page(GUEST_COLUMNS, f"FROM {GUEST_TABLES} WHERE {' AND '.join(clauses)} "
                         "ORDER BY guests.last_name, guests.first_name, guests.id", params, page, per_page, GUEST_MODELS)
    return GuestPage(guests=[_guest_out(row) for row in found.rows], total=found.total, page=page,
                     next_page=found.next_page)


def _loyalty_out(ctx: ToolContext, account: Row, guest_name: str) -> LoyaltyAccountOut:
    recent = ctx.sql.all(
        "SELECT loyalty_transactions.*, reservations.confirmation_number FROM loyalty_transactions "
        "LEFT JOIN reservations ON reservations.id = loyalty_transactions.reservation_id "
        "WHERE loyalty_transactions.account_id = ? ORDER BY loyalty_transactions.created_at DESC, "
        "loyalty_transactions.id DESC LIMIT 10", [account["id"]], LoyaltyTransaction)
    higher = [t for t in TIERS if t.qualifying_nights > account["qualifying_nights"]]
    return LoyaltyAccountOut(
        **account, guest_name=guest_name, points_value_cents=account["points_balance"] * CENTS_PER_POINT,
        next_tier=higher[0].name if higher else None,
        nights_to_next_tier=higher[0].qualifying_nights - account["qualifying_nights"] if higher else None,
        recent_transactions=[LoyaltyTransactionOut(**t) for t in recent])


@tools.tool(title="Get loyalty account", examples=[{"guest_id": 2}])
def get_loyalty_account(ctx: ToolContext, guest_id: GuestId) -> LoyaltyAccountOut:
    """A guest's loyalty account: number, tier, points balance and its worth, qualifying nights
    and what the next tier needs, and the latest point transactions."""
    guest = _guest(ctx, guest_id)
    if guest["account_id"] is None:
        raise NotFoundError(f"guest {guest_id} ({guest['first_name']} {guest['last_name']}) is not a loyalty member; "
                            "enroll_in_loyalty makes them one")
    account = {"id": guest["account_id"], "guest_id": guest_id, "number": guest["loyalty_number"],
               "tier": guest["loyalty_tier"], "points_balance": guest["points_balance"],
               "lifetime_points": guest["lifetime_points"], "qualifying_nights": guest["qualifying_nights"],
               "enrolled_at": guest["enrolled_at"]}
    return _loyalty_out(ctx, account, f"{guest['first_name']} {guest['last_name']}")


@tools.tool(writes=True, destructive=False, idempotent=True, title="Enroll in loyalty", examples=[{"guest_id": 6}])
def enroll_in_loyalty(ctx: ToolContext, guest_id: GuestId) -> LoyaltyAccountOut:
    """Make a guest a loyalty member: a new account at the member tier with the welcome bonus
    points. Qualifying nights count from completed stays of the last 12 months."""
    guest = _guest(ctx, guest_id)
    if guest["account_id"] is not None:
        raise InvalidArgumentError(f"guest {guest_id} is already a loyalty member (number {guest['loyalty_number']})")
    account_id = int(ctx.sql.scalar("SELECT coalesce(max(id), 0) + 1 FROM loyalty_accounts"))
    nights = int(ctx.sql.scalar(
        "SELECT coalesce(sum((julianday(check_out) - julianday(check_in)) * rooms), 0) FROM reservations "
        "WHERE guest_id = ? AND status = 'completed' AND check_out > ?", [guest_id, _today(ctx) - timedelta(days=365)]))
    account = {"id": account_id, "guest_id": guest_id, "number": loyalty_number_for(account_id), "tier": tier_for(nights),
               "points_balance": ENROLMENT_BONUS_POINTS, "lifetime_points": ENROLMENT_BONUS_POINTS,
               "qualifying_nights": nights, "enrolled_at": ctx.now}
    ctx.sql.insert(
        "INSERT INTO loyalty_accounts (id, guest_id, number, tier, points_balance, lifetime_points, qualifying_nights, "
        "enrolled_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [account[k] for k in account])
    _points(ctx, account_id, None, "bonus", ENROLMENT_BONUS_POINTS, "Welcome bonus")
    return _loyalty_out(ctx, account, f"{guest['first_name']} {guest['last_name']}")


# ---------------------------------------------------------------- reservations: reads


@tools.tool(title="Get reservation", examples=[{"confirmation_number": "4385265229"}])
def get_reservation(ctx: ToolContext, confirmation_number: Confirmation) -> ReservationOut:
    """A booking by confirmation number: guest, property, room and rate, dates, nightly prices,
    total, points, payments, status and until when it cancels for free."""
    return _reservation_out(ctx, _reservation(ctx, confirmation_number))


def _summaries(rows: list[Row]) -> list[ReservationSummary]:
    return [ReservationSummary(**row, nights=(row["check_out"] - row["check_in"]).days) for row in rows]


def _date_filters(status: list[str] | None, check_in_from: date | None, check_in_to: date | None,
                  clauses: list[str], params: list[Any]) -> None:
    if status:
        clauses.append("reservations.status IN (SELECT value FROM json_each(?))")
        params.append(sorted(set(status)))
    if check_in_from is not None:
        clauses.append("reservations.check_in >= ?")
        params.append(check_in_from)
    if check_in_to is not None:
        clauses.append("reservations.check_in <= ?")
        params.append(check_in_to)


@tools.tool(title="List guest reservations", examples=[{"guest_id": 1, "status": ["confirmed"]}])
def list_guest_reservations(
    ctx: ToolContext,
    guest_id: GuestId,
    status: Annotated[list[Status] | None, Field(description="Only bookings with one of these statuses.")] = None,
    check_in_from: Annotated[date | None, Field(description="Only bookings checking in on or after this date.")] = None,
    check_in_to: Annotated[date | None, Field(description="Only bookings checking in on or before this date.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> ReservationPage:
    """A guest's bookings, latest check-in first, optionally by status and check-in dates."""
    _guest(ctx, guest_id)
    clauses, params = ["reservations.guest_id = ?"], [guest_id]
    _date_filters(status, check_in_from, check_in_to, clauses, params)
    found = ctx.sql.page(RESERVATION_COLUMNS, f"FROM {RESERVATION_TABLES} WHERE {' AND '.join(clauses)} "
                         "ORDER BY reservations.check_in DESC, reservations.id DESC", params, page, per_page,
                         RESERVATION_MODELS)
    return ReservationPage(reservations=_summaries(found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(title="Search reservations", examples=[{"property_id": 1, "check_in_from": "2025-11-01", "check_in_to": "2025-12-31"}])
def search_reservations(
    ctx: ToolContext,
    property_id: PropertyId,
    status: Annotated[list[Status] | None, Field(description="Only bookings with one of these statuses.")] = None,
    check_in_from: Annotated[date | None, Field(description="Only bookings checking in on or after this date.")] = None,
    check_in_to: Annotated[date | None, Field(description="Only bookings checking in on or before this date.")] = None,
    guest_name: Annotated[str | None, Field(description="Part of the guest's name (case-insensitive).")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> ReservationPage:
    """A property's bookings (its arrivals list), earliest check-in first, by status, check-in
    dates and guest name."""
    if ctx.sql.scalar("SELECT id FROM properties WHERE id = ?", [property_id]) is None:
        raise missing("property", property_id, PROPERTY_HINT)
    clauses, params = ["reservations.property_id = ?"], [property_id]
    _date_filters(status, check_in_from, check_in_to, clauses, params)
    if guest_name:
        clauses.append("lower(guests.first_name || ' ' || guests.last_name) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(guest_name.strip().lower()))
    found = ctx.sql.page(RESERVATION_COLUMNS, f"FROM {RESERVATION_TABLES} WHERE {' AND '.join(clauses)} "
                         "ORDER BY reservations.check_in, reservations.id", params, page, per_page, RESERVATION_MODELS)
    return ReservationPage(reservations=_summaries(found.rows), total=found.total, page=page, next_page=found.next_page)


@tools.tool(title="Property occupancy report", examples=[{"property_id": 58, "start": "2025-06-01", "end": "2025-09-01"}])
def property_occupancy_report(
    ctx: ToolContext,
    property_id: PropertyId,
    start: Annotated[date, Field(description="First night of the period, YYYY-MM-DD.")],
    end: Annotated[date, Field(description="The day after the period's last night (exclusive), at most 366 days after start.")],
) -> OccupancyReport:
    """A property's business on this platform over a period: stays, room nights sold, revenue
    and average daily rate, per room type, and cancellations."""
    if end <= start or (end - start).days > 366:
        raise InvalidArgumentError("end must be after start, at most 366 days later")
    prop = ctx.sql.one("SELECT id, name FROM properties WHERE id = ?", [property_id])
    if prop is None:
        raise missing("property", property_id, PROPERTY_HINT)
    rows = ctx.sql.all(
        "SELECT room_types.id AS room_type_id, room_types.name AS room_type_name, "
        "coalesce(sum(sold.rooms), 0) AS room_nights, coalesce(sum(sold.price_cents * sold.rooms), 0) AS revenue_cents "
        "FROM room_types LEFT JOIN (SELECT reservations.room_type_id, reservations.rooms, reservation_nights.price_cents "
        "FROM reservation_nights JOIN reservations ON reservations.id = reservation_nights.reservation_id "
        "WHERE reservations.property_id = :p AND reservations.status != 'cancelled' "
        "AND reservation_nights.night >= :start AND reservation_nights.night < :end) AS sold "
        "ON sold.room_type_id = room_types.id WHERE room_types.property_id = :p "
        "GROUP BY room_types.id ORDER BY room_types.id", {"p": property_id, "start": start, "end": end})
    counts = ctx.sql.one(
        "SELECT (SELECT count(*) FROM reservations WHERE property_id = :p AND status != 'cancelled' "
        "AND check_in < :end AND check_out > :start) AS stays, "
        "(SELECT count(*) FROM reservations WHERE property_id = :p AND status = 'cancelled' "
        "AND check_in >= :start AND check_in < :end) AS cancellations", {"p": property_id, "start": start, "end": end})
    assert counts is not None
    sold = sum(r["room_nights"] for r in rows)
    revenue = sum(r["revenue_cents"] for r in rows)
    return OccupancyReport(property_id=property_id, property_name=prop["name"], start=start, end=end,
                           stays=counts["stays"], room_nights_sold=sold, revenue_cents=revenue,
                           average_daily_rate_cents=revenue // sold if sold else None,
                           cancellations=counts["cancellations"], by_room_type=[RoomTypeOccupancy(**r) for r in rows])


@tools.tool(title="Guest stay summary", examples=[{"guest_id": 1, "start": "2025-01-01", "end": "2026-01-01"}])
def guest_stay_summary(
    ctx: ToolContext,
    guest_id: GuestId,
    start: Annotated[date | None, Field(description="Only stays checking in on or after this date; from the first when omitted.")] = None,
    end: Annotated[date | None, Field(description="Only stays checking in before this date (exclusive); no limit when omitted.")] = None,
) -> StaySummary:
    """A guest's travel with the platform over a period: completed stays, nights, spend,
    cancellations, upcoming stays and the cities visited."""
    guest = _guest(ctx, guest_id)
    clauses, params = ["reservations.guest_id = ?"], [guest_id]
    if start is not None:
        clauses.append("reservations.check_in >= ?")
        params.append(start)
    if end is not None:
        clauses.append("reservations.check_in < ?")
        params.append(end)
    rows = ctx.sql.all(f"SELECT reservations.status, reservations.check_in, reservations.check_out, "
                       f"reservations.total_cents, properties.city FROM reservations "
                       f"JOIN properties ON properties.id = reservations.property_id WHERE {' AND '.join(clauses)} "
                       "ORDER BY reservations.check_in, reservations.id", params, Reservation)
    done = [r for r in rows if r["status"] == "completed"]
    visits: dict[str, int] = {}
    for r in done:
        visits[r["city"]] = visits.get(r["city"], 0) + 1
    favourite = min(visits, key=lambda c: (-visits[c], c)) if visits else None
    return StaySummary(
        guest_id=guest_id, guest_name=f"{guest['first_name']} {guest['last_name']}", start=start, end=end,
        completed_stays=len(done), nights=sum((r["check_out"] - r["check_in"]).days for r in done),
        spent_cents=sum(r["total_cents"] for r in done), cancelled=sum(r["status"] == "cancelled" for r in rows),
        upcoming=sum(r["status"] == "confirmed" and r["check_in"] >= _today(ctx) for r in rows),
        cities=sorted(visits), most_visited_city=favourite)


# ---------------------------------------------------------------- reservations: writes


def _write_nights(ctx: ToolContext, reservation_id: int, prices: list[tuple[date, int]]) -> list[Row]:
    """Insert a booking's nightly prices in one statement; the rows as written."""
    ctx.sql.execute(
        "INSERT INTO reservation_nights (reservation_id, night, price_cents) "
        "SELECT ?, json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)",
        [reservation_id, [[night.isoformat(), price] for night, price in prices]])
    return [{"night": night, "price_cents": price} for night, price in prices]


def _take_rooms(ctx: ToolContext, room_type_id: int, nights: list[date], rooms: int) -> None:
    """Add `rooms` (negative: give back) to the rooms sold of a room type's nights."""
    ctx.sql.execute("UPDATE room_nights SET rooms_sold = rooms_sold + ? WHERE room_type_id = ? AND night >= ? AND night < ?",
                    [rooms, room_type_id, nights[0], nights[-1] + timedelta(days=1)])


@tools.tool(writes=True, destructive=True, idempotent=False, title="Create reservation", examples=[
    {"guest_id": 1, "rate_plan_id": 1, "check_in": "2025-12-10", "check_out": "2025-12-13", "rooms": 1, "guests": 1},
    {"guest_id": 2, "rate_plan_id": 1, "check_in": "2025-12-10", "check_out": "2025-12-12", "points_to_redeem": 500,
     "special_requests": "Late arrival, after 22:00."}])
def create_reservation(
    ctx: ToolContext,
    guest_id: GuestId,
    rate_plan_id: RatePlanId,
    check_in: CheckIn,
    check_out: CheckOut,
    rooms: Rooms = 1,
    guests: Guests = 1,
    points_to_redeem: Annotated[int, Field(ge=0, description="Loyalty points to pay part of the stay with (1 point = 1 cent); 0 for none.")] = 0,
    special_requests: Annotated[str, Field(max_length=500, description="Requests for the property (arrival time, bed, floor); may be empty.")] = "",
) -> ReservationOut:
    """Book a rate plan for a guest and dates. The card on file is charged the total less the
    points redeemed. Refused when a night lacks rooms, the guests do not fit, the dates are
    outside the booking window, or the guest lacks the points."""
    nights = _bookable_dates(ctx, check_in, check_out)
    guest = _guest(ctx, guest_id)
    plan = _plan(ctx, rate_plan_id)
    _occupancy(plan["max_guests"], rooms, guests, plan["room_type_name"])
    inventory = _inventory(ctx, plan["room_type_id"], nights)
    _availability(inventory, nights, rooms, {})
    prices = [(n, _price(inventory[n]["base_price_cents"], plan, plan["breakfast_cents"])) for n in nights]
    total = sum(price for _, price in prices) * rooms
    if points_to_redeem:
        _check_points(guest, points_to_redeem, total)
    reservation_id = int(ctx.sql.scalar("SELECT coalesce(max(id), 0) + 1 FROM reservations"))
    row = {"id": reservation_id, "confirmation_number": confirmation_for(reservation_id), "guest_id": guest_id,
           "property_id": plan["property_id"], "room_type_id": plan["room_type_id"], "rate_plan_id": rate_plan_id,
           "check_in": check_in, "check_out": check_out, "rooms": rooms, "guests": guests, "status": "confirmed",
           "total_cents": total, "points_redeemed": points_to_redeem,
           "free_cancellation_until": _deadline(plan, check_in), "special_requests": special_requests.strip(),
           "created_at": ctx.now, "updated_at": ctx.now, "cancelled_at": None}
    ctx.sql.insert(f"INSERT INTO reservations ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
    written = _write_nights(ctx, reservation_id, prices)
    _take_rooms(ctx, plan["room_type_id"], nights, rooms)
    payments = []
    cash = total - points_to_redeem * CENTS_PER_POINT
    if cash > 0:
        payments.append(_pay(ctx, reservation_id, cash, "Prepaid stay"))
    if points_to_redeem:
        ctx.sql.execute("UPDATE loyalty_accounts SET points_balance = points_balance - ? WHERE id = ?",
                        [points_to_redeem, guest["account_id"]])
        _points(ctx, guest["account_id"], reservation_id, "redeem", -points_to_redeem,
                f"Redeemed on booking {row['confirmation_number']}")
    shown = {**row, "property_name": plan["property_name"], "city": plan["city"],
             "room_type_name": plan["room_type_name"], "rate_plan_name": plan["name"], "refundable": plan["refundable"],
             "breakfast_included": plan["breakfast_included"], "guest_name": f"{guest['first_name']} {guest['last_name']}",
             "guest_email": guest["email"]}
    return _render(shown, written, payments)


def _check_points(guest: Row, points: int, cash_due: int) -> None:
    """The points rule: members only, within the balance, worth no more than the cash due."""
    if guest["account_id"] is None:
        raise ForbiddenError(f"points: {guest['first_name']} {guest['last_name']} is not a loyalty member; only "
                             "members redeem points")
    if points > guest["points_balance"]:
        raise ForbiddenError(f"points: the balance is {guest['points_balance']} points; {points} cannot be redeemed")
    if points * CENTS_PER_POINT > cash_due:
        raise ForbiddenError(f"points: {points} points are worth {points * CENTS_PER_POINT} cents, more than the "
                             f"{cash_due} cents still to pay in cash")


@tools.tool(writes=True, destructive=True, idempotent=True, title="Modify reservation", examples=[
    {"confirmation_number": "4385265229", "check_out": "2025-12-04"},
    {"confirmation_number": "2027634700", "guests": 1}])
def modify_reservation(
    ctx: ToolContext,
    confirmation_number: Confirmation,
    check_in: Annotated[date | None, Field(description="New arrival date; unchanged when omitted.")] = None,
    check_out: Annotated[date | None, Field(description="New departure date; unchanged when omitted.")] = None,
    rate_plan_id: Annotated[int | None, Field(description="A new rate plan (room type and rate) of the same property; unchanged when omitted.")] = None,
    rooms: Annotated[int | None, Field(ge=1, le=MAX_ROOMS, description="New number of rooms; unchanged when omitted.")] = None,
    guests: Annotated[int | None, Field(ge=1, le=4 * MAX_ROOMS, description="New number of guests; unchanged when omitted.")] = None,
) -> ChangeResult:
    """Change a refundable booking's dates, room type or rate, rooms or guests, before its
    free-cancellation deadline. The stay is repriced at today's prices; the difference is
    charged or refunded. Non-refundable bookings cannot be changed."""
    before = _reservation(ctx, confirmation_number)
    _changeable(ctx, before, "changed")
    new_in, new_out = check_in or before["check_in"], check_out or before["check_out"]
    new_rooms, new_guests = rooms or before["rooms"], guests or before["guests"]
    nights = _bookable_dates(ctx, new_in, new_out)
    plan = _plan(ctx, rate_plan_id if rate_plan_id is not None else before["rate_plan_id"])
    if plan["property_id"] != before["property_id"]:
        raise InvalidArgumentError(f"rate plan {plan['id']} belongs to {plan['property_name']}, not "
                                   f"{before['property_name']}; book the other property instead")
    changes = (new_in, new_out, plan["id"], new_rooms, new_guests)
    if changes == (before["check_in"], before["check_out"], before["rate_plan_id"], before["rooms"], before["guests"]):
        raise InvalidArgumentError("nothing to change: give new dates, a new rate plan, rooms or guests")
    _occupancy(plan["max_guests"], new_rooms, new_guests, plan["room_type_name"])
    inventory = _inventory(ctx, plan["room_type_id"], nights)
    old_nights = [before["check_in"] + timedelta(days=i) for i in range((before["check_out"] - before["check_in"]).days)]
    held = {n: before["rooms"] for n in old_nights} if plan["room_type_id"] == before["room_type_id"] else {}
    _availability(inventory, nights, new_rooms, held)
    prices = [(n, _price(inventory[n]["base_price_cents"], plan, plan["breakfast_cents"])) for n in nights]
    total = sum(price for _, price in prices) * new_rooms
    points_value = before["points_redeemed"] * CENTS_PER_POINT
    if total < points_value:
        raise InvalidArgumentError(f"the new total ({total} cents) is below the value of the points redeemed "
                                   f"({points_value} cents)")
    _take_rooms(ctx, before["room_type_id"], old_nights, -before["rooms"])
    _take_rooms(ctx, plan["room_type_id"], nights, new_rooms)
    ctx.sql.execute("DELETE FROM reservation_nights WHERE reservation_id = ?", [before["id"]])
    written = _write_nights(ctx, before["id"], prices)
    after = {**before, "check_in": new_in, "check_out": new_out, "rate_plan_id": plan["id"],
             "room_type_id": plan["room_type_id"], "rooms": new_rooms, "guests": new_guests, "total_cents": total,
             "free_cancellation_until": _deadline(plan, new_in), "updated_at": ctx.now,
             "room_type_name": plan["room_type_name"], "rate_plan_name": plan["name"], "refundable": plan["refundable"],
             "breakfast_included": plan["breakfast_included"]}
    ctx.sql.update_row(Reservation, before, after)
    difference = total - before["total_cents"]
    if difference:
        _pay(ctx, before["id"], difference, "Change of stay: difference charged" if difference > 0
             else "Change of stay: difference refunded")
    return ChangeResult(reservation=_render(after, written, _payments(ctx, before["id"])),
                        price_difference_cents=difference)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Cancel reservation", examples=[{"confirmation_number": "7792148612"}])
def cancel_reservation(ctx: ToolContext, confirmation_number: Confirmation) -> CancelResult:
    """Cancel a refundable booking before its free-cancellation deadline: the card payments are
    refunded in full, redeemed points given back and the rooms released. Non-refundable bookings
    and bookings past the deadline are refused."""
    before = _reservation(ctx, confirmation_number)
    _changeable(ctx, before, "cancelled")
    nights = [before["check_in"] + timedelta(days=i) for i in range((before["check_out"] - before["check_in"]).days)]
    after = {**before, "status": "cancelled", "cancelled_at": ctx.now, "updated_at": ctx.now}
    ctx.sql.update_row(Reservation, before, after)
    _take_rooms(ctx, before["room_type_id"], nights, -before["rooms"])
    paid = int(ctx.sql.scalar("SELECT coalesce(sum(amount_cents), 0) FROM payments WHERE reservation_id = ?", [before["id"]]))
    if paid > 0:
        _pay(ctx, before["id"], -paid, "Free cancellation refund")
    returned = before["points_redeemed"]
    if returned:
        account = _account(ctx, before["guest_id"])
        if account is not None:
            ctx.sql.update_row(LoyaltyAccount, account, {**account, "points_balance": account["points_balance"] + returned})
            _points(ctx, account["id"], before["id"], "reversal", returned,
                    f"Points returned for cancelled booking {confirmation_number}")
    return CancelResult(reservation=_reservation_out(ctx, after), refund_cents=max(paid, 0), points_returned=returned)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Check in", examples=[{"confirmation_number": "8908259908"}])
def check_in_reservation(ctx: ToolContext, confirmation_number: Confirmation) -> ReservationOut:
    """Mark a confirmed booking's guest as arrived. Check-in opens on the check-in day and
    closes on the check-out day."""
    before = _reservation(ctx, confirmation_number)
    _open(before, "checked in")
    today = _today(ctx)
    if not before["check_in"] <= today < before["check_out"]:
        raise ForbiddenError(f"status: check-in for booking {confirmation_number} opens on {before['check_in']} and "
                             f"closes on {before['check_out']}; today is {today}")
    after = {**before, "status": "checked_in", "updated_at": ctx.now}
    ctx.sql.update_row(Reservation, before, after)
    return _reservation_out(ctx, after)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Check out", examples=[{"confirmation_number": "5593355241"}])
def check_out_reservation(ctx: ToolContext, confirmation_number: Confirmation) -> CheckOutResult:
    """Complete a checked-in stay. A loyalty member earns points on the cash paid (5 per whole
    dollar times the tier's multiplier), the stay's room nights count towards the tier, and the
    tier goes up when they reach the next one."""
    before = _reservation(ctx, confirmation_number)
    if before["status"] != "checked_in":
        raise ForbiddenError(f"status: booking {confirmation_number} is {before['status']}; only checked-in stays "
                             "are checked out")
    after = {**before, "status": "completed", "updated_at": ctx.now}
    ctx.sql.update_row(Reservation, before, after)
    account = _account(ctx, before["guest_id"])
    earned, tier = 0, None
    if account is not None:
        cash = before["total_cents"] - before["points_redeemed"] * CENTS_PER_POINT
        earned = cash // 100 * POINTS_PER_USD * TIER_BY_NAME[account["tier"]].earn_multiplier_pct // 100
        nights = account["qualifying_nights"] + (before["check_out"] - before["check_in"]).days * before["rooms"]
        reached = tier_for(nights)
        tier = max(account["tier"], reached, key=lambda name: TIER_BY_NAME[name].qualifying_nights)
        ctx.sql.update_row(LoyaltyAccount, account, {
            **account, "points_balance": account["points_balance"] + earned,
            "lifetime_points": account["lifetime_points"] + earned, "qualifying_nights": nights, "tier": tier})
        if earned:
            _points(ctx, account["id"], before["id"], "earn", earned, f"Stay {confirmation_number}")
    return CheckOutResult(reservation=_reservation_out(ctx, after), points_earned=earned, tier=tier)


@tools.tool(writes=True, destructive=True, idempotent=False, title="Redeem points", examples=[{"confirmation_number": "3018338059", "points": 500}])
def redeem_points(
    ctx: ToolContext,
    confirmation_number: Confirmation,
    points: Annotated[int, Field(ge=1, description="Points to apply to the booking (1 point = 1 cent), refunded to the card.")],
) -> RedeemResult:
    """Pay part of a confirmed booking with the guest's loyalty points: the points' value is
    refunded to the card. Members only, within their balance and the cash still paid."""
    before = _reservation(ctx, confirmation_number)
    _open(before, "given points")
    guest = _guest(ctx, before["guest_id"])
    cash = before["total_cents"] - before["points_redeemed"] * CENTS_PER_POINT
    _check_points(guest, points, cash)
    ctx.sql.execute("UPDATE loyalty_accounts SET points_balance = points_balance - ? WHERE id = ?",
                    [points, guest["account_id"]])
    _points(ctx, guest["account_id"], before["id"], "redeem", -points, f"Redeemed on booking {confirmation_number}")
    after = {**before, "points_redeemed": before["points_redeemed"] + points, "updated_at": ctx.now}
    ctx.sql.update_row(Reservation, before, after)
    _pay(ctx, before["id"], -points * CENTS_PER_POINT, f"Refund for {points} points redeemed")
    return RedeemResult(reservation=_reservation_out(ctx, after), points_redeemed=points,
                        refund_cents=points * CENTS_PER_POINT, points_balance=guest["points_balance"] - points)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Update special requests", examples=[
    {"confirmation_number": "4385265229", "special_requests": "Quiet room on a high floor, please."}])
def update_special_requests(
    ctx: ToolContext,
    confirmation_number: Confirmation,
    special_requests: Annotated[str, Field(max_length=500, description="The requests that replace the current ones (empty clears them).")],
) -> ReservationOut:
    """Replace a booking's special requests to the property (arrival time, beds, floor). Allowed
    on any rate, refundable or not, until the stay is completed or cancelled."""
    before = _reservation(ctx, confirmation_number)
    if before["status"] not in ("confirmed", "checked_in"):
        raise ForbiddenError(f"status: booking {confirmation_number} is {before['status']}; requests can be updated "
                             "only until the stay ends")
    after = {**before, "special_requests": special_requests.strip(), "updated_at": ctx.now}
    if after["special_requests"] == before["special_requests"]:
        after["updated_at"] = before["updated_at"]
    ctx.sql.update_row(Reservation, before, after)
    return _reservation_out(ctx, after)
