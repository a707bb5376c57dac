"""Zendesk task families: tag counts over months, earliest-solved drill-down, ticket lookups
(by subject and day, by number, its team), tags by prefix, satisfaction per organization,
monthly series, conditional escalation; retagging, macros, tickets opened for customers,
customers added and suspended; a refusal to suspend an agent; and two-turn follow-ups on a
ticket named by subject, a new customer's first ticket, and a duplicate merged away."""

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


# ---------------------------------------------------------------- tags, macros, teams, ratings


def _find_ticket(call_id: str, ticket: dict[str, Any]) -> dict[str, Any]:
    """The search that finds `ticket` from its subject and the UTC day it was created."""
    day = ticket["created_at"][:10]
    return {"id": call_id, "tool": "search_tickets", "arguments": {
        "query": ticket["subject"], "created_after": f"{day}T00:00:00Z", "created_before": f"{day}T23:59:59Z", "per_page": 5}}


def _named(ticket: dict[str, Any]) -> str:
    """How a user names a ticket: its subject and the day it came in."""
    return f"the ticket \"{ticket['subject']}\" from {ticket['created_at'][:10]}"


def _unsolved_ticket(view: WorldView, rng: random.Random) -> dict[str, Any] | None:
    """A random ticket that is still new, open, pending or on hold."""
    pages = -(-view.read(SERVER, "search_tickets", status=UNSOLVED, per_page=1)["total"] // 50)
    found = view.read(SERVER, "search_tickets", status=UNSOLVED, per_page=50, page=rng.randint(1, max(pages, 1)))["tickets"]
    return rng.choice(found) if found else None


class TagsByPrefix(Family):
    """The tags in use that start with a few letters: the most used one and its ticket count."""

    name = "zendesk.tags-by-prefix"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        tag = rng.choice([t["tag"] for t in view.read(SERVER, "list_tags", limit=40)["tags"]])
        prefix = tag[:rng.randint(1, min(3, len(tag)))]
        user = [
            f"Which of our ticket tags start with \"{prefix}\"? Tell me the most used one and how many tickets carry it.",
            f"Look at the tags beginning with '{prefix}': which is on the most tickets, and on how many?",
            f"Of the tags that start with {prefix}, which one is used most, and by how many tickets?",
        ]
        return Draft(family=self.name, key=f"prefix:{prefix}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_tags", "arguments": {"prefix": prefix, "limit": 10}},
        ], "facts": [
            {"name": "most used tag", "expr": "{c1.tags.0.tag}", "value": None},
            {"name": "tickets with it", "expr": "{c1.tags.0.count}", "value": None},
        ]}], checks=["len({c1.tags}) == 1 or {c1.tags.0.count} != {c1.tags.1.count}"])


class RetagTicket(Family):
    """Add a tag to a ticket the user names, take one off, or swap one for another."""

    name = "zendesk.retag-ticket"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        live = view.read(SERVER, "search_tickets", status=[*UNSOLVED, "solved"], per_page=100)["tickets"]
        if not live:
            return None
        ticket = rng.choice(live)
        fresh = [t for t in _popular_tags(view) + ["vip", "follow_up", "escalated"] if t not in ticket["tags"]]
        actions = ["add"] + (["remove", "swap"] if ticket["tags"] else [])
        action = rng.choice(actions)
        named = _named(ticket)
        calls: list[dict[str, Any]] = [_find_ticket("c1", ticket)]
        bind = {"ticket_id": "{c1.tickets.0.id}"}
        old = rng.choice(ticket["tags"]) if ticket["tags"] else ""
        new = rng.choice(fresh)
        if action == "add":
            user = [f"Tag {named} with {new}.", f"Please add the tag '{new}' to {named}.",
                    f"Put a {new} tag on {named}."]
            calls.append({"id": "c2", "tool": "add_ticket_tags", "arguments": {"tags": [new]}, "bind": bind})
            detail = new
        elif action == "remove":
            user = [f"Take the {old} tag off {named}.", f"Please remove the tag '{old}' from {named}; it doesn't apply.",
                    f"{named[0].upper()}{named[1:]} shouldn't be tagged {old}. Remove that tag."]
            calls.append({"id": "c2", "tool": "remove_ticket_tags", "arguments": {"tags": [old]}, "bind": bind})
            detail = old
        else:
            user = [f"On {named}, replace the tag {old} with {new}.",
                    f"{named[0].upper()}{named[1:]} is tagged '{old}' by mistake: remove it and tag the ticket '{new}' instead.",
                    f"Swap the {old} tag on {named} for {new}."]
            calls += [
                {"id": "c2", "tool": "remove_ticket_tags", "arguments": {"tags": [old]}, "bind": bind},
                {"id": "c3", "tool": "add_ticket_tags", "arguments": {"tags": [new]}, "bind": bind},
            ]
            detail = f"{old}>{new}"
        return Draft(family=self.name, key=f"ticket:{ticket['id']}|{action}|{detail}", writes=True,
                     turns=[{"user": user, "calls": calls, "facts": []}], checks=["{c1.total} == 1"])


