"""Retail task families: an order's status, a customer's history and spend, stock of a product's
variant, a month's sales and best sellers, sold-out variants and open returns; placing, paying,
shipping, re-addressing and cancelling orders, restocking, opening, completing and cancelling
returns and exchanges; two-turn requests confirmed before the change; refusals the store's
policy calls for; the CRM account behind a shop customer, and a CRM contact's store spend.

A user names an order by its number (#1042), a return by its number (R1007), a customer by
name or email, and a product by name with its size and colour; never by an internal id.
Amounts are stated in dollars (a fact `{c1.total_cents} / 100`).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "retail"
Row = dict[str, Any]
Call = dict[str, Any]

REASONS = ("Customer changed their mind", "Ordered by mistake", "Duplicate order", "Found a better price")
RETURN_REASONS = ("Too small", "Not as pictured", "Changed my mind", "Quality not as expected")
EXCHANGE_REASONS = ("Too small", "Too large", "Prefer another colour")
OTHER_METHODS = ("store_credit", "gift_card", "card_visa_1111", "paypal")
ADDRESSES = (("48 Harbor Dr", "Boston", "MA", "02110"), ("1200 Market St", "Philadelphia", "PA", "19107"),
             ("77 Sunset Blvd", "Los Angeles", "CA", "90028"), ("5 Lake Shore Dr", "Chicago", "IL", "60611"),
             ("310 Broadway", "Nashville", "TN", "37201"))
CATEGORIES = ("apparel", "bags", "drinkware", "tech", "office", "outdoor")
GO_AHEAD = ("Yes, go ahead.", "Confirmed, please do it.", "Yes, that's right, proceed.")


# ---------------------------------------------------------------- sampling helpers


def _orders(view: WorldView, **filters: Any) -> list[Row]:
    return view.read(SERVER, "search_orders", per_page=100, **filters)["orders"]


def _order(view: WorldView, number: str) -> Row:
    return view.read(SERVER, "get_order", order_number=number)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _in_window(view: WorldView) -> list[Row]:
    """Delivered orders still inside their return window (at least a day left)."""
    recent = _orders(view, status="delivered", placed_after=_iso(view.now - timedelta(days=45)))
    full = [_order(view, o["number"]) for o in recent]
    return [o for o in full if o["return_deadline"] > _iso(view.now + timedelta(days=1))]


def _expired(view: WorldView, rng: random.Random) -> list[Row]:
    """Delivered orders whose return window has closed (delivered 40 to 200 days ago)."""
    days = rng.randint(40, 200)
    start, end = view.now - timedelta(days=days + 10), view.now - timedelta(days=days)
    return [_order(view, o["number"]) for o in _orders(view, status="delivered", placed_after=_iso(start),
                                                       placed_before=_iso(end))]


def _returnable_items(order: Row) -> list[tuple[int, Row]]:
    return [(i, item) for i, item in enumerate(order["items"]) if item["quantity"] > item["returned_quantity"]]


def _product(view: WorldView, product_id: int) -> Row:
    return view.read(SERVER, "get_product", product_id=product_id)


def _dollars(expr: str) -> str:
    return f"{expr} / 100"


def _get_order(call_id: str, number: str) -> Call:
    return {"id": call_id, "tool": "get_order", "arguments": {"order_number": number}}


def _item_words(item: Row) -> str:
    return f"{item['product_name']} ({item['variant_title']})"


def _requested_returns(view: WorldView, kind: str | None = None) -> list[Row]:
    filters = {"kind": kind} if kind else {}
    return view.read(SERVER, "list_returns", status="requested", per_page=100, **filters)["returns"]


# ---------------------------------------------------------------- lookups


class OrderStatus(Family):
    """Where an order is, and what it cost."""

    name = "retail.order-status"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_orders", per_page=50, page=rng.randint(1, 18))["orders"]
        if not page:
            return None
        order = rng.choice(page)
        number = order["number"]
        user = [f"What's the status of order {number}, and what was its total?",
                f"Can you check order {number} for me: is it shipped yet, and how much did the customer pay?"]
        return Draft(family=self.name, key=f"order:{number}", turns=[{"user": user, "calls": [_get_order("c1", number)], "facts": [
            {"name": "status", "expr": "{c1.status}", "value": None},
            {"name": "total", "expr": _dollars("{c1.total_cents}"), "value": None}]}])


class CustomerOrderHistory(Family):
    """How many orders a customer (by email) placed, and their latest."""

    name = "retail.customer-order-history"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_customers", per_page=50, page=rng.randint(1, 7))["customers"]
        buyers = [c for c in page if c["order_count"] > 0]
        if not buyers:
            return None
        email = rng.choice(buyers)["email"]
        user = [f"How many orders has {email} placed with us, and what's the number of the most recent one?",
                f"Look up the orders of the customer {email}: how many in total, and which order number is their latest?"]
        return Draft(family=self.name, key=f"customer:{email}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_orders", "arguments": {"customer_email": email, "per_page": 5}}], "facts": [
            {"name": "orders", "expr": "{c1.total}", "value": None},
            {"name": "latest order", "expr": "{c1.orders.0.number}", "value": None}]}],
            checks=["{c1.total} == 1 or {c1.orders.0.placed_at} != {c1.orders.1.placed_at}"])


class CustomerProfile(Family):
    """A customer named by name: their company and lifetime spend."""

    name = "retail.customer-profile"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_customers", per_page=50, page=rng.randint(1, 7))["customers"]
        if not page:
            return None
        customer = rng.choice(page)
        name = customer["name"]
        user = [f"Which company does our customer {name} work for, and how much have they spent in the store overall?",
                f"Pull up {name}'s customer record: their employer and their total spend with us."]
        return Draft(family=self.name, key=f"customer:{customer['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_customers", "arguments": {"query": name}},
            {"id": "c2", "tool": "get_customer", "bind": {"customer_id": "{c1.customers.0.id}"}}], "facts": [
            {"name": "company", "expr": "{c2.organization_name}", "value": None},
            {"name": "total spent", "expr": _dollars("{c2.total_spent_cents}"), "value": None}]}],
            checks=["{c1.total} == 1"])


class CustomerByEmail(Family):
    """A customer found by email: name and where they ship to."""

    name = "retail.customer-by-email"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_customers", per_page=50, page=rng.randint(1, 7))["customers"]
        if not page:
            return None
        email = rng.choice(page)["email"]
        user = [f"Who is the customer with the email {email}, and which city is their default shipping address in?",
                f"Find the store customer {email}: full name and the city they ship to by default."]
        return Draft(family=self.name, key=f"email:{email}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_customer_by_email", "arguments": {"email": email}}], "facts": [
            {"name": "name", "expr": "{c1.name}", "value": None},
            {"name": "city", "expr": "{c1.city}", "value": None}]}])


class VariantStock(Family):
    """Stock and price of one size/colour of a product named by name."""

    name = "retail.variant-stock"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        products = view.read(SERVER, "search_products", status="active", per_page=100)["products"]
        product = _product(view, rng.choice(products)["id"])
        index = rng.randrange(len(product["variants"]))
        variant = product["variants"][index]
        what = f"the {product['name']} in {variant['title']}"
        user = [f"How many units of {what} do we have in stock, and what does it sell for?",
                f"Check stock for {what}: units on hand and price."]
        return Draft(family=self.name, key=f"variant:{variant['sku']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_products", "arguments": {"query": product["name"]}},
            {"id": "c2", "tool": "get_product", "bind": {"product_id": "{c1.products.0.id}"}}], "facts": [
            {"name": "in stock", "expr": f"{{c2.variants.{index}.inventory_quantity}}", "value": None},
            {"name": "price", "expr": _dollars(f"{{c2.variants.{index}.price_cents}}"), "value": None}]}],
            checks=["{c1.total} == 1"])


class SkuLookup(Family):
    """What a SKU is, and its price."""

    name = "retail.sku-lookup"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        products = view.read(SERVER, "search_products", per_page=100)["products"]
        sku = rng.choice(_product(view, rng.choice(products)["id"])["variants"])["sku"]
        user = [f"A packing slip shows SKU {sku}. Which product and variant is that, and what's its price?",
                f"What is SKU {sku} (product, size/colour) and how much does it cost?"]
        return Draft(family=self.name, key=f"sku:{sku}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_variant_by_sku", "arguments": {"sku": sku}}], "facts": [
            {"name": "product", "expr": "{c1.product_name}", "value": None},
            {"name": "variant", "expr": "{c1.title}", "value": None},
            {"name": "price", "expr": _dollars("{c1.price_cents}"), "value": None}]}])


class OrderReturns(Family):
    """The returns of an order, and the latest one's status."""

    name = "retail.order-returns"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "list_returns", per_page=50, page=rng.randint(1, 2))["returns"]
        if not page:
            return None
        number = rng.choice(page)["order_number"]
        user = [f"Has anything from order {number} been returned or exchanged? Give me the latest return's number and status.",
                f"Check order {number} for returns or exchanges: how many, and where does the most recent one stand?"]
        return Draft(family=self.name, key=f"order:{number}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_returns", "arguments": {"order_number": number}}], "facts": [
            {"name": "returns", "expr": "{c1.total}", "value": None},
            {"name": "latest", "expr": "{c1.returns.0.number}", "value": None},
            {"name": "status", "expr": "{c1.returns.0.status}", "value": None}]}])


