"""CRM task families: won revenue across periods, rep win rates, the biggest deal of a period
and its people, monthly series, deal and call updates, a conditional hand-over of an account,
two-turn conversations that look a record up, then act on "that one", lookups of a contact,
of whom a task is for and of an account's latest note; tasks completed, a new prospect set up
(account, contact, deal), and a lead added unless the person is already known.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "crm"
HISTORY_MONTHS = 16
"""Whole months back from now that the seeded deal history covers (it starts 540 days ago)."""

DEAL_TYPES = {"new_business": "new-business", "upsell": "upsell", "renewal": "renewal"}
NEXT_STAGE = {"Prospecting": "Qualification", "Qualification": "Proposal", "Proposal": "Negotiation",
              "Negotiation": "Closed Won"}


@dataclass(frozen=True)
class Period:
    """A reporting window a user names: a month, a quarter or a half year."""

    label: str
    start: str
    end: str


def _month(year: int, month: int) -> Period:
    start, end = month_window(year, month)
    return Period(month_name(year, month), start, end)


def _span(label: str, year: int, month: int, months: int) -> Period:
    """`months` whole months from (year, month)."""
    start, _ = month_window(year, month)
    last_year, last_month = previous_month(year, month, -(months - 1))
    _, end = month_window(last_year, last_month)
    return Period(label, start, end)


def _months(view: WorldView) -> list[tuple[int, int]]:
    """The whole months of the deal history, oldest first."""
    return [previous_month(view.now.year, view.now.month, back) for back in range(HISTORY_MONTHS, 0, -1)]


def _quarters(view: WorldView) -> list[tuple[int, int]]:
    """(year, quarter) of every whole quarter inside the history, oldest first."""
    months = set(_months(view))
    found = []
    for year, month in sorted(months):
        if month % 3 == 1 and all(previous_month(year, month, -k) in months for k in range(3)):
            found.append((year, (month - 1) // 3 + 1))
    return found


def _quarter(year: int, quarter: int) -> Period:
    return _span(f"Q{quarter} {year}", year, 3 * quarter - 2, 3)


def _halves(view: WorldView) -> list[Period]:
    months = set(_months(view))
    found = []
    for year in sorted({y for y, _ in months}):
        for first, words in ((1, "first"), (7, "second")):
            if all((year, first + k) in months for k in range(6)):
                found.append(_span(f"the {words} half of {year}", year, first, 6))
    return found


def _money(amount: float) -> str:
    return f"${amount:,.0f}" if float(amount).is_integer() else f"${amount:,.2f}"


_PAGES: dict[tuple[int, str, str], list[dict[str, Any]]] = {}
"""Every row of a listing of a seeded world, by (seed, tool, arguments): the sampling view
only ever shows the seeded world, so a listing is read once per world."""


def _all_pages(view: WorldView, tool: str, field: str, **arguments: Any) -> list[dict[str, Any]]:
    key = (view.seed, tool, repr(sorted(arguments.items())))
    if key not in _PAGES:
        _PAGES[key] = _read_all(view, tool, field, **arguments)
    return _PAGES[key]


def _read_all(view: WorldView, tool: str, field: str, **arguments: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    page: int | None = 1
    while page:
        result = view.read(SERVER, tool, page=page, per_page=100, **arguments)
        rows += result[field]
        page = result["next_page"]
    return rows


def _users(view: WorldView, **filters: Any) -> list[dict[str, Any]]:
    return view.read(SERVER, "list_users", **filters)["users"]


def _nice(amount: float, up: bool) -> int:
    """A round threshold near `amount`: to the thousand (five thousand above 20,000)."""
    step = 5000 if amount >= 20000 else 1000
    units = amount / step
    return int((int(units) + 1 if up else max(int(units), 1)) * step)


class _Retrying(Family):
    """A family whose sampled parameters sometimes ground nothing (an empty period, a name
    that matches twice): it tries a few samples before giving up."""

    tries = 4

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for _ in range(self.tries):
            found = self.attempt(view, rng)
            if found is not None:
                return found
        return None

    @abstractmethod
    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        """One sample: a grounded draft, or None to try again."""


# ---------------------------------------------------------------- aggregation and comparison


class WonRevenueComparison(_Retrying):
    """Won revenue (optionally of one deal type) in one period against an earlier one, and the
    percentage change."""

    name = "crm.won-revenue-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        if rng.random() < 0.5:
            months = _months(view)
            gap = rng.choice((1, 12))
            pairs = [(_month(*months[i - gap]), _month(*months[i])) for i in range(gap, len(months))]
        else:
            quarters = _quarters(view)
            gap = rng.choice((1, 4)) if len(quarters) > 4 else 1
            pairs = [(_quarter(*quarters[i - gap]), _quarter(*quarters[i])) for i in range(gap, len(quarters))]
        if not pairs:
            return None
        first, second = rng.choice(pairs)
        deal_type = rng.choice((None, None, *DEAL_TYPES))
        status = rng.choice(("won", "won", "lost"))
        metric = rng.choice(("amount", "count"))
        summary = {"group_by": "type", "status": status, **({"type": deal_type} if deal_type else {})}
        values = [view.read(SERVER, "pipeline_summary", close_after=p.start, close_before=p.end, **summary)[metric]
                  for p in (first, second)]
        if values[0] == 0 or values[0] == values[1]:
            return None
        kind = "" if deal_type is None else f"{DEAL_TYPES[deal_type]} "
        closed = "Closed Won" if status == "won" else "Closed Lost"
        if metric == "amount":
            what = f"{status} {kind}revenue" if status == "won" else f"{kind}deal value lost"
            user = [
                f"How much {what} did we have in {first.label}, how much in {second.label}, and what is the percentage change from the first to the second (one decimal place)?",
                f"Compare the total amount of {kind}deals we {status} in {second.label} with {first.label}: give both totals in USD and the percent change from {first.label} to {second.label}, rounded to one decimal.",
                f"I need the sum of {closed} {kind}deal amounts (by close date) for {first.label} versus {second.label}, and how much it went up or down in percent, to one decimal place.",
            ]
        else:
            what = f"{kind}deals {status}"
            user = [
                f"How many {kind}deals did we {'win' if status == 'won' else 'lose'} in {first.label}, how many in {second.label}, and what is the percentage change from the first to the second (one decimal place)?",
                f"Compare the number of {kind}deals {status} in {second.label} with {first.label}: give both counts and the percent change from {first.label} to {second.label}, rounded to one decimal.",
                f"Count the {closed} {kind}opportunities by close date for {first.label} versus {second.label}, and tell me the change in percent to one decimal place.",
            ]
        filters: dict[str, Any] = {"group_by": "type", "status": status}
        if deal_type is not None:
            filters["type"] = deal_type
        value = "amount" if metric == "amount" else "count"
        return Draft(
            family=self.name,
            key=f"{status}|{metric}|{deal_type or 'all'}|{first.label}|{second.label}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "pipeline_summary", "arguments": {**filters, "close_after": first.start, "close_before": first.end}},
                    {"id": "c2", "tool": "pipeline_summary", "arguments": {**filters, "close_after": second.start, "close_before": second.end}},
                ],
                "facts": [
                    {"name": f"{what} in {first.label}", "expr": f"{{c1.{value}}}", "value": None},
                    {"name": f"{what} in {second.label}", "expr": f"{{c2.{value}}}", "value": None},
                    {"name": "percentage change", "expr": f"round(100 * ({{c2.{value}}} - {{c1.{value}}}) / {{c1.{value}}}, 1)", "value": None},
                ],
            }],
            checks=[f"{{c1.{value}}} > 0", f"{{c1.{value}}} != {{c2.{value}}}"],
        )


class OwnerWinRate(_Retrying):
    """An account executive's won and lost deals in a period, win rate and average won deal."""

    name = "crm.owner-win-rate"
    servers = (SERVER,)
    kind = "aggregation"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        executives = _users(view, role="account_executive")
        periods = [_quarter(*q) for q in _quarters(view)] + _halves(view)
        combos = [(i, p) for i in range(len(executives)) for p in periods]
        rng.shuffle(combos)
        for index, period in combos[:6]:
            owner = executives[index]
            window = {"owner_id": owner["id"], "close_after": period.start, "close_before": period.end, "per_page": 1}
            if view.read(SERVER, "search_opportunities", status="won", **window)["total"] > 0:
                break
        else:
            return None
        person = owner["name"]
        user = [
            f"How did {person} do in {period.label}? Of the deals they closed, how many were won, how many lost, what is the win rate in percent (one decimal), and what was the average size of a won deal?",
            f"For deals owned by {person} that closed in {period.label}: number won, number lost, win rate (won / (won + lost), as a percentage to one decimal) and the average amount of the won ones.",
            f"Give me {person}'s closing record for {period.label}: wins, losses, win percentage rounded to one decimal place, and the average won deal in USD.",
        ]
        search = {"close_after": period.start, "close_before": period.end, "per_page": 1}
        return Draft(
            family=self.name,
            key=f"{person}|{period.label}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "list_users", "arguments": {"role": "account_executive"}},
                    {"id": "c2", "tool": "search_opportunities", "arguments": {**search, "status": "won"}, "bind": {"owner_id": f"{{c1.users.{index}.id}}"}},
                    {"id": "c3", "tool": "search_opportunities", "arguments": {**search, "status": "lost"}, "bind": {"owner_id": f"{{c1.users.{index}.id}}"}},
                ],
                "facts": [
                    {"name": "deals won", "expr": "{c2.total}", "value": None},
                    {"name": "deals lost", "expr": "{c3.total}", "value": None},
                    {"name": "win rate (%)", "expr": "round(100 * {c2.total} / ({c2.total} + {c3.total}), 1)", "value": None},
                    {"name": "average won deal (USD)", "expr": "round({c2.total_amount} / {c2.total}, 2)", "value": None},
                ],
            }],
            checks=[f"{{c1.users.{index}.name}} == {person!r}", "{c2.total} > 0"],
        )


