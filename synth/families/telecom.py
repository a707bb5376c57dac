"""Mobile-carrier families: customers, lines, plans, usage, bills, payments, add-ons, roaming
and outages looked up; plan changes, roaming, passes, data packs, add-ons removed, lines
suspended and reactivated, device settings fixed, payments taken and tickets logged;
refusals the carrier's rules call for; a two-turn payment; and CRM contacts who are carrier
customers.

A user names a line by its phone number, an account by its number or the holder's email, a
plan by its name and a destination by its country, never by an internal id.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView

SERVER = "telecom"
Row = dict[str, Any]
Call = dict[str, Any]

NOTES = ("Customer restarted the phone after a network settings reset; calls and data work again.",
         "Explained the charges on the latest bill; customer satisfied.",
         "Customer could not send texts; re-registered the line on the network, texts go through.")
CATEGORY_WORDS = {"device": "a device problem", "billing": "a billing question", "no_service": "a no-service problem"}


# ---------------------------------------------------------------- sampling helpers


def _lines(view: WorldView, **filters: Any) -> list[Row]:
    rows: list[Row] = []
    for page in range(1, 11):
        found = view.read(SERVER, "search_lines", per_page=100, page=page, **filters)
        rows += found["lines"]
        if found["next_page"] is None:
            break
    return rows


def _accounts(view: WorldView, **filters: Any) -> list[Row]:
    rows: list[Row] = []
    for page in range(1, 6):
        found = view.read(SERVER, "search_accounts", per_page=100, page=page, **filters)
        rows += found["accounts"]
        if found["next_page"] is None:
            break
    return rows


def _line(view: WorldView, line_id: int) -> Row:
    return view.read(SERVER, "get_line", line_id=line_id)


def _plans(view: WorldView) -> list[Row]:
    return view.read(SERVER, "list_plans", include_retired=True)["plans"]


def _pick(view: WorldView, rng: random.Random, keep: Any, tries: int = 40, **filters: Any) -> Row | None:
    """A line (in full) that `keep` accepts."""
    candidates = _lines(view, **filters)
    rng.shuffle(candidates)
    for summary in candidates[:tries]:
        line = _line(view, summary["id"])
        if keep(line):
            return line
    return None


def _find_line(call_id: str, line: Row) -> Call:
    return {"id": call_id, "tool": "search_lines", "arguments": {"phone_number": line["phone_number"]}}


def _find_account(call_id: str, number: str) -> Call:
    return {"id": call_id, "tool": "search_accounts", "arguments": {"query": number}}


def _one(call_id: str) -> str:
    return f"{{{call_id}.total}} == 1"


def _good(line: Row) -> bool:
    return line["status"] == "active" and line["account_standing"] == "good"


def _capped(line: Row) -> bool:
    return line["plan"]["data_gb"] is not None


def _dollars(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


# ---------------------------------------------------------------- lookups and reports


class CustomerLines(Family):
    """A caller known by email: how many lines they have, their standing and balance."""

    name = "telecom.customer-lines"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        account = rng.choice(_accounts(view))
        email = account["customer_email"]
        user = [f"I'm {account['customer_name']} ({email}). How many lines are on my account, is it in good standing, "
                "and what is my balance?",
                f"Customer with email {email}: number of lines on their account, its standing and the balance owed."]
        return Draft(family=self.name, key=f"account:{account['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_customer_by_email", "arguments": {"email": email}},
            {"id": "c2", "tool": "get_account", "bind": {"account_id": "{c1.accounts.0.id}"}},
        ], "facts": [
            {"name": "lines", "expr": "{c2.line_count}", "value": None},
            {"name": "standing", "expr": "{c2.standing}", "value": None},
            {"name": "balance", "expr": "{c2.balance_cents}", "value": None},
        ]}])


class LinePlan(Family):
    """A line's plan, handset and whether roaming is on."""

    name = "telecom.line-plan"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = rng.choice(_lines(view))
        number = line["phone_number"]
        user = [f"Which plan is {number} on, what phone is it using, and is roaming turned on?",
                f"For the line {number}: its plan name, the handset make and model, and whether roaming is enabled."]
        return Draft(family=self.name, key=f"line:{line['id']}", turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "get_line", "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [
            {"name": "plan", "expr": "{c2.plan_name}", "value": None},
            {"name": "model", "expr": "{c2.device.model}", "value": None},
            {"name": "roaming", "expr": "{c2.roaming_enabled}", "value": None},
        ]}], checks=[_one("c1")])