class NewestOpenReturn(Family):
    """The most recent open return request: its order, kind and refund."""

    name = "retail.newest-open-return"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        if not _requested_returns(view):
            return None
        user = ["What's the newest return or exchange request still waiting for its items? Which order, which product, and how much would it refund?",
                "Show me the most recent open return request: its order number, the product, and the refund amount."]
        return Draft(family=self.name, key="newest-open", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_returns", "arguments": {"status": "requested", "per_page": 5}},
            {"id": "c2", "tool": "get_return", "bind": {"return_number": "{c1.returns.0.number}"}}], "facts": [
            {"name": "order", "expr": "{c2.order_number}", "value": None},
            {"name": "product", "expr": "{c2.items.0.product_name}", "value": None},
            {"name": "refund", "expr": _dollars("{c2.refund_cents}"), "value": None}]}],
            checks=["{c1.total} == 1 or {c1.returns.0.created_at} != {c1.returns.1.created_at}"])


# ---------------------------------------------------------------- reports


class MonthlySales(Family):
    """A month's orders, gross sales and best category."""

    name = "retail.monthly-sales"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        year, month = previous_month(view.now.year, view.now.month, rng.randint(1, 13))
        start, end = month_window(year, month)
        label = month_name(year, month)
        user = [f"How did the store do in {label}? Number of orders, gross sales, and the best-selling category.",
                f"Give me {label}'s sales: orders placed (not cancelled), gross sales and which category sold the most."]
        return Draft(family=self.name, key=f"month:{year}-{month}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "sales_report", "arguments": {"start": start, "end": end, "group_by": "category"}}], "facts": [
            {"name": "orders", "expr": "{c1.order_count}", "value": None},
            {"name": "gross sales", "expr": _dollars("{c1.gross_sales_cents}"), "value": None},
            {"name": "top category", "expr": "{c1.rows.0.key}", "value": None}]}],
            checks=["{c1.rows.0.sales_cents} != {c1.rows.1.sales_cents}"])


