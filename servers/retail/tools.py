"""The retail tools: look up customers, products and orders, report on sales and stock, and
place, pay, ship, re-address and cancel orders, and open and settle returns and exchanges,
within the store's policy."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import Body, DateTimeArg, Page, PerPage
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.query import search_words
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry
from mcpgym.servers.retail.models import (
    CANCELLABLE,
    CURRENCY,
    RETURN_WINDOW_DAYS,
    Customer,
    Order,
    Product,
    Return,
    ReturnKind,
    ReturnStatus,
    OrderStatus,
    Variant,
)
from mcpgym.servers.retail.outputs import (
    CustomerOut,
    CustomerPage,
    CustomerSummary,
    LowStockItem,
    LowStockPage,
    OrderItemOut,
    OrderOut,
    OrderPage,
    OrderSummary,
    ProductOut,
    ProductPage,
    ProductSummary,
    ReturnItemOut,
    ReturnOut,
    ReturnPage,
    ReturnRef,
    ReturnSummary,
    SalesReport,
    SalesRow,
    VariantDetail,
    VariantOut,
)
from mcpgym.servers.retail.pricing import order_totals

tools = ToolRegistry()

OrderNumber = Annotated[str, Field(min_length=1, max_length=20,
                                   description="The order number, e.g. '#1042' (the '#' may be left out).")]
ReturnNumber = Annotated[str, Field(min_length=1, max_length=20, description="The return number, e.g. 'R1007'.")]
Sku = Annotated[str, Field(min_length=1, max_length=40, description="A variant's SKU, e.g. 'AP-001-M-BLK'.")]
Email = Annotated[str, Field(min_length=3, max_length=160, description="The customer's email address.")]
PaymentMethod = Annotated[str, Field(
    pattern=r"^(card_(visa|mastercard|amex)_\d{4}|paypal|shop_pay|gift_card|store_credit)$",
    description="A payment method: card_<visa|mastercard|amex>_<last 4 digits>, paypal, shop_pay, gift_card or "
                "store_credit.")]
Reason = Annotated[str, Field(min_length=1, max_length=200, description="Why, in a few words (kept on the record).")]
Category = Literal["apparel", "bags", "drinkware", "tech", "office", "outdoor"]

ORDER_HINT = "Use search_orders to find orders by customer email, status, date or SKU."
RETURN_HINT = "Use list_returns to find returns and exchanges by order, status or kind."
CUSTOMER_HINT = "Use search_customers to find customers by name, email or company, or get_customer_by_email."
PRODUCT_HINT = "Use search_products to find products by name or category."
SKU_HINT = "Use get_product or search_products to see a product's variants and their SKUs."


class OrderLine(BaseModel):
    """One line of a new order."""

    sku: Sku
    quantity: Annotated[int, Field(ge=1, le=20, description="Units of this variant (1-20).")]


class ReturnLine(BaseModel):
    """One line of a return: units of an item of the order."""

    sku: Annotated[str, Field(min_length=1, max_length=40, description="The SKU of the order's item to return.")]
    quantity: Annotated[int, Field(ge=1, le=20, description="Units to return (at most those delivered and not yet returned).")]


# ---------------------------------------------------------------- shared reads


def _order_number(number: str) -> str:
    text = number.strip()
    return text if text.startswith("#") else f"#{text}"


def _order_row(ctx: ToolContext, number: str) -> Row:
    row = ctx.sql.one("SELECT * FROM orders WHERE number = ?", [_order_number(number)], Order)
    if row is None:
        raise NotFoundError(f"no order with number {_order_number(number)!r}. {ORDER_HINT}")
    return row


def _return_row(ctx: ToolContext, number: str) -> Row:
    row = ctx.sql.one("SELECT * FROM returns WHERE number = ?", [number.strip().upper()], Return)
    if row is None:
        raise NotFoundError(f"no return with number {number.strip()!r}. {RETURN_HINT}")
    return row


def _variant_row(ctx: ToolContext, sku: str) -> Row:
    row = ctx.sql.one(
        "SELECT variants.*, products.name AS product_name, products.status AS product_status, products.category "
        "FROM variants JOIN products ON products.id = variants.product_id WHERE variants.sku = ?",
        [sku.strip().upper()], Variant)
    if row is None:
        raise NotFoundError(f"no variant with SKU {sku.strip()!r}. {SKU_HINT}")
    return row


def _customer_by_email(ctx: ToolContext, email: str) -> Row:
    row = ctx.sql.one(f"{CUSTOMER_SELECT} WHERE lower(customers.email) = ?", [email.strip().lower()], Customer)
    if row is None:
        raise NotFoundError(f"no customer with email {email.strip()!r}. {CUSTOMER_HINT}")
    return row


SPENT = ("(SELECT coalesce(sum(total_cents - refunded_cents), 0) FROM orders o "
         "WHERE o.customer_id = customers.id AND o.status != 'cancelled')")
ORDER_COUNT = "(SELECT count(*) FROM orders o WHERE o.customer_id = customers.id)"
CUSTOMER_SELECT = (
    f"SELECT customers.*, {ORDER_COUNT} AS order_count, {SPENT} AS total_spent_cents, "
    "(SELECT number FROM orders o WHERE o.customer_id = customers.id ORDER BY placed_at DESC, id DESC LIMIT 1) "
    "AS last_order_number, "
    "(SELECT max(placed_at) FROM orders o WHERE o.customer_id = customers.id) AS last_order_at FROM customers"
)

ORDER_SUMMARY_COLUMNS = (
    "orders.id, orders.number, orders.status, orders.customer_id, customers.name AS customer_name, "
    "customers.email AS customer_email, orders.placed_at, orders.total_cents, orders.refunded_cents, "
    "orders.payment_method, (SELECT coalesce(sum(quantity), 0) FROM order_items WHERE order_id = orders.id) AS item_count"
)

RETURNED = ("(SELECT coalesce(sum(ri.quantity), 0) FROM return_items ri JOIN returns r ON r.id = ri.return_id "
            "WHERE ri.order_item_id = order_items.id AND r.status != 'cancelled')")


def _items(ctx: ToolContext, order_id: int) -> list[Row]:
    return ctx.sql.all(f"SELECT order_items.*, variants.product_id, {RETURNED} AS returned_quantity FROM order_items "
                       "JOIN variants ON variants.id = order_items.variant_id WHERE order_id = ? ORDER BY order_items.id",
                       [order_id])


def _order(ctx: ToolContext, order_id: int) -> OrderOut:
    row = ctx.sql.one(f"SELECT orders.*, {ORDER_SUMMARY_COLUMNS} FROM orders "
                      "JOIN customers ON customers.id = orders.customer_id WHERE orders.id = ?", [order_id], Order)
    assert row is not None
    items = [OrderItemOut(**item, line_total_cents=item["quantity"] * item["unit_price_cents"])
             for item in _items(ctx, order_id)]
    returns = ctx.sql.all("SELECT number, kind, status FROM returns WHERE order_id = ? ORDER BY created_at, id", [order_id])
    deadline = row["delivered_at"] + timedelta(days=RETURN_WINDOW_DAYS) if row["delivered_at"] else None
    return OrderOut(**row, return_deadline=deadline, items=items, returns=[ReturnRef(**r) for r in returns])


def _return(ctx: ToolContext, return_id: int) -> ReturnOut:
    row = ctx.sql.one(
        "SELECT returns.*, orders.number AS order_number, customers.name AS customer_name, "
        "customers.email AS customer_email FROM returns JOIN orders ON orders.id = returns.order_id "
        "JOIN customers ON customers.id = orders.customer_id WHERE returns.id = ?", [return_id], Return)
    assert row is not None
    items = ctx.sql.all(
        "SELECT ri.order_item_id, ri.quantity, oi.sku, oi.product_name, oi.variant_title, oi.unit_price_cents, "
        "v.sku AS replacement_sku, v.title AS replacement_title FROM return_items ri "
        "JOIN order_items oi ON oi.id = ri.order_item_id LEFT JOIN variants v ON v.id = ri.replacement_variant_id "
        "WHERE ri.return_id = ? ORDER BY ri.id", [return_id])
    return ReturnOut(**row, items=[ReturnItemOut(**item) for item in items])


def _variant_out(row: Row) -> dict[str, Any]:
    return {**row, "in_stock": row["inventory_quantity"] > 0}


def _page_of(page: int, result: Any) -> dict[str, Any]:
    return {"total": result.total, "page": page, "next_page": result.next_page}


# ---------------------------------------------------------------- customers


@tools.tool(title="Get customer", examples=[{"customer_id": 12}])
def get_customer(ctx: ToolContext, customer_id: Annotated[int, Field(description="The customer's id.")]) -> CustomerOut:
    """A customer's profile: contact details, default shipping address, CRM contact id, order
    count, lifetime spend and latest order."""
    row = ctx.sql.one(f"{CUSTOMER_SELECT} WHERE customers.id = ?", [customer_id], Customer)
    if row is None:
        raise missing("customer", customer_id, CUSTOMER_HINT)
    return CustomerOut(**row)


@tools.tool(title="Get customer by email", examples=[{"email": "lisa.gomez@johnsoncolemanandg.com"}])
def get_customer_by_email(ctx: ToolContext, email: Email) -> CustomerOut:
    """The customer with this email (case-insensitive): name, company (organization_name),
    address, order count and spend. Start here when a user names a customer by email."""
    return CustomerOut(**_customer_by_email(ctx, email))


@tools.tool(title="Search customers", examples=[{"query": "gomez"}, {"region": "TX", "per_page": 5}])
def search_customers(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must all appear in the name, email or company.")] = None,
    region: Annotated[str | None, Field(max_length=8, description="Only customers whose address is in this US state code, e.g. 'CA'.")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> CustomerPage:
    """Find customers by name, email or company words and by state, ordered by name."""
    where, params = ["1 = 1"], []
    for word in search_words(query):
        where.append("(lower(customers.name) LIKE ? ESCAPE '/' OR lower(customers.email) LIKE ? ESCAPE '/' "
                     "OR lower(coalesce(customers.organization_name, '')) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 3
    if region:
        where.append("customers.region = ?")
        params.append(region.strip().upper())
    result = ctx.sql.page(
        f"customers.id, customers.name, customers.email, customers.organization_name, {ORDER_COUNT} AS order_count, "
        f"{SPENT} AS total_spent_cents", f"FROM customers WHERE {' AND '.join(where)} ORDER BY customers.name, customers.id",
        params, page, per_page)
    return CustomerPage(customers=[CustomerSummary(**r) for r in result.rows], **_page_of(page, result))


# ---------------------------------------------------------------- catalogue


PRODUCT_COLUMNS = (
    "products.id, products.name, products.category, products.vendor, products.status, products.description, "
    "products.created_at, count(variants.id) AS variant_count, min(variants.price_cents) AS min_price_cents, "
    "max(variants.price_cents) AS max_price_cents, sum(variants.inventory_quantity) AS total_inventory"
)


@tools.tool(title="Get product", examples=[{"product_id": 4}])
def get_product(ctx: ToolContext, product_id: Annotated[int, Field(description="The product's id.")]) -> ProductOut:
    """A product with every variant: SKU, size, colour, price and stock."""
    row = ctx.sql.one(f"SELECT {PRODUCT_COLUMNS} FROM products JOIN variants ON variants.product_id = products.id "
                      "WHERE products.id = ? GROUP BY products.id", [product_id], Product)
    if row is None:
        raise missing("product", product_id, PRODUCT_HINT)
    variants = ctx.sql.all("SELECT * FROM variants WHERE product_id = ? ORDER BY id", [product_id])
    return ProductOut(**row, variants=[VariantOut(**_variant_out(v)) for v in variants])


@tools.tool(title="Search products", examples=[{"query": "hoodie"}, {"category": "tech", "in_stock_only": True}])
def search_products(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Words that must all appear in the product's name or description.")] = None,
    category: Annotated[Category | None, Field(description="Only this category.")] = None,
    status: Annotated[Literal["active", "archived"] | None, Field(description="Only active (on sale) or archived products.")] = None,
    in_stock_only: Annotated[bool, Field(description="Only products with at least one variant in stock.")] = False,
    page: Page = 1,
    per_page: PerPage = 20,
) -> ProductPage:
    """Find products by words, category and status, ordered by name; each with its price range
    and total stock (get_product lists the variants)."""
    where, params = ["1 = 1"], []
    for word in search_words(query):
        where.append("(lower(products.name) LIKE ? ESCAPE '/' OR lower(products.description) LIKE ? ESCAPE '/')")
        params += [contains_pattern(word)] * 2
    if category:
        where.append("products.category = ?")
        params.append(category)
    if status:
        where.append("products.status = ?")
        params.append(status)
    having = " HAVING max(variants.inventory_quantity) > 0" if in_stock_only else ""
    result = ctx.sql.page(PRODUCT_COLUMNS, "FROM products JOIN variants ON variants.product_id = products.id "
                          f"WHERE {' AND '.join(where)} GROUP BY products.id{having} ORDER BY products.name, products.id",
                          params, page, per_page)
    return ProductPage(products=[ProductSummary(**r) for r in result.rows], **_page_of(page, result))


@tools.tool(title="Get variant by SKU", examples=[{"sku": "AP-001-M-BLACK"}])
def get_variant_by_sku(ctx: ToolContext, sku: Sku) -> VariantDetail:
    """One variant by SKU, with its product, price and stock on hand."""
    return VariantDetail(**_variant_out(_variant_row(ctx, sku)))


@tools.tool(title="Low stock report", examples=[{"threshold": 5}, {"threshold": 0, "category": "apparel"}])
def low_stock_report(
    ctx: ToolContext,
    threshold: Annotated[int, Field(ge=0, le=1000, description="Report variants with at most this many units on hand.")] = 5,
    category: Annotated[Category | None, Field(description="Only this category.")] = None,
    page: Page = 1,
    per_page: PerPage = 50,
) -> LowStockPage:
    """Variants of active products running low (at most `threshold` units), fewest first:
    what to restock. Use threshold 0 for the sold-out ones."""
    where, params = ["products.status = 'active'", "variants.inventory_quantity <= ?"], [threshold]
    if category:
        where.append("products.category = ?")
        params.append(category)
    result = ctx.sql.page(
        "variants.id AS variant_id, variants.sku, products.name AS product_name, variants.title AS variant_title, "
        "products.category, variants.inventory_quantity, variants.price_cents",
        f"FROM variants JOIN products ON products.id = variants.product_id WHERE {' AND '.join(where)} "
        "ORDER BY variants.inventory_quantity, variants.sku, variants.id", params, page, per_page)
    return LowStockPage(threshold=threshold, variants=[LowStockItem(**r) for r in result.rows], **_page_of(page, result))


@tools.tool(writes=True, destructive=True, idempotent=False, title="Adjust inventory",
            examples=[{"sku": "AP-001-M-BLACK", "change": 24, "reason": "Restock from supplier"}])
def adjust_inventory(
    ctx: ToolContext,
    sku: Sku,
    change: Annotated[int, Field(ge=-10000, le=10000, description="Units to add (positive) or remove (negative); not 0.")],
    reason: Reason,
) -> VariantDetail:
    """Add received stock to a variant or write off units (damaged, lost, counted short).
    Stock never goes below zero."""
    variant = _variant_row(ctx, sku)
    if change == 0:
        raise InvalidArgumentError("adjust_inventory: change must not be 0")
    after = variant["inventory_quantity"] + change
    if after < 0:
        raise InvalidArgumentError(f"adjust_inventory: {variant['sku']} has {variant['inventory_quantity']} units; "
                                   f"removing {-change} would leave {after}")
    ctx.sql.update_row(Variant, variant, {**variant, "inventory_quantity": after})
    return VariantDetail(**_variant_out({**variant, "inventory_quantity": after}))


# ---------------------------------------------------------------- orders


@tools.tool(title="Get order", examples=[{"order_number": "#1042"}, {"order_number": "1890"}])
def get_order(ctx: ToolContext, order_number: OrderNumber) -> OrderOut:
    """An order by number: customer, status and its dates, money (subtotal, shipping, tax,
    total, refunded), payment method, shipping address, items with their returned units, its
    returns, and for a delivered order the last day of its return window."""
    return _order(ctx, _order_row(ctx, order_number)["id"])


@tools.tool(title="Search orders", examples=[{"customer_email": "lisa.gomez@johnsoncolemanandg.com"},
                                             {"status": "paid"}, {"sku": "TC-023-BLACK", "per_page": 5}])
def search_orders(
    ctx: ToolContext,
    customer_email: Annotated[str | None, Field(max_length=160, description="Only the orders of the customer with this email.")] = None,
    customer_id: Annotated[int | None, Field(description="Only the orders of the customer with this id.")] = None,
    status: Annotated[OrderStatus | None, Field(description="Only orders in this status.")] = None,
    placed_after: Annotated[DateTimeArg | None, Field(description="Only orders placed at or after this time (ISO 8601, UTC).")] = None,
    placed_before: Annotated[DateTimeArg | None, Field(description="Only orders placed strictly before this time (ISO 8601, UTC).")] = None,
    sku: Annotated[str | None, Field(max_length=40, description="Only orders with an item of this SKU.")] = None,
    product: Annotated[str | None, Field(description="Only orders with an item whose product name contains these words.")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> OrderPage:
    """Find orders by customer (email or id), status, time placed and item, newest first."""
    where, params = ["1 = 1"], []
    if customer_email:
        where.append("lower(customers.email) = ?")
        params.append(customer_email.strip().lower())
    if customer_id is not None:
        where.append("orders.customer_id = ?")
        params.append(customer_id)
    if status:
        where.append("orders.status = ?")
        params.append(status)
    if placed_after:
        where.append("orders.placed_at >= ?")
        params.append(placed_after)
    if placed_before:
        where.append("orders.placed_at < ?")
        params.append(placed_before)
    if sku:
        where.append("EXISTS (SELECT 1 FROM order_items WHERE order_id = orders.id AND sku = ?)")
        params.append(sku.strip().upper())
    for word in search_words(product):
        where.append("EXISTS (SELECT 1 FROM order_items WHERE order_id = orders.id AND lower(product_name) LIKE ? ESCAPE '/')")
        params.append(contains_pattern(word))
    result = ctx.sql.page(ORDER_SUMMARY_COLUMNS, "FROM orders JOIN customers ON customers.id = orders.customer_id "
                          f"WHERE {' AND '.join(where)} ORDER BY orders.placed_at DESC, orders.id DESC",
                          params, page, per_page, Order)
    return OrderPage(orders=[OrderSummary(**r) for r in result.rows], **_page_of(page, result))


@tools.tool(writes=True, destructive=True, idempotent=False, title="Create order", examples=[
    {"customer_email": "lisa.gomez@johnsoncolemanandg.com", "items": [{"sku": "DW-018-WHITE", "quantity": 2}],
     "payment_method": "paypal"}])
def create_order(
    ctx: ToolContext,
    customer_email: Email,
    items: Annotated[list[OrderLine], Field(min_length=1, max_length=20, description="The variants and quantities ordered, one line per SKU.")],
    payment_method: Annotated[PaymentMethod | None, Field(description="How the customer pays; by default the method of their latest order.")] = None,
    shipping_method: Annotated[Literal["standard", "express"], Field(description="standard (free from $75) or express ($12.99).")] = "standard",
    note: Annotated[Body | None, Field(description="A note from the customer, printed on the packing slip.")] = None,
) -> OrderOut:
    """Place an order for a customer, shipped to their default address. It starts pending
    (payment authorised, not captured: mark_order_paid captures it) and reserves the stock.
    Prices, shipping and tax are the store's own; only active products in stock can be sold."""
    customer = _customer_by_email(ctx, customer_email)
    skus = [line.sku.strip().upper() for line in items]
    if len(set(skus)) != len(skus):
        raise InvalidArgumentError("create_order: list each SKU once, with its total quantity")
    found = {v["sku"]: v for v in ctx.sql.all(
        "SELECT variants.*, products.name AS product_name, products.status AS product_status FROM variants "
        "JOIN products ON products.id = variants.product_id WHERE variants.sku IN (SELECT value FROM json_each(?))",
        [skus])}
    for sku, line in zip(skus, items):
        variant = found.get(sku)
        if variant is None:
            raise NotFoundError(f"no variant with SKU {sku!r}. {SKU_HINT}")
        if variant["product_status"] != "active":
            raise InvalidArgumentError(f"create_order: {variant['product_name']} is archived and no longer sold")
        if variant["inventory_quantity"] < line.quantity:
            raise InvalidArgumentError(f"create_order: {sku} has {variant['inventory_quantity']} units in stock, "
                                       f"{line.quantity} ordered")
    method = payment_method
    if method is None:
        method = ctx.sql.scalar("SELECT payment_method FROM orders WHERE customer_id = ? ORDER BY placed_at DESC, id DESC "
                                "LIMIT 1", [customer["id"]])
        if method is None:
            raise InvalidArgumentError("create_order: this customer has no earlier order; name the payment_method")
    totals = order_totals([(found[s]["price_cents"], line.quantity) for s, line in zip(skus, items)],
                          customer["region"], shipping_method == "express")
    last = ctx.sql.scalar("SELECT coalesce(max(id), 0) FROM orders")
    order_id = ctx.sql.insert_row(Order, {
        "number": f"#{1001 + last}", "customer_id": customer["id"], "status": "pending", "placed_at": ctx.now,
        "paid_at": None, "shipped_at": None, "delivered_at": None, "cancelled_at": None, "cancel_reason": None,
        **totals, "refunded_cents": 0, "currency": CURRENCY, "payment_method": method,
        "shipping_method": shipping_method, "ship_name": customer["name"], "ship_line1": customer["address_line1"],
        "ship_city": customer["city"], "ship_region": customer["region"], "ship_postal_code": customer["postal_code"],
        "ship_country": customer["country"], "note": note})
    lines = json.dumps([{"sku": s, "quantity": line.quantity} for s, line in zip(skus, items)])
    ctx.sql.execute(
        "INSERT INTO order_items (order_id, variant_id, sku, product_name, variant_title, quantity, unit_price_cents) "
        "SELECT ?, variants.id, variants.sku, products.name, variants.title, json_extract(line.value, '$.quantity'), "
        "variants.price_cents FROM json_each(?) AS line JOIN variants ON variants.sku = json_extract(line.value, '$.sku') "
        "JOIN products ON products.id = variants.product_id ORDER BY line.key", [order_id, lines])
    ctx.sql.execute(
        "UPDATE variants SET inventory_quantity = inventory_quantity - (SELECT json_extract(value, '$.quantity') "
        "FROM json_each(?) WHERE json_extract(value, '$.sku') = variants.sku) "
        "WHERE sku IN (SELECT json_extract(value, '$.sku') FROM json_each(?))", [lines, lines])
    return _order(ctx, order_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Mark order paid", examples=[{"order_number": "#1887"}])
def mark_order_paid(ctx: ToolContext, order_number: OrderNumber) -> OrderOut:
    """Capture the payment of a pending order: it becomes paid and ready to ship."""
    order = _order_row(ctx, order_number)
    if order["status"] != "pending":
        raise InvalidArgumentError(f"mark_order_paid: order {order['number']} is {order['status']}, not pending")
    ctx.sql.update_row(Order, order, {**order, "status": "paid", "paid_at": ctx.now})
    return _order(ctx, order["id"])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Fulfill order", examples=[{"order_number": "#1900"}])
def fulfill_order(ctx: ToolContext, order_number: OrderNumber) -> OrderOut:
    """Mark a paid order as shipped (handed to the carrier). Only paid orders ship."""
    order = _order_row(ctx, order_number)
    if order["status"] != "paid":
        raise InvalidArgumentError(f"fulfill_order: order {order['number']} is {order['status']}; only paid orders ship")
    ctx.sql.update_row(Order, order, {**order, "status": "shipped", "shipped_at": ctx.now})
    return _order(ctx, order["id"])


def _before_shipping(order: Row, action: str) -> None:
    """The policy rule: an order is cancelled or re-addressed only before it ships."""
    if order["status"] not in CANCELLABLE:
        raise ForbiddenError(
            f"{action}: order {order['number']} is {order['status']}; an order can be cancelled or its shipping "
            "address changed only before it ships (pending or paid). Once delivered, offer a return instead.")


@tools.tool(writes=True, destructive=True, idempotent=True, title="Update shipping address", examples=[
    {"order_number": "#1900", "line1": "12 Harbor Dr", "city": "Boston", "region": "MA", "postal_code": "02110"}])
def update_shipping_address(
    ctx: ToolContext,
    order_number: OrderNumber,
    line1: Annotated[str, Field(min_length=1, max_length=120, description="Street address.")],
    city: Annotated[str, Field(min_length=1, max_length=80, description="City.")],
    region: Annotated[str, Field(min_length=2, max_length=8, description="US state code, e.g. 'MA'.")],
    postal_code: Annotated[str, Field(min_length=3, max_length=16, description="ZIP code.")],
    name: Annotated[str | None, Field(max_length=120, description="Recipient's name; by default unchanged.")] = None,
    country: Annotated[str, Field(min_length=2, max_length=60, description="Country.")] = "United States",
) -> OrderOut:
    """Replace the shipping address of an order that has not shipped yet (pending or paid).
    The order's price and tax stay as charged."""
    order = _order_row(ctx, order_number)
    _before_shipping(order, "update_shipping_address")
    ctx.sql.update_row(Order, order, {
        **order, "ship_line1": line1.strip(), "ship_city": city.strip(), "ship_region": region.strip().upper(),
        "ship_postal_code": postal_code.strip(), "ship_country": country.strip(),
        "ship_name": name.strip() if name and name.strip() else order["ship_name"]})
    return _order(ctx, order["id"])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Cancel order",
            examples=[{"order_number": "#1900", "reason": "Customer changed their mind"}])
