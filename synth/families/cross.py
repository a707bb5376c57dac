"""Cross-server families: a person links the servers by email (the ticket's requester is a
CRM contact, a passenger, a calendar attendee)."""

from __future__ import annotations

import random
from datetime import timedelta

from mcpgym.synth.family import Draft, Family, SamplingError, WorldView


def _ticket_by_subject(view: WorldView, rng: random.Random) -> tuple[dict, dict, list[dict]]:  # type: ignore[type-arg]
    """A random ticket, its requester, and the calls that find them from subject and day."""
    page = view.read("zendesk", "search_tickets", per_page=50, page=rng.randint(1, 25))
    if not page["tickets"]:
        raise SamplingError("no tickets on that page")
    ticket = rng.choice(page["tickets"])
    requester = view.read("zendesk", "get_user", user_id=ticket["requester_id"])
    day = ticket["created_at"][:10]
    calls = [
        {"id": "c1", "server": "zendesk", "tool": "search_tickets", "arguments": {
            "query": ticket["subject"], "created_after": f"{day}T00:00:00Z", "created_before": f"{day}T23:59:59Z", "per_page": 5}},
        {"id": "c2", "server": "zendesk", "tool": "get_user", "bind": {"user_id": "{c1.tickets.0.requester_id}"}},
    ]
    return ticket, requester, calls


class RequesterAccountOwner(Family):
    """Who owns, in the CRM, the account of the customer who filed a ticket."""

    name = "cross.requester-account-owner"
    servers = ("zendesk", "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        ticket, requester, calls = _ticket_by_subject(view, rng)
        if view.lookup("crm", "find_contact_by_email", email=requester["email"]) is None:
            return None
        day, subject = ticket["created_at"][:10], ticket["subject"]
        user = [
            f"The customer who filed \"{subject}\" on {day}: which account are they in our CRM, and who is the account owner?",
            f"Find who opened the ticket \"{subject}\" ({day}) and tell me their CRM account and its owner.",
        ]
        calls += [
            {"id": "c3", "server": "crm", "tool": "find_contact_by_email", "bind": {"email": "{c2.email}"}},
            {"id": "c4", "server": "crm", "tool": "get_account", "bind": {"account_id": "{c3.account_id}"}},
        ]
        return Draft(
            family=self.name,
            key=f"ticket:{ticket['id']}",
            turns=[{"user": user, "calls": calls, "facts": [
                {"name": "customer", "expr": "{c2.name}", "value": None},
                {"name": "account", "expr": "{c4.name}", "value": None},
                {"name": "account owner", "expr": "{c4.owner_name}", "value": None},
            ]}],
            checks=["{c1.total} == 1"],
        )


class RequesterLatestTrip(Family):
    """The latest booking of the customer who filed a ticket."""

    name = "cross.requester-latest-trip"
    servers = ("zendesk", "flights")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        ticket, requester, calls = _ticket_by_subject(view, rng)
        passenger = view.lookup("flights", "get_passenger_by_email", email=requester["email"])
        if passenger is None:
            return None
        trips = view.read("flights", "list_passenger_reservations", passenger_id=passenger["passenger_id"], per_page=2)
        if not trips["reservations"]:
            return None
        day, subject = ticket["created_at"][:10], ticket["subject"]
        user = [
            f"The person who opened \"{subject}\" on {day} travels with us. What is the booking reference and itinerary of the trip they booked most recently?",
            f"Look up the requester of the \"{subject}\" ticket from {day} in our airline system: their most recently booked reservation's reference and route.",
        ]
        calls += [
            {"id": "c3", "server": "flights", "tool": "get_passenger_by_email", "bind": {"email": "{c2.email}"}},
            {"id": "c4", "server": "flights", "tool": "list_passenger_reservations", "arguments": {"per_page": 2},
             "bind": {"passenger_id": "{c3.passenger_id}"}},
        ]
        return Draft(
            family=self.name,
            key=f"ticket:{ticket['id']}",
            turns=[{"user": user, "calls": calls, "facts": [
                {"name": "booking reference", "expr": "{c4.reservations.0.pnr}", "value": None},
                {"name": "itinerary", "expr": "{c4.reservations.0.itinerary}", "value": None},
            ]}],
            checks=["{c1.total} == 1", "{c4.total} == 1 or {c4.reservations.0.created_at} != {c4.reservations.1.created_at}"],
        )


class DealReviewMeeting(Family):
    """Put a review of an account's largest open deal on the owner's calendar, with the deal's
    contact invited."""

    name = "cross.deal-review-meeting"
    servers = ("crm", "calendar")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        accounts = view.read("crm", "search_accounts", per_page=50)["accounts"]
        account = rng.choice(accounts)
        deals = view.read("crm", "search_opportunities", account_id=account["id"], status="open",
                          sort_by="amount", sort_order="desc", per_page=2)["opportunities"]
        if not deals or deals[0].get("contact_id") is None:
            return None
        day = (view.now + timedelta(days=rng.randint(3, 20))).date()
        while day.weekday() >= 5:
            day += timedelta(days=1)
        hour = rng.choice((9, 10, 14, 15, 16))
        start, end = f"{day}T{hour:02d}:00:00Z", f"{day}T{hour:02d}:30:00Z"
        title = f"Deal review: {account['name']}"
        user = [
            f"Book a 30-minute meeting called '{title}' on {day} at {hour:02d}:00 UTC on the calendar of {account['name']}'s account owner, and invite the contact on their largest open deal.",
            f"Set up '{title}' for {day}, {hour:02d}:00-{hour:02d}:30 UTC: it goes on the {account['name']} account owner's calendar, with the primary contact of the account's biggest open opportunity invited.",
        ]
        calls = [
            {"id": "c1", "server": "crm", "tool": "search_accounts", "arguments": {"query": account["name"]}},
            {"id": "c2", "server": "crm", "tool": "search_opportunities", "arguments": {"status": "open", "sort_by": "amount", "sort_order": "desc", "per_page": 2},
             "bind": {"account_id": "{c1.accounts.0.id}"}},
            {"id": "c3", "server": "crm", "tool": "get_contact", "bind": {"contact_id": "{c2.opportunities.0.contact_id}"}},
            {"id": "c4", "server": "calendar", "tool": "search_people", "arguments": {"is_employee": True}, "bind": {"query": "{c1.accounts.0.owner_name}"}},
            {"id": "c5", "server": "calendar", "tool": "create_event", "arguments": {"title": title, "start": start, "end": end},
             "bind": {"calendar_id": "{c4.people.0.primary_calendar_id}", "attendee_emails": "[{c4.people.0.email}, {c3.email}]"}},
        ]
        return Draft(
            family=self.name,
            key=f"account:{account['id']}",
            writes=True,
            turns=[{"user": user, "calls": calls, "facts": [
                {"name": "account owner", "expr": "{c1.accounts.0.owner_name}", "value": None},
                {"name": "contact invited", "expr": "{c3.name}", "value": None},
            ]}],
            checks=["{c1.total} == 1", "{c4.total} == 1", "{c2.total} == 1 or {c2.opportunities.0.amount} != {c2.opportunities.1.amount}"],
        )


CROSS_FAMILIES = (RequesterAccountOwner(), RequesterLatestTrip(), DealReviewMeeting())