# ---------------------------------------------------------------- argmax and drill-down


class BiggestDealDrillDown(_Retrying):
    """The biggest deal won (or lost) in a period, its primary contact, and its account."""

    name = "crm.biggest-deal-drill-down"
    servers = (SERVER,)
    kind = "drill-down"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        periods = [_month(*m) for m in _months(view)] + [_quarter(*q) for q in _quarters(view)]
        period = rng.choice(periods)
        won = rng.random() < 0.6
        status = "won" if won else "lost"
        deal_type = rng.choice((None, None, *DEAL_TYPES))
        kind = "deal" if deal_type is None else f"{DEAL_TYPES[deal_type]} deal"
        search = {"status": status, "close_after": period.start, "close_before": period.end,
                  "sort_by": "amount", "sort_order": "desc", "per_page": 2}
        if deal_type is not None:
            search["type"] = deal_type
        top = view.read(SERVER, "search_opportunities", **search)["opportunities"]
        if not top or top[0]["contact_id"] is None:
            return None
        calls = [
            {"id": "c1", "tool": "search_opportunities", "arguments": search},
            {"id": "c2", "tool": "get_opportunity", "bind": {"opportunity_id": "{c1.opportunities.0.id}"}},
            {"id": "c3", "tool": "get_contact", "bind": {"contact_id": "{c2.contact_id}"}},
            {"id": "c4", "tool": "get_account", "bind": {"account_id": "{c2.account_id}"}},
        ]
        facts = [
            {"name": "deal", "expr": "{c1.opportunities.0.name}", "value": None},
            {"name": "amount (USD)", "expr": "{c1.opportunities.0.amount}", "value": None},
            {"name": "primary contact", "expr": "{c2.contact_name}", "value": None},
            {"name": "contact's email", "expr": "{c3.email}", "value": None},
        ]
        if won:
            facts.append({"name": "account's all-time won amount (USD)", "expr": "{c4.closed_won_amount}", "value": None})
            user = [
                f"What was the biggest {kind} we won in {period.label}? Tell me the deal, its amount, who the primary contact was and their email, and how much that account has won with us in total, all time.",
                f"Find the largest Closed Won {kind} that closed in {period.label}: its name and amount, the primary contact's name and email address, and the account's total Closed Won amount to date.",
                f"Which {kind} closing in {period.label} was our biggest win? I'd like the amount, the contact on it (name and email), and the account's lifetime won revenue.",
            ]
        else:
            facts.append({"name": "loss reason", "expr": "{c1.opportunities.0.loss_reason}", "value": None})
            facts.append({"name": "account's current open pipeline (USD)", "expr": "{c4.open_pipeline_amount}", "value": None})
            user = [
                f"What was the biggest {kind} we lost in {period.label}? Give me the deal, its amount, why we lost it (the loss reason as recorded), the primary contact and their email, and how much open pipeline we still have with that account.",
                f"Find the largest Closed Lost {kind} that closed in {period.label}: name, amount, loss reason (as recorded), the primary contact's name and email, and the account's open pipeline amount today.",
                f"Which was our biggest loss among {kind}s closed in {period.label}? I need the amount, the recorded loss reason, who the contact was (name and email), and what's still open with that account in USD.",
            ]
        return Draft(
            family=self.name,
            key=f"{status}|{deal_type or 'all'}|{period.label}",
            turns=[{"user": user, "calls": calls, "facts": facts}],
            checks=["{c1.total} == 1 or {c1.opportunities.0.amount} != {c1.opportunities.1.amount}"],
        )


# ---------------------------------------------------------------- long series


def _series_window(view: WorldView, rng: random.Random) -> list[tuple[int, int]]:
    months = _months(view)
    length = rng.randint(6, 12)
    start = rng.randint(0, len(months) - length)
    return months[start:start + length]


class MonthlyWonSeries(_Retrying):
    """Won revenue month by month over 6 to 12 months: the total and the best month."""

    name = "crm.monthly-won-series"
    servers = (SERVER,)
    kind = "aggregation"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        window = _series_window(view, rng)
        deal_type = rng.choice((None, *DEAL_TYPES))
        filters: dict[str, Any] = {"group_by": "close_month", "status": "won"}
        if deal_type is not None:
            filters["type"] = deal_type
        amounts = []
        for year, month in window:
            start, end = month_window(year, month)
            amounts.append(view.read(SERVER, "pipeline_summary", close_after=start, close_before=end, **filters)["amount"])
        best = max(range(len(amounts)), key=lambda i: amounts[i])
        if amounts.count(amounts[best]) > 1 or amounts[best] == 0:
            return None
        calls = []
        for i, (year, month) in enumerate(window, start=1):
            start, end = month_window(year, month)
            calls.append({"id": f"c{i}", "tool": "pipeline_summary", "arguments": {**filters, "close_after": start, "close_before": end}})
        ids = [call["id"] for call in calls]
        top = ids[best]
        first, last = month_name(*window[0]), month_name(*window[-1])
        what = "won revenue" if deal_type is None else f"won {DEAL_TYPES[deal_type]} revenue"
        user = [
            f"Go month by month from {first} through {last}: how much {what} did we close each month? What's the total over the whole period, which month was best (as YYYY-MM), and how much was won that month?",
            f"For every month between {first} and {last} (inclusive), sum the Closed Won {'deal' if deal_type is None else DEAL_TYPES[deal_type]} amounts by close month. Tell me each month's figure, the total for the period, the best month in YYYY-MM form and its amount.",
            f"I'm reviewing {what} from {first} to {last}, month by month. What did we win each month and in total over those months, and which month (YYYY-MM) was the strongest, with how much?",
        ]
        return Draft(
            family=self.name,
            key=f"{deal_type or 'all'}|{first}|{last}",
            turns=[{
                "user": user,
                "calls": calls,
                "facts": [
                    {"name": f"{what} per month", "expr": "[" + ", ".join(f"{{{i}.amount}}" for i in ids) + "]", "value": None},
                    {"name": f"total {what}", "expr": "round(" + " + ".join(f"{{{i}.amount}}" for i in ids) + ", 2)", "value": None},
                    {"name": "best month", "expr": f"{{{top}.groups.0.key}}", "value": None},
                    {"name": "won in the best month", "expr": "max(" + ", ".join(f"{{{i}.amount}}" for i in ids) + ")", "value": None},
                ],
            }],
            checks=[f"{{{top}.amount}} > {{{other}.amount}}" for other in ids if other != top],
        )


