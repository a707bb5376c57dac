"""The seeded store: fifteen months of the Northwind Store's orders, returns and exchanges.

The catalogue is `data.PRODUCTS`; customers are most of the CRM's contacts plus a few world
customers the CRM does not know, each with a home address and a usual payment method. Orders
grow towards the world's now with a holiday peak; their status follows their age (the last
day's are pending or paid, the last week's paid or shipped, older ones delivered, a few
cancelled before shipping). A few delivered orders have a return or an exchange.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Insert
from sqlalchemy.orm import Session

from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import World
from mcpgym.servers.retail.data import (
    ARCHIVED_PRODUCTS,
    CANCEL_REASONS,
    CARD_BRANDS,
    CITIES,
    EXCHANGE_REASONS,
    ORDER_NOTES,
    PRODUCTS,
    RETURN_REASONS,
    SKU_PREFIX,
    STREETS,
)
from mcpgym.servers.retail.models import (
    CURRENCY,
    Base,
    Customer,
    Order,
    OrderItem,
    Product,
    Return,
    ReturnItem,
    Variant,
)
from mcpgym.servers.retail.pricing import order_totals

HISTORY_DAYS = 460
"""Orders reach this many days back from the world's now."""
N_ORDERS = 900
CRM_CUSTOMER_SHARE = 0.7
"""Share of the CRM's contacts who are store customers."""
NON_CRM_CUSTOMERS = 40
ACCOUNT_HOLDER_SHARE = 0.6
"""Share of the remaining CRM contacts who have a store account but no order."""
ACCOUNT_HOLDER_OUTSIDERS = 30
ARCHIVED_DAYS_AGO = 120
"""Archived products left the store this long ago: later orders do not contain them."""
CANCEL_SHARE = 0.04
RETURN_SHARE = 0.1


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty retail database from the catalogue, the shared world and the CRM's contacts."""
    now = world.now
    products, variants = _catalogue(rng, now)
    contacts = seeded_rows("crm", world.seed, "SELECT id, external_id, email FROM contacts ORDER BY id")
    customers = _customers(world, rng, contacts)
    orders, items = _orders(rng, now, customers, products, variants)
    returns, return_items = _returns(rng, now, orders, items, variants)
    firsts: dict[int, datetime] = {}
    for order in orders:
        firsts.setdefault(order["customer_id"], order["placed_at"])
    for customer in customers:
        first = firsts.get(customer["id"], now - timedelta(days=rng.uniform(5, HISTORY_DAYS)))
        customer["created_at"] = _second(first - timedelta(hours=rng.uniform(0.1, 400)))
        del customer["_payment"]
    customers += _account_holders(world, rng, contacts, customers)

    db.execute(_insert(Product), products)
    db.execute(_insert(Variant), [{k: v for k, v in row.items() if not k.startswith("_")} for row in variants])
    db.execute(_insert(Customer), customers)
    db.execute(_insert(Order), orders)
    db.execute(_insert(OrderItem), items)
    db.execute(_insert(Return), returns)
    db.execute(_insert(ReturnItem), return_items)


def _insert(model: type[Base]) -> Insert:
    """A plain insert into `model`'s table: a list of rows goes in as one executemany."""
    return model.__table__.insert()  # type: ignore[attr-defined, no-any-return]


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


def _size_code(size: str) -> str:
    """A size as it appears in a SKU: its letters and digits (`20 oz` -> `20OZ`)."""
    return "".join(ch for ch in size if ch.isalnum()).upper()


def _color_code(color: str) -> str:
    """A colour as it appears in a SKU: the word, or the initials of several (`Heather Grey` -> `HG`)."""
    words = color.replace("-", " ").split()
    return "".join(w[0] for w in words).upper() if len(words) > 1 else color.upper()


