"""Zendesk task families: tag counts over months, earliest-solved drill-down, ticket lookup,
monthly series, conditional escalation, and two-turn follow-ups on a ticket named by subject."""

from __future__ import annotations

import random
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "zendesk"


def _popular_tags(view: WorldView) -> list[str]:
    return [t["tag"] for t in view.read(SERVER, "list_tags", limit=12)["tags"]]



def requester_turn(user: list[str], subject: str, day: str) -> dict[str, Any]:
    """A turn that finds the ticket filed with `subject` on `day` (calls c1-c3) and answers
    who filed it and their company; later turns refer to the ticket as `{c1.tickets.0.id}`."""
    return {"user": user, "calls": [
        {"id": "c1", "tool": "search_tickets", "arguments": {
            "query": subject, "created_after": f"{day}T00:00:00Z", "created_before": f"{day}T23:59:59Z", "per_page": 5}},
        {"id": "c2", "tool": "get_user", "bind": {"user_id": "{c1.tickets.0.requester_id}"}},
        {"id": "c3", "tool": "get_organization", "bind": {"organization_id": "{c2.organization_id}"}},
    ], "facts": [
        {"name": "requester", "expr": "{c2.name}", "value": None},
        {"name": "company", "expr": "{c3.name}", "value": None},
    ]}

class TagMonthComparison(Family):
    """How many tickets with a tag were created in one month against another, and the change."""

    name = "zendesk.tag-month-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        tag = rng.choice(_popular_tags(view))
        back = rng.randint(1, 14)
        gap = rng.choice((1, 12))
        year, month = previous_month(view.now.year, view.now.month, back)
        year0, month0 = previous_month(year, month, gap)
        (a_start, a_end), (b_start, b_end) = month_window(year0, month0), month_window(year, month)
        first, second = month_name(year0, month0), month_name(year, month)
        user = [
            f"How many tickets tagged {tag} were created in {first}, how many in {second}, and what is the change from the first to the second?",
            f"Compare the number of '{tag}' tickets created in {second} with {first}: give both counts and the difference ({second} minus {first}).",
            f"I need the {tag} ticket volume: tickets created in {first} versus {second}, and how much it went up or down.",
        ]
        return Draft(
            family=self.name,
            key=f"{tag}|{first}|{second}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "ticket_stats", "arguments": {"tags": [tag], "created_after": a_start, "created_before": a_end}},
                    {"id": "c2", "tool": "ticket_stats", "arguments": {"tags": [tag], "created_after": b_start, "created_before": b_end}},
                ],
                "facts": [
                    {"name": f"{tag} tickets created in {first}", "expr": "{c1.total}", "value": None},
                    {"name": f"{tag} tickets created in {second}", "expr": "{c2.total}", "value": None},
                    {"name": "change", "expr": "{c2.total} - {c1.total}", "value": None},
                ],
            }],
            checks=["{c1.total} + {c2.total} > 0", "{c1.total} != {c2.total}"],
        )


class EarliestSolvedDrillDown(Family):
    """The earliest-solved ticket with a tag in a month, its first comment's author, and when
    that person last logged in."""

    name = "zendesk.earliest-solved-drill-down"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        tag = rng.choice(_popular_tags(view))
        year, month = previous_month(view.now.year, view.now.month, rng.randint(1, 16))
        start, end = month_window(year, month)
        when = month_name(year, month)
        user = [
            f"Among the tickets tagged {tag} that were created in {when} and have been solved, which one was solved first? Who wrote its first comment, and when did that person last log in?",
            f"Find the {tag} ticket from {when} (by creation date) that got solved earliest. Tell me its id, the author of its first comment, and that author's last login time.",
        ]
        search = {"tags": [tag], "created_after": start, "created_before": end, "solved_after": "2000-01-01T00:00:00Z",
                  "sort_by": "solved_at", "sort_order": "asc", "per_page": 2}
        return Draft(
            family=self.name,
            key=f"{tag}|{when}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_tickets", "arguments": search},
                    {"id": "c2", "tool": "list_ticket_comments", "arguments": {"sort_order": "asc", "per_page": 1}, "bind": {"ticket_id": "{c1.tickets.0.id}"}},
                    {"id": "c3", "tool": "get_user", "bind": {"user_id": "{c2.comments.0.author_id}"}},
                ],
                "facts": [
                    {"name": "earliest-solved ticket", "expr": "{c1.tickets.0.id}", "value": None},
                    {"name": "author of its first comment", "expr": "{c3.name}", "value": None},
                    {"name": "that author's last login", "expr": "{c3.last_login_at}", "value": None},
                ],
            }],
            checks=["{c1.total} == 1 or {c1.tickets.0.solved_at} != {c1.tickets.1.solved_at}"],
        )


