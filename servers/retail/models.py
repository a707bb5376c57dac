"""The retail schema: the back office of the Northwind Store, an online shop.

Products have variants (a size and a colour, each with its SKU, price and stock); customers
place orders of line items, which move pending -> paid -> shipped -> delivered (or are
cancelled before shipping); delivered items may be returned for a refund or exchanged for
another variant of the same product.

Linking rules with the shared world (`mcpgym.servers.kernel.world`) and the CRM:
- customers are world customers: most are CRM contacts (`crm_contact_id` is `contacts.id` of
  the CRM's seeded database of the same seed), a few are not in the CRM (`crm_contact_id`
  NULL); `external_id` is the person id (`per_0042`); name, email, phone and organisation
  name are the world's, unchanged;
- orders are numbered `#1001`, `#1002`, ... in the order they were placed; money is integer
  cents in USD.

Other servers (payments, shipping) read `customers`, `orders` and `order_items` of the seeded
database; their columns are a contract.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

OrderStatus = Literal["pending", "paid", "shipped", "delivered", "cancelled"]
ORDER_STATUSES: tuple[OrderStatus, ...] = ("pending", "paid", "shipped", "delivered", "cancelled")
CANCELLABLE: tuple[OrderStatus, ...] = ("pending", "paid")
"""Statuses before shipping: the only ones an order may be cancelled or re-addressed in."""
ReturnKind = Literal["return", "exchange"]
ReturnStatus = Literal["requested", "completed", "cancelled"]
RETURN_STATUSES: tuple[ReturnStatus, ...] = ("requested", "completed", "cancelled")
ProductStatus = Literal["active", "archived"]
RETURN_WINDOW_DAYS = 30
"""Days after delivery during which delivered items may be returned or exchanged."""
FREE_SHIPPING_CENTS = 7500
"""Orders whose subtotal reaches this ship free."""
STANDARD_SHIPPING_CENTS = 599
EXPRESS_SHIPPING_CENTS = 1299
CURRENCY = "USD"


class Base(DeclarativeBase):
    """Declarative base of the retail schema."""


class Product(Base):
    __tablename__ = "products"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    handle: Mapped[str] = mapped_column(String(120), unique=True)
    category: Mapped[str] = mapped_column(String(40), index=True)
    description: Mapped[str] = mapped_column(Text)
    vendor: Mapped[str] = mapped_column(String(80))
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime]


class Variant(Base):
    """One purchasable version of a product: a size and/or a colour, with its own SKU and stock."""

    __tablename__ = "variants"

    id: Mapped[int] = mapped_column(primary_key=True)
    product_id: Mapped[int] = mapped_column(ForeignKey("products.id"), index=True)
    sku: Mapped[str] = mapped_column(String(40), unique=True)
    title: Mapped[str] = mapped_column(String(80))
    size: Mapped[str | None] = mapped_column(String(16))
    color: Mapped[str | None] = mapped_column(String(32))
    price_cents: Mapped[int]
    inventory_quantity: Mapped[int]
    weight_grams: Mapped[int]


class Customer(Base):
    __tablename__ = "customers"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str | None] = mapped_column(String(16), unique=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    name: Mapped[str] = mapped_column(String(120), index=True)
    phone: Mapped[str | None] = mapped_column(String(32))
    organization_name: Mapped[str | None] = mapped_column(String(120))
    crm_contact_id: Mapped[int | None] = mapped_column(index=True)
    """The CRM contact this customer is (`contacts.id` in the CRM), or NULL."""
    accepts_marketing: Mapped[bool] = mapped_column(default=False)
    address_line1: Mapped[str] = mapped_column(String(120))
    city: Mapped[str] = mapped_column(String(80))
    region: Mapped[str] = mapped_column(String(40))
    postal_code: Mapped[str] = mapped_column(String(16))
    country: Mapped[str] = mapped_column(String(60))
    created_at: Mapped[datetime]


class Order(Base):
    __tablename__ = "orders"
    __table_args__ = (Index("ix_orders_customer_placed", "customer_id", "placed_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(16), unique=True)
    customer_id: Mapped[int] = mapped_column(ForeignKey("customers.id"))
    status: Mapped[str] = mapped_column(String(16), index=True)
    placed_at: Mapped[datetime] = mapped_column(index=True)
    paid_at: Mapped[datetime | None]
    shipped_at: Mapped[datetime | None]
    delivered_at: Mapped[datetime | None]
    cancelled_at: Mapped[datetime | None]
    cancel_reason: Mapped[str | None] = mapped_column(String(200))
    subtotal_cents: Mapped[int]
    shipping_cents: Mapped[int]
    tax_cents: Mapped[int]
    total_cents: Mapped[int]
    refunded_cents: Mapped[int] = mapped_column(default=0)
    currency: Mapped[str] = mapped_column(String(3))
    payment_method: Mapped[str] = mapped_column(String(32))
    shipping_method: Mapped[str] = mapped_column(String(16))
    ship_name: Mapped[str] = mapped_column(String(120))
    ship_line1: Mapped[str] = mapped_column(String(120))
    ship_city: Mapped[str] = mapped_column(String(80))
    ship_region: Mapped[str] = mapped_column(String(40))
    ship_postal_code: Mapped[str] = mapped_column(String(16))
    ship_country: Mapped[str] = mapped_column(String(60))
    note: Mapped[str | None] = mapped_column(Text)


class OrderItem(Base):
    __tablename__ = "order_items"

    id: Mapped[int] = mapped_column(primary_key=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id"), index=True)
    variant_id: Mapped[int] = mapped_column(ForeignKey("variants.id"), index=True)
    sku: Mapped[str] = mapped_column(String(40))
    product_name: Mapped[str] = mapped_column(String(120))
    variant_title: Mapped[str] = mapped_column(String(80))
    quantity: Mapped[int]
    unit_price_cents: Mapped[int]


class Return(Base):
    """A return (refund) or exchange (replacement variant) of delivered items of one order."""

    __tablename__ = "returns"

    id: Mapped[int] = mapped_column(primary_key=True)
    number: Mapped[str] = mapped_column(String(16), unique=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    reason: Mapped[str] = mapped_column(String(200))
    refund_cents: Mapped[int]
    refund_method: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime]
    completed_at: Mapped[datetime | None]
    cancelled_at: Mapped[datetime | None]


class ReturnItem(Base):
    """A line of a return: a quantity of one order item, and for an exchange the variant sent instead."""

    __tablename__ = "return_items"

    id: Mapped[int] = mapped_column(primary_key=True)
    return_id: Mapped[int] = mapped_column(ForeignKey("returns.id"), index=True)
    order_item_id: Mapped[int] = mapped_column(ForeignKey("order_items.id"), index=True)
    quantity: Mapped[int]
    replacement_variant_id: Mapped[int | None] = mapped_column(ForeignKey("variants.id"))