class BestSeller(Family):
    """The product with the most sales over a few months, and its units."""

    name = "retail.best-seller"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        back, span = rng.randint(1, 10), rng.randint(1, 3)
        year, month = previous_month(view.now.year, view.now.month, back + span - 1)
        start, _ = month_window(year, month)
        last_year, last_month = previous_month(view.now.year, view.now.month, back)
        _, end = month_window(last_year, last_month)
        label = month_name(year, month) if span == 1 else f"{month_name(year, month)} through {month_name(last_year, last_month)}"
        user = [f"Which product brought in the most sales in {label}, and how many units of it did we sell?",
                f"Best-selling product by revenue for {label}: name and units sold."]
        return Draft(family=self.name, key=f"{start}|{end}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "sales_report", "arguments": {"start": start, "end": end, "group_by": "product", "limit": 5}}], "facts": [
            {"name": "product", "expr": "{c1.rows.0.key}", "value": None},
            {"name": "units", "expr": "{c1.rows.0.units}", "value": None}]}],
            checks=["{c1.rows.0.sales_cents} != {c1.rows.1.sales_cents}"])


class SoldOut(Family):
    """How many variants of a category are sold out, and which one sells for the most."""

    name = "retail.sold-out"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        category = rng.choice(CATEGORIES)
        threshold = rng.choice((0, 3, 5))
        found = view.read(SERVER, "low_stock_report", threshold=threshold, category=category)
        if not found["total"]:
            return None
        what = "sold out" if threshold == 0 else f"down to {threshold} units or fewer"
        user = [f"How many {category} variants are {what}? Which one is lowest?",
                f"Stock check for {category}: count of variants {what}, and the SKU with the fewest units."]
        return Draft(family=self.name, key=f"{category}|{threshold}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "low_stock_report", "arguments": {"threshold": threshold, "category": category}}], "facts": [
            {"name": "variants", "expr": "{c1.total}", "value": None},
            {"name": "lowest", "expr": "{c1.variants.0.sku}", "value": None}]}],
            checks=["{c1.total} == 1 or {c1.variants.0.inventory_quantity} != {c1.variants.1.inventory_quantity}"])