class OwnerActivitySeries(_Retrying):
    """One user's completed calls, meetings or activities, month by month."""

    name = "crm.owner-activity-series"
    servers = (SERVER,)
    kind = "aggregation"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        users = _users(view)
        index = rng.choice([i for i, u in enumerate(users) if u["active"] and u["role"] != "sales_manager"])
        person = users[index]["name"]
        window = _series_window(view, rng)
        kind = rng.choice(("call", "meeting", None))
        start, _ = month_window(*window[0])
        _, end = month_window(*window[-1])
        found = view.read(SERVER, "search_activities", owner_id=users[index]["id"], status="completed", per_page=1,
                          scheduled_after=start, scheduled_before=end, **({"type": kind} if kind else {}))
        if found["total"] == 0:
            return None
        noun = {"call": "calls", "meeting": "meetings", None: "completed activities (calls, meetings and tasks)"}[kind]
        short = {"call": "calls", "meeting": "meetings", None: "activities"}[kind]
        arguments: dict[str, Any] = {"status": "completed", "per_page": 1}
        if kind is not None:
            arguments["type"] = kind
        calls: list[dict[str, Any]] = [{"id": "c0", "tool": "list_users", "arguments": {}}]
        for i, (year, month) in enumerate(window, start=1):
            start, end = month_window(year, month)
            calls.append({"id": f"c{i}", "tool": "search_activities",
                          "arguments": {**arguments, "scheduled_after": start, "scheduled_before": end},
                          "bind": {"owner_id": f"{{c0.users.{index}.id}}"}})
        ids = [call["id"] for call in calls[1:]]
        first, last = month_name(*window[0]), month_name(*window[-1])
        user = [
            f"How many {noun} did {person} have each month from {first} through {last}? Give me the monthly numbers, the total, and the highest monthly count.",
            f"Month by month, {first} to {last} inclusive: count {person}'s {noun}. I want each month's count, the sum over the period and the busiest month's count.",
            f"Pull {person}'s {short} per month for {first}-{last} (only completed ones): the count for every month, the overall total and the peak month's number.",
        ]
        refs = ", ".join(f"{{{i}.total}}" for i in ids)
        return Draft(
            family=self.name,
            key=f"{person}|{kind or 'all'}|{first}|{last}",
            turns=[{
                "user": user,
                "calls": calls,
                "facts": [
                    {"name": "monthly counts", "expr": f"[{refs}]", "value": None},
                    {"name": f"total {short}", "expr": " + ".join(f"{{{i}.total}}" for i in ids), "value": None},
                    {"name": "highest monthly count", "expr": f"max({refs})", "value": None},
                ],
            }],
            checks=[f"{{c0.users.{index}.name}} == {person!r}", f"max({refs}) > 0"],
        )


# ---------------------------------------------------------------- writes


NEW_NEXT_STEPS = (
    "Send the updated pricing by Friday", "Book a call with their CFO", "Run a pilot with the support team",
    "Share two customer references", "Walk their IT team through security", "Send the order form for signature",
)


class DealUpdate(_Retrying):
    """Change the amount, next step or close date of an open deal the user names."""

    name = "crm.deal-update"
    servers = (SERVER,)
    kind = "write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        deals = _all_pages(view, "search_opportunities", "opportunities", status="open", sort_by="id")
        for deal in rng.sample(deals, 5):
            if view.read(SERVER, "search_opportunities", query=deal["name"], status="open", per_page=2)["total"] == 1:
                break
        else:
            return None
        name, closing = deal["name"], deal["close_date"][:10]
        change = rng.choice(("amount", "next_step", "close_date"))
        facts: list[dict[str, Any]] = []
        if change == "amount":
            amount = float(max(1000, round(deal["amount"] * rng.choice((0.8, 0.9, 1.1, 1.25, 1.5)), -2)))
            if amount == deal["amount"]:
                return None
            arguments: dict[str, Any] = {"amount": amount}
            facts.append({"name": "new weighted amount (USD)", "expr": "{c2.weighted_amount}", "value": None})
            user = [
                f"The customer came back on \"{name}\" (expected to close {closing}): change the deal amount to {_money(amount)}, and tell me the new weighted amount.",
                f"Please update the open opportunity \"{name}\" so its amount is {_money(amount)}. What is its probability-weighted amount afterwards?",
                f"Set the amount of our \"{name}\" deal to {_money(amount)} and let me know what that makes the weighted amount.",
            ]
        elif change == "next_step":
            step = rng.choice([s for s in NEW_NEXT_STEPS if s != deal["next_step"]])
            arguments = {"next_step": step}
            user = [
                f"On the \"{name}\" opportunity (closing {closing}), set the next step to \"{step}\".",
                f"Update the next step of the open deal \"{name}\" to: {step}",
                f"For \"{name}\", change the next step to \"{step}\", please.",
            ]
        else:
            current = deal["close_date"][:10]
            later = max(view.now.date(), date.fromisoformat(current))
            new_date = (later + timedelta(days=rng.choice((14, 21, 30, 45, 60)))).isoformat()
            arguments = {"close_date": f"{new_date}T00:00:00Z"}
            user = [
                f"The \"{name}\" deal is slipping: push its expected close date from {current} to {new_date}.",
                f"Move the close date of the open opportunity \"{name}\" to {new_date}.",
                f"Please reschedule \"{name}\" (currently expected {current}) to close on {new_date}.",
            ]
        return Draft(
            family=self.name,
            key=f"{name}|{change}",
            writes=True,
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_opportunities", "arguments": {"query": name, "status": "open", "per_page": 5}},
                    {"id": "c2", "tool": "update_opportunity", "arguments": arguments, "bind": {"opportunity_id": "{c1.opportunities.0.id}"}},
                ],
                "facts": facts,
            }],
            checks=["{c1.total} == 1"],
        )


CALL_NOTES = (
    ("Follow-up on the proposal", "connected", "They are reviewing the proposal internally and will come back next week."),
    ("Pricing questions", "connected", "Walked through the volume discounts; they want a revised quote."),
    ("Check-in call", "left_voicemail", None),
    ("Renewal timing", "connected", "Renewal is tied to their fiscal year; budget is approved."),
    ("Intro to the new account team", "no_answer", None),
)