class ApplyMacroToTicket(Family):
    """Apply a macro the user names by title to an unsolved ticket named by subject and day."""

    name = "zendesk.apply-macro"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        macros = view.read(SERVER, "list_macros")["macros"]
        ticket = _unsolved_ticket(view, rng)
        if ticket is None or not macros:
            return None
        index = rng.randrange(len(macros))
        title = macros[index]["title"]
        named = _named(ticket)
        user = [
            f"Run the \"{title}\" macro on {named}. What status does the ticket have afterwards?",
            f"Please apply our '{title}' macro to {named}, then tell me the ticket's status.",
            f"Use the macro called {title} on {named}, and tell me the ticket's status afterwards.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket['id']}|{title}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_macros", "arguments": {}},
            _find_ticket("c2", ticket),
            {"id": "c3", "tool": "apply_macro", "bind": {"ticket_id": "{c2.tickets.0.id}", "macro_id": f"{{c1.macros.{index}.id}}"}},
        ], "facts": [{"name": "status afterwards", "expr": "{c3.status}", "value": None}]}],
            checks=["{c2.total} == 1", f"{{c1.macros.{index}.title}} == {title!r}"])


class PrefixTagThenTag(Family):
    """Two turns: the most used tag starting with a few letters, then that tag put on a ticket
    the user names by subject and day."""

    name = "zendesk.prefix-tag-then-tag"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        live = view.read(SERVER, "search_tickets", status=[*UNSOLVED, "solved"], per_page=100)["tickets"]
        if not live:
            return None
        ticket = rng.choice(live)
        tag = rng.choice([t["tag"] for t in view.read(SERVER, "list_tags", limit=40)["tags"]])
        prefix = tag[:rng.randint(2, min(3, len(tag)))] if len(tag) > 1 else tag
        top = view.read(SERVER, "list_tags", prefix=prefix, limit=10)["tags"][0]["tag"]
        if top in ticket["tags"]:
            return None
        first = [
            f"Which tag starting with \"{prefix}\" is on the most tickets, and on how many?",
            f"Of our tags beginning with '{prefix}', which one is used most? Give me its ticket count too.",
        ]
        second = [
            f"Put that tag on {_named(ticket)}.",
            f"Add that same tag to {_named(ticket)}, please.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket['id']}|{prefix}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "list_tags", "arguments": {"prefix": prefix, "limit": 10}},
            ], "facts": [
                {"name": "most used tag", "expr": "{c1.tags.0.tag}", "value": None},
                {"name": "tickets with it", "expr": "{c1.tags.0.count}", "value": None},
            ]},
            {"user": second, "calls": [
                _find_ticket("c2", ticket),
                {"id": "c3", "tool": "add_ticket_tags", "bind": {"ticket_id": "{c2.tickets.0.id}", "tags": "[{c1.tags.0.tag}]"}},
            ], "facts": []},
        ], checks=["len({c1.tags}) == 1 or {c1.tags.0.count} != {c1.tags.1.count}", "{c2.total} == 1"])