def cancel_order(ctx: ToolContext, order_number: OrderNumber, reason: Reason) -> OrderOut:
    """Cancel an order that has not shipped (pending or paid): its stock is released and a paid
    order is refunded in full to its original payment method."""
    order = _order_row(ctx, order_number)
    _before_shipping(order, "cancel_order")
    refund = order["total_cents"] if order["status"] == "paid" else 0
    ctx.sql.update_row(Order, order, {**order, "status": "cancelled", "cancelled_at": ctx.now,
                                      "cancel_reason": reason.strip(), "refunded_cents": refund})
    ctx.sql.execute("UPDATE variants SET inventory_quantity = inventory_quantity + (SELECT sum(quantity) FROM order_items "
                    "WHERE order_id = ? AND variant_id = variants.id) "
                    "WHERE id IN (SELECT variant_id FROM order_items WHERE order_id = ?)", [order["id"], order["id"]])
    return _order(ctx, order["id"])


# ---------------------------------------------------------------- returns and exchanges


def _returnable(ctx: ToolContext, order: Row, action: str) -> None:
    """The policy rules: only delivered orders, within the window after delivery."""
    if order["status"] != "delivered":
        raise ForbiddenError(f"{action}: order {order['number']} is {order['status']}; only delivered items can be "
                             "returned or exchanged")
    deadline = order["delivered_at"] + timedelta(days=RETURN_WINDOW_DAYS)
    if ctx.now > deadline:
        raise ForbiddenError(
            f"{action}: order {order['number']} was delivered on {order['delivered_at']:%Y-%m-%d}; returns and exchanges "
            f"are accepted only within {RETURN_WINDOW_DAYS} days of delivery (the window closed on {deadline:%Y-%m-%d})")