class LogCallWithContact(_Retrying):
    """Log a call the user just had with a contact they name by name and company."""

    name = "crm.log-call"
    servers = (SERVER,)
    kind = "write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_contacts", per_page=50, page=rng.randint(1, 8))["contacts"]
        if not page:
            return None
        contact = rng.choice(page)
        person, company = contact["name"], contact["account_name"]
        if view.read(SERVER, "search_contacts", query=person, per_page=2)["total"] != 1:
            return None
        subject, outcome, summary = rng.choice(CALL_NOTES)
        minutes = rng.choice((10, 15, 20, 30, 45))
        arguments: dict[str, Any] = {"type": "call", "subject": subject, "outcome": outcome}
        if outcome == "connected":
            arguments |= {"duration_minutes": minutes, "description": summary}
            user = [
                f"I just got off a {minutes}-minute call with {person} from {company}. Log it with the subject \"{subject}\" and this summary: \"{summary}\"",
                f"Please log a call with {person} ({company}) that just happened: subject \"{subject}\", {minutes} minutes, we connected. Notes: \"{summary}\"",
                f"Record my call with {person} at {company} just now — {minutes} min, subject \"{subject}\", description \"{summary}\".",
            ]
            what = "connected"
        else:
            heard = "left a voicemail" if outcome == "left_voicemail" else "got no answer"
            user = [
                f"I tried calling {person} from {company} just now and {heard}. Log the call with the subject \"{subject}\".",
                f"Please log a call attempt to {person} ({company}) from a moment ago, subject \"{subject}\": I {heard}.",
                f"Record that I called {person} at {company} just now ({heard}); subject \"{subject}\".",
            ]
            what = outcome
        return Draft(
            family=self.name,
            key=f"{person}|{subject}|{what}",
            writes=True,
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_contacts", "arguments": {"query": person, "per_page": 5}},
                    {"id": "c2", "tool": "log_activity", "arguments": arguments, "bind": {"contact_id": "{c1.contacts.0.id}"}},
                ],
                "facts": [],
            }],
            checks=["{c1.total} == 1", f"{{c1.contacts.0.account_name}} == {company!r}"],
        )


class ConditionalAccountHandover(_Retrying):
    """If an account's open pipeline is over a threshold, hand it (and its contacts and open
    deals) to another account executive; otherwise only report the amount."""

    name = "crm.conditional-account-handover"
    servers = (SERVER,)
    kind = "conditional-write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        accounts = _all_pages(view, "search_accounts", "accounts")
        account = rng.choice(accounts)
        name = account["name"]
        if view.read(SERVER, "search_accounts", query=name, per_page=2)["total"] != 1:
            return None
        detail = view.read(SERVER, "get_account", account_id=account["id"])
        pipeline = detail["open_pipeline_amount"]
        over = pipeline > 0 and rng.random() < 0.5
        threshold = _nice(pipeline * rng.uniform(0.4, 0.85), up=False) if over else _nice(pipeline * rng.uniform(1.15, 2.0) + 1, up=True)
        if (pipeline > threshold) != over:
            return None
        executives = _users(view, role="account_executive", active=True)
        choices = [i for i, u in enumerate(executives) if u["id"] != account["owner_id"]]
        index = rng.choice(choices)
        person = executives[index]["name"]
        limit = _money(threshold)
        user = [
            f"If {name}'s open pipeline is over {limit}, reassign the account to {person}, together with its contacts and open deals. If not, leave it as it is. Either way, tell me the open pipeline amount.",
            f"Check the open pipeline at {name}: above {limit}? Then hand the account, its contacts and its open opportunities over to {person}. Otherwise change nothing and just tell me the number.",
            f"How much open pipeline does {name} have? If it's more than {limit}, give the account and everything open on it (contacts and open deals) to {person}; if it's {limit} or less, don't touch it.",
        ]
        calls: list[dict[str, Any]] = [
            {"id": "c1", "tool": "search_accounts", "arguments": {"query": name, "per_page": 5}},
            {"id": "c2", "tool": "get_account", "bind": {"account_id": "{c1.accounts.0.id}"}},
        ]
        checks = ["{c1.total} == 1", f"{{c2.open_pipeline_amount}} {'>' if over else '<='} {threshold}"]
        if over:
            calls += [
                {"id": "c3", "tool": "list_users", "arguments": {"role": "account_executive", "active": True}},
                {"id": "c4", "tool": "reassign_owner", "arguments": {"record_type": "account", "include_related": True},
                 "bind": {"record_id": "{c2.id}", "owner_id": f"{{c3.users.{index}.id}}"}},
            ]
            checks.append(f"{{c3.users.{index}.name}} == {person!r}")
        return Draft(
            family=self.name,
            key=f"{name}|{threshold}|{person}",
            writes=over,
            turns=[{
                "user": user,
                "calls": calls,
                "facts": [{"name": "open pipeline (USD)", "expr": "{c2.open_pipeline_amount}", "value": None}],
            }],
            checks=checks,
        )


# ---------------------------------------------------------------- multi-turn


NOTES = (
    "Champion confirmed the budget on today's call.",
    "They asked for a reference customer in their industry.",
    "Procurement wants the final quote before month end.",
    "Legal review is done on their side.",
)
TASKS = (
    "Send the revised proposal", "Book the technical deep-dive", "Confirm the budget owner",
    "Send the contract for signature",
)


def _later(view: WorldView, rng: random.Random, after: str | None = None) -> str:
    """A day 14 to 60 days after today (or after `after`, an ISO date, if later)."""
    base = view.now.date()
    if after is not None:
        base = max(base, date.fromisoformat(after[:10]))
    return (base + timedelta(days=rng.choice((14, 21, 30, 45, 60)))).isoformat()