class TagsThenUntag(Family):
    """Two turns: the tags on a ticket the user names by subject and day, then one of them taken off."""

    name = "zendesk.tags-then-untag"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        live = [t for t in view.read(SERVER, "search_tickets", status=[*UNSOLVED, "solved"], per_page=100)["tickets"] if t["tags"]]
        if not live:
            return None
        ticket = rng.choice(live)
        tag = rng.choice(ticket["tags"])
        first = [
            f"What tags are on {_named(ticket)}, and what is its status?",
            f"Show me the tags and the current status of {_named(ticket)}.",
        ]
        second = [
            f"The {tag} tag doesn't belong there. Remove it from that ticket.",
            f"Please take '{tag}' off that ticket.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket['id']}|{tag}", writes=True, turns=[
            {"user": first, "calls": [_find_ticket("c1", ticket)], "facts": [
                {"name": "tags", "expr": "{c1.tickets.0.tags}", "value": None},
                {"name": "status", "expr": "{c1.tickets.0.status}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "remove_ticket_tags", "arguments": {"tags": [tag]}, "bind": {"ticket_id": "{c1.tickets.0.id}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1"])


class TicketThenMacro(Family):
    """Two turns: who filed an unsolved ticket (named by subject and day), then a macro the
    user names by title applied to it."""

    name = "zendesk.ticket-then-macro"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        macros = view.read(SERVER, "list_macros")["macros"]
        ticket = _unsolved_ticket(view, rng)
        if ticket is None or not macros:
            return None
        index = rng.randrange(len(macros))
        title = macros[index]["title"]
        day, subject = ticket["created_at"][:10], ticket["subject"]
        first = [
            f"Who opened the ticket \"{subject}\" on {day}, and which company are they with?",
            f"The \"{subject}\" ticket from {day}: which customer filed it, and what organization are they at?",
        ]
        second = [
            f"Apply the \"{title}\" macro to that ticket. What's its status now?",
            f"Run our '{title}' macro on it, then tell me the ticket's status.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket['id']}|{title}", writes=True, turns=[
            requester_turn(first, subject, day),
            {"user": second, "calls": [
                {"id": "c4", "tool": "list_macros", "arguments": {}},
                {"id": "c5", "tool": "apply_macro", "bind": {"ticket_id": "{c1.tickets.0.id}", "macro_id": f"{{c4.macros.{index}.id}}"}},
            ], "facts": [{"name": "status now", "expr": "{c5.status}", "value": None}]},
        ], checks=["{c1.total} == 1", f"{{c4.macros.{index}.title}} == {title!r}"])


class DuplicateThenMerge(Family):
    """Two turns: open a ticket for a customer who called about a problem, then, told it repeats
    one of their tickets still in progress, merge the new ticket into that one."""

    name = "zendesk.duplicate-then-merge"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        live = view.read(SERVER, "search_tickets", status=[*UNSOLVED, "solved"], per_page=100)["tickets"]
        if not live:
            return None
        ticket = rng.choice(live)
        if ticket["created_at"][:10] == view.now.date().isoformat():
            return None  # the new ticket would match the search for this one
        person = view.read(SERVER, "get_user", user_id=ticket["requester_id"])
        if person["suspended"] or view.read(SERVER, "search_users", query=person["name"], per_page=2)["total"] != 1:
            return None
        subject = f"Follow-up: {ticket['subject']}"
        description = rng.choice(FOLLOW_UPS)
        first = [
            f"{person['name']} just called. Open a ticket for them with the subject \"{subject}\" and the description \"{description}\"",
            f"Please file a ticket on behalf of {person['name']}: subject \"{subject}\", description \"{description}\"",
        ]
        second = [
            f"Wait, that's the same issue as their ticket \"{ticket['subject']}\" from {ticket['created_at'][:10]}. Merge the new ticket into that one.",
            f"Actually it duplicates {_named(ticket)}. Please merge the ticket you just opened into it.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket['id']}|{description}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "search_users", "arguments": {"query": person["name"], "per_page": 5}},
                {"id": "c2", "tool": "create_ticket", "arguments": {"subject": subject, "description": description},
                 "bind": {"requester_id": "{c1.users.0.id}"}},
            ], "facts": []},
            {"user": second, "calls": [
                _find_ticket("c3", ticket),
                {"id": "c4", "tool": "merge_tickets", "bind": {"source_ticket_id": "{c2.id}", "target_ticket_id": "{c3.tickets.0.id}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1", "{c3.total} == 1"])


FOLLOW_UPS = (
    "The customer called again: the problem is still happening.",
    "Customer asked by phone for an update on this issue.",
    "Second report of the same problem, this time from a colleague's machine.",
)


NEW_ISSUES = (
    ("Cannot download invoices", "The download button on the billing page does nothing.", "billing"),
    ("Locked out after password reset", "I reset my password and now the login page says my account is locked.", "login"),
    ("Webhook deliveries failing", "Our webhook endpoint has received no events since this morning.", "integration"),
    ("Need to add five more seats", "We are growing and need five more user seats on our plan.", "upgrade"),
    ("Refund for duplicate charge", "We were charged twice for this month's subscription.", "refund"),
)


def _customer(view: WorldView, rng: random.Random) -> dict[str, Any] | None:
    """An active end-user whose name matches no one else's."""
    pages = -(-view.read(SERVER, "search_users", role="end-user", per_page=1)["total"] // 50)
    found = [u for u in view.read(SERVER, "search_users", role="end-user", per_page=50, page=rng.randint(1, max(pages, 1)))["users"]
             if not u["suspended"] and u["organization_id"] is not None]
    if not found:
        return None
    person = rng.choice(found)
    return person if view.read(SERVER, "search_users", query=person["name"], per_page=2)["total"] == 1 else None


class NewTicketForCustomer(Family):
    """Open a ticket on behalf of a customer the user names, with a subject, description,
    priority and tag."""

    name = "zendesk.new-ticket-for-customer"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = _customer(view, rng)
        if person is None:
            return None
        company = view.read(SERVER, "get_organization", organization_id=person["organization_id"])["name"]
        subject, description, tag = rng.choice(NEW_ISSUES)
        priority = rng.choice(("normal", "high", "urgent"))
        user = [
            f"{person['name']} from {company} called in. Open a ticket for them with the subject \"{subject}\" and the description \"{description}\", {priority} priority, tagged {tag}.",
            f"Please log a ticket on behalf of {person['name']} ({company}): subject \"{subject}\", description \"{description}\", priority {priority}, tag {tag}.",
        ]
        return Draft(family=self.name, key=f"{person['id']}|{subject}|{priority}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_users", "arguments": {"query": person["name"], "role": "end-user", "per_page": 5}},
            {"id": "c2", "tool": "create_ticket", "arguments": {"subject": subject, "description": description, "priority": priority, "tags": [tag]},
             "bind": {"requester_id": "{c1.users.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1"])


FIRST_NAMES = ("Priya", "Marco", "Lena", "Tomas", "Aisha", "Jonas", "Mei", "Diego", "Sofia", "Kwame")
LAST_NAMES = ("Okafor", "Lindqvist", "Tanaka", "Moreau", "Haddad", "Novak", "Castillo", "Brennan", "Iyer", "Kowalski")


class NewCustomerThenTicket(Family):
    """Two turns: add a new customer at an organization the user names, then open a ticket for them."""

    name = "zendesk.new-customer-then-ticket"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        org = _organizations(view, rng)
        first_name, last_name = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        email = f"{first_name}.{last_name}@{org['domain']}".lower()
        if view.read(SERVER, "search_users", query=email, per_page=1)["total"]:
            return None
        subject, description, tag = rng.choice(NEW_ISSUES)
        first = [
            f"Add {first_name} {last_name} ({email}) as a customer at {org['name']}.",
            f"Please create a user for {first_name} {last_name}, email {email}, in the {org['name']} organization.",
        ]
        second = [
            f"Now open a ticket for them: subject \"{subject}\", description \"{description}\", tagged {tag}.",
            f"They have a problem already. File a ticket on their behalf with the subject \"{subject}\" and the description \"{description}\"; tag it {tag}.",
        ]
        return Draft(family=self.name, key=f"{email}|{subject}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "search_organizations", "arguments": {"query": org["name"]}},
                {"id": "c2", "tool": "create_user", "arguments": {"name": f"{first_name} {last_name}", "email": email},
                 "bind": {"organization_id": "{c1.organizations.0.id}"}},
            ], "facts": []},
            {"user": second, "calls": [
                {"id": "c3", "tool": "create_ticket", "arguments": {"subject": subject, "description": description, "tags": [tag]},
                 "bind": {"requester_id": "{c2.id}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1"])


class SuspendCustomer(Family):
    """Suspend a customer the user names by name and company (they left, or abused the help desk)."""

    name = "zendesk.suspend-customer"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = _customer(view, rng)
        if person is None:
            return None
        company = view.read(SERVER, "get_organization", organization_id=person["organization_id"])["name"]
        user = [
            f"{person['name']} has left {company}. Suspend their help-desk account so no new tickets come in under their name.",
            f"Please suspend the customer {person['name']} ({company}); they are no longer allowed to file tickets.",
            f"Block {person['name']} from {company} from requesting tickets: suspend them.",
        ]
        return Draft(family=self.name, key=f"user:{person['id']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_users", "arguments": {"query": person["name"], "role": "end-user", "per_page": 5}},
            {"id": "c2", "tool": "suspend_user", "arguments": {"suspended": True}, "bind": {"user_id": "{c1.users.0.id}"}},
        ], "facts": []}], checks=["{c1.total} == 1", f"{{c1.users.0.organization_id}} == {person['organization_id']}"])


class CustomerThenSuspend(Family):
    """Two turns: how many tickets a customer (named by name and company) has filed and when
    they last logged in, then their account suspended."""

    name = "zendesk.customer-then-suspend"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = _customer(view, rng)
        if person is None or person["last_login_at"] is None:
            return None
        company = view.read(SERVER, "get_organization", organization_id=person["organization_id"])["name"]
        first = [
            f"How many tickets has {person['name']} from {company} filed with us, and when did they last log in?",
            f"Look up {person['name']} ({company}): the number of tickets they have requested and their last login.",
        ]
        second = [
            "They no longer work there. Suspend their help-desk account.",
            "Please suspend that customer so they can't file new tickets.",
        ]
        return Draft(family=self.name, key=f"user:{person['id']}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "search_users", "arguments": {"query": person["name"], "role": "end-user", "per_page": 5}},
                {"id": "c2", "tool": "ticket_stats", "bind": {"requester_id": "{c1.users.0.id}"}},
            ], "facts": [
                {"name": "tickets filed", "expr": "{c2.total}", "value": None},
                {"name": "last login", "expr": "{c1.users.0.last_login_at}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "suspend_user", "arguments": {"suspended": True}, "bind": {"user_id": "{c1.users.0.id}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 1", f"{{c1.users.0.organization_id}} == {person['organization_id']}"])


class SuspendAgent(Family):
    """Asked to suspend an agent: only customers can be suspended here; refuse and say which
    team the agent is on."""

    name = "zendesk.suspend-agent"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        agents = [a for a in view.read(SERVER, "search_users", role="agent", per_page=100)["users"] if a["default_group_id"] is not None]
        if not agents:
            return None
        agent = rng.choice(agents)
        groups = view.read(SERVER, "list_groups")["groups"]
        index = next((i for i, g in enumerate(groups) if g["id"] == agent["default_group_id"]), None)
        if index is None:
            return None
        user = [
            f"Suspend {agent['name']}'s account. If that isn't possible, tell me which team they're on so I can talk to their lead.",
            f"Please suspend {agent['name']} in the help desk; if you can't, say which support group they belong to.",
        ]
        return Draft(family=self.name, key=f"user:{agent['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_users", "arguments": {"query": agent["name"], "per_page": 5}},
            {"id": "c2", "tool": "list_groups", "arguments": {}},
        ], "facts": [{"name": "their team", "expr": f"{{c2.groups.{index}.name}}", "value": None}]}],
            checks=["{c1.total} == 1", f"{{c2.groups.{index}.id}} == {{c1.users.0.default_group_id}}"])


class TicketTeam(Family):
    """Which team a ticket the user names is routed to, and how many agents that team has."""

    name = "zendesk.ticket-team"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_tickets", per_page=50, page=rng.randint(1, 20))["tickets"]
        routed = [t for t in page if t["group_id"] is not None]
        if not routed:
            return None
        ticket = rng.choice(routed)
        groups = view.read(SERVER, "list_groups")["groups"]
        index = next((i for i, g in enumerate(groups) if g["id"] == ticket["group_id"]), None)
        if index is None:
            return None
        named = _named(ticket)
        user = [
            f"Which team is {named} routed to, and how many agents are on that team?",
            f"Which support group handles {named}? Also, how many agents does that group have?",
            f"Tell me the group {named} sits with and that group's agent count.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket['id']}", turns=[{"user": user, "calls": [
            _find_ticket("c1", ticket),
            {"id": "c2", "tool": "list_groups", "arguments": {}},
        ], "facts": [
            {"name": "team", "expr": f"{{c2.groups.{index}.name}}", "value": None},
            {"name": "agents on it", "expr": f"{{c2.groups.{index}.agent_count}}", "value": None},
        ]}], checks=["{c1.total} == 1", f"{{c2.groups.{index}.id}} == {{c1.tickets.0.group_id}}"])


class TicketNumberStatus(Family):
    """A customer quotes their ticket number: its status and priority, who is working on it,
    and how the customer rated it if they did."""

    name = "zendesk.ticket-number-status"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_tickets", per_page=50, page=rng.randint(1, 20))["tickets"]
        assigned = [t for t in page if t["assignee_id"] is not None]
        if not assigned:
            return None
        number = rng.choice(assigned)["id"]
        user = [
            f"A customer is asking about ticket #{number}. What's its status and priority, and which agent has it?",
            f"Ticket {number}: where does it stand (status, priority) and who is the assigned agent?",
            f"Can you check ticket number {number} for me? I need the status, the priority and the assignee's name.",
        ]
        return Draft(family=self.name, key=f"ticket:{number}", known=["ticket_id"], turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_ticket", "arguments": {"ticket_id": number}},
            {"id": "c2", "tool": "get_user", "bind": {"user_id": "{c1.assignee_id}"}},
        ], "facts": [
            {"name": "status", "expr": "{c1.status}", "value": None},
            {"name": "priority", "expr": "{c1.priority}", "value": None},
            {"name": "assignee", "expr": "{c2.name}", "value": None},
        ]}])


