"""Result models of the retail tools."""

from __future__ import annotations

from pydantic import BaseModel, Field

from mcpgym.servers.kernel.fields import Timestamp


class VariantOut(BaseModel):
    id: int
    sku: str
    title: str = Field(description="Size and colour, e.g. 'M / Black'.")
    size: str | None
    color: str | None
    price_cents: int
    inventory_quantity: int = Field(description="Units on hand that can be sold.")
    in_stock: bool


class VariantDetail(VariantOut):
    product_id: int
    product_name: str
    product_status: str = Field(description="active, or archived (no longer sold).")
    category: str


class ProductSummary(BaseModel):
    id: int
    name: str
    category: str
    vendor: str
    status: str = Field(description="active, or archived (no longer sold).")
    variant_count: int
    min_price_cents: int
    max_price_cents: int
    total_inventory: int = Field(description="Units on hand over all variants.")


class ProductOut(ProductSummary):
    description: str
    created_at: Timestamp
    variants: list[VariantOut]


class ProductPage(BaseModel):
    products: list[ProductSummary]
    total: int
    page: int
    next_page: int | None


class CustomerSummary(BaseModel):
    id: int
    name: str
    email: str
    organization_name: str | None = Field(description="The company the customer works for.")
    order_count: int = Field(description="Orders placed, cancelled ones included.")
    total_spent_cents: int = Field(description="Paid totals of orders not cancelled, less refunds.")


class CustomerOut(CustomerSummary):
    phone: str | None
    crm_contact_id: int | None = Field(description="The customer's contact id in the CRM, when the CRM knows them.")
    accepts_marketing: bool
    address_line1: str
    city: str
    region: str
    postal_code: str
    country: str
    created_at: Timestamp
    last_order_number: str | None
    last_order_at: Timestamp | None


class CustomerPage(BaseModel):
    customers: list[CustomerSummary]
    total: int
    page: int
    next_page: int | None


class OrderItemOut(BaseModel):
    id: int
    variant_id: int
    product_id: int
    sku: str
    product_name: str
    variant_title: str
    quantity: int
    unit_price_cents: int
    line_total_cents: int
    returned_quantity: int = Field(description="Units in returns or exchanges that are requested or completed.")


class ReturnRef(BaseModel):
    number: str
    kind: str
    status: str


class OrderSummary(BaseModel):
    id: int
    number: str = Field(description="The order number customers see, e.g. '#1042'.")
    status: str = Field(description="pending, paid, shipped, delivered or cancelled.")
    customer_id: int
    customer_name: str
    customer_email: str
    placed_at: Timestamp
    item_count: int = Field(description="Units ordered.")
    total_cents: int
    refunded_cents: int
    payment_method: str


class OrderOut(OrderSummary):
    paid_at: Timestamp | None
    shipped_at: Timestamp | None
    delivered_at: Timestamp | None
    cancelled_at: Timestamp | None
    cancel_reason: str | None
    subtotal_cents: int
    shipping_cents: int
    tax_cents: int
    currency: str
    shipping_method: str = Field(description="standard or express.")
    ship_name: str
    ship_line1: str
    ship_city: str
    ship_region: str
    ship_postal_code: str
    ship_country: str
    note: str | None
    return_deadline: Timestamp | None = Field(
        description="For a delivered order: the end of its 30-day return and exchange window.")
    items: list[OrderItemOut]
    returns: list[ReturnRef]


class OrderPage(BaseModel):
    orders: list[OrderSummary]
    total: int
    page: int
    next_page: int | None


class ReturnItemOut(BaseModel):
    order_item_id: int
    sku: str
    product_name: str
    variant_title: str
    quantity: int
    unit_price_cents: int
    replacement_sku: str | None = Field(description="For an exchange: the variant sent instead.")
    replacement_title: str | None


class ReturnOut(BaseModel):
    id: int
    number: str = Field(description="The return number, e.g. 'R1007'.")
    order_number: str
    customer_name: str
    customer_email: str
    kind: str = Field(description="return (refund) or exchange (another variant of the same product).")
    status: str = Field(description="requested, completed or cancelled.")
    reason: str
    refund_cents: int = Field(description="Refunded when the return is completed; 0 for an exchange.")
    refund_method: str | None = Field(description="The order's original payment method; null for an exchange.")
    created_at: Timestamp
    completed_at: Timestamp | None
    cancelled_at: Timestamp | None
    items: list[ReturnItemOut]


class ReturnSummary(BaseModel):
    id: int
    number: str
    order_number: str
    customer_name: str
    kind: str
    status: str
    reason: str
    refund_cents: int
    created_at: Timestamp


class ReturnPage(BaseModel):
    returns: list[ReturnSummary]
    total: int
    page: int
    next_page: int | None


class SalesRow(BaseModel):
    key: str = Field(description="The month (YYYY-MM), day (YYYY-MM-DD), category or product name.")
    order_count: int
    units: int
    sales_cents: int = Field(description="Item sales (unit price x quantity) before shipping, tax and refunds.")


class SalesReport(BaseModel):
    start: Timestamp
    end: Timestamp
    group_by: str
    order_count: int = Field(description="Orders placed in the window, cancelled ones excluded.")
    gross_sales_cents: int = Field(description="Subtotals of those orders.")
    shipping_cents: int
    tax_cents: int
    refunded_cents: int
    net_sales_cents: int = Field(description="Gross sales less refunds.")
    average_order_cents: int = Field(description="Gross sales per order, rounded down; 0 without orders.")
    cancelled_count: int
    rows: list[SalesRow] = Field(description="By month or day in time order; by category or product, best first.")


class LowStockItem(BaseModel):
    variant_id: int
    sku: str
    product_name: str
    variant_title: str
    category: str
    inventory_quantity: int
    price_cents: int


class LowStockPage(BaseModel):
    threshold: int
    variants: list[LowStockItem]
    total: int
    page: int
    next_page: int | None