class BiggestOpenDealThenAct(_Retrying):
    """Turn 1: the biggest open deal at an account. Turn 2, on "that one": move it a stage on
    (or mark it won) with a note, hand it to another rep with a task for them, or push its
    close date with a new next step."""

    name = "crm.biggest-open-deal-then-act"
    servers = (SERVER,)
    kind = "multi-turn"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        open_deals = _all_pages(view, "search_opportunities", "opportunities", status="open", sort_by="id")
        account = view.read(SERVER, "get_account", account_id=rng.choice(sorted({d["account_id"] for d in open_deals})))
        name = account["name"]
        if view.read(SERVER, "search_accounts", query=name, per_page=2)["total"] != 1:
            return None
        search = {"status": "open", "sort_by": "amount", "sort_order": "desc", "per_page": 2}
        top = view.read(SERVER, "search_opportunities", account_id=account["id"], **search)["opportunities"]
        if len(top) > 1 and top[0]["amount"] == top[1]["amount"]:
            return None
        deal = top[0]
        first = [
            f"What's the biggest open deal we have with {name}? Give me its name, amount, current stage and the primary contact.",
            f"At {name}, which open opportunity is the largest? I need the deal name, the amount, the stage it's in and who the main contact is.",
            f"Find the largest open deal at {name}: name, amount in USD, stage, and primary contact please.",
        ]
        target = "{c2.opportunities.0.id}"
        action = rng.choice(("advance", "handover", "reschedule"))
        checks = ["{c1.total} == 1", "{c2.total} == 1 or {c2.opportunities.0.amount} != {c2.opportunities.1.amount}"]
        if action == "advance":
            stage = NEXT_STAGE[deal["stage"]]
            note = rng.choice(NOTES)
            detail = stage
            if stage == "Closed Won":
                second = [
                    f"Great news, they signed: mark that one as won, and add a note to it saying \"{note}\" What's its probability now?",
                    f"We just closed it! Set that deal to Closed Won and put a note on it: \"{note}\" Then tell me the probability it shows.",
                    f"That deal is won. Please close it as won and note \"{note}\" on it; what probability does it have now?",
                ]
            else:
                second = [
                    f"Move that one to {stage}, and add a note to it saying \"{note}\" What are its probability and weighted amount after the change?",
                    f"OK, advance that deal to the {stage} stage and put this note on it: \"{note}\" Tell me its new probability and weighted amount.",
                    f"Please set that opportunity's stage to {stage} and note \"{note}\" on it. What are the probability and the weighted amount now?",
                ]
            calls = [
                {"id": "c4", "tool": "change_opportunity_stage", "arguments": {"stage": stage}, "bind": {"opportunity_id": target}},
                {"id": "c5", "tool": "add_note", "arguments": {"record_type": "opportunity", "body": note}, "bind": {"record_id": target}},
            ]
            facts = [{"name": "probability now (%)", "expr": "{c4.probability}", "value": None}]
            if stage != "Closed Won":
                facts.append({"name": "weighted amount now (USD)", "expr": "{c4.weighted_amount}", "value": None})
            checks.append(f"{{c4.stage}} == {stage!r}")
        elif action == "handover":
            executives = _users(view, role="account_executive", active=True)
            index = rng.choice([i for i, u in enumerate(executives) if u["id"] != deal["owner_id"]])
            person, task, due = executives[index]["name"], rng.choice(TASKS), _later(view, rng)
            detail = f"{person}|{task}"
            second = [
                f"Give that one to {person}, and create a high-priority task for {person} on that deal: \"{task}\", due {due}.",
                f"Please reassign that deal to {person} and add a task for them on it, \"{task}\", high priority, due on {due}.",
                f"Hand that opportunity over to {person}; also set them a high-priority to-do on it called \"{task}\" due {due}.",
            ]
            calls = [
                {"id": "c4", "tool": "list_users", "arguments": {"role": "account_executive", "active": True}},
                {"id": "c5", "tool": "reassign_owner", "arguments": {"record_type": "opportunity"},
                 "bind": {"record_id": target, "owner_id": f"{{c4.users.{index}.id}}"}},
                {"id": "c6", "tool": "log_activity", "arguments": {"type": "task", "subject": task, "priority": "high", "scheduled_at": f"{due}T00:00:00Z"},
                 "bind": {"opportunity_id": target, "owner_id": f"{{c4.users.{index}.id}}"}},
            ]
            facts = []
            checks.append(f"{{c4.users.{index}.name}} == {person!r}")
        else:
            new_date = _later(view, rng, deal["close_date"])
            step = rng.choice([s for s in NEW_NEXT_STEPS if s != deal["next_step"]])
            detail = f"{new_date}|{step}"
            second = [
                f"That one is going to slip. Push its close date to {new_date} and change the next step to \"{step}\". What's its weighted amount?",
                f"Please move that deal's expected close date to {new_date} and set its next step to \"{step}\"; then tell me its weighted amount.",
                f"Update that opportunity: close date {new_date}, next step \"{step}\". And what is its weighted amount?",
            ]
            calls = [
                {"id": "c4", "tool": "update_opportunity", "arguments": {"close_date": f"{new_date}T00:00:00Z", "next_step": step},
                 "bind": {"opportunity_id": target}},
            ]
            facts = [{"name": "weighted amount (USD)", "expr": "{c4.weighted_amount}", "value": None}]
        return Draft(
            family=self.name,
            key=f"{name}|{action}|{detail}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "search_accounts", "arguments": {"query": name, "per_page": 5}},
                        {"id": "c2", "tool": "search_opportunities", "arguments": search, "bind": {"account_id": "{c1.accounts.0.id}"}},
                        {"id": "c3", "tool": "get_opportunity", "bind": {"opportunity_id": target}},
                    ],
                    "facts": [
                        {"name": "deal", "expr": "{c2.opportunities.0.name}", "value": None},
                        {"name": "amount (USD)", "expr": "{c2.opportunities.0.amount}", "value": None},
                        {"name": "stage", "expr": "{c2.opportunities.0.stage}", "value": None},
                        {"name": "primary contact", "expr": "{c3.contact_name}", "value": None},
                    ],
                },
                {"user": second, "calls": calls, "facts": facts},
            ],
            checks=checks,
        )


class LeadStatusThenAct(_Retrying):
    """Turn 1: where a lead the user names stands (status, rating, owner, activities logged).
    Turn 2, on "that lead": convert it with a deal, disqualify it, warm it up, or set a
    follow-up task."""

    name = "crm.lead-status-then-act"
    servers = (SERVER,)
    kind = "multi-turn"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        leads = _all_pages(view, "search_leads", "leads", status=["new", "working", "nurturing", "unqualified"])
        lead = rng.choice(leads)
        person, company = lead["name"], lead["company"]
        if view.read(SERVER, "search_leads", query=person, per_page=2)["total"] != 1:
            return None
        first = [
            f"Where are we with {person} from {company}? Tell me the lead's status, rating and owner, and how many activities we've logged with them.",
            f"Look up our lead {person} ({company}): what status and rating does it have, who owns it, and how many calls, meetings or tasks are logged on it?",
            f"Quick check on the lead {person} at {company}: status, rating, lead owner, and the number of activities logged so far.",
        ]
        actions = ["task"]
        if lead["status"] != "unqualified":
            actions += ["convert", "disqualify"]
        if (lead["status"], lead["rating"]) != ("working", "hot"):
            actions.append("warm")
        action = rng.choice(actions)
        target = "{c1.leads.0.id}"
        facts: list[dict[str, Any]] = []
        if action == "convert":
            amount = rng.choice((8000, 12000, 15000, 20000, 25000, 40000))
            close = _later(view, rng)
            detail = f"{amount}|{close}"
            second = [
                f"They're ready to buy. Convert that lead, and open a {_money(amount)} opportunity for them closing {close}. What's the new opportunity called?",
                f"Please convert that lead into a contact, with a new opportunity of {_money(amount)} expected to close on {close}. Tell me the opportunity's name.",
                f"Go ahead and convert them, creating an opportunity for {_money(amount)} with a close date of {close}; what name did the deal get?",
            ]
            calls = [{"id": "c3", "tool": "convert_lead", "arguments": {
                "create_opportunity": True, "opportunity_amount": amount, "opportunity_close_date": f"{close}T00:00:00Z"},
                "bind": {"lead_id": target}}]
            facts.append({"name": "new opportunity", "expr": "{c3.opportunity.name}", "value": None})
        elif action == "disqualify":
            detail = ""
            second = [
                "They have no budget this year. Mark that lead as unqualified.",
                "Please set that lead's status to unqualified; it's not going anywhere.",
                "Disqualify that lead (status unqualified), please.",
            ]
            calls = [{"id": "c3", "tool": "update_lead", "arguments": {"status": "unqualified"}, "bind": {"lead_id": target}}]
        elif action == "warm":
            detail = ""
            second = [
                "They just replied and want a demo. Set that lead to working and rate it hot.",
                "Please change that lead's status to working and its rating to hot.",
                "Update that lead: status working, rating hot.",
            ]
            calls = [{"id": "c3", "tool": "update_lead", "arguments": {"status": "working", "rating": "hot"}, "bind": {"lead_id": target}}]
        else:
            subject = rng.choice((f"Follow up with {lead['first_name']}", f"Send {lead['first_name']} the case study", "Book a discovery call"))
            due = _later(view, rng)
            detail = f"{subject}|{due}"
            second = [
                f"Create a task on that lead, \"{subject}\", due {due}, normal priority.",
                f"Please add a to-do for that lead: \"{subject}\" due on {due}.",
                f"Set a follow-up task on that lead called \"{subject}\" with a due date of {due}.",
            ]
            calls = [{"id": "c3", "tool": "log_activity", "arguments": {
                "type": "task", "subject": subject, "scheduled_at": f"{due}T00:00:00Z", "priority": "normal"},
                "bind": {"lead_id": target}}]
        return Draft(
            family=self.name,
            key=f"{person}|{action}|{detail}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "search_leads", "arguments": {"query": person, "per_page": 5}},
                        {"id": "c2", "tool": "search_activities", "arguments": {"per_page": 1}, "bind": {"lead_id": target}},
                    ],
                    "facts": [
                        {"name": "status", "expr": "{c1.leads.0.status}", "value": None},
                        {"name": "rating", "expr": "{c1.leads.0.rating}", "value": None},
                        {"name": "owner", "expr": "{c1.leads.0.owner_name}", "value": None},
                        {"name": "activities logged", "expr": "{c2.total}", "value": None},
                    ],
                },
                {"user": second, "calls": calls, "facts": facts},
            ],
            checks=["{c1.total} == 1", f"{{c1.leads.0.company}} == {company!r}"],
        )