# ---------------------------------------------------------------- writes


class Restock(Family):
    """Add received units of a product's variant to stock."""

    name = "retail.restock"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        low = view.read(SERVER, "low_stock_report", threshold=5, per_page=100)["variants"]
        if not low:
            return None
        variant = rng.choice(low)
        units = rng.choice((12, 24, 36, 48))
        note = rng.choice(("Supplier delivery", "Restock from warehouse", "Returned from pop-up store"))
        what = f"{variant['product_name']} in {variant['variant_title']}"
        user = [f"We just received {units} units of the {what}. Add them to stock with the note \"{note}\" (you have my go-ahead).",
                f"Please add {units} units of {what} to inventory, reason \"{note}\". No need to double-check with me."]
        return Draft(family=self.name, key=f"restock:{variant['sku']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_products", "arguments": {"query": variant["product_name"]}},
            {"id": "c2", "tool": "adjust_inventory", "arguments": {"sku": variant["sku"], "change": units, "reason": note}}],
            "facts": [{"name": "now in stock", "expr": "{c2.inventory_quantity}", "value": None}]}])


class PlaceOrder(Family):
    """Place an order for a customer (by email) of a product's variant."""

    name = "retail.place-order"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_customers", per_page=50, page=rng.randint(1, 7))["customers"]
        buyers = [c for c in page if c["order_count"] > 0]
        products = view.read(SERVER, "search_products", status="active", in_stock_only=True, per_page=100)["products"]
        if not buyers or not products:
            return None
        customer = rng.choice(buyers)
        product = _product(view, rng.choice(products)["id"])
        variant = rng.choice([v for v in product["variants"] if v["inventory_quantity"] >= 3])
        quantity = rng.choice((1, 1, 2))
        express = rng.random() < 0.3
        arguments: dict[str, Any] = {"customer_email": customer["email"], "items": [{"sku": variant["sku"], "quantity": quantity}]}
        ship = ""
        if express:
            arguments["shipping_method"] = "express"
            ship = " with express shipping"
        what = f"{quantity} x {product['name']} ({variant['title']})"
        user = [f"Place an order for {customer['email']}: {what}{ship}, paid with the same method as their last order. I confirm, go ahead. What's the order total?",
                f"Order {what} for the customer {customer['email']}{ship}; charge their usual payment method. Yes, proceed, and tell me the new order number and total."]
        return Draft(family=self.name, key=f"{customer['email']}|{variant['sku']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_products", "arguments": {"query": product["name"]}},
            {"id": "c2", "tool": "create_order", "arguments": arguments}], "facts": [
            {"name": "order number", "expr": "{c2.number}", "value": None},
            {"name": "total", "expr": _dollars("{c2.total_cents}"), "value": None}]}])


class CapturePayment(Family):
    """Capture the payment of a pending order."""

    name = "retail.capture-payment"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        pending = _orders(view, status="pending")
        if not pending:
            return None
        number = rng.choice(pending)["number"]
        user = [f"The payment for order {number} cleared; mark it as paid. You have my confirmation.",
                f"Please capture the payment on order {number} (confirmed, go ahead)."]
        return Draft(family=self.name, key=f"order:{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "mark_order_paid", "arguments": {"order_number": number}}], "facts": []}])


class ShipOrder(Family):
    """Mark a paid order as shipped."""

    name = "retail.ship-order"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        paid = _orders(view, status="paid")
        if not paid:
            return None
        number = rng.choice(paid)["number"]
        user = [f"Order {number} has been handed to the carrier. Mark it shipped - confirmed.",
                f"Please fulfil order {number}: it left the warehouse today. Yes, go ahead."]
        return Draft(family=self.name, key=f"order:{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "fulfill_order", "arguments": {"order_number": number}}], "facts": []}])


class PayOrShip(Family):
    """If an order is still pending, capture its payment; if it is paid, ship it."""

    name = "retail.pay-or-ship"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        open_orders = _orders(view, status="pending") + _orders(view, status="paid")
        if not open_orders:
            return None
        order = rng.choice(open_orders)
        number = order["number"]
        tool = "mark_order_paid" if order["status"] == "pending" else "fulfill_order"
        user = [f"Move order {number} along: if its payment is still pending, capture it; if it's already paid, mark it shipped. "
                "You're cleared to make the change. Tell me which you did.",
                f"Check order {number}. Unpaid? Mark it paid. Paid? Ship it. Go ahead without asking, and say what its status was."]
        return Draft(family=self.name, key=f"order:{number}", writes=True, turns=[{"user": user, "calls": [
            _get_order("c1", number),
            {"id": "c2", "tool": tool, "arguments": {"order_number": number}}], "facts": [
            {"name": "status before", "expr": "{c1.status}", "value": None}]}])


class ChangeAddress(Family):
    """Change the shipping address of an order that has not shipped."""

    name = "retail.change-address"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        open_orders = _orders(view, status="pending") + _orders(view, status="paid")
        if not open_orders:
            return None
        number = rng.choice(open_orders)["number"]
        line1, city, region, postal = rng.choice(ADDRESSES)
        address = f"{line1}, {city}, {region} {postal}"
        user = [f"The customer of order {number} moved. Change its shipping address to {address}. I confirm the change.",
                f"Update order {number} to ship to {address} instead (confirmed, please proceed)."]
        return Draft(family=self.name, key=f"{number}|{city}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "update_shipping_address", "arguments": {
                "order_number": number, "line1": line1, "city": city, "region": region, "postal_code": postal}}],
            "facts": []}])