def _lines(ctx: ToolContext, order: Row, wanted: list[tuple[str, int]], action: str) -> list[tuple[Row, int]]:
    """The order's items named by SKU, each with a quantity it still has to return."""
    items = {item["sku"]: item for item in _items(ctx, order["id"])}
    picked = []
    for sku, quantity in wanted:
        item = items.get(sku.strip().upper())
        if item is None:
            raise InvalidArgumentError(f"{action}: order {order['number']} has no item with SKU {sku.strip()!r}; "
                                       f"its SKUs are {', '.join(items)}")
        left = item["quantity"] - item["returned_quantity"]
        if quantity > left:
            raise InvalidArgumentError(f"{action}: {item['sku']} was ordered {item['quantity']} times and "
                                       f"{item['returned_quantity']} are already in returns; at most {left} more")
        picked.append((item, quantity))
    return picked


def _new_return(ctx: ToolContext, order: Row, kind: str, reason: str, refund: int, method: str | None) -> int:
    last = ctx.sql.scalar("SELECT coalesce(max(id), 0) FROM returns")
    return ctx.sql.insert_row(Return, {
        "number": f"R{1001 + last}", "order_id": order["id"], "kind": kind, "status": "requested",
        "reason": reason.strip(), "refund_cents": refund, "refund_method": method, "created_at": ctx.now,
        "completed_at": None, "cancelled_at": None})


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create return", examples=[
    {"order_number": "#1789", "items": [{"sku": "AP-009-MUSTARD", "quantity": 1}], "reason": "Changed my mind"}])