class ContactLookup(Family):
    """How to reach a contact the user names by name and company (email, phone, job title),
    and who owns that account on our side."""

    name = "crm.contact-lookup"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pages = -(-view.read(SERVER, "search_contacts", per_page=1)["total"] // 50)
        found = view.read(SERVER, "search_contacts", per_page=50, page=rng.randint(1, max(pages, 1)))["contacts"]
        if not found:
            return None
        contact = rng.choice(found)
        person, company = contact["name"], contact["account_name"]
        if not company:
            return None
        user = [
            f"How do I reach {person} at {company}? I need their email, phone number and job title, and who owns the {company} account on our side.",
            f"Pull up {person} from {company}: email address, phone and title. Also, which of our reps owns that account?",
            f"What are the email, phone number and job title of {company}'s {person}, and who is the account owner for {company}?",
        ]
        return Draft(
            family=self.name,
            key=f"contact:{contact['id']}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_accounts", "arguments": {"query": company}},
                    {"id": "c2", "tool": "search_contacts", "arguments": {"query": person},
                     "bind": {"account_id": "{c1.accounts.0.id}"}},
                    {"id": "c3", "tool": "get_account", "bind": {"account_id": "{c1.accounts.0.id}"}},
                ],
                "facts": [
                    {"name": "email", "expr": "{c2.contacts.0.email}", "value": None},
                    {"name": "phone", "expr": "{c2.contacts.0.phone}", "value": None},
                    {"name": "job title", "expr": "{c2.contacts.0.title}", "value": None},
                    {"name": "account owner", "expr": "{c3.owner_name}", "value": None},
                ],
            }],
            checks=["{c1.total} == 1", "{c2.total} == 1", f"{{c1.accounts.0.name}} == {company!r}"],
        )


# ---------------------------------------------------------------- tasks, notes and new records


DONE_NOTES = (
    "Done; sent by email this morning.",
    "Completed on today's call.",
    "Handled; the customer confirmed receipt.",
)
SUBJECT_OF = {"lead_id": "get_lead", "opportunity_id": "get_opportunity", "contact_id": "get_contact"}
"""The record a task is about, most specific first, and the tool that reads it."""


def _open_tasks(view: WorldView) -> list[dict[str, Any]]:
    return _all_pages(view, "search_activities", "activities", type="task", status="open")


def _task_search(call_id: str, task: dict[str, Any], index: int) -> dict[str, Any]:
    """Find a task from its owner (user `index` of call c1), its open status and its due day."""
    day = date.fromisoformat(task["scheduled_at"][:10])
    return {"id": call_id, "tool": "search_activities", "arguments": {
        "type": "task", "status": "open", "scheduled_after": f"{day}T00:00:00Z",
        "scheduled_before": f"{day + timedelta(days=1)}T00:00:00Z", "per_page": 5},
        "bind": {"owner_id": f"{{c1.users.{index}.id}}"}}


class CompleteTask(_Retrying):
    """Mark an open task done, named by its owner, subject and due day, with what was done."""

    name = "crm.complete-task"
    servers = (SERVER,)
    kind = "write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = rng.choice(_open_tasks(view))
        users = _users(view)
        index = next((i for i, u in enumerate(users) if u["id"] == task["owner_id"]), None)
        if index is None:
            return None
        owner, subject, due = users[index]["name"], task["subject"], task["scheduled_at"][:10]
        window = _task_search("c2", task, index)["arguments"]
        if view.read(SERVER, "search_activities", owner_id=task["owner_id"], **{**window, "per_page": 1})["total"] != 1:
            return None
        note = rng.choice(DONE_NOTES)
        mine = task["owner_id"] == 1
        whose = "my" if mine else f"{owner}'s"
        user = [
            f"Mark {whose} task \"{subject}\" (due {due}) as completed, with the note \"{note}\"",
            f"Please close out {whose} open task \"{subject}\" that was due on {due}; set its description to \"{note}\"",
            f"The task \"{subject}\" owned by {'me' if mine else owner}, due {due}, is done. Complete it and note: \"{note}\"",
        ]
        return Draft(family=self.name, key=f"task:{task['id']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_users", "arguments": {}},
            _task_search("c2", task, index),
            {"id": "c3", "tool": "complete_task", "arguments": {"description": note}, "bind": {"activity_id": "{c2.activities.0.id}"}},
        ], "facts": []}], checks=["{c2.total} == 1", f"{{c2.activities.0.subject}} == {subject!r}",
                                  f"{{c1.users.{index}.name}} == {owner!r}"])


class OldestTaskThenComplete(_Retrying):
    """Turn 1: a rep's oldest open task, when it was due, and whom it is for (the lead, deal or
    contact it is about). Turn 2: mark that task completed."""

    name = "crm.oldest-task-then-complete"
    servers = (SERVER,)
    kind = "multi-turn"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        users = _users(view)
        index = rng.randrange(len(users))
        owner = users[index]
        search = {"type": "task", "status": "open", "sort_order": "asc", "per_page": 2}
        found = view.read(SERVER, "search_activities", owner_id=owner["id"], **search)["activities"]
        if not found or (len(found) > 1 and found[0]["scheduled_at"] == found[1]["scheduled_at"]):
            return None
        task = found[0]
        link = next((field for field in SUBJECT_OF if task[field] is not None), None)
        if link is None:
            return None
        tool = SUBJECT_OF[link]
        company = "{c3.company}" if link == "lead_id" else "{c3.account_name}"
        what = {"lead_id": "lead", "opportunity_id": "deal", "contact_id": "contact"}[link]
        first = [
            f"What is {owner['name']}'s oldest open task? Give me its subject, when it was due, and which {what} and company it is for.",
            f"Which open task of {owner['name']} has been waiting longest? I need the subject, the due date, and the {what} and company it concerns.",
        ]
        note = rng.choice(DONE_NOTES)
        second = [
            f"{owner['name']} says it's done. Mark that task completed with the note \"{note}\"",
            f"Please complete that task and set its description to \"{note}\"",
        ]
        return Draft(family=self.name, key=f"task:{task['id']}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "list_users", "arguments": {}},
                {"id": "c2", "tool": "search_activities", "arguments": search, "bind": {"owner_id": f"{{c1.users.{index}.id}}"}},
                {"id": "c3", "tool": tool, "bind": {link: f"{{c2.activities.0.{link}}}"}},
            ], "facts": [
                {"name": "task", "expr": "{c2.activities.0.subject}", "value": None},
                {"name": "due", "expr": "{c2.activities.0.scheduled_at}", "value": None},
                {"name": what, "expr": "{c3.name}", "value": None},
                {"name": "company", "expr": company, "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c4", "tool": "complete_task", "arguments": {"description": note}, "bind": {"activity_id": "{c2.activities.0.id}"}},
            ], "facts": []},
        ], checks=[f"{{c1.users.{index}.name}} == {owner['name']!r}",
                   "{c2.total} == 1 or {c2.activities.0.scheduled_at} != {c2.activities.1.scheduled_at}"])


