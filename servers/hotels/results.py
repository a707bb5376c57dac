"""The result models of the hotel platform's tools."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.fields import Timestamp


class PropertySummary(BaseModel):
    id: int
    name: str
    city: str
    country: str
    address: str
    stars: int
    review_score: float = Field(description="Average guest review, 0-10.")
    review_count: int
    amenities: list[str]


class PropertyPage(BaseModel):
    properties: list[PropertySummary]
    total: int
    page: int
    next_page: int | None


class RatePlanOut(BaseModel):
    id: int
    code: str = Field(description="FLEX, FLEXBB, NRF or NRFBB.")
    name: str
    refundable: bool
    breakfast_included: bool
    discount_pct: int = Field(description="Percent off the room's nightly base price.")


class RoomTypeOut(BaseModel):
    id: int
    name: str
    beds: str
    max_guests: int = Field(description="Most guests one room of this type sleeps.")
    size_sqm: int
    total_rooms: int
    rate_plans: list[RatePlanOut]


class PropertyDetail(PropertySummary):
    timezone: str = Field(description="IANA time zone of the property's local times.")
    description: str
    check_in_time: str = Field(description="Local check-in time, HH:MM.")
    cancellation_hours: int = Field(description="Refundable rates cancel for free until this many hours before local check-in time.")
    breakfast_cents: int = Field(description="Breakfast per room per night, included in the price of breakfast rates.")
    room_types: list[RoomTypeOut]


class RatePlanDetail(RatePlanOut):
    room_type_id: int
    room_type_name: str
    max_guests: int
    property_id: int
    property_name: str
    city: str
    cancellation_hours: int | None = Field(description="Hours before local check-in time that free cancellation ends; None when non-refundable.")
    breakfast_cents: int = Field(description="Breakfast per room per night, included in this rate's price when breakfast_included.")
    policy: str = Field(description="The cancellation and change policy in words.")


class CalendarNight(BaseModel):
    night: date
    base_price_cents: int = Field(description="Price of one room for the night before rate-plan discounts and breakfast.")
    rooms_left: int
    sold_out: bool


class RoomCalendar(BaseModel):
    room_type_id: int
    room_type_name: str
    property_id: int
    property_name: str
    last_night_on_sale: date
    nights: list[CalendarNight]


class StayOffer(BaseModel):
    property_id: int
    property_name: str
    stars: int
    review_score: float
    room_type_id: int
    room_type_name: str
    max_guests: int
    rate_plan_id: int
    rate_plan_name: str
    refundable: bool
    breakfast_included: bool
    rooms_left: int = Field(description="Fewest rooms left over the nights of the stay.")
    total_cents: int = Field(description="Price of the whole stay for all rooms.")


class StayOfferPage(BaseModel):
    city: str
    check_in: date
    check_out: date
    nights: int
    offers: list[StayOffer]
    total: int
    page: int
    next_page: int | None


class QuoteNight(BaseModel):
    night: date
    price_cents: int = Field(description="Price of one room for this night on this rate plan.")
    rooms_left: int


class StayQuote(BaseModel):
    rate_plan_id: int
    rate_plan_name: str
    refundable: bool
    breakfast_included: bool
    room_type_id: int
    room_type_name: str
    property_id: int
    property_name: str
    check_in: date
    check_out: date
    rooms: int
    guests: int
    nights: list[QuoteNight]
    total_cents: int = Field(description="Price of the whole stay for all rooms.")
    available: bool = Field(description="Whether every night has enough rooms left.")
    sold_out_nights: list[date] = Field(description="Nights with fewer rooms left than asked for.")
    fits_guests: bool = Field(description="Whether the guests fit the rooms (max guests per room times rooms).")
    free_cancellation_until: Timestamp | None = Field(description="When free cancellation would end if booked now; None for non-refundable rates.")


class GuestOut(BaseModel):
    id: int
    person_id: str = Field(description="Shared world person id, e.g. per_0042.")
    name: str
    first_name: str
    last_name: str
    email: str
    phone: str
    organization_name: str
    member_since: Timestamp
    loyalty_number: str | None
    loyalty_tier: str | None
    points_balance: int | None


class GuestPage(BaseModel):
    guests: list[GuestOut]
    total: int
    page: int
    next_page: int | None


class NightPrice(BaseModel):
    night: date
    price_cents: int = Field(description="Price of one room for the night, as booked.")


class PaymentOut(BaseModel):
    kind: str = Field(description="charge or refund.")
    amount_cents: int = Field(description="Negative for refunds.")
    description: str
    created_at: Timestamp


class ReservationOut(BaseModel):
    confirmation_number: str
    status: str = Field(description="confirmed, checked_in, completed or cancelled.")
    guest_id: int
    guest_name: str
    guest_email: str
    property_id: int
    property_name: str
    city: str
    room_type_id: int
    room_type_name: str
    rate_plan_id: int
    rate_plan_name: str
    refundable: bool
    breakfast_included: bool
    check_in: date
    check_out: date
    nights: int
    rooms: int
    guests: int
    nightly_prices: list[NightPrice]
    total_cents: int
    points_redeemed: int
    cash_cents: int = Field(description="What the card pays: the total less the value of the points redeemed.")
    net_paid_cents: int = Field(description="Charges less refunds so far.")
    free_cancellation_until: Timestamp | None = Field(description="Until when the booking cancels for a full refund; None for non-refundable rates.")
    special_requests: str
    payments: list[PaymentOut]
    created_at: Timestamp
    updated_at: Timestamp
    cancelled_at: Timestamp | None


class ReservationSummary(BaseModel):
    confirmation_number: str
    status: str
    guest_id: int
    guest_name: str
    property_id: int
    property_name: str
    city: str
    room_type_name: str
    rate_plan_name: str
    refundable: bool
    check_in: date
    check_out: date
    nights: int
    rooms: int
    guests: int
    total_cents: int
    created_at: Timestamp


class ReservationPage(BaseModel):
    reservations: list[ReservationSummary]
    total: int
    page: int
    next_page: int | None


class LoyaltyTransactionOut(BaseModel):
    kind: str = Field(description="earn, redeem, reversal or bonus.")
    points: int = Field(description="Negative for redemptions.")
    description: str
    confirmation_number: str | None
    created_at: Timestamp


class LoyaltyAccountOut(BaseModel):
    guest_id: int
    guest_name: str
    number: str
    tier: str = Field(description="member, silver, gold or platinum.")
    points_balance: int
    points_value_cents: int = Field(description="What the balance is worth against a booking.")
    lifetime_points: int
    qualifying_nights: int = Field(description="Room nights of completed stays in the last 12 months.")
    next_tier: str | None
    nights_to_next_tier: int | None
    enrolled_at: Timestamp
    recent_transactions: list[LoyaltyTransactionOut] = Field(description="The latest transactions, newest first (at most 10).")


class RoomTypeOccupancy(BaseModel):
    room_type_id: int
    room_type_name: str
    room_nights: int
    revenue_cents: int


class OccupancyReport(BaseModel):
    property_id: int
    property_name: str
    start: date
    end: date = Field(description="Exclusive.")
    stays: int = Field(description="Bookings not cancelled with at least one night in the period.")
    room_nights_sold: int = Field(description="Rooms times nights booked on this platform in the period.")
    revenue_cents: int
    average_daily_rate_cents: int | None = Field(description="Revenue per room night sold, rounded down.")
    cancellations: int = Field(description="Cancelled bookings whose check-in falls in the period.")
    by_room_type: list[RoomTypeOccupancy]


class StaySummary(BaseModel):
    guest_id: int
    guest_name: str
    start: date | None
    end: date | None
    completed_stays: int
    nights: int = Field(description="Nights of the completed stays.")
    spent_cents: int = Field(description="Totals of the completed stays.")
    cancelled: int
    upcoming: int = Field(description="Confirmed stays checking in in the period, today or later.")
    cities: list[str] = Field(description="Cities of the completed stays, alphabetical.")
    most_visited_city: str | None = Field(description="The city with the most completed stays (ties: alphabetical first).")


class ChangeResult(BaseModel):
    reservation: ReservationOut
    price_difference_cents: int = Field(description="New total less old total: charged when positive, refunded when negative.")


class CancelResult(BaseModel):
    reservation: ReservationOut
    refund_cents: int
    points_returned: int


class CheckOutResult(BaseModel):
    reservation: ReservationOut
    points_earned: int
    tier: str | None = Field(description="The guest's tier after the stay; None for non-members.")


class RedeemResult(BaseModel):
    reservation: ReservationOut
    points_redeemed: int
    refund_cents: int = Field(description="Refunded to the card for the points.")
    points_balance: int