def create_return(
    ctx: ToolContext,
    order_number: OrderNumber,
    items: Annotated[list[ReturnLine], Field(min_length=1, max_length=20, description="The order's items to return, by SKU.")],
    reason: Reason,
    refund_method: Annotated[PaymentMethod | None, Field(
        description="Where the refund goes; it must be the order's original payment method (the default).")] = None,
) -> ReturnOut:
    """Open a return of delivered items for a refund of their price (shipping and tax are not
    refunded). The return is requested; complete_return issues the refund, to the order's
    original payment method, once the items are back."""
    order = _order_row(ctx, order_number)
    _returnable(ctx, order, "create_return")
    skus = [line.sku.strip().upper() for line in items]
    if len(set(skus)) != len(skus):
        raise InvalidArgumentError("create_return: list each SKU once, with its total quantity")
    picked = _lines(ctx, order, [(line.sku, line.quantity) for line in items], "create_return")
    if refund_method is not None and refund_method != order["payment_method"]:
        raise ForbiddenError(f"create_return: refunds go only to the original payment method of order {order['number']} "
                             f"({order['payment_method']}), not to {refund_method}")
    refund = sum(item["unit_price_cents"] * quantity for item, quantity in picked)
    return_id = _new_return(ctx, order, "return", reason, refund, order["payment_method"])
    ctx.sql.execute("INSERT INTO return_items (return_id, order_item_id, quantity, replacement_variant_id) "
                    "SELECT ?, json_extract(value, '$[0]'), json_extract(value, '$[1]'), NULL FROM json_each(?) ORDER BY key",
                    [return_id, json.dumps([[item["id"], quantity] for item, quantity in picked])])
    return _return(ctx, return_id)