class CompleteReturn(Family):
    """Items of a requested return or exchange arrived: complete it."""

    name = "retail.complete-return"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        requested = _requested_returns(view)
        if not requested:
            return None
        ret = rng.choice(requested)
        number = ret["number"]
        user = [f"The package for {ret['kind']} {number} arrived at the warehouse. Complete it - you have my OK. How much is refunded?",
                f"Process {ret['kind']} {number}: the items are back. Go ahead, and tell me the refund amount."]
        return Draft(family=self.name, key=f"return:{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "complete_return", "arguments": {"return_number": number}}], "facts": [
            {"name": "refund", "expr": _dollars("{c1.refund_cents}"), "value": None}]}])


class CancelReturn(Family):
    """The customer keeps the items: cancel a requested return or exchange."""

    name = "retail.cancel-return"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        requested = _requested_returns(view)
        if not requested:
            return None
        ret = rng.choice(requested)
        number, order = ret["number"], ret["order_number"]
        user = [f"{ret['customer_name']} decided to keep the items of order {order}; cancel their {ret['kind']} {number}. Confirmed.",
                f"Please cancel {ret['kind']} {number} (order {order}): the customer is keeping everything. Yes, go ahead."]
        return Draft(family=self.name, key=f"return:{number}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "cancel_return", "arguments": {"return_number": number}}], "facts": []}])


def _exchange_options(view: WorldView) -> list[tuple[Row, int, Row, Row]]:
    """(order, item index, item, replacement variant in stock) for orders inside their window."""
    options = []
    for order in _in_window(view):
        for index, item in _returnable_items(order):
            for variant in _product(view, item["product_id"])["variants"]:
                if variant["id"] != item["variant_id"] and variant["inventory_quantity"] >= item["quantity"]:
                    options.append((order, index, item, variant))
    return options


class ExchangeVariant(Family):
    """Exchange a delivered item for another size or colour of the same product."""

    name = "retail.exchange-variant"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = [o for o in _exchange_options(view) if o[2]["quantity"] == 1]
        if not options:
            return None
        order, index, item, variant = rng.choice(options)
        number = order["number"]
        reason = rng.choice(EXCHANGE_REASONS)
        user = [f"{order['customer_name']} wants to exchange the {_item_words(item)} from order {number} for the "
                f"{variant['title']} version (reason: \"{reason}\"). Set up the exchange; I confirm.",
                f"Order {number}: swap the {_item_words(item)} for {variant['title']}, reason \"{reason}\". Please go ahead."]
        return Draft(family=self.name, key=f"{number}|{item['sku']}|{variant['sku']}", writes=True, turns=[{"user": user, "calls": [
            _get_order("c1", number),
            {"id": "c2", "tool": "get_product", "bind": {"product_id": f"{{c1.items.{index}.product_id}}"}},
            {"id": "c3", "tool": "create_exchange", "arguments": {
                "order_number": number, "sku": item["sku"], "new_sku": variant["sku"], "reason": reason}}], "facts": [
            {"name": "exchange number", "expr": "{c3.number}", "value": None}]}])


# ---------------------------------------------------------------- two turns: confirm, then change


class CancelAfterConfirm(Family):
    """Two turns: asked to cancel an unshipped order, state what will happen; on 'yes', cancel."""

    name = "retail.cancel-after-confirm"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        open_orders = _orders(view, status="paid") + _orders(view, status="pending")
        if not open_orders:
            return None
        number = rng.choice(open_orders)["number"]
        reason = rng.choice(REASONS)
        first = [f"Please cancel order {number}; reason: \"{reason}\". Before you do, tell me its status and total.",
                 f"I need order {number} cancelled (\"{reason}\"). What's its status and total amount?"]
        return Draft(family=self.name, key=f"order:{number}", writes=True, turns=[
            {"user": first, "calls": [_get_order("c1", number)], "facts": [
                {"name": "status", "expr": "{c1.status}", "value": None},
                {"name": "total", "expr": _dollars("{c1.total_cents}"), "value": None}]},
            {"user": list(GO_AHEAD), "calls": [
                {"id": "c2", "tool": "cancel_order", "arguments": {"order_number": number, "reason": reason}}], "facts": []},
        ])


class ReturnAfterConfirm(Family):
    """Two turns: what a return of a delivered item would refund and where; on 'yes', open it."""

    name = "retail.return-after-confirm"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = [(o, i, item) for o in _in_window(view) for i, item in _returnable_items(o)
                   if item["returned_quantity"] == 0]
        if not options:
            return None
        order, index, item = rng.choice(options)
        number, reason = order["number"], rng.choice(RETURN_REASONS)
        units = item["quantity"]
        first = [f"{order['customer_name']} wants to return the {_item_words(item)} from order {number} "
                 f"(all {units}), reason \"{reason}\". How much would they get back, and to which payment method?",
                 f"Order {number}: the customer is sending back the {_item_words(item)}, every unit (\"{reason}\"). "
                 "What's the refund and where would it go?"]
        return Draft(family=self.name, key=f"{number}|{item['sku']}", writes=True, turns=[
            {"user": first, "calls": [_get_order("c1", number)], "facts": [
                {"name": "refund", "expr": _dollars(f"{{c1.items.{index}.line_total_cents}}"), "value": None},
                {"name": "payment method", "expr": "{c1.payment_method}", "value": None}]},
            {"user": list(GO_AHEAD), "calls": [
                {"id": "c2", "tool": "create_return", "arguments": {
                    "order_number": number, "items": [{"sku": item["sku"], "quantity": units}], "reason": reason}}],
             "facts": [{"name": "return number", "expr": "{c2.number}", "value": None}]},
        ])


# ---------------------------------------------------------------- refusals


class CancelShipped(Family):
    """Asked to cancel an order that has shipped: refuse, and say where it is."""

    name = "retail.cancel-shipped"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        status = rng.choice(("shipped", "delivered"))
        orders = _orders(view, status=status, placed_after=_iso(view.now - timedelta(days=60)))
        if not orders:
            return None
        number = rng.choice(orders)["number"]
        user = [f"Cancel order {number}, the customer doesn't want it any more. If you can't, tell me its status.",
                f"Please cancel {number} for the customer. If that's not possible, what state is the order in?"]
        return Draft(family=self.name, key=f"order:{number}", turns=[{"user": user, "calls": [_get_order("c1", number)], "facts": [
            {"name": "status", "expr": "{c1.status}", "value": None}]}])


class ReturnUndelivered(Family):
    """Asked to return items of an order not yet delivered: refuse, and say its status."""

    name = "retail.return-undelivered"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        orders = _orders(view, status="shipped") + _orders(view, status="paid")
        if not orders:
            return None
        order = _order(view, rng.choice(orders)["number"])
        item = rng.choice(order["items"])
        number = order["number"]
        user = [f"Start a return for the {_item_words(item)} on order {number}. If it can't be returned yet, tell me the order's status.",
                f"The customer of order {number} wants to send back the {_item_words(item)}. Open the return, or tell me why not and the status."]
        return Draft(family=self.name, key=f"order:{number}", turns=[{"user": user, "calls": [_get_order("c1", number)], "facts": [
            {"name": "status", "expr": "{c1.status}", "value": None}]}])


class ReturnExpired(Family):
    """Asked to return an item delivered more than 30 days ago: refuse, with the deadline."""

    name = "retail.return-expired"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        orders = _expired(view, rng)
        if not orders:
            return None
        order = rng.choice(orders)
        item = rng.choice(order["items"])
        number = order["number"]
        user = [f"Please process a return of the {_item_words(item)} from order {number}. If it isn't allowed, tell me when the return window closed.",
                f"Order {number}: the customer wants a refund for the {_item_words(item)}. If it's too late, what was the return deadline?"]
        return Draft(family=self.name, key=f"order:{number}", turns=[{"user": user, "calls": [_get_order("c1", number)], "facts": [
            {"name": "deadline", "expr": "{c1.return_deadline}", "value": None}]}])


class RefundElsewhere(Family):
    """Asked to refund a return to another method than the original: refuse, name the original."""

    name = "retail.refund-elsewhere"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = [(o, item) for o in _in_window(view) for _, item in _returnable_items(o)]
        if not options:
            return None
        order, item = rng.choice(options)
        method = rng.choice([m for m in OTHER_METHODS if m != order["payment_method"]])
        words = {"store_credit": "store credit", "gift_card": "a gift card", "card_visa_1111": "their Visa ending in 1111",
                 "paypal": "their PayPal account"}[method]
        number = order["number"]
        user = [f"Return the {_item_words(item)} from order {number}, and refund it to {words} instead of the original payment. "
                "If you can't, tell me how the order was paid.",
                f"For order {number}, the customer wants the refund for the {_item_words(item)} as {words}. If that's not possible, which payment method can it go to?"]
        return Draft(family=self.name, key=f"{number}|{item['sku']}|{method}", turns=[{"user": user, "calls": [
            _get_order("c1", number)], "facts": [{"name": "original payment method", "expr": "{c1.payment_method}", "value": None}]}])


class ExchangeOtherProduct(Family):
    """Asked to exchange an item for a different product: refuse, and name the ordered product."""

    name = "retail.exchange-other-product"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = [(o, i, item) for o in _in_window(view) for i, item in _returnable_items(o)]
        products = view.read(SERVER, "search_products", status="active", in_stock_only=True, per_page=100)["products"]
        if not options:
            return None
        order, index, item = rng.choice(options)
        other = rng.choice([p for p in products if p["name"] != item["product_name"]])
        number = order["number"]
        user = [f"The customer on order {number} wants to exchange the {_item_words(item)} for a {other['name']} instead. "
                "If that isn't allowed, tell me what they can do and how much a return would refund.",
                f"Swap the {_item_words(item)} on order {number} for a {other['name']}. If an exchange like that is not permitted, "
                "what would a plain return of it refund?"]
        return Draft(family=self.name, key=f"{number}|{item['sku']}|{other['name']}", turns=[{"user": user, "calls": [
            _get_order("c1", number)], "facts": [
            {"name": "refund", "expr": _dollars(f"{{c1.items.{index}.unit_price_cents}} * ({{c1.items.{index}.quantity}} - {{c1.items.{index}.returned_quantity}})"),
             "value": None}]}])


class ExchangeOutOfStock(Family):
    """Asked to exchange for a sold-out variant of the same product: refuse, say it's out of stock."""

    name = "retail.exchange-out-of-stock"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        options = []
        for order in _in_window(view):
            for index, item in _returnable_items(order):
                for vi, variant in enumerate(_product(view, item["product_id"])["variants"]):
                    if variant["id"] != item["variant_id"] and variant["inventory_quantity"] == 0:
                        options.append((order, index, item, vi, variant))
        if not options:
            return None
        order, index, item, vi, variant = rng.choice(options)
        number = order["number"]
        user = [f"Exchange the {_item_words(item)} from order {number} for the {variant['title']} one. If you can't, "
                "tell me why and how many of that variant we have.",
                f"Order {number}: the customer wants the {variant['title']} instead of the {_item_words(item)}. "
                "Set up the exchange, or explain what stands in the way and the stock of that variant."]
        return Draft(family=self.name, key=f"{number}|{item['sku']}|{variant['sku']}", turns=[{"user": user, "calls": [
            _get_order("c1", number),
            {"id": "c2", "tool": "get_product", "bind": {"product_id": f"{{c1.items.{index}.product_id}}"}}], "facts": [
            {"name": "variant stock", "expr": f"{{c2.variants.{vi}.inventory_quantity}}", "value": None},
            {"name": "variant sku", "expr": f"{{c2.variants.{vi}.sku}}", "value": None}]}])


class SettleClosedReturn(Family):
    """Asked to cancel or complete a return that is no longer requested: refuse, say its status."""

    name = "retail.settle-closed-return"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        status = rng.choice(("completed", "cancelled"))
        closed = view.read(SERVER, "list_returns", status=status, per_page=100)["returns"]
        if not closed:
            return None
        ret = rng.choice(closed)
        number = ret["number"]
        verb = "cancel" if status == "completed" else "complete"
        user = [f"Please {verb} {ret['kind']} {number}. If it can't be done, tell me where it stands.",
                f"{verb.capitalize()} the {ret['kind']} {number} for order {ret['order_number']}; if that's not possible, what is its status?"]
        return Draft(family=self.name, key=f"return:{number}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_return", "arguments": {"return_number": number}}], "facts": [
            {"name": "status", "expr": "{c1.status}", "value": None}]}])