def _catalogue(rng: random.Random, now: datetime) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Products and their variants: every size by every colour, priced up by size for gear."""
    products: list[dict[str, Any]] = []
    variants: list[dict[str, Any]] = []
    for pid, (name, category, vendor, price, sizes, colors, grams, description) in enumerate(PRODUCTS, start=1):
        products.append({
            "id": pid, "name": name, "handle": name.lower().replace(" ", "-").replace('"', ""),
            "category": category, "description": description, "vendor": vendor,
            "status": "archived" if name in ARCHIVED_PRODUCTS else "active",
            "created_at": _second(now - timedelta(days=rng.uniform(HISTORY_DAYS + 30, 1100))),
        })
        for index, size in enumerate(sizes or (None,)):
            step = 0 if category == "apparel" else index * round(price * 0.15 / 100) * 100
            for color in colors:
                stock = rng.choice((0, rng.randint(1, 5))) if rng.random() < 0.14 else rng.randint(6, 140)
                parts = [SKU_PREFIX[category], f"{pid:03d}", *([_size_code(size)] if size else []), _color_code(color)]
                variants.append({
                    "id": len(variants) + 1, "product_id": pid, "sku": "-".join(parts),
                    "title": " / ".join(p for p in (size, color) if p), "size": size, "color": color,
                    "price_cents": price + step, "inventory_quantity": stock,
                    "weight_grams": grams + index * grams // 5,
                    "_name": name, "_archived": name in ARCHIVED_PRODUCTS,
                })
    return products, variants


def _payment_method(rng: random.Random) -> str:
    draw = rng.random()
    if draw < 0.6:
        return f"card_{rng.choice(CARD_BRANDS)}_{rng.randrange(10000):04d}"
    return "paypal" if draw < 0.85 else "shop_pay" if draw < 0.93 else "gift_card"


def _customers(world: World, rng: random.Random, contacts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Most CRM contacts, then world customers who are not contacts; each with an address."""
    people = {person.id: person for person in world.customers}
    chosen = [c for c in contacts if c["external_id"] in people and rng.random() < CRM_CUSTOMER_SHARE]
    known = {c["external_id"] for c in contacts}
    outsiders = [p for p in world.customers if p.id not in known]
    picked = [(people[c["external_id"]], c["id"]) for c in chosen]
    picked += [(p, None) for p in rng.sample(outsiders, min(NON_CRM_CUSTOMERS, len(outsiders)))]
    return _customer_rows(world, rng, picked, start=1)


def _customer_rows(world: World, rng: random.Random, picked: list[tuple[Any, int | None]],
                   start: int) -> list[dict[str, Any]]:
    """Customer rows of world people (and their CRM contact ids), numbered from `start`."""
    orgs = {org.id: org.name for org in world.organizations}
    customers = []
    for cid, (person, contact_id) in enumerate(picked, start=start):
        city, region, postal = rng.choice(CITIES)
        customers.append({
            "id": cid, "external_id": person.id, "email": person.email, "name": person.name, "phone": person.phone,
            "organization_name": orgs[person.organization_id], "crm_contact_id": contact_id,
            "accepts_marketing": rng.random() < 0.45,
            "address_line1": f"{rng.randint(10, 9800)} {rng.choice(STREETS)}", "city": city, "region": region,
            "postal_code": f"{postal}{rng.randrange(100):02d}", "country": "United States",
            "created_at": None, "_payment": _payment_method(rng),
        })
    return customers