@tools.tool(writes=True, destructive=True, idempotent=True, title="Create exchange", examples=[
    {"order_number": "#1819", "sku": "AP-004-M-BLACK", "new_sku": "AP-004-L-BLACK", "quantity": 1, "reason": "Too small"}])
def create_exchange(
    ctx: ToolContext,
    order_number: OrderNumber,
    sku: Annotated[str, Field(min_length=1, max_length=40, description="The SKU of the order's item to send back.")],
    new_sku: Annotated[str, Field(min_length=1, max_length=40, description="The SKU of the variant to send instead: another size or colour of the same product.")],
    reason: Reason,
    quantity: Annotated[int, Field(ge=1, le=20, description="Units to exchange.")] = 1,
) -> ReturnOut:
    """Open an exchange of a delivered item for another variant of the same product (another
    size or colour) at no charge. The replacement must be in stock and is reserved now;
    complete_return closes the exchange when the original comes back."""
    order = _order_row(ctx, order_number)
    _returnable(ctx, order, "create_exchange")
    [(item, _)] = _lines(ctx, order, [(sku, quantity)], "create_exchange")
    replacement = _variant_row(ctx, new_sku)
    if replacement["id"] == item["variant_id"]:
        raise InvalidArgumentError("create_exchange: new_sku is the variant already ordered; name another size or colour")
    if replacement["product_name"] != item["product_name"]:
        raise ForbiddenError(f"create_exchange: {replacement['sku']} is a {replacement['product_name']}, not a "
                             f"{item['product_name']}; an exchange is only for another variant of the same product "
                             "(return the item for a refund instead)")
    if replacement["inventory_quantity"] < quantity:
        raise ForbiddenError(f"create_exchange: {replacement['sku']} ({replacement['title']}) has "
                             f"{replacement['inventory_quantity']} units in stock; an exchange is only for a variant "
                             "in stock")
    return_id = _new_return(ctx, order, "exchange", reason, 0, None)
    ctx.sql.execute("INSERT INTO return_items (return_id, order_item_id, quantity, replacement_variant_id) "
                    "VALUES (?, ?, ?, ?)", [return_id, item["id"], quantity, replacement["id"]])
    ctx.sql.update_row(Variant, replacement, {**replacement, "inventory_quantity": replacement["inventory_quantity"] - quantity})
    return _return(ctx, return_id)