class TaskPersonLookup(_Retrying):
    """Whom a task the user names (owner, subject, due day) is for: the lead or contact's name,
    company and email."""

    name = "crm.task-person-lookup"
    servers = (SERVER,)
    kind = "lookup"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        tasks = _all_pages(view, "search_activities", "activities", type="task")
        on_leads = [t for t in tasks if t["lead_id"] is not None]
        on_contacts = [t for t in tasks if t["lead_id"] is None and t["contact_id"] is not None]
        pool = on_leads if on_leads and (not on_contacts or rng.random() < 0.6) else on_contacts
        if not pool:
            return None
        task = rng.choice(pool)
        users = _users(view)
        index = next((i for i, u in enumerate(users) if u["id"] == task["owner_id"]), None)
        if index is None:
            return None
        owner, subject, due = users[index]["name"], task["subject"], task["scheduled_at"][:10]
        search = _task_search("c2", task, index)
        search["arguments"].pop("status")
        if view.read(SERVER, "search_activities", owner_id=task["owner_id"], **{**search["arguments"], "per_page": 1})["total"] != 1:
            return None
        link = "lead_id" if task["lead_id"] is not None else "contact_id"
        tool, company = ("get_lead", "{c3.company}") if link == "lead_id" else ("get_contact", "{c3.account_name}")
        user = [
            f"{owner} has a task \"{subject}\" due {due}. Who is it for? Give me the person's name, company and email.",
            f"Whom is {owner}'s task \"{subject}\" (due on {due}) about? I need their name, their company and their email address.",
            f"Look up the task \"{subject}\" that {owner} had due {due}: which person is it for, at what company, and how do I email them?",
        ]
        return Draft(family=self.name, key=f"task:{task['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_users", "arguments": {}},
            search,
            {"id": "c3", "tool": tool, "bind": {link: f"{{c2.activities.0.{link}}}"}},
        ], "facts": [
            {"name": "person", "expr": "{c3.name}", "value": None},
            {"name": "company", "expr": company, "value": None},
            {"name": "email", "expr": "{c3.email}", "value": None},
        ]}], checks=["{c2.total} == 1", f"{{c2.activities.0.subject}} == {subject!r}", f"{{c1.users.{index}.name}} == {owner!r}"])


class LatestAccountNote(_Retrying):
    """The latest note logged on an account (or its contacts and deals): what it says and when."""

    name = "crm.latest-account-note"
    servers = (SERVER,)
    kind = "lookup"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        account = rng.choice(_all_pages(view, "search_accounts", "accounts"))
        name = account["name"]
        if view.read(SERVER, "search_accounts", query=name, per_page=2)["total"] != 1:
            return None
        if not view.read(SERVER, "list_notes", account_id=account["id"], per_page=1)["total"]:
            return None
        user = [
            f"What's the most recent note anyone logged on {name}? Tell me what it says, when it was written, and how many notes we have on them.",
            f"Pull up the latest note on the {name} account (including its contacts and deals): the text and the date, plus the total number of notes.",
            f"When was the last note added for {name}, and what did it say? How many notes do we have on them in all?",
        ]
        return Draft(family=self.name, key=f"account:{account['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_accounts", "arguments": {"query": name, "per_page": 5}},
            {"id": "c2", "tool": "list_notes", "arguments": {"per_page": 2}, "bind": {"account_id": "{c1.accounts.0.id}"}},
        ], "facts": [
            {"name": "latest note", "expr": "{c2.notes.0.body}", "value": None},
            {"name": "written at", "expr": "{c2.notes.0.created_at}", "value": None},
            {"name": "notes in all", "expr": "{c2.total}", "value": None},
        ]}], checks=["{c1.total} == 1", "{c2.total} == 1 or {c2.notes.0.created_at} != {c2.notes.1.created_at}"])


FIRST_NAMES = ("Priya", "Marco", "Lena", "Tomas", "Aisha", "Jonas", "Mei", "Diego", "Sofia", "Kwame")
LAST_NAMES = ("Okafor", "Lindqvist", "Tanaka", "Moreau", "Haddad", "Novak", "Castillo", "Brennan", "Iyer", "Kowalski")
TITLES = ("Head of Operations", "IT Director", "VP Finance", "Procurement Manager", "CTO")
NEW_COMPANIES = (
    ("Blue Harbor Analytics", "software", "blueharbor.io", "United States"),
    ("Kestrel Logistics", "logistics", "kestrel-logistics.com", "Germany"),
    ("Maple Grove Foods", "retail", "maplegrovefoods.ca", "Canada"),
    ("Solent Marine Supply", "manufacturing", "solentmarine.co.uk", "United Kingdom"),
    ("Aurora Health Partners", "healthcare", "aurorahealth.org", "United States"),
    ("Tidewater Credit Union", "finance", "tidewatercu.com", "United States"),
)
DEAL_NAMES = ("Platform", "Pilot", "Analytics add-on", "Enterprise plan")


def _new_person(view: WorldView, rng: random.Random, domain: str) -> tuple[str, str, str] | None:
    """A first name, last name and email at `domain` that no contact or lead has."""
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    email = f"{first}.{last}@{domain}".lower()
    for tool in ("search_contacts", "search_leads"):
        if view.read(SERVER, tool, query=email, per_page=1)["total"]:
            return None
    return first, last, email


@dataclass(frozen=True)
class NewProspect:
    """A company new to the CRM, its first contact, and an opening deal."""

    company: str
    industry: str
    domain: str
    country: str
    first: str
    last: str
    email: str
    title: str
    deal: str
    amount: int
    close: str

    @classmethod
    def sample(cls, view: WorldView, rng: random.Random) -> NewProspect | None:
        company, industry, domain, country = rng.choice(NEW_COMPANIES)
        if view.read(SERVER, "search_accounts", query=company, per_page=1)["total"]:
            return None
        person = _new_person(view, rng, domain)
        if person is None:
            return None
        return cls(company, industry, domain, country, *person, rng.choice(TITLES),
                   f"{company} - {rng.choice(DEAL_NAMES)}", rng.choice((10000, 18000, 25000, 40000, 60000)), _later(view, rng))

    @property
    def key(self) -> str:
        return f"{self.company}|{self.email}|{self.deal}|{self.amount}|{self.close}"

    def account_and_contact(self) -> list[dict[str, Any]]:
        """Calls c1-c2: create the account, then the contact at it."""
        return [
            {"id": "c1", "tool": "create_account", "arguments": {
                "name": self.company, "industry": self.industry, "domain": self.domain, "country": self.country}},
            {"id": "c2", "tool": "create_contact", "arguments": {
                "first_name": self.first, "last_name": self.last, "email": self.email, "title": self.title},
             "bind": {"account_id": "{c1.id}"}},
        ]

    def opportunity(self) -> dict[str, Any]:
        """Call c3: the opening deal, with the new contact as primary."""
        return {"id": "c3", "tool": "create_opportunity", "arguments": {
            "name": self.deal, "amount": self.amount, "close_date": f"{self.close}T00:00:00Z"},
            "bind": {"account_id": "{c1.id}", "contact_id": "{c2.id}"}}