class DataLeft(Family):
    """Data used and left this cycle on a capped line."""

    name = "telecom.data-left"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = _pick(view, rng, lambda ln: _capped(ln) and ln["status"] == "active", status="active")
        if line is None:
            return None
        number = line["phone_number"]
        user = [f"How much data has {number} used this billing cycle, and how many MB of high-speed data are left?",
                f"Data check for {number}: megabytes used so far this cycle and megabytes remaining."]
        return Draft(family=self.name, key=f"line:{line['id']}", turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "get_data_usage", "arguments": {"cycles_back": 0}, "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [
            {"name": "used MB", "expr": "{c2.used_mb}", "value": None},
            {"name": "remaining MB", "expr": "{c2.remaining_mb}", "value": None},
        ]}], checks=[_one("c1")])


class PeakDay(Family):
    """The heaviest data day of last cycle, and the cycle's total."""

    name = "telecom.peak-day"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = rng.choice(_lines(view))
        usage = view.read(SERVER, "get_data_usage", line_id=line["id"], cycles_back=1, include_days=True)
        top = sorted((d["data_mb"] for d in usage["days"]), reverse=True)
        if len(top) < 2 or top[0] == top[1]:
            return None
        number = line["phone_number"]
        user = [f"Last month, on which day did {number} use the most data, how much was it, and what was the month's total?",
                f"For {number} over the previous billing cycle: the peak data day, its MB, and the total MB used."]
        return Draft(family=self.name, key=f"line:{line['id']}", turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "get_data_usage", "arguments": {"cycles_back": 1}, "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [
            {"name": "peak day", "expr": "{c2.peak_day}", "value": None},
            {"name": "peak MB", "expr": "{c2.peak_day_mb}", "value": None},
            {"name": "total MB", "expr": "{c2.used_mb}", "value": None},
        ]}], checks=[_one("c1")])


class LatestBill(Family):
    """The latest bill of an account: total, due date, and the biggest charge."""

    name = "telecom.latest-bill"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        account = rng.choice(_accounts(view))
        bills = view.read(SERVER, "list_bills", account_id=account["id"], per_page=1)["bills"]
        if not bills:
            return None
        number = account["account_number"]
        user = [f"What's the total of the latest bill on account {number}, when is it due, and how much of it is unpaid?",
                f"Account {number}: the most recent bill's total, its due date and the amount still owed on it."]
        return Draft(family=self.name, key=f"account:{account['id']}", turns=[{"user": user, "calls": [
            _find_account("c1", number),
            {"id": "c2", "tool": "list_bills", "arguments": {"per_page": 1}, "bind": {"account_id": "{c1.accounts.0.id}"}},
            {"id": "c3", "tool": "get_bill", "bind": {"bill_id": "{c2.bills.0.id}"}},
        ], "facts": [
            {"name": "total", "expr": "{c3.total_cents}", "value": None},
            {"name": "due", "expr": "{c3.due_on}", "value": None},
            {"name": "unpaid", "expr": "{c3.balance_cents}", "value": None},
        ]}], checks=[_one("c1")])