def _requested(row: Row, action: str) -> None:
    """The policy rule: a return is completed or cancelled only while requested."""
    if row["status"] != "requested":
        raise ForbiddenError(f"{action}: {row['kind']} {row['number']} is already {row['status']}; a return or exchange "
                             "can be completed or cancelled only while it is requested")


@tools.tool(writes=True, destructive=True, idempotent=True, title="Complete return", examples=[{"return_number": "R1068"}])
def complete_return(ctx: ToolContext, return_number: ReturnNumber) -> ReturnOut:
    """Close a requested return or exchange once the items are back: the items are restocked,
    and a return's refund is paid to the order's original payment method."""
    row = _return_row(ctx, return_number)
    _requested(row, "complete_return")
    ctx.sql.update_row(Return, row, {**row, "status": "completed", "completed_at": ctx.now})
    ctx.sql.execute("UPDATE variants SET inventory_quantity = inventory_quantity + (SELECT sum(ri.quantity) "
                    "FROM return_items ri JOIN order_items oi ON oi.id = ri.order_item_id "
                    "WHERE ri.return_id = ? AND oi.variant_id = variants.id) WHERE id IN (SELECT oi.variant_id "
                    "FROM return_items ri JOIN order_items oi ON oi.id = ri.order_item_id WHERE ri.return_id = ?)",
                    [row["id"], row["id"]])
    if row["refund_cents"]:
        ctx.sql.execute("UPDATE orders SET refunded_cents = refunded_cents + ? WHERE id = ?",
                        [row["refund_cents"], row["order_id"]])
    return _return(ctx, row["id"])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Cancel return", examples=[{"return_number": "R1068"}])