class NewAccountSetup(_Retrying):
    """Set up a new prospect: the account, its first contact, and an opening deal with that
    contact as primary."""

    name = "crm.new-account-setup"
    servers = (SERVER,)
    kind = "write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        p = NewProspect.sample(view, rng)
        if p is None:
            return None
        user = [
            f"We just started talking to {p.company} ({p.industry}, {p.domain}, based in {p.country}). Create the account, add {p.first} {p.last} ({p.email}), their {p.title}, as a contact, and open a {_money(p.amount)} opportunity called \"{p.deal}\" closing {p.close} with {p.first} as the primary contact.",
            f"Set up {p.company} in the CRM: a prospect account (industry {p.industry}, domain {p.domain}, country {p.country}), a contact {p.first} {p.last}, {p.title}, email {p.email}, and a new-business deal \"{p.deal}\" worth {_money(p.amount)}, expected to close on {p.close}, with {p.first} as primary contact.",
        ]
        return Draft(family=self.name, key=p.key, writes=True,
                     turns=[{"user": user, "calls": [*p.account_and_contact(), p.opportunity()], "facts": []}])


class NewAccountThenDeal(_Retrying):
    """Two turns: add a new prospect account with its first contact, then open a deal there
    with that contact as primary."""

    name = "crm.new-account-then-deal"
    servers = (SERVER,)
    kind = "multi-turn"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        p = NewProspect.sample(view, rng)
        if p is None:
            return None
        first = [
            f"Add {p.company} as a new account ({p.industry}, {p.domain}, {p.country}) and {p.first} {p.last}, their {p.title}, as a contact there: {p.email}.",
            f"Please create the account {p.company} (industry {p.industry}, domain {p.domain}, country {p.country}) with a contact {p.first} {p.last} ({p.title}, {p.email}).",
        ]
        second = [
            f"Now open a {_money(p.amount)} opportunity there called \"{p.deal}\", closing {p.close}, with {p.first} as the primary contact.",
            f"They want a proposal: create the deal \"{p.deal}\" at that account for {_money(p.amount)}, expected close {p.close}, primary contact {p.first} {p.last}.",
        ]
        return Draft(family=self.name, key=p.key, writes=True, turns=[
            {"user": first, "calls": p.account_and_contact(), "facts": []},
            {"user": second, "calls": [p.opportunity()], "facts": []},
        ])


class NewLeadThenTask(_Retrying):
    """Two turns: add someone the user met as a lead (after checking they are not already a
    contact or lead), then set a follow-up task on that lead."""

    name = "crm.new-lead-then-task"
    servers = (SERVER,)
    kind = "multi-turn"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        company, industry, domain, _ = rng.choice(NEW_COMPANIES)
        person = _new_person(view, rng, domain)
        if person is None:
            return None
        first_name, last_name, email = person
        title, rating = rng.choice(TITLES), rng.choice(("hot", "warm", "cold"))
        subject, due = f"Follow up with {first_name}", _later(view, rng)
        first = [
            f"I met {first_name} {last_name}, {title} at {company} ({industry}), at a conference: {email}. Check we don't have them yet, then add them as a {rating} lead from an event.",
            f"Add a {rating} lead from the trade show: {first_name} {last_name} ({email}), {title} at {company}, industry {industry}. Make sure they aren't already a contact or lead first.",
        ]
        second = [
            f"Set a task on that lead, \"{subject}\", due {due}.",
            f"Please add a to-do for that lead called \"{subject}\" with a due date of {due}.",
        ]
        return Draft(family=self.name, key=f"{email}|{rating}|{due}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "search_contacts", "arguments": {"query": email, "per_page": 5}},
                {"id": "c2", "tool": "search_leads", "arguments": {"query": email, "per_page": 5}},
                {"id": "c3", "tool": "create_lead", "arguments": {
                    "first_name": first_name, "last_name": last_name, "email": email, "company": company,
                    "title": title, "industry": industry, "source": "event", "rating": rating}},
            ], "facts": []},
            {"user": second, "calls": [
                {"id": "c4", "tool": "log_activity", "arguments": {"type": "task", "subject": subject, "scheduled_at": f"{due}T00:00:00Z"},
                 "bind": {"lead_id": "{c3.id}"}},
            ], "facts": []},
        ], checks=["{c1.total} == 0", "{c2.total} == 0"])


class NewLeadUnlessKnown(_Retrying):
    """Add someone the user met as a lead, unless they already are a contact or an open lead;
    then say who owns them instead."""

    name = "crm.new-lead-unless-known"
    servers = (SERVER,)
    kind = "conditional-write"

    def attempt(self, view: WorldView, rng: random.Random) -> Draft | None:
        source = rng.choice(("event", "referral", "web"))
        rating = rng.choice(("hot", "warm"))
        if rng.random() < 0.5:
            contacts = view.read(SERVER, "search_contacts", per_page=50, page=rng.randint(1, 8))["contacts"]
            if not contacts:
                return None
            known = rng.choice(contacts)
            if view.read(SERVER, "search_leads", query=known["email"], status=["new", "working", "nurturing"], per_page=1)["total"]:
                return None
            first, last, email, company = known["first_name"], known["last_name"], known["email"], known["account_name"]
            calls: list[dict[str, Any]] = [{"id": "c1", "tool": "find_contact_by_email", "arguments": {"email": email}}]
            facts = [{"name": "already a contact, owned by", "expr": "{c1.owner_name}", "value": None}]
            checks, writes = [], False
        else:
            company, _, domain, _ = rng.choice(NEW_COMPANIES)
            person = _new_person(view, rng, domain)
            if person is None:
                return None
            first, last, email = person
            calls = [
                {"id": "c1", "tool": "search_contacts", "arguments": {"query": email, "per_page": 5}},
                {"id": "c2", "tool": "search_leads", "arguments": {"query": email, "per_page": 5}},
                {"id": "c3", "tool": "create_lead", "arguments": {
                    "first_name": first, "last_name": last, "email": email, "company": company, "source": source, "rating": rating}},
            ]
            facts, checks, writes = [], ["{c1.total} == 0", "{c2.total} == 0"], True
        how = {"event": "at a trade show", "referral": "through a customer referral", "web": "through our website"}[source]
        user = [
            f"I met {first} {last} ({email}) from {company} {how}. If they're not in the CRM yet as a contact or lead, add them as a {rating} lead from source '{source}'; if they are, tell me who owns them.",
            f"Add {first} {last} of {company}, email {email}, as a new {rating} lead (source: {source}) unless we already have them as a contact or lead; in that case just tell me the owner.",
        ]
        return Draft(family=self.name, key=f"{email}|{source}|{rating}", writes=writes,
                     turns=[{"user": user, "calls": calls, "facts": facts}], checks=checks)


CRM_FAMILIES = (
    WonRevenueComparison(),
    OwnerWinRate(),
    BiggestDealDrillDown(),
    MonthlyWonSeries(),
    OwnerActivitySeries(),
    DealUpdate(),
    LogCallWithContact(),
    ConditionalAccountHandover(),
    BiggestOpenDealThenAct(),
    LeadStatusThenAct(),
    ContactLookup(),
    CompleteTask(),
    OldestTaskThenComplete(),
    TaskPersonLookup(),
    LatestAccountNote(),
    NewAccountSetup(),
    NewAccountThenDeal(),
    NewLeadThenTask(),
    NewLeadUnlessKnown(),
)