class TicketRequesterLookup(Family):
    """Who filed a ticket the user names by subject and day, their email and company."""

    name = "zendesk.ticket-requester-lookup"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_tickets", per_page=50, page=rng.randint(1, 20))
        if not page["tickets"]:
            return None
        ticket = rng.choice(page["tickets"])
        day = ticket["created_at"][:10]
        subject = ticket["subject"]
        user = [
            f"Who filed the ticket \"{subject}\" on {day}? I need their name, email address and company.",
            f"A ticket titled \"{subject}\" came in on {day} (UTC). Which customer opened it, what is their email, and which organization are they with?",
            f"Look up the requester of the \"{subject}\" ticket created {day}: name, email and company please.",
        ]
        return Draft(
            family=self.name,
            key=f"ticket:{ticket['id']}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_tickets", "arguments": {
                        "query": subject, "created_after": f"{day}T00:00:00Z", "created_before": f"{day}T23:59:59Z", "per_page": 5}},
                    {"id": "c2", "tool": "get_user", "bind": {"user_id": "{c1.tickets.0.requester_id}"}},
                    {"id": "c3", "tool": "get_organization", "bind": {"organization_id": "{c2.organization_id}"}},
                ],
                "facts": [
                    {"name": "requester", "expr": "{c2.name}", "value": None},
                    {"name": "email", "expr": "{c2.email}", "value": None},
                    {"name": "company", "expr": "{c3.name}", "value": None},
                ],
            }],
            checks=["{c1.total} == 1"],
        )




UNSOLVED = ["new", "open", "pending", "hold"]


class MonthlyTagSeries(Family):
    """Tickets with a tag created in each of the last 6-12 months: the total and the peak."""

    name = "zendesk.monthly-tag-series"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        tag = rng.choice(_popular_tags(view))
        months = rng.choice((6, 9, 12))
        end_back = rng.randint(1, 4)
        periods = [previous_month(view.now.year, view.now.month, end_back + months - 1 - i) for i in range(months)]
        first, last = month_name(*periods[0]), month_name(*periods[-1])
        calls = []
        for i, (year, month) in enumerate(periods, start=1):
            start, end = month_window(year, month)
            calls.append({"id": f"c{i}", "tool": "ticket_stats", "arguments": {"tags": [tag], "created_after": start, "created_before": end}})
        totals = ", ".join(f"{{c{i}.total}}" for i in range(1, months + 1))
        user = [
            f"Give me the monthly volume of tickets tagged {tag} from {first} through {last}: the total over those {months} months and the highest single-month count.",
            f"For each month from {first} to {last}, count the tickets created with the tag {tag}. What is the total, and what was the busiest month's count?",
            f"How many {tag} tickets did we get in total between {first} and {last} (by creation month), and how many in the busiest of those months?",
        ]
        return Draft(
            family=self.name,
            key=f"{tag}|{first}|{months}",
            turns=[{"user": user, "calls": calls, "facts": [
                {"name": f"{tag} tickets over the {months} months", "expr": " + ".join(f"{{c{i}.total}}" for i in range(1, months + 1)), "value": None},
                {"name": "busiest month's count", "expr": f"max({totals})", "value": None},
            ]}],
            checks=[f"max({totals}) > 0"],
        )


def _organizations(view: WorldView, rng: random.Random) -> dict:  # type: ignore[type-arg]
    page = view.read(SERVER, "search_organizations", per_page=50)
    return rng.choice(page["organizations"])