def cancel_return(ctx: ToolContext, return_number: ReturnNumber) -> ReturnOut:
    """Cancel a requested return or exchange (the customer keeps the items); an exchange's
    reserved replacement goes back to stock."""
    row = _return_row(ctx, return_number)
    _requested(row, "cancel_return")
    ctx.sql.update_row(Return, row, {**row, "status": "cancelled", "cancelled_at": ctx.now})
    ctx.sql.execute("UPDATE variants SET inventory_quantity = inventory_quantity + (SELECT sum(quantity) "
                    "FROM return_items WHERE return_id = ? AND replacement_variant_id = variants.id) "
                    "WHERE id IN (SELECT replacement_variant_id FROM return_items WHERE return_id = ?)",
                    [row["id"], row["id"]])
    return _return(ctx, row["id"])


@tools.tool(title="Get return", examples=[{"return_number": "R1001"}])
def get_return(ctx: ToolContext, return_number: ReturnNumber) -> ReturnOut:
    """A return or exchange by number: its order, customer, items (and replacements), refund and status."""
    return _return(ctx, _return_row(ctx, return_number)["id"])


@tools.tool(title="List returns", examples=[{"status": "requested"}, {"order_number": "#1021"}])
def list_returns(
    ctx: ToolContext,
    order_number: Annotated[str | None, Field(max_length=20, description="Only this order's returns.")] = None,
    customer_email: Annotated[str | None, Field(max_length=160, description="Only the returns of the customer with this email.")] = None,
    customer_id: Annotated[int | None, Field(description="Only the returns of the customer with this id.")] = None,
    status: Annotated[ReturnStatus | None, Field(description="Only returns in this status.")] = None,
    kind: Annotated[ReturnKind | None, Field(description="Only returns (refunds) or only exchanges.")] = None,
    page: Page = 1,
    per_page: PerPage = 20,
) -> ReturnPage:
    """Returns and exchanges, newest first, by order, customer (email or id), status and kind."""
    where, params = ["1 = 1"], []
    if order_number:
        where.append("orders.number = ?")
        params.append(_order_number(order_number))
    if customer_email:
        where.append("lower(customers.email) = ?")
        params.append(customer_email.strip().lower())
    if customer_id is not None:
        where.append("orders.customer_id = ?")
        params.append(customer_id)
    if status:
        where.append("returns.status = ?")
        params.append(status)
    if kind:
        where.append("returns.kind = ?")
        params.append(kind)
    result = ctx.sql.page(
        "returns.id, returns.number, orders.number AS order_number, customers.name AS customer_name, returns.kind, "
        "returns.status, returns.reason, returns.refund_cents, returns.created_at",
        "FROM returns JOIN orders ON orders.id = returns.order_id JOIN customers ON customers.id = orders.customer_id "
        f"WHERE {' AND '.join(where)} ORDER BY returns.created_at DESC, returns.id DESC", params, page, per_page, Return)
    return ReturnPage(returns=[ReturnSummary(**r) for r in result.rows], **_page_of(page, result))