class LastPayment(Family):
    """The latest payment on an account."""

    name = "telecom.last-payment"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        account = rng.choice(_accounts(view))
        payments = view.read(SERVER, "list_payments", account_id=account["id"], per_page=2)["payments"]
        if not payments or (len(payments) > 1 and payments[0]["paid_at"] == payments[1]["paid_at"]):
            return None
        number = account["account_number"]
        user = [f"When was the last payment on account {number}, how much was it and how was it paid?",
                f"Look up account {number}'s most recent payment: date, amount and method."]
        return Draft(family=self.name, key=f"account:{account['id']}", turns=[{"user": user, "calls": [
            _find_account("c1", number),
            {"id": "c2", "tool": "list_payments", "arguments": {"per_page": 5}, "bind": {"account_id": "{c1.accounts.0.id}"}},
        ], "facts": [
            {"name": "date", "expr": "{c2.payments.0.paid_at}", "value": None},
            {"name": "amount", "expr": "{c2.payments.0.amount_cents}", "value": None},
            {"name": "method", "expr": "{c2.payments.0.method}", "value": None},
        ]}], checks=[_one("c1")])


class PlanCatalog(Family):
    """A plan's monthly price, hotspot allowance and included roaming zones."""

    name = "telecom.plan-catalog"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        plans = view.read(SERVER, "list_plans")["plans"]
        index = rng.randrange(len(plans))
        name = plans[index]["name"]
        user = [f"How much is the {name} plan per month, how much hotspot data does it have, and which roaming zones does it include?",
                f"Tell me about {name}: monthly price, hotspot GB and included roaming zones."]
        return Draft(family=self.name, key=f"plan:{name}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_plans"},
        ], "facts": [
            {"name": "price", "expr": f"{{c1.plans.{index}.price_cents}}", "value": None},
            {"name": "hotspot", "expr": f"{{c1.plans.{index}.hotspot_gb}}", "value": None},
            {"name": "zones", "expr": f"{{c1.plans.{index}.roaming_zones}}", "value": None},
        ]}])


class RoamingPrice(Family):
    """The zone of a destination and what a pass for a trip would cost."""

    name = "telecom.roaming-price"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        passes = view.read(SERVER, "list_addons", kind="roaming_pass")["addons"]
        country = rng.choice(rng.choice(passes)["countries"])
        days = rng.randint(3, 14)
        user = [f"I'm going to {country} for {days} days. Which roaming zone is that, and what would day passes for the whole trip cost?",
                f"Roaming zone of {country}, and the total price of a {days}-day roaming pass there."]
        return Draft(family=self.name, key=f"{country}|{days}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_addons", "arguments": {"country": country}},
        ], "facts": [
            {"name": "zone", "expr": "{c1.addons.0.zone}", "value": None},
            {"name": "total", "expr": f"{{c1.addons.0.price_cents}} * {days}", "value": None},
        ]}])


class AreaOutages(Family):
    """Outages going on in a customer's city."""

    name = "telecom.area-outages"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        outages = view.read(SERVER, "check_network_outages")["outages"]
        area = rng.choice(outages)["area"]
        user = [f"Is there a network outage in {area} right now? How many, and which service does the latest one hit?",
                f"Check active outages in {area}: the count and what service the most recent one affects."]
        return Draft(family=self.name, key=f"area:{area}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "check_network_outages", "arguments": {"area": area}},
        ], "facts": [
            {"name": "outages", "expr": "{c1.total}", "value": None},
            {"name": "service", "expr": "{c1.outages.0.service}", "value": None},
        ]}])


class TicketHistory(Family):
    """How many troubleshooting tickets a line has, and the latest one's category."""

    name = "telecom.ticket-history"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        tickets = view.read(SERVER, "list_tickets", per_page=100)["tickets"]
        ticket = rng.choice(tickets)
        mine = view.read(SERVER, "list_tickets", line_id=ticket["line_id"], per_page=2)["tickets"]
        if len(mine) > 1 and mine[0]["opened_at"] == mine[1]["opened_at"]:
            return None
        number = ticket["phone_number"]
        user = [f"How many troubleshooting tickets has {number} had, and what was the latest one about?",
                f"Ticket history for {number}: the number of tickets and the category of the most recent."]
        return Draft(family=self.name, key=f"line:{ticket['line_id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_lines", "arguments": {"phone_number": number}},
            {"id": "c2", "tool": "list_tickets", "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [
            {"name": "tickets", "expr": "{c2.total}", "value": None},
            {"name": "latest", "expr": "{c2.tickets.0.category}", "value": None},
        ]}], checks=[_one("c1")])