# ---------------------------------------------------------------- across servers


class CustomerCrmAccount(Family):
    """The CRM account, and its owner, of the customer who placed an order."""

    name = "cross.retail-customer-crm-account"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_orders", per_page=50, page=rng.randint(1, 18))["orders"]
        if not page:
            return None
        order = rng.choice(page)
        if view.read(SERVER, "get_customer", customer_id=order["customer_id"])["crm_contact_id"] is None:
            return None
        number = order["number"]
        user = [f"Who placed order {number}, which account are they in our CRM, and who owns that account?",
                f"The customer behind order {number}: name, their company's CRM account, and the account owner."]
        return Draft(family=self.name, key=f"order:{number}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": SERVER, "tool": "get_order", "arguments": {"order_number": number}},
            {"id": "c2", "server": SERVER, "tool": "get_customer", "bind": {"customer_id": "{c1.customer_id}"}},
            {"id": "c3", "server": "crm", "tool": "get_contact", "bind": {"contact_id": "{c2.crm_contact_id}"}},
            {"id": "c4", "server": "crm", "tool": "get_account", "bind": {"account_id": "{c3.account_id}"}}], "facts": [
            {"name": "customer", "expr": "{c1.customer_name}", "value": None},
            {"name": "account", "expr": "{c4.name}", "value": None},
            {"name": "account owner", "expr": "{c4.owner_name}", "value": None}]}])