# ---------------------------------------------------------------- reports

GROUP_KEYS = {
    "month": "strftime('%Y-%m', orders.placed_at)",
    "day": "strftime('%Y-%m-%d', orders.placed_at)",
    "category": "products.category",
    "product": "order_items.product_name",
}


@tools.tool(title="Sales report", examples=[
    {"start": "2025-10-01T00:00:00Z", "end": "2025-11-01T00:00:00Z", "group_by": "category"},
    {"start": "2025-01-01T00:00:00Z", "end": "2025-11-01T00:00:00Z", "group_by": "month"}])
def sales_report(
    ctx: ToolContext,
    start: Annotated[DateTimeArg, Field(description="Orders placed at or after this time (ISO 8601, UTC).")],
    end: Annotated[DateTimeArg, Field(description="Orders placed strictly before this time (ISO 8601, UTC).")],
    group_by: Annotated[Literal["month", "day", "category", "product"], Field(description="How to break the sales down.")] = "month",
    limit: Annotated[int, Field(ge=1, le=100, description="Most rows to return (best first for category and product).")] = 20,
) -> SalesReport:
    """Sales of orders placed in [start, end), cancelled orders excluded: order count, gross and
    net sales, shipping, tax, refunds and average order, broken down by month, day, category or
    product. Use it for 'how much did we sell' and 'best-selling' questions."""
    if end <= start:
        raise InvalidArgumentError("sales_report: end must be after start")
    totals = ctx.sql.one(
        "SELECT count(*) FILTER (WHERE status != 'cancelled') AS order_count, "
        "coalesce(sum(subtotal_cents) FILTER (WHERE status != 'cancelled'), 0) AS gross, "
        "coalesce(sum(shipping_cents) FILTER (WHERE status != 'cancelled'), 0) AS shipping, "
        "coalesce(sum(tax_cents) FILTER (WHERE status != 'cancelled'), 0) AS tax, "
        "coalesce(sum(refunded_cents) FILTER (WHERE status != 'cancelled'), 0) AS refunded, "
        "count(*) FILTER (WHERE status = 'cancelled') AS cancelled FROM orders WHERE placed_at >= ? AND placed_at < ?",
        [start, end])
    assert totals is not None
    key = GROUP_KEYS[group_by]
    order = "key" if group_by in ("month", "day") else "sales_cents DESC, key"
    rows = ctx.sql.all(
        f"SELECT {key} AS key, count(DISTINCT orders.id) AS order_count, sum(order_items.quantity) AS units, "
        "sum(order_items.quantity * order_items.unit_price_cents) AS sales_cents FROM orders "
        "JOIN order_items ON order_items.order_id = orders.id JOIN variants ON variants.id = order_items.variant_id "
        "JOIN products ON products.id = variants.product_id "
        f"WHERE orders.status != 'cancelled' AND orders.placed_at >= ? AND orders.placed_at < ? "
        f"GROUP BY key ORDER BY {order} LIMIT ?", [start, end, limit])
    count, gross = totals["order_count"], totals["gross"]
    return SalesReport(
        start=start, end=end, group_by=group_by, order_count=count, gross_sales_cents=gross,
        shipping_cents=totals["shipping"], tax_cents=totals["tax"], refunded_cents=totals["refunded"],
        net_sales_cents=gross - totals["refunded"], average_order_cents=gross // count if count else 0,
        cancelled_count=totals["cancelled"], rows=[SalesRow(**r) for r in rows])