# ---------------------------------------------------------------- writes


class SchedulePlanChange(Family):
    """Switch a line to another plan from the next billing cycle."""

    name = "telecom.schedule-plan-change"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = _pick(view, rng, lambda ln: ln["status"] == "active", status="active")
        if line is None:
            return None
        plan = rng.choice([p for p in view.read(SERVER, "list_plans")["plans"] if p["code"] != line["plan_code"]])
        number = line["phone_number"]
        user = [f"Please move {number} to the {plan['name']} plan starting next billing cycle.",
                f"Switch the line {number} to {plan['name']} from the next cycle on."]
        return Draft(family=self.name, key=f"line:{line['id']}|{plan['code']}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "change_plan", "arguments": {"plan_code": plan["code"], "effective": "next_cycle"},
             "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [{"name": "effective on", "expr": "{c2.effective_on}", "value": None}]}], checks=[_one("c1")])


class UpgradeNow(Family):
    """Upgrade a line to a pricier plan at once."""

    name = "telecom.upgrade-now"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        plans = view.read(SERVER, "list_plans")["plans"]
        line = _pick(view, rng, lambda ln: ln["status"] == "active" and ln["plan"]["price_cents"] < plans[-1]["price_cents"],
                     status="active")
        if line is None:
            return None
        plan = rng.choice([p for p in plans if p["price_cents"] > line["plan"]["price_cents"]])
        number = line["phone_number"]
        user = [f"Upgrade {number} to {plan['name']} right away, effective immediately.",
                f"I need {plan['name']} on {number} today, not next month: upgrade it immediately."]
        return Draft(family=self.name, key=f"line:{line['id']}|{plan['code']}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "change_plan", "arguments": {"plan_code": plan["code"], "effective": "immediately"},
             "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class CancelPlanChange(Family):
    """Drop a plan change scheduled for next cycle."""

    name = "telecom.cancel-plan-change"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pending = [ln for ln in _lines(view, status="active") if ln["pending_plan_code"]]
        if not pending:
            return None
        line = rng.choice(pending)
        number = line["phone_number"]
        user = [f"I changed my mind: cancel the plan change scheduled on {number}. Which plan was it going to?",
                f"Drop the pending plan switch for {number}, and tell me what plan it would have moved to."]
        return Draft(family=self.name, key=f"line:{line['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "cancel_plan_change", "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [{"name": "pending plan", "expr": "{c1.lines.0.pending_plan_code}", "value": None}]}],
            checks=[_one("c1")])


