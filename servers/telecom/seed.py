"""The seeded carrier: world customers (most of them CRM contacts) with one billing account
each, their lines, plans, handsets, add-ons and roaming passes, daily usage over the current
and the previous cycle, fifteen months of bills and payments, network outages and the
troubleshooting log.

The seeded world obeys the rules the tools enforce: a past-due account has an overdue bill,
a suspended account's lines are suspended for non-payment after its oldest overdue bill, no
account behind on its bills has roaming on, no line has more than two data packs in a cycle,
and no suspended line changed after its suspension.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Insert
from sqlalchemy.orm import Session

from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import Person, World
from mcpgym.servers.telecom.data import (
    ADDONS,
    DEVICES,
    HOME_COUNTRY,
    LABELS,
    OUTAGES,
    PLANS,
    TICKET_NOTES,
    WRONG_APNS,
    ZONES,
)
from mcpgym.servers.telecom.models import (
    DEFAULT_APN,
    Account,
    Addon,
    Base,
    Bill,
    BillItem,
    Customer,
    Device,
    Line,
    LineAddon,
    Outage,
    Payment,
    Plan,
    Ticket,
    UsageDay,
)

CRM_SHARE = 0.55
"""Share of the CRM's contacts who are customers of the carrier."""
OTHER_CUSTOMERS = 60
"""World customers who are not CRM contacts."""
BILL_CYCLES = 15
USAGE_CYCLES = 2
"""The current cycle and the one before it have daily usage."""
FEE_CENTS = 150
TAX_RATE = 0.08
PLAN_WEIGHTS = {"basic-5": 14, "plus-15": 20, "unlimited": 24, "unlimited-plus": 14, "unlimited-max": 6,
                "talk-text": 6, "classic-10": 8, "legacy-unlimited": 8}


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