class ContactStoreSpend(Family):
    """How much a CRM contact (by name) has spent in the store, and their latest order."""

    name = "cross.retail-contact-store-spend"
    servers = (SERVER, "crm")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        page = view.read(SERVER, "search_customers", per_page=50, page=rng.randint(1, 7))["customers"]
        buyers = [c for c in page if c["order_count"] > 0]
        if not buyers:
            return None
        customer = view.read(SERVER, "get_customer", customer_id=rng.choice(buyers)["id"])
        if customer["crm_contact_id"] is None:
            return None
        contact = view.read("crm", "get_contact", contact_id=customer["crm_contact_id"])
        name, account = customer["name"], contact["account_name"]
        user = [f"Our CRM contact {name} at {account}: do they buy from our store? How much have they spent and what's their latest order number?",
                f"Look up {name} ({account}) from the CRM in the online store: total spend and most recent order."]
        return Draft(family=self.name, key=f"contact:{customer['crm_contact_id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "server": "crm", "tool": "search_contacts", "arguments": {"query": name}},
            {"id": "c2", "server": SERVER, "tool": "get_customer_by_email", "bind": {"email": "{c1.contacts.0.email}"}}], "facts": [
            {"name": "total spent", "expr": _dollars("{c2.total_spent_cents}"), "value": None},
            {"name": "latest order", "expr": "{c2.last_order_number}", "value": None}]}],
            checks=["{c1.total} == 1"])


RETAIL_FAMILIES: tuple[Family, ...] = (
    OrderStatus(), CustomerOrderHistory(), CustomerProfile(), CustomerByEmail(), VariantStock(), SkuLookup(),
    OrderReturns(), NewestOpenReturn(), MonthlySales(), BestSeller(), SoldOut(),
    Restock(), PlaceOrder(), CapturePayment(), ShipOrder(), PayOrShip(), ChangeAddress(), CompleteReturn(),
    CancelReturn(), ExchangeVariant(),
    CancelAfterConfirm(), ReturnAfterConfirm(),
    CancelShipped(), ReturnUndelivered(), ReturnExpired(), RefundElsewhere(), ExchangeOtherProduct(),
    ExchangeOutOfStock(), SettleClosedReturn(),
    CustomerCrmAccount(), ContactStoreSpend(),
)