class EnableRoaming(Family):
    """Turn roaming on for a line before a trip."""

    name = "telecom.enable-roaming"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = _pick(view, rng, _good, roaming_enabled=False, status="active")
        if line is None:
            return None
        number = line["phone_number"]
        user = [f"I'm travelling abroad next week. Turn on roaming for {number}.",
                f"Please enable international roaming on the line {number}."]
        return Draft(family=self.name, key=f"line:{line['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "set_roaming", "arguments": {"enabled": True}, "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class RoamingPass(Family):
    """Buy a roaming pass for a trip, starting on a given day."""

    name = "telecom.roaming-pass"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = _pick(view, rng, lambda ln: _good(ln) and "3" not in ",".join(map(str, ln["plan"]["roaming_zones"])),
                     status="active")
        if line is None:
            return None
        passes = view.read(SERVER, "list_addons", kind="roaming_pass")["addons"]
        choice = rng.choice([p for p in passes if p["zone"] not in line["plan"]["roaming_zones"]])
        country, days = rng.choice(choice["countries"]), rng.randint(3, 12)
        start = view.now.date() + timedelta(days=rng.randint(5, 40))
        number = line["phone_number"]
        user = [f"I'll be in {country} from {start} for {days} days. Buy a roaming pass for {number} covering the trip, and tell me the price.",
                f"Set up a {days}-day roaming pass on {number} for {country}, starting {start}. What will it cost?"]
        return Draft(family=self.name, key=f"line:{line['id']}|{country}|{start}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "buy_roaming_pass", "arguments": {"country": country, "days": days, "start_date": str(start)},
             "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [{"name": "price", "expr": "{c2.price_cents}", "value": None}]}], checks=[_one("c1")])


class DataPack(Family):
    """Add a data pack to a capped line that has room for one this cycle."""

    name = "telecom.data-pack"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = _pick(view, rng, lambda ln: ln["status"] == "active" and _capped(ln) and ln["data_packs_this_cycle"] < 2,
                     status="active")
        if line is None:
            return None
        size = rng.choice(("1", "3", "10"))
        number = line["phone_number"]
        user = [f"I'm running low on data. Add a {size}GB data pack to {number}.",
                f"Please buy the {size}GB data pack for the line {number}."]
        return Draft(family=self.name, key=f"line:{line['id']}|{size}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "add_addon", "arguments": {"addon_code": f"data-{size}gb"}, "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class DropIntlCalling(Family):
    """Remove international calling from a line."""

    name = "telecom.drop-intl-calling"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = _pick(view, rng, lambda ln: ln["status"] == "active" and any(
            a["kind"] == "intl_calling" for a in ln["addons"]), tries=600, status="active")
        if line is None:
            return None
        index = next(i for i, a in enumerate(line["addons"]) if a["kind"] == "intl_calling")
        number = line["phone_number"]
        user = [f"Remove the international calling add-on from {number}; I don't need it anymore.",
                f"Please cancel international calling on the line {number}."]
        return Draft(family=self.name, key=f"line:{line['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "get_line", "bind": {"line_id": "{c1.lines.0.id}"}},
            {"id": "c3", "tool": "remove_addon", "bind": {"line_addon_id": f"{{c2.addons.{index}.id}}"}},
        ], "facts": []}], checks=[_one("c1"), f"{{c2.addons.{index}.kind}} == 'intl_calling'"])