def cycle_start(day: date, back: int = 0) -> date:
    """The first day of the cycle (calendar month) of `day`, `back` cycles earlier."""
    index = day.year * 12 + day.month - 1 - back
    return date(index // 12, index % 12 + 1, 1)


def next_cycle(day: date) -> date:
    return cycle_start(day, -1)


def _insert(model: type[Base]) -> Insert:
    return model.__table__.insert()  # type: ignore[attr-defined, no-any-return]


class Seeder:
    """Builds every row in memory, in id order, then inserts them table by table."""

    def __init__(self, world: World, rng: random.Random) -> None:
        self.world, self.rng = world, rng
        self.now = world.now
        self.today = world.now.date()
        self.plans = {code: dict(id=i, code=code, name=name, data_gb=gb, price_cents=price, roaming_zones=zones,
                                 hotspot_gb=hotspot, intl_calling=intl, available=available)
                      for i, (code, name, gb, price, zones, hotspot, intl, available) in enumerate(PLANS, start=1)}
        self.addons = {code: dict(id=i, code=code, name=name, kind=kind, data_mb=mb, price_cents=price, zone=zone)
                       for i, (code, name, kind, mb, price, zone) in enumerate(ADDONS, start=1)}
        self.customers: list[dict[str, Any]] = []
        self.accounts: list[dict[str, Any]] = []
        self.lines: list[dict[str, Any]] = []
        self.devices: list[dict[str, Any]] = []
        self.usage: list[dict[str, Any]] = []
        self.line_addons: list[dict[str, Any]] = []
        self.bills: list[dict[str, Any]] = []
        self.items: list[dict[str, Any]] = []
        self.payments: list[dict[str, Any]] = []
        self.outages: list[dict[str, Any]] = []
        self.tickets: list[dict[str, Any]] = []
        self.numbers: set[str] = set()
        self.imeis: set[str] = set()

    def between(self, start: datetime, end: datetime) -> datetime:
        if end <= start:
            return _second(start)
        return _second(start + (end - start) * self.rng.random())

    # ------------------------------------------------------------ people and accounts

    def customers_from(self, contacts: list[dict[str, Any]]) -> None:
        rng = self.rng
        people = {p.id: p for p in self.world.customers}
        orgs = {o.id: o.name for o in self.world.organizations}
        picked: list[tuple[Person, int | None]] = [
            (people[c["external_id"]], c["id"]) for c in contacts
            if c["external_id"] in people and rng.random() < CRM_SHARE]
        known = {c["external_id"] for c in contacts}
        outsiders = [p for p in self.world.customers if p.id not in known]
        picked += [(p, None) for p in rng.sample(outsiders, min(OTHER_CUSTOMERS, len(outsiders)))]
        for index, (person, contact_id) in enumerate(picked, start=1):
            opened = _second(self.now - timedelta(days=rng.uniform(45, 1500)))
            self.customers.append({
                "id": index, "external_id": person.id, "crm_contact_id": contact_id, "name": person.name,
                "email": person.email, "phone": person.phone, "organization_name": orgs[person.organization_id],
                "city": person.city, "created_at": opened})
            roll = rng.random()
            standing = "good"
            if (self.now - opened).days > 150:
                standing = "past_due" if roll < 0.10 else "suspended" if roll < 0.15 else "good"
            self.accounts.append({"id": index, "account_number": f"BW-{40210000 + index * 173}", "customer_id": index,
                                  "standing": standing, "autopay": standing == "good" and rng.random() < 0.45,
                                  "opened_at": opened})

    def overdue_backs(self, account: dict[str, Any]) -> set[int]:
        """The cycles (counted back from the current one) whose bills are overdue: the latest
        bill is still open until its due date, the 21st."""
        count = {"good": 0, "past_due": 1, "suspended": 2}[account["standing"]]
        first = 2 if cycle_start(self.today) + timedelta(days=20) >= self.today else 1
        return set(range(first, first + count))

    def suspended_for_non_payment_at(self, account: dict[str, Any]) -> datetime:
        """Ten days after the due date of its oldest overdue bill."""
        oldest = cycle_start(self.today, max(self.overdue_backs(account)))
        due = next_cycle(oldest) + timedelta(days=20)
        return datetime.combine(due + timedelta(days=10), datetime.min.time()) + timedelta(hours=6)

    def phone_number(self) -> str:
        while True:
            number = f"+1-{self.rng.choice((212, 312, 415, 512, 617, 702, 813, 919, 206, 303))}-" \
                     f"{self.rng.randint(200, 989)}-{self.rng.randint(0, 9999):04d}"
            if number not in self.numbers:
                self.numbers.add(number)
                return number

    def imei(self) -> str:
        while True:
            value = f"35{self.rng.randrange(10 ** 13):013d}"
            if value not in self.imeis:
                self.imeis.add(value)
                return value

    def lines_of(self, account: dict[str, Any]) -> None:
        rng = self.rng
        count = rng.choices((1, 2, 3, 4), (55, 25, 13, 7))[0]
        labels = ["My phone", *rng.sample(LABELS[1:], count - 1)]
        retired_ok = (self.now - account["opened_at"]).days > 500
        codes = [c for c in PLAN_WEIGHTS if retired_ok or self.plans[c]["available"]]
        for label in labels:
            plan = self.plans[rng.choices(codes, [PLAN_WEIGHTS[c] for c in codes])[0]]
            if label == "My phone":
                activated = _second(account["opened_at"] + timedelta(hours=rng.uniform(0.2, 3)))
            else:
                activated = self.between(account["opened_at"], max(account["opened_at"], self.now - timedelta(days=20)))
            line = {"id": len(self.lines) + 1, "account_id": account["id"], "phone_number": self.phone_number(),
                    "label": label, "plan_id": plan["id"], "pending_plan_id": None, "pending_plan_on": None,
                    "status": "active", "suspension_reason": None, "suspended_at": None, "roaming_enabled": False,
                    "activated_at": activated, "_plan": plan}
            if account["standing"] == "suspended":
                line.update(status="suspended", suspension_reason="non_payment",
                            suspended_at=self.suspended_for_non_payment_at(account))
            elif rng.random() < 0.05:
                line.update(status="suspended", suspension_reason=rng.choice(("lost_stolen", "lost_stolen", "customer_request")),
                            suspended_at=self.between(max(activated, self.now - timedelta(days=50)), self.now - timedelta(hours=5)))
            elif account["standing"] == "good" and rng.random() < 0.25:
                line["roaming_enabled"] = True
            if line["status"] == "active" and rng.random() < 0.06:
                cheaper = [p for p in self.plans.values() if p["available"] and p["price_cents"] < plan["price_cents"]]
                if cheaper:
                    line.update(pending_plan_id=rng.choice(cheaper)["id"], pending_plan_on=next_cycle(self.today))
            self.lines.append(line)
            self.device(line)

    def device(self, line: dict[str, Any]) -> None:
        rng = self.rng
        make, model, esim = rng.choice(DEVICES)
        abroad = line["status"] == "active" and rng.random() < 0.05
        country = HOME_COUNTRY
        if abroad:
            country = rng.choice(ZONES[rng.choice((1, 2, 2, 3))])
        self.devices.append({
            "id": line["id"], "line_id": line["id"], "make": make, "model": model, "imei": self.imei(),
            "sim_type": "esim" if esim and rng.random() < 0.6 else "physical",
            "sim_status": rng.choices(("active", "pin_locked", "not_detected"), (96, 2, 2))[0],
            "apn": rng.choice(WRONG_APNS) if rng.random() < 0.03 else DEFAULT_APN,
            "mobile_data": rng.random() > 0.03, "airplane_mode": rng.random() < 0.02,
            "data_roaming": line["roaming_enabled"] and rng.random() < 0.75,
            "network_mode": rng.choices(("5g_auto", "lte_only", "3g_only"), (85, 10, 5))[0],
            "current_country": country})

    # ------------------------------------------------------------ add-ons and usage

    def addon(self, line: dict[str, Any], code: str, starts: date, ends: date | None, *, country: str | None = None,
              days: int = 1, removed: bool = False) -> dict[str, Any]:
        addon = self.addons[code]
        if removed:
            status = "removed"
        elif starts > self.today:
            status = "scheduled"
        elif ends is not None and ends < self.today:
            status = "expired"
        else:
            status = "active"
        purchased = datetime.combine(starts, datetime.min.time()) - timedelta(hours=self.rng.uniform(1, 200))
        if purchased > self.now:
            purchased = self.now - timedelta(hours=self.rng.uniform(2, 48))
        row = {"line_id": line["id"], "addon_id": addon["id"], "status": status, "starts_on": starts, "ends_on": ends,
               "country": country, "price_cents": addon["price_cents"] * days, "purchased_at": _second(purchased)}
        self.line_addons.append(row)
        return row

    def addons_of(self, line: dict[str, Any]) -> None:
        rng = self.rng
        plan = line["_plan"]
        start = line["activated_at"].date()
        last = (line["suspended_at"] or self.now).date()
        if not plan["intl_calling"] and rng.random() < 0.08:
            since = min(last, start + timedelta(days=rng.randint(0, 300)))
            removed = rng.random() < 0.3
            self.addon(line, "intl-calling", since, min(last, since + timedelta(days=rng.randint(30, 200))) if removed else None,
                       removed=removed)
        if plan["data_gb"] is not None:
            for back in range(BILL_CYCLES - 1, -1, -1):
                cycle = cycle_start(self.today, back)
                if cycle < start or cycle > last:
                    continue
                packs = 0
                current = back == 0
                while packs < 2 and rng.random() < ((0.3 if current else 0.18) if packs == 0 else (0.45 if current else 0.3)):
                    day = cycle + timedelta(days=rng.randint(0, max(0, self.today.day - 2)) if current else rng.randint(8, 27))
                    if day > last or day < start:
                        break
                    self.addon(line, rng.choice(("data-1gb", "data-3gb", "data-3gb", "data-10gb")), day,
                               next_cycle(cycle) - timedelta(days=1))
                    packs += 1
        included = {int(z) for z in plan["roaming_zones"].split(",") if z}
        device = self.devices[line["id"] - 1]
        for _ in range(rng.choice((0, 0, 0, 1, 1, 2))):
            zone = rng.choice((1, 2, 2, 3))
            if zone in included:
                continue
            begin = start + timedelta(days=rng.randint(10, max(11, (last - start).days)))
            if begin > last:
                continue
            days = rng.randint(2, 10)
            self.addon(line, f"pass-zone{zone}", begin, begin + timedelta(days=days - 1), country=rng.choice(ZONES[zone]), days=days)
        if device["current_country"] != HOME_COUNTRY and line["roaming_enabled"]:
            zone = next(z for z, names in ZONES.items() if device["current_country"] in names)
            if zone not in included and rng.random() < 0.6:
                begin = self.today - timedelta(days=rng.randint(0, 3))
                days = rng.randint(5, 12)
                self.addon(line, f"pass-zone{zone}", begin, begin + timedelta(days=days - 1),
                           country=device["current_country"], days=days)
        if line["status"] == "active" and line["roaming_enabled"] and device["current_country"] == HOME_COUNTRY and rng.random() < 0.15:
            zone = rng.choice((1, 2, 3))
            if zone not in included:
                begin = self.today + timedelta(days=rng.randint(3, 40))
                days = rng.randint(3, 14)
                self.addon(line, f"pass-zone{zone}", begin, begin + timedelta(days=days - 1),
                           country=rng.choice(ZONES[zone]), days=days)

    def usage_of(self, line: dict[str, Any]) -> None:
        rng = self.rng
        plan = line["_plan"]
        device = self.devices[line["id"] - 1]
        first = max(cycle_start(self.today, USAGE_CYCLES - 1), line["activated_at"].date() + timedelta(days=1))
        last = self.today - timedelta(days=1)
        if line["suspended_at"] is not None:
            last = min(last, line["suspended_at"].date() - timedelta(days=1))
        if plan["data_gb"] is None:
            daily = rng.uniform(250, 1400)
        else:
            daily = plan["data_gb"] * 1024 / 30 * rng.uniform(0.35, 1.25)
        heavy = rng.random() < 0.5
        abroad = device["current_country"] != HOME_COUNTRY
        day = first
        while day <= last:
            data = max(0, int(daily * rng.uniform(0.2, 1.8) * (1.3 if heavy and day.weekday() >= 5 else 1.0)))
            roaming = 0
            if abroad and line["roaming_enabled"] and (self.today - day).days <= 3:
                roaming, data = data // 2, data - data // 2
            self.usage.append({"line_id": line["id"], "day": day, "data_mb": data, "roaming_mb": roaming,
                               "minutes": rng.randint(0, 95), "texts": rng.randint(0, 70)})
            day += timedelta(days=1)

    # ------------------------------------------------------------ bills and payments

    def bills_of(self, account: dict[str, Any], lines: list[dict[str, Any]], addons: list[dict[str, Any]]) -> None:
        rng = self.rng
        overdue = self.overdue_backs(account)
        opened = account["opened_at"].date()
        for back in range(BILL_CYCLES, 0, -1):
            cycle = cycle_start(self.today, back)
            if next_cycle(cycle) <= opened:
                continue
            end = next_cycle(cycle) - timedelta(days=1)
            issued = next_cycle(cycle)
            due = issued + timedelta(days=20)
            bill = {"id": len(self.bills) + 1, "account_id": account["id"], "period_start": cycle, "period_end": end,
                    "issued_on": issued, "due_on": due, "total_cents": 0, "paid_cents": 0, "status": "paid"}
            subtotal = 0
            items: list[dict[str, Any]] = []
            for line in lines:
                if line["activated_at"].date() > end:
                    continue
                plan = line["_plan"]
                items.append({"line_id": line["id"], "kind": "plan", "description": f"{plan['name']} plan",
                              "amount_cents": plan["price_cents"]})
                items.append({"line_id": line["id"], "kind": "fee", "description": "Regulatory and network fee",
                              "amount_cents": FEE_CENTS})
            for row in addons:
                addon = self.addon_by_id[row["addon_id"]]
                if row["status"] == "scheduled":
                    continue
                if addon["kind"] == "intl_calling":
                    stop = row["ends_on"] or end
                    if row["starts_on"] <= end and stop >= cycle:
                        items.append({"line_id": row["line_id"], "kind": "intl_calling", "description": addon["name"],
                                      "amount_cents": addon["price_cents"]})
                elif cycle <= row["starts_on"] <= end:
                    text = addon["name"] if row["country"] is None else f"{addon['name']} ({row['country']})"
                    items.append({"line_id": row["line_id"], "kind": addon["kind"], "description": text,
                                  "amount_cents": row["price_cents"]})
            if not items:
                continue
            subtotal = sum(i["amount_cents"] for i in items)
            tax = round(subtotal * TAX_RATE)
            items.append({"line_id": None, "kind": "tax", "description": "Taxes and surcharges", "amount_cents": tax})
            bill["total_cents"] = subtotal + tax
            for item in items:
                item.update(id=len(self.items) + 1, bill_id=bill["id"])
                self.items.append(item)
            if due >= self.today:
                paid = bill["total_cents"] if account["autopay"] and due - timedelta(days=3) < self.today else 0
                if not overdue and not account["autopay"] and rng.random() < 0.45:
                    paid = bill["total_cents"]
                bill["status"] = "paid" if paid else "open"
            elif back in overdue:
                paid = 0 if rng.random() < 0.7 else bill["total_cents"] // 2
                bill["status"] = "overdue"
            else:
                paid = bill["total_cents"]
            bill["paid_cents"] = paid
            if paid:
                if account["autopay"]:
                    when = datetime.combine(due - timedelta(days=3), datetime.min.time()) + timedelta(hours=9)
                    method = "autopay"
                else:
                    when = datetime.combine(issued, datetime.min.time()) + timedelta(days=rng.uniform(1, 19.5))
                    method = rng.choice(("card", "card", "bank"))
                self.payments.append({"account_id": account["id"], "amount_cents": paid, "method": method,
                                      "paid_at": _second(min(when, self.now - timedelta(hours=1)))})
            self.bills.append(bill)

    # ------------------------------------------------------------ outages and tickets

    def outages_and_tickets(self) -> None:
        rng = self.rng
        cities = sorted({c["city"] for c in self.customers})
        for index in range(14):
            service, text = rng.choice(OUTAGES)
            if index < 3:
                started = self.between(self.now - timedelta(hours=30), self.now - timedelta(hours=1))
                resolved = None
            else:
                started = self.between(self.now - timedelta(days=400), self.now - timedelta(days=3))
                resolved = _second(started + timedelta(hours=rng.uniform(1, 40)))
            self.outages.append({"id": index + 1, "area": rng.choice(cities), "service": service, "description": text,
                                 "started_at": started, "resolved_at": resolved})
        categories = list(TICKET_NOTES)
        for _ in range(260):
            line = rng.choice(self.lines)
            category = rng.choice(categories)
            opened = self.between(max(line["activated_at"], self.now - timedelta(days=400)), self.now - timedelta(hours=2))
            recent = (self.now - opened).days < 6
            resolved = None if recent and rng.random() < 0.5 else _second(opened + timedelta(minutes=rng.uniform(5, 600)))
            self.tickets.append({"line_id": line["id"], "category": category,
                                 "status": "open" if resolved is None else "resolved",
                                 "notes": rng.choice(TICKET_NOTES[category]), "opened_at": opened,
                                 "resolved_at": resolved if resolved is None or resolved < self.now else None})
        for row in self.tickets:
            if row["resolved_at"] is None:
                row["status"] = "open"
        self.tickets.sort(key=lambda t: (t["opened_at"], t["line_id"]))
        for index, row in enumerate(self.tickets, start=1):
            row["id"] = index

    # ------------------------------------------------------------ the whole world

    def build(self, contacts: list[dict[str, Any]]) -> None:
        self.addon_by_id = {a["id"]: a for a in self.addons.values()}
        self.customers_from(contacts)
        for account in self.accounts:
            self.lines_of(account)
        by_account: dict[int, list[dict[str, Any]]] = {}
        for line in self.lines:
            by_account.setdefault(line["account_id"], []).append(line)
            self.addons_of(line)
            self.usage_of(line)
        addons_by_account: dict[int, list[dict[str, Any]]] = {}
        for row in self.line_addons:
            addons_by_account.setdefault(self.lines[row["line_id"] - 1]["account_id"], []).append(row)
        for account in self.accounts:
            self.bills_of(account, by_account[account["id"]], addons_by_account.get(account["id"], []))
        self.outages_and_tickets()
        self.line_addons.sort(key=lambda r: (r["purchased_at"], r["line_id"]))
        for index, row in enumerate(self.line_addons, start=1):
            row["id"] = index
        self.payments.sort(key=lambda r: (r["paid_at"], r["account_id"]))
        for index, row in enumerate(self.payments, start=1):
            row["id"] = index
        for index, row in enumerate(self.usage, start=1):
            row["id"] = index

    def insert(self, db: Session) -> None:
        db.execute(_insert(Plan), list(self.plans.values()))
        db.execute(_insert(Addon), list(self.addons.values()))
        db.execute(_insert(Customer), self.customers)
        db.execute(_insert(Account), self.accounts)
        db.execute(_insert(Line), [{k: v for k, v in line.items() if k != "_plan"} for line in self.lines])
        db.execute(_insert(Device), self.devices)
        db.execute(_insert(UsageDay), self.usage)
        db.execute(_insert(LineAddon), self.line_addons)
        db.execute(_insert(Bill), self.bills)
        db.execute(_insert(BillItem), self.items)
        db.execute(_insert(Payment), self.payments)
        db.execute(_insert(Outage), self.outages)
        db.execute(_insert(Ticket), self.tickets)


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty carrier database from the shared world and the CRM's contacts."""
    contacts = seeded_rows("crm", world.seed, "SELECT id, external_id FROM contacts ORDER BY id")
    seeder = Seeder(world, rng)
    seeder.build(contacts)
    seeder.insert(db)