def _account_holders(world: World, rng: random.Random, contacts: list[dict[str, Any]],
                     customers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Customers with an account but no order yet: more CRM contacts and a few other world
    customers, registered over the store's history."""
    taken = {c["external_id"] for c in customers}
    known = {c["external_id"] for c in contacts}
    people = {person.id: person for person in world.customers}
    more = [c for c in contacts if c["external_id"] in people and c["external_id"] not in taken
            and rng.random() < ACCOUNT_HOLDER_SHARE]
    picked = [(people[c["external_id"]], c["id"]) for c in more]
    outsiders = [p for p in world.customers if p.id not in known and p.id not in taken]
    picked += [(p, None) for p in rng.sample(outsiders, min(ACCOUNT_HOLDER_OUTSIDERS, len(outsiders)))]
    rows = _customer_rows(world, rng, picked, start=len(customers) + 1)
    for row in rows:
        del row["_payment"]
        row["created_at"] = _second(world.now - timedelta(days=rng.uniform(1, HISTORY_DAYS)))
    return rows


def _placed_times(rng: random.Random, now: datetime) -> list[datetime]:
    """Order times, more of them recently and around the holidays, in the daytime (US hours)."""
    times: list[datetime] = []
    while len(times) < N_ORDERS:
        days = HISTORY_DAYS * rng.random() ** 1.35
        t = now - timedelta(days=days)
        holiday = (t.month == 11 and t.day >= 20) or (t.month == 12 and t.day <= 22)
        if rng.random() > (1.0 if holiday else 0.55):
            continue
        t = t.replace(hour=rng.choice((13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3)), minute=rng.randrange(60))
        if t < now:
            times.append(_second(t))
    return sorted(times)


def _orders(rng: random.Random, now: datetime, customers: list[dict[str, Any]], products: list[dict[str, Any]],
            variants: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    weights = [rng.paretovariate(1.6) for _ in customers]
    active = [v for v in variants if not v["_archived"]]
    orders: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    for oid, placed in enumerate(_placed_times(rng, now), start=1):
        customer = rng.choices(customers, weights)[0]
        pool = variants if placed < now - timedelta(days=ARCHIVED_DAYS_AGO) else active
        lines = rng.sample(pool, rng.choices((1, 2, 3, 4), (50, 30, 14, 6))[0])
        order_items = [{
            "id": len(items) + n + 1, "order_id": oid, "variant_id": v["id"], "sku": v["sku"], "product_name": v["_name"],
            "variant_title": v["title"], "quantity": rng.choices((1, 2, 3), (80, 15, 5))[0],
            "unit_price_cents": v["price_cents"],
        } for n, v in enumerate(lines)]
        items += order_items
        express = rng.random() < 0.12
        totals = order_totals([(i["unit_price_cents"], i["quantity"]) for i in order_items], customer["region"], express)
        method = customer["_payment"] if rng.random() < 0.88 else _payment_method(rng)
        order = {
            "id": oid, "number": f"#{1000 + oid}", "customer_id": customer["id"], "placed_at": placed,
            "cancel_reason": None, "refunded_cents": 0, "currency": CURRENCY, "payment_method": method,
            "shipping_method": "express" if express else "standard", "ship_name": customer["name"],
            "ship_line1": customer["address_line1"], "ship_city": customer["city"], "ship_region": customer["region"],
            "ship_postal_code": customer["postal_code"], "ship_country": customer["country"],
            "note": rng.choice(ORDER_NOTES) if rng.random() < 0.05 else None, **totals,
        }
        _timeline(rng, now, order, express)
        orders.append(order)
    return orders, items


def _timeline(rng: random.Random, now: datetime, order: dict[str, Any], express: bool) -> None:
    """Status and milestone times of an order, by its age."""
    placed = order["placed_at"]
    order.update(status="pending", paid_at=None, shipped_at=None, delivered_at=None, cancelled_at=None)
    age = now - placed
    paid = _second(placed + timedelta(minutes=rng.uniform(1, 90)))
    if rng.random() < CANCEL_SHARE:
        cancelled = _second(placed + timedelta(hours=rng.uniform(0.5, 30)))
        if cancelled < now:
            was_paid = paid < cancelled and rng.random() < 0.7
            order.update(status="cancelled", cancelled_at=cancelled, cancel_reason=rng.choice(CANCEL_REASONS),
                         paid_at=paid if was_paid else None,
                         refunded_cents=order["total_cents"] if was_paid else 0)
            return
    if paid > now or (age < timedelta(days=2) and rng.random() < 0.4):
        return
    order.update(status="paid", paid_at=paid)
    shipped = _second(paid + timedelta(hours=rng.uniform(10, 60)))
    if shipped > now:
        return
    order.update(status="shipped", shipped_at=shipped)
    delivered = _second(shipped + timedelta(days=rng.uniform(1, 2) if express else rng.uniform(2, 6)))
    if delivered <= now:
        order.update(status="delivered", delivered_at=delivered)


def _returns(rng: random.Random, now: datetime, orders: list[dict[str, Any]], items: list[dict[str, Any]],
             variants: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Returns and exchanges of delivered items, opened within the 30-day window."""
    by_order: dict[int, list[dict[str, Any]]] = {}
    for item in items:
        by_order.setdefault(item["order_id"], []).append(item)
    siblings: dict[int, list[dict[str, Any]]] = {}
    for v in variants:
        siblings.setdefault(v["product_id"], []).append(v)
    returns: list[dict[str, Any]] = []
    lines: list[dict[str, Any]] = []
    for order in orders:
        if order["status"] != "delivered" or rng.random() >= RETURN_SHARE:
            continue
        created = _second(order["delivered_at"] + timedelta(days=rng.uniform(0.5, 27)))
        if created > now:
            continue
        item = rng.choice(by_order[order["id"]])
        variant = variants[item["variant_id"] - 1]
        others = [v for v in siblings[variant["product_id"]] if v["id"] != variant["id"] and v["inventory_quantity"] > 0]
        exchange = bool(others) and rng.random() < 0.35
        quantity = item["quantity"] if rng.random() < 0.7 else 1
        status = "requested" if created > now - timedelta(days=10) and rng.random() < 0.85 else (
            "cancelled" if rng.random() < 0.1 else "completed")
        done = _second(created + timedelta(days=rng.uniform(3, 9)))
        if status == "completed" and done > now:
            status = "requested"
        refund = 0 if exchange else item["unit_price_cents"] * quantity
        rid = len(returns) + 1
        returns.append({
            "id": rid, "number": f"R{1000 + rid}", "order_id": order["id"], "kind": "exchange" if exchange else "return",
            "status": status, "reason": rng.choice(EXCHANGE_REASONS if exchange else RETURN_REASONS),
            "refund_cents": refund, "refund_method": None if exchange else order["payment_method"],
            "created_at": created, "completed_at": done if status == "completed" else None,
            "cancelled_at": done if status == "cancelled" else None,
        })
        lines.append({"id": len(lines) + 1, "return_id": rid, "order_item_id": item["id"], "quantity": quantity,
                      "replacement_variant_id": rng.choice(others)["id"] if exchange else None})
        if status == "completed" and not exchange:
            order["refunded_cents"] += refund
    return returns, lines