class LostPhone(Family):
    """Suspend a line whose phone was lost or stolen."""

    name = "telecom.lost-phone"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = rng.choice(_lines(view, status="active"))
        number = line["phone_number"]
        user = [f"My phone was stolen an hour ago. Block the line {number} right now.",
                f"I lost the phone with number {number}; please suspend the line so nobody can use it."]
        return Draft(family=self.name, key=f"line:{line['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "suspend_line", "arguments": {"reason": "lost_stolen"}, "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class FoundPhone(Family):
    """Reactivate a line suspended as lost/stolen or on request."""

    name = "telecom.found-phone"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = [ln for ln in _lines(view, status="suspended") if ln["suspension_reason"] != "non_payment"]
        line = rng.choice(found)
        number = line["phone_number"]
        user = [f"Good news, I got my phone back. Please reactivate {number}.",
                f"The line {number} is suspended; turn it back on for me."]
        return Draft(family=self.name, key=f"line:{line['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "reactivate_line", "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class FixNoData(Family):
    """No data on a line whose handset has mobile data off: diagnose, then turn it on."""

    name = "telecom.fix-no-data"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        candidates = _lines(view, status="active")
        rng.shuffle(candidates)
        for summary in candidates:
            found = view.read(SERVER, "run_line_diagnostics", line_id=summary["id"])
            if found["issues"] == ["mobile_data_off"]:
                break
        else:
            return None
        number = summary["phone_number"]
        user = [f"{number} has signal but no internet. Run a diagnostic and fix whatever setting is wrong on the phone.",
                f"Mobile data isn't working on {number}. Diagnose the line and correct the handset setting that causes it."]
        return Draft(family=self.name, key=f"line:{summary['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", summary),
            {"id": "c2", "tool": "run_line_diagnostics", "bind": {"line_id": "{c1.lines.0.id}"}},
            {"id": "c3", "tool": "update_device_settings", "arguments": {"mobile_data": True}, "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class LogTicket(Family):
    """Record a resolved ticket on a line with the agent's notes."""

    name = "telecom.log-ticket"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = rng.choice(_lines(view))
        category = rng.choice(list(CATEGORY_WORDS))
        notes = NOTES[list(CATEGORY_WORDS).index(category)]
        number = line["phone_number"]
        user = [f"Log a resolved ticket on {number} for {CATEGORY_WORDS[category]} (category {category}) with the notes: '{notes}'",
                f"Record in the troubleshooting log for {number}, category {category}, resolved, notes '{notes}'"]
        return Draft(family=self.name, key=f"line:{line['id']}|{category}", writes=True, turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "log_ticket", "arguments": {"category": category, "notes": notes, "resolved": True},
             "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class PayThenReactivate(Family):
    """Two turns: what is past due on a suspended account; then pay it and bring its lines back."""

    name = "telecom.pay-then-reactivate"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        accounts = _accounts(view, standing="suspended")
        if not accounts:
            return None
        account = rng.choice(accounts)
        detail = view.read(SERVER, "get_account", account_id=account["id"])
        number = account["account_number"]
        first = [f"My lines on account {number} stopped working. How much do I owe past due, and what's my total balance?",
                 f"Account {number}: what is the past-due amount and the whole balance?"]
        second = ["Pay exactly the past-due amount by card, then reactivate every line that was suspended for non-payment.",
                  "OK, charge my card for the past-due amount only, and turn all my suspended lines back on."]
        reactivate = [{"id": f"c{4 + i}", "tool": "reactivate_line", "bind": {"line_id": f"{{c3.lines.{i}.id}}"}}
                      for i, ln in enumerate(detail["lines"]) if ln["suspension_reason"] == "non_payment"]
        return Draft(family=self.name, key=f"account:{account['id']}", writes=True, turns=[
            {"user": first, "calls": [_find_account("c1", number)], "facts": [
                {"name": "past due", "expr": "{c1.accounts.0.past_due_cents}", "value": None},
                {"name": "balance", "expr": "{c1.accounts.0.balance_cents}", "value": None}]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "make_payment", "arguments": {"method": "card"},
                 "bind": {"account_id": "{c1.accounts.0.id}", "amount_cents": "{c1.accounts.0.past_due_cents}"}},
                {"id": "c3", "tool": "get_account", "bind": {"account_id": "{c1.accounts.0.id}"}},
                *reactivate], "facts": []},
        ], checks=[_one("c1")])


# ---------------------------------------------------------------- refusals


class DowngradeNow(Family):
    """Asked to downgrade a line immediately: refuse (downgrades wait for the next cycle)."""

    name = "telecom.downgrade-now"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        plans = view.read(SERVER, "list_plans")["plans"]
        line = _pick(view, rng, lambda ln: ln["status"] == "active" and ln["plan"]["price_cents"] > plans[0]["price_cents"],
                     status="active")
        if line is None:
            return None
        plan = rng.choice([p for p in plans if p["price_cents"] < line["plan"]["price_cents"]])
        number = line["phone_number"]
        user = [f"Downgrade {number} to {plan['name']} effective immediately, today. If that can't be done today, change "
                "nothing and tell me the plan it's on now and its monthly price.",
                f"I want {number} on {plan['name']} right now, not next month. If that's not possible, leave it as is and "
                "just tell me its current plan and price."]
        return Draft(family=self.name, key=f"line:{line['id']}|{plan['code']}", turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "get_line", "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [
            {"name": "plan", "expr": "{c2.plan_name}", "value": None},
            {"name": "price", "expr": "{c2.plan.price_cents}", "value": None},
        ]}], checks=[_one("c1")])


class RetiredPlan(Family):
    """Asked to switch to a retired plan: refuse; say the current plan."""

    name = "telecom.retired-plan"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        retired = [p for p in _plans(view) if not p["available"]]
        plan = rng.choice(retired)
        line = _pick(view, rng, lambda ln: ln["status"] == "active" and ln["plan_code"] != plan["code"], status="active")
        if line is None:
            return None
        number = line["phone_number"]
        user = [f"Switch {number} to the {plan['name']} plan from next cycle. If you can't, tell me what plan it's on now.",
                f"My friend has {plan['name']}; put {number} on it too. If that's not allowed, what's my current plan?"]
        return Draft(family=self.name, key=f"line:{line['id']}|{plan['code']}", turns=[{"user": user, "calls": [
            _find_line("c1", line),
        ], "facts": [{"name": "plan", "expr": "{c1.lines.0.plan_name}", "value": None}]}], checks=[_one("c1")])