class OrganizationSatisfaction(Family):
    """An organization's satisfaction ratings on tickets solved over the last few months: how
    many were rated and the average score."""

    name = "zendesk.organization-satisfaction"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        org = _organizations(view, rng)
        months = rng.choice((3, 6, 12))
        first = previous_month(view.now.year, view.now.month, months)
        last = previous_month(view.now.year, view.now.month, 1)
        start, _ = month_window(*first)
        _, end = month_window(*last)
        span = f"{month_name(*first)} through {month_name(*last)}"
        user = [
            f"How satisfied has {org['name']} been with tickets we solved from {span}? Give me the number of rated tickets and the average score.",
            f"For {org['name']}, what was the average satisfaction rating (1-5) on tickets solved from {span}, and how many tickets got a rating?",
            f"CSAT check for {org['name']}: tickets solved {span} — how many rated, and what's the mean score?",
        ]
        return Draft(family=self.name, key=f"{org['name']}|{months}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_organizations", "arguments": {"query": org["name"]}},
            {"id": "c2", "tool": "satisfaction_summary", "arguments": {"solved_after": start, "solved_before": end},
             "bind": {"organization_id": "{c1.organizations.0.id}"}},
        ], "facts": [
            {"name": "rated tickets", "expr": "{c2.rated_tickets}", "value": None},
            {"name": "average score", "expr": "{c2.average_score}", "value": None},
        ]}], checks=["{c1.total} == 1", "{c2.rated_tickets} > 0"])


ZENDESK_FAMILIES = (
    TagMonthComparison(),
    EarliestSolvedDrillDown(),
    TicketRequesterLookup(),
    MonthlyTagSeries(),
    ConditionalEscalation(),
    TicketFollowUp(),
    TicketThenMetrics(),
    TagsByPrefix(),
    RetagTicket(),
    ApplyMacroToTicket(),
    DuplicateThenMerge(),
    PrefixTagThenTag(),
    TicketThenMacro(),
    TagsThenUntag(),
    NewTicketForCustomer(),
    NewCustomerThenTicket(),
    SuspendCustomer(),
    CustomerThenSuspend(),
    SuspendAgent(),
    TicketTeam(),
    TicketNumberStatus(),
    OrganizationSatisfaction(),
)