class ConditionalEscalation(Family):
    """If a customer has more than N unsolved tickets, raise the oldest to urgent; either way,
    say how many they have."""

    name = "zendesk.conditional-escalation"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        org = _organizations(view, rng)
        unsolved = view.read(SERVER, "search_tickets", organization_id=org["id"], status=UNSOLVED,
                             sort_by="created_at", sort_order="asc", per_page=1)
        count = unsolved["total"]
        threshold = max(0, count - 1) if rng.random() < 0.5 else count
        escalate = count > threshold
        if escalate and unsolved["tickets"][0]["priority"] == "urgent":
            return None
        user = [
            f"If {org['name']} has more than {threshold} unsolved tickets, set the oldest unsolved one to urgent priority. Either way, tell me how many unsolved tickets they have.",
            f"Check {org['name']}'s unsolved tickets (new, open, pending or on hold). More than {threshold}? Then make their oldest unsolved ticket urgent. Tell me the count.",
            f"How many unsolved tickets does {org['name']} have? If it is over {threshold}, escalate the oldest one to urgent.",
        ]
        calls = [
            {"id": "c1", "tool": "search_organizations", "arguments": {"query": org["name"]}},
            {"id": "c2", "tool": "ticket_stats", "arguments": {"status": UNSOLVED}, "bind": {"organization_id": "{c1.organizations.0.id}"}},
        ]
        if escalate:
            calls += [
                {"id": "c3", "tool": "search_tickets", "arguments": {"status": UNSOLVED, "sort_by": "created_at", "sort_order": "asc", "per_page": 1},
                 "bind": {"organization_id": "{c1.organizations.0.id}"}},
                {"id": "c4", "tool": "update_ticket", "arguments": {"priority": "urgent"}, "bind": {"ticket_id": "{c3.tickets.0.id}"}},
            ]
        return Draft(
            family=self.name,
            key=f"{org['name']}|{threshold}",
            writes=escalate,
            turns=[{"user": user, "calls": calls, "facts": [{"name": "unsolved tickets", "expr": "{c2.total}", "value": None}]}],
            checks=["{c1.total} == 1"],
        )


class TicketFollowUp(Family):
    """Two turns: who filed a ticket (named by subject and day), then a private note and a
    status change on that ticket."""

    name = "zendesk.ticket-follow-up"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_tickets", status=["open", "hold"], per_page=50)
        candidates = [t for t in page["tickets"] if t["assignee_id"] is not None]
        if not candidates:
            return None
        ticket = rng.choice(candidates)
        day, subject = ticket["created_at"][:10], ticket["subject"]
        first = [
            f"Who opened the ticket \"{subject}\" on {day}, and which company are they with?",
            f"The \"{subject}\" ticket from {day}: which customer filed it, and what organization are they at?",
        ]
        second = [
            "Leave an internal note on that ticket saying we are waiting for their reply, and set it to pending.",
            "On that same ticket, add a private note that we are waiting to hear back from them, then mark it pending.",
        ]
        return Draft(
            family=self.name,
            key=f"ticket:{ticket['id']}",
            writes=True,
            turns=[
                requester_turn(first, subject, day),
                {"user": second, "calls": [
                    {"id": "c4", "tool": "add_comment", "arguments": {"body": "Waiting for the customer's reply.", "public": False},
                     "bind": {"ticket_id": "{c1.tickets.0.id}"}},
                    {"id": "c5", "tool": "update_ticket", "arguments": {"status": "pending"}, "bind": {"ticket_id": "{c1.tickets.0.id}"}},
                ], "facts": []},
            ],
            checks=["{c1.total} == 1"],
        )


class TicketThenMetrics(Family):
    """Two turns: who filed a solved ticket (named by subject and day), then how long the
    first reply and the resolution took."""

    name = "zendesk.ticket-then-metrics"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        done = ["solved", "closed"]
        pages = -(-view.read(SERVER, "search_tickets", status=done, per_page=1)["total"] // 50)
        page = view.read(SERVER, "search_tickets", status=done, per_page=50, page=rng.randint(1, max(pages, 1)))
        if not page["tickets"]:
            return None
        ticket = rng.choice(page["tickets"])
        day, subject = ticket["created_at"][:10], ticket["subject"]
        first = [
            f"Who reported \"{subject}\" on {day}, and what company are they from?",
            f"There was a ticket \"{subject}\" opened on {day}. Which customer raised it, and which organization are they with?",
        ]
        second = [
            "How many minutes did it take us to send the first reply on that ticket, and how many minutes from opening until it was solved?",
            "For that ticket: minutes until our first public reply, and minutes until it was resolved?",
        ]
        return Draft(
            family=self.name,
            key=f"ticket:{ticket['id']}",
            turns=[
                requester_turn(first, subject, day),
                {"user": second, "calls": [
                    {"id": "c4", "tool": "get_ticket_metrics", "bind": {"ticket_id": "{c1.tickets.0.id}"}},
                ], "facts": [
                    {"name": "minutes to first reply", "expr": "{c4.first_reply_minutes}", "value": None},
                    {"name": "minutes to resolution", "expr": "{c4.resolution_minutes}", "value": None},
                ]},
            ],
            checks=["{c1.total} == 1"],
        )


ZENDESK_FAMILIES = (
    TagMonthComparison(),
    EarliestSolvedDrillDown(),
    TicketRequesterLookup(),
    MonthlyTagSeries(),
    ConditionalEscalation(),
    TicketFollowUp(),
    TicketThenMetrics(),
)