class ChangeSuspendedLine(Family):
    """Asked to add a data pack or turn roaming on for a suspended line: refuse; say why it is suspended."""

    name = "telecom.change-suspended-line"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        suspended = [ln for ln in _lines(view, status="suspended") if ln["suspension_reason"] != "non_payment"]
        line = rng.choice(suspended)
        number = line["phone_number"]
        user = [f"Add international calling to {number}, but don't reactivate anything. If it can't be done, tell me why "
                "the line is suspended and since when.",
                f"Put the international calling add-on on {number} without changing its status; if not possible, "
                "what's the suspension reason and date?"]
        return Draft(family=self.name, key=f"line:{line['id']}", turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "get_line", "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [
            {"name": "reason", "expr": "{c2.suspension_reason}", "value": None},
            {"name": "since", "expr": "{c2.suspended_at}", "value": None},
        ]}], checks=[_one("c1")])


class RoamingPastDue(Family):
    """Asked to turn roaming on for a line of an account behind on its bills: refuse; say how much is past due."""

    name = "telecom.roaming-past-due"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = _pick(view, rng, lambda ln: ln["account_standing"] == "past_due" and not ln["roaming_enabled"],
                     tries=600, status="active")
        if line is None:
            return None
        number = line["phone_number"]
        user = [f"Enable roaming on {number}, I fly out tonight. Don't take any payment. If you can't, how much is past due on my account?",
                f"Turn roaming on for {number} (no payments, please). If it's refused, tell me the past-due amount."]
        return Draft(family=self.name, key=f"line:{line['id']}", turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "get_account", "bind": {"account_id": "{c1.lines.0.account_id}"}},
        ], "facts": [{"name": "past due", "expr": "{c2.past_due_cents}", "value": None}]}], checks=[_one("c1")])


class ReactivateUnpaid(Family):
    """Asked to reactivate a line suspended for non-payment while the bills are unpaid: refuse; say what is past due."""

    name = "telecom.reactivate-unpaid"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = rng.choice([ln for ln in _lines(view, status="suspended") if ln["suspension_reason"] == "non_payment"])
        number = line["phone_number"]
        user = [f"Reactivate {number} now. I'll pay later, so don't take a payment. If you can't, tell me how much is past due.",
                f"Turn {number} back on without any payment today; if that's refused, what's the past-due amount?"]
        return Draft(family=self.name, key=f"line:{line['id']}", turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "get_account", "bind": {"account_id": "{c1.lines.0.account_id}"}},
        ], "facts": [{"name": "past due", "expr": "{c2.past_due_cents}", "value": None}]}], checks=[_one("c1")])


class ThirdDataPack(Family):
    """Asked for a data pack on a line that already has two this cycle: refuse; say what is left."""

    name = "telecom.third-data-pack"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = _pick(view, rng, lambda ln: ln["status"] == "active" and ln["data_packs_this_cycle"] >= 2, tries=600,
                     status="active")
        if line is None:
            return None
        number = line["phone_number"]
        user = [f"Add another 1GB data pack to {number}. If you can't, tell me how many MB I have left this cycle.",
                f"I need one more data pack (1GB) on {number}; if it's not allowed, how much high-speed data remains?"]
        return Draft(family=self.name, key=f"line:{line['id']}", turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "get_data_usage", "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [{"name": "remaining MB", "expr": "{c2.remaining_mb}", "value": None}]}], checks=[_one("c1")])


class RefundDataPack(Family):
    """Asked to remove (refund) a data pack bought this cycle: refuse; say its price."""

    name = "telecom.refund-data-pack"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        line = _pick(view, rng, lambda ln: ln["status"] == "active" and ln["data_packs_this_cycle"] == 1, tries=600,
                     status="active")
        if line is None:
            return None
        index = next(i for i, a in enumerate(line["addons"]) if a["kind"] == "data_pack")
        number = line["phone_number"]
        user = [f"Remove the data pack I bought this month on {number} and refund it. If that's not possible, tell me what it cost.",
                f"Cancel this cycle's data pack on {number} for a refund; if you can't, how much did it cost?"]
        return Draft(family=self.name, key=f"line:{line['id']}", turns=[{"user": user, "calls": [
            _find_line("c1", line),
            {"id": "c2", "tool": "get_line", "bind": {"line_id": "{c1.lines.0.id}"}},
        ], "facts": [{"name": "price", "expr": f"{{c2.addons.{index}.price_cents}}", "value": None}]}],
            checks=[_one("c1"), f"{{c2.addons.{index}.kind}} == 'data_pack'"])


class Overpay(Family):
    """Asked to pay more than the balance: refuse; say the balance."""

    name = "telecom.overpay"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        account = rng.choice(_accounts(view))
        amount = account["balance_cents"] + rng.choice((5000, 10000, 20000))
        number = account["account_number"]
        user = [f"Charge {_dollars(amount)} to my card for account {number}, and keep whatever is extra as credit. If you "
                "can't take that amount, change nothing and tell me my balance.",
                f"Take a card payment of {_dollars(amount)} on account {number} (the surplus as credit). If that's refused, "
                "just tell me the balance."]
        return Draft(family=self.name, key=f"account:{account['id']}|{amount}", turns=[{"user": user, "calls": [
            _find_account("c1", number),
        ], "facts": [{"name": "balance", "expr": "{c1.accounts.0.balance_cents}", "value": None}]}], checks=[_one("c1")])


# ---------------------------------------------------------------- with the CRM


class CrmContactLine(Family):
    """A CRM contact who is a carrier customer: their account's standing and first line's plan."""

    name = "cross.telecom-crm-contact"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        account = rng.choice(_accounts(view))
        customer = view.read(SERVER, "get_customer_by_email", email=account["customer_email"])
        if customer["crm_contact_id"] is None:
            return None
        contact = view.read("crm", "get_contact", contact_id=customer["crm_contact_id"])
        found = view.read("crm", "search_contacts", query=contact["name"])
        if found["total"] != 1:
            return None
        user = [f"Our CRM contact {contact['name']} of {contact['account_name']} is also a Bluewave Mobile customer. "
                "Is their phone account in good standing, and which plan is their first line on?",
                f"Look up {contact['name']} ({contact['account_name']}) from the CRM in our carrier system: account "
                "standing and the plan of their first line."]
        return Draft(family=self.name, key=f"contact:{contact['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": "crm", "tool": "search_contacts", "arguments": {"query": contact["name"]}},
            {"id": "c2", "server": SERVER, "tool": "get_customer_by_email", "bind": {"email": "{c1.contacts.0.email}"}},
            {"id": "c3", "server": SERVER, "tool": "get_account", "bind": {"account_id": "{c2.accounts.0.id}"}},
        ], "facts": [
            {"name": "standing", "expr": "{c3.standing}", "value": None},
            {"name": "plan", "expr": "{c3.lines.0.plan_name}", "value": None},
        ]}], checks=[_one("c1")])


TELECOM_FAMILIES: tuple[Family, ...] = (
    CustomerLines(), LinePlan(), DataLeft(), PeakDay(), LatestBill(), LastPayment(), PlanCatalog(), RoamingPrice(),
    AreaOutages(), TicketHistory(),
    SchedulePlanChange(), UpgradeNow(), CancelPlanChange(), EnableRoaming(), RoamingPass(), DataPack(), DropIntlCalling(),
    LostPhone(), FoundPhone(), FixNoData(), LogTicket(),
    PayThenReactivate(),
    DowngradeNow(), RetiredPlan(), ChangeSuspendedLine(), RoamingPastDue(), ReactivateUnpaid(), ThirdDataPack(),
    RefundDataPack(), Overpay(),
    CrmContactLine(),
)
"""Every telecom family, the cross-server one (with the CRM) last."""
