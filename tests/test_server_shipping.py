"""Domain behaviour of the shipping server, through the same call path an agent uses."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpgym.servers.catalog import load_server
from mcpgym.servers.kernel.database import load_database, new_connection
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.world import build_world
from mcpgym.servers.shipping import SERVER
from tool_calls import fails, ok

Row = dict[str, Any]
NOW = build_world(0).now
TODAY = NOW.date()


@pytest.fixture
def session() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


@pytest.fixture(scope="module")
def seeded() -> Iterator[ToolSession]:
    """A session only read from (never written to) by the tests that share it."""
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


def pages(session: ToolSession, tool: str, key: str, args: dict[str, Any] | None = None) -> list[Row]:
    rows: list[Row] = []
    page: int | None = 1
    while page is not None:
        data = ok(session, tool, {**(args or {}), "page": page, "per_page": 100})
        rows += data[key]
        page = data["next_page"]
    return rows


def shipments(session: ToolSession, **args: Any) -> list[Row]:
    return pages(session, "search_shipments", "shipments", args)


def by_ref(session: ToolSession, reference: str) -> Row:
    return ok(session, "find_shipment_by_reference", {"reference": reference})


def first(session: ToolSession, **args: Any) -> Row:
    """The oldest shipment matching `args`, in full."""
    found = ok(session, "search_shipments", {**args, "sort_order": "asc", "per_page": 1})["shipments"]
    assert found, args
    return by_ref(session, found[0]["reference"])


def valid_draft(session: ToolSession) -> tuple[Row, list[Row]]:
    """A draft shipment and its valid quotes."""
    for shipment in shipments(session, status=["draft"]):
        rates = ok(session, "get_rates", {"shipment_id": shipment["id"]})["rates"]
        if rates:
            return shipment, rates
    raise AssertionError("no draft with valid quotes")


def expired_draft(session: ToolSession) -> tuple[Row, list[Row]]:
    for shipment in shipments(session, status=["draft"]):
        if not ok(session, "get_rates", {"shipment_id": shipment["id"]})["rates"]:
            rates = ok(session, "get_rates", {"shipment_id": shipment["id"], "include_expired": True})["rates"]
            if rates:
                return shipment, rates
    raise AssertionError("no draft with only expired quotes")


def free_label(session: ToolSession) -> Row:
    """A waiting label not on a scheduled pickup, as its shipment."""
    booked = {label["tracking_number"] for p in pages(session, "list_pickups", "pickups", {"status": "scheduled"})
              for label in ok(session, "get_pickup", {"pickup_id": p["id"]})["labels"]}
    for shipment in shipments(session, status=["label_created"]):
        if shipment["tracking_number"] not in booked:
            return shipment
    raise AssertionError("every waiting label is booked")


def next_business_day(day: date, skip: int = 1) -> date:
    while skip:
        day += timedelta(days=1)
        if day.weekday() < 5:
            skip -= 1
    return day


def retail_rows(sql: str) -> list[Row]:
    with closing(new_connection()) as connection:
        load_database(connection, load_server("retail").seeded(0).snapshot)
        connection.row_factory = sqlite3.Row
        return [dict(row) for row in connection.execute(sql)]


def stamp(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text.replace("Z", ""))


# ---------------------------------------------------------------- the seeded world


def test_every_shipped_order_has_its_shipment_with_the_orders_address_and_dates(seeded: ToolSession) -> None:
    orders = retail_rows("SELECT * FROM orders WHERE status IN ('shipped', 'delivered') ORDER BY id")
    assert len(orders) > 500
    live = {s["reference"]: s for s in shipments(seeded) if s["status"] != "cancelled"}
    for order in orders[::15]:
        summary = live[order["number"]]
        detail = by_ref(seeded, order["number"])
        assert (detail["ship_name"], detail["ship_line1"], detail["ship_city"], detail["ship_postal_code"]) == (
            order["ship_name"], order["ship_line1"], order["ship_city"], order["ship_postal_code"])
        assert stamp(detail["first_scan_at"]) >= datetime.fromisoformat(order["shipped_at"]).replace(microsecond=0)  # type: ignore[operator]
        if order["status"] == "delivered":
            assert summary["status"] == "delivered"
            assert stamp(detail["delivered_at"]) == datetime.fromisoformat(order["delivered_at"]).replace(microsecond=0)
            assert detail["last_event"]["status"] == "delivered"
        else:
            assert summary["status"] in ("in_transit", "out_for_delivery")


def test_unshipped_orders_wait_unscanned_and_pending_ones_have_no_shipment(seeded: ToolSession) -> None:
    for order in retail_rows("SELECT number, status FROM orders WHERE status IN ('pending', 'paid')"):
        found = seeded.call("find_shipment_by_reference", {"reference": order["number"]})
        if order["status"] == "pending":
            assert (found.error or "").startswith("not_found")
        elif found.ok:
            assert found.data["status"] in ("draft", "label_created") and found.data["first_scan_at"] is None  # type: ignore[index]


def test_recipients_are_world_people(seeded: ToolSession) -> None:
    world = build_world(0)
    organizations = {o.id: o.name for o in world.organizations}
    checked = 0
    for person in world.customers[::5]:
        result = seeded.call("get_recipient_by_email", {"email": person.email.upper()})
        if result.ok:
            data = result.data or {}
            assert (data["name"], data["email"], data["organization_name"]) == (
                person.name, person.email, organizations[person.organization_id])
            checked += 1
    assert checked > 10


def test_late_parcels_in_transit_have_an_open_exception_and_some_deliveries_were_late(seeded: ToolSession) -> None:
    late = shipments(seeded, status=["in_transit", "out_for_delivery"], late_only=True)
    assert late and all(s["is_late"] and s["open_exceptions"] >= 1 for s in late)
    delivered_late = shipments(seeded, status=["delivered"], late_only=True)
    assert 20 < len(delivered_late) < 0.3 * len(shipments(seeded, status=["delivered"]))
    for summary in delivered_late[:10]:
        assert summary["delivered_at"][:10] > summary["estimated_delivery"]


def test_tracking_lists_the_labels_events_in_order(seeded: ToolSession) -> None:
    for summary in shipments(seeded, status=["delivered"])[:30:3]:
        track = ok(seeded, "track_package", {"tracking_number": summary["tracking_number"].lower()})
        events = track["events"]
        assert [e["occurred_at"] for e in events] == sorted(e["occurred_at"] for e in events)
        assert events[0]["status"] == "label_created" and events[1]["status"] == "picked_up"
        assert events[-1] == track["last_event"] and events[-1]["status"] == "delivered"
        assert events[1]["occurred_at"] == track["first_scan_at"]


def test_order_numbers_are_found_with_or_without_the_hash(seeded: ToolSession) -> None:
    assert by_ref(seeded, "1862")["id"] == by_ref(seeded, "#1862")["id"]
    assert by_ref(seeded, "nw-5001")["reference"] == "NW-5001"
    fails(seeded, "find_shipment_by_reference", {"reference": "#99999"}, "not_found")


# ---------------------------------------------------------------- reads


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(per_page=st.integers(40, 100), status=st.sampled_from([None, ["delivered"], ["draft", "label_created"]]),
       carrier=st.sampled_from([None, "ups", "dhl"]))
def test_search_pages_add_up_to_the_total(seeded: ToolSession, per_page: int, status: list[str] | None,
                                          carrier: str | None) -> None:
    args: dict[str, Any] = {k: v for k, v in (("status", status), ("carrier", carrier)) if v}
    rows, page = [], 1
    while page:
        data = ok(seeded, "search_shipments", {**args, "page": page, "per_page": per_page})
        rows += data["shipments"]
        page = data["next_page"]
    assert len(rows) == data["total"] == len({r["id"] for r in rows})
    assert all((not status or r["status"] in status) and (not carrier or r["carrier"] == carrier) for r in rows)
    keys = [(r["created_at"], r["id"]) for r in rows]
    assert keys == sorted(keys, reverse=True)


def test_search_filters(seeded: ToolSession) -> None:
    email = by_ref(seeded, "#1862")["recipient_email"]
    mine = shipments(seeded, recipient_email=email.upper())
    assert mine and all(s["recipient_email"] == email for s in mine)
    assert ok(seeded, "get_recipient_by_email", {"email": email})["shipments"] == len(mine)
    open_ones = shipments(seeded, with_open_exception=True)
    assert open_ones and all(s["open_exceptions"] > 0 for s in open_ones)
    tracked = by_ref(seeded, "#1862")["tracking_number"]
    assert [s["reference"] for s in shipments(seeded, query=tracked)] == ["#1862"]
    window = shipments(seeded, created_after="2025-10-01T00:00:00Z", created_before="2025-11-01T00:00:00Z")
    assert window and all("2025-10" <= s["created_at"][:7] < "2025-11" for s in window)
    fails(seeded, "search_shipments", {"created_after": "2025-11-01T00:00:00Z", "created_before": "2025-10-01T00:00:00Z"},
          "invalid_arguments")


def test_rates_hide_expired_quotes_unless_asked_and_sort(seeded: ToolSession) -> None:
    shipment, rates = valid_draft(seeded)
    assert len(rates) == 11 and not any(r["is_expired"] for r in rates)
    assert [r["amount_cents"] for r in rates] == sorted(r["amount_cents"] for r in rates)
    fastest = ok(seeded, "get_rates", {"shipment_id": shipment["id"], "sort_by": "estimated_days"})["rates"]
    assert [r["estimated_days"] for r in fastest] == sorted(r["estimated_days"] for r in fastest)
    ground = ok(seeded, "get_rates", {"shipment_id": shipment["id"], "level": "ground"})["rates"]
    assert {r["level"] for r in ground} == {"ground"} and len(ground) == 4
    _, old = expired_draft(seeded)
    assert old and all(r["is_expired"] for r in old)


def test_reports_add_up(seeded: ToolSession) -> None:
    window = {"start": "2025-01-01T00:00:00Z", "end": "2025-11-01T00:00:00Z"}
    report = ok(seeded, "carrier_performance", window)
    assert [c["carrier"] for c in report["carriers"]] == ["ups", "fedex", "usps", "dhl"]
    for carrier in report["carriers"]:
        assert carrier["on_time"] + carrier["late"] == carrier["delivered"]
        if carrier["delivered"]:
            assert carrier["on_time_rate"] == round(100 * carrier["on_time"] / carrier["delivered"], 1)
    delivered = [s for s in shipments(seeded, status=["delivered"]) if "2025-01" <= s["delivered_at"][:7] < "2025-11"]
    assert report["delivered"] == len(delivered)
    assert report["late"] == sum(s["is_late"] for s in delivered)
    totals = {group: ok(seeded, "shipping_spend", {**window, "group_by": group}) for group in ("carrier", "service", "month", "warehouse")}
    assert len({(t["labels"], t["net_cents"]) for t in totals.values()}) == 1
    months = [g["key"] for g in totals["month"]["groups"]]
    assert months == sorted(months) and months[0] == "2025-01"
    nets = [g["net_cents"] for g in totals["carrier"]["groups"]]
    assert nets == sorted(nets, reverse=True)
    fails(seeded, "shipping_spend", {"start": "2025-02-01T00:00:00Z", "end": "2025-01-01T00:00:00Z"}, "invalid_arguments")


def test_carriers_warehouses_pickups(seeded: ToolSession) -> None:
    carriers = ok(seeded, "list_carriers")["carriers"]
    assert [c["code"] for c in carriers] == ["ups", "fedex", "usps", "dhl"]
    assert sum(len(c["services"]) for c in carriers) == 11
    warehouses = ok(seeded, "list_warehouses")["warehouses"]
    assert [w["code"] for w in warehouses] == ["EWR1", "RNO1"]
    scheduled = pages(seeded, "list_pickups", "pickups", {"status": "scheduled"})
    assert scheduled and all(date.fromisoformat(p["pickup_date"]) > TODAY for p in scheduled)
    completed = ok(seeded, "list_pickups", {"status": "completed", "per_page": 1})["pickups"][0]
    detail = ok(seeded, "get_pickup", {"pickup_id": completed["id"]})
    assert len(detail["labels"]) == detail["parcels"] >= 1
    assert ok(seeded, "list_pickups", {"confirmation": completed["confirmation"].lower()})["pickups"][0]["id"] == completed["id"]


# ---------------------------------------------------------------- writes


def test_create_buy_schedule_and_void(session: ToolSession) -> None:
    email = by_ref(session, "#1862")["recipient_email"]
    created = ok(session, "create_shipment", {
        "recipient_email": email, "reference": "NW-9100", "ship_name": "Pat Doe", "ship_line1": "1 Pine St",
        "ship_city": "Seattle", "ship_region": "WA", "ship_postal_code": "98101", "weight_oz": 40, "length_in": 12,
        "width_in": 10, "height_in": 6, "description": "Samples"})
    shipment, rates = created["shipment"], created["rates"]
    assert shipment["status"] == "draft" and shipment["warehouse_code"] == "RNO1" and shipment["total_weight_oz"] == 40
    assert len(rates) == 11 and rates == ok(session, "get_rates", {"shipment_id": shipment["id"]})["rates"]
    label = ok(session, "buy_label", {"rate_id": rates[0]["id"]})
    assert label["cost_cents"] == rates[0]["amount_cents"] and label["carrier"] == rates[0]["carrier"]
    after = by_ref(session, "NW-9100")
    assert after["status"] == "label_created" and after["tracking_number"] == label["tracking_number"]
    assert after["last_event"]["status"] == "label_created"
    day = next_business_day(TODAY, 2)
    waiting = {w["code"]: w["awaiting_pickup"] for w in ok(session, "list_warehouses")["warehouses"]}
    pickup = ok(session, "schedule_pickup", {"carrier": label["carrier"], "warehouse": "RNO1", "pickup_date": str(day),
                                             "tracking_numbers": [label["tracking_number"]]})
    assert pickup["status"] == "scheduled" and [p["reference"] for p in pickup["labels"]] == ["NW-9100"]
    assert ok(session, "list_warehouses")["warehouses"][1]["awaiting_pickup"] == waiting["RNO1"] - 1
    voided = ok(session, "void_label", {"tracking_number": label["tracking_number"]})
    assert voided["label"]["status"] == "voided" and voided["label"]["refund_cents"] == label["cost_cents"]
    assert ok(session, "get_pickup", {"pickup_id": pickup["id"]})["labels"] == []
    assert by_ref(session, "NW-9100")["status"] == "draft"
    fails(session, "void_label", {"tracking_number": label["tracking_number"]}, "invalid_arguments")


def test_address_change_before_scan_expires_a_drafts_quotes(session: ToolSession) -> None:
    shipment, _ = valid_draft(session)
    changed = ok(session, "update_delivery_address", {
        "shipment_id": shipment["id"], "ship_line1": "77 Harbor Dr", "ship_city": "Austin", "ship_region": "TX",
        "ship_postal_code": "78701", "ship_name": "Front Desk"})
    assert (changed["ship_line1"], changed["ship_city"], changed["ship_name"]) == ("77 Harbor Dr", "Austin", "Front Desk")
    assert ok(session, "get_rates", {"shipment_id": shipment["id"]})["rates"] == []
    fresh = ok(session, "refresh_rates", {"shipment_id": shipment["id"]})["rates"]
    assert len(fresh) == 11 and not any(r["is_expired"] for r in fresh)


def test_exceptions_reported_and_resolved(session: ToolSession) -> None:
    shipment = first(session, status=["in_transit", "out_for_delivery"])
    reported = ok(session, "report_exception", {"shipment_id": shipment["id"], "kind": "damaged", "note": "Box crushed"})
    assert (reported["status"], reported["reported_by"], reported["reference"]) == ("open", "merchant", shipment["reference"])
    assert by_ref(session, shipment["reference"])["open_exceptions"] == shipment["open_exceptions"] + 1
    resolved = ok(session, "resolve_exception", {"exception_id": reported["id"], "resolution": "Fine after all"})
    assert resolved["status"] == "resolved" and resolved["resolution"] == "Fine after all"
    fails(session, "resolve_exception", {"exception_id": reported["id"], "resolution": "again"}, "invalid_arguments")


def test_cancelling_a_waiting_shipment_voids_its_label_and_a_pickup_can_be_cancelled(session: ToolSession) -> None:
    shipment = first(session, status=["label_created"])
    cancelled = ok(session, "cancel_shipment", {"shipment_id": shipment["id"]})
    assert cancelled["status"] == "cancelled" and cancelled["labels"][0]["status"] == "voided"
    fails(session, "cancel_shipment", {"shipment_id": shipment["id"]}, "invalid_arguments")
    pickup = ok(session, "list_pickups", {"status": "scheduled", "per_page": 1})["pickups"][0]
    assert ok(session, "cancel_pickup", {"pickup_id": pickup["id"]})["status"] == "cancelled"


def test_a_cancelled_reference_can_ship_again(session: ToolSession) -> None:
    shipment = first(session, status=["draft"])
    ok(session, "cancel_shipment", {"shipment_id": shipment["id"]})
    detail = by_ref(session, shipment["reference"])
    again = ok(session, "create_shipment", {
        "recipient_email": detail["recipient_email"], "reference": detail["reference"], "ship_name": detail["ship_name"],
        "ship_line1": detail["ship_line1"], "ship_city": detail["ship_city"], "ship_region": detail["ship_region"],
        "ship_postal_code": detail["ship_postal_code"], "weight_oz": 10, "length_in": 8, "width_in": 6, "height_in": 4})
    assert by_ref(session, shipment["reference"])["id"] == again["shipment"]["id"] != shipment["id"]


# ---------------------------------------------------------------- policy


def test_no_void_cancel_or_address_change_after_the_first_scan(session: ToolSession) -> None:
    for status in (["in_transit"], ["delivered"]):
        shipment = first(session, status=status)
        assert "first scan" in fails(session, "void_label", {"tracking_number": shipment["tracking_number"]}, "forbidden")
        fails(session, "cancel_shipment", {"shipment_id": shipment["id"]}, "forbidden")
        fails(session, "update_delivery_address", {
            "shipment_id": shipment["id"], "ship_line1": "1 Main St", "ship_city": "Boise", "ship_region": "ID",
            "ship_postal_code": "83702"}, "forbidden")


def test_expired_quotes_cannot_be_bought(session: ToolSession) -> None:
    _, rates = expired_draft(session)
    assert "24 hours" in fails(session, "buy_label", {"rate_id": rates[0]["id"]}, "forbidden")


def test_one_active_label_per_shipment(session: ToolSession) -> None:
    shipment, rates = valid_draft(session)
    ok(session, "buy_label", {"rate_id": rates[0]["id"]})
    assert "one active label" in fails(session, "buy_label", {"rate_id": rates[1]["id"]}, "forbidden")
    fails(session, "refresh_rates", {"shipment_id": shipment["id"]}, "forbidden")


def test_a_cancelled_shipment_takes_no_labels_quotes_or_changes(session: ToolSession) -> None:
    shipment, rates = valid_draft(session)
    ok(session, "cancel_shipment", {"shipment_id": shipment["id"]})
    fails(session, "buy_label", {"rate_id": rates[0]["id"]}, "forbidden")
    fails(session, "refresh_rates", {"shipment_id": shipment["id"]}, "forbidden")
    fails(session, "update_delivery_address", {
        "shipment_id": shipment["id"], "ship_line1": "1 Main St", "ship_city": "Boise", "ship_region": "ID",
        "ship_postal_code": "83702"}, "forbidden")


def test_a_reference_ships_once(session: ToolSession) -> None:
    detail = by_ref(session, "#1862")
    assert "one shipment" in fails(session, "create_shipment", {
        "recipient_email": detail["recipient_email"], "reference": "#1862", "ship_name": "X", "ship_line1": "1 Main St",
        "ship_city": "Boise", "ship_region": "ID", "ship_postal_code": "83702", "weight_oz": 10, "length_in": 8,
        "width_in": 6, "height_in": 4}, "forbidden")


@pytest.mark.parametrize("offset", [0, -3, 31, 45])
def test_pickups_only_on_future_business_days_within_30_days(session: ToolSession, offset: int) -> None:
    label = free_label(session)
    args = {"carrier": label["carrier"], "warehouse": label["warehouse_code"],
            "tracking_numbers": [label["tracking_number"]]}
    saturday = TODAY + timedelta(days=(5 - TODAY.weekday()) % 7 or 7)
    for day in (saturday, saturday + timedelta(days=1), TODAY + timedelta(days=offset)):
        if day.weekday() < 5 and TODAY < day <= TODAY + timedelta(days=30):
            continue
        assert "business day" in fails(session, "schedule_pickup", {**args, "pickup_date": str(day)}, "forbidden")


def test_pickups_take_only_waiting_labels_of_their_carrier_and_warehouse(session: ToolSession) -> None:
    label = free_label(session)
    day = str(next_business_day(TODAY))
    base = {"carrier": label["carrier"], "warehouse": label["warehouse_code"], "pickup_date": day}
    other_carrier = "dhl" if label["carrier"] != "dhl" else "ups"
    other_warehouse = "RNO1" if label["warehouse_code"] == "EWR1" else "EWR1"
    fails(session, "schedule_pickup", {**base, "carrier": other_carrier, "tracking_numbers": [label["tracking_number"]]}, "forbidden")
    fails(session, "schedule_pickup", {**base, "warehouse": other_warehouse, "tracking_numbers": [label["tracking_number"]]}, "forbidden")
    scanned = first(session, status=["in_transit"])
    fails(session, "schedule_pickup", {"carrier": scanned["carrier"], "warehouse": scanned["warehouse_code"],
                                       "pickup_date": day, "tracking_numbers": [scanned["tracking_number"]]}, "forbidden")
    booked = ok(session, "get_pickup", {"pickup_id": ok(session, "list_pickups", {"status": "scheduled", "per_page": 1})["pickups"][0]["id"]})
    fails(session, "schedule_pickup", {"carrier": booked["carrier"], "warehouse": booked["warehouse_code"], "pickup_date": day,
                                       "tracking_numbers": [booked["labels"][0]["tracking_number"]]}, "forbidden")
    fails(session, "schedule_pickup", {**base, "tracking_numbers": [label["tracking_number"], "1ZNOPE00000000"]}, "not_found")
    fails(session, "schedule_pickup", {**base, "tracking_numbers": [label["tracking_number"]], "ready_time": "16:00",
                                       "close_time": "17:00"}, "invalid_arguments")


def test_only_future_scheduled_pickups_can_be_cancelled(session: ToolSession) -> None:
    for status in ("completed", "cancelled"):
        pickup = ok(session, "list_pickups", {"status": status, "per_page": 1})["pickups"][0]
        assert "scheduled pickup" in fails(session, "cancel_pickup", {"pickup_id": pickup["id"]}, "forbidden")


def test_exceptions_only_for_parcels_in_transit(session: ToolSession) -> None:
    for status in (["delivered"], ["draft"], ["label_created"], ["cancelled"]):
        shipment = first(session, status=status)
        assert "in transit" in fails(session, "report_exception", {
            "shipment_id": shipment["id"], "kind": "damaged", "note": "Crushed"}, "forbidden")


# ---------------------------------------------------------------- bad ids and arguments


@pytest.mark.parametrize(("tool", "args"), [
    ("get_shipment", {"shipment_id": 987654}), ("get_rates", {"shipment_id": 987654}),
    ("refresh_rates", {"shipment_id": 987654}), ("cancel_shipment", {"shipment_id": 987654}),
    ("buy_label", {"rate_id": 987654}), ("get_pickup", {"pickup_id": 987654}), ("cancel_pickup", {"pickup_id": 987654}),
    ("resolve_exception", {"exception_id": 987654, "resolution": "x"}),
    ("report_exception", {"shipment_id": 987654, "kind": "lost", "note": "x"}),
    ("track_package", {"tracking_number": "1ZNOPE00000000"}), ("void_label", {"tracking_number": "1ZNOPE00000000"}),
    ("get_recipient_by_email", {"email": "nobody@example.com"}),
    ("create_shipment", {"recipient_email": "nobody@example.com", "reference": "NW-1", "ship_name": "A", "ship_line1": "B",
                         "ship_city": "C", "ship_region": "WA", "ship_postal_code": "98101", "weight_oz": 1,
                         "length_in": 1, "width_in": 1, "height_in": 1}),
])
def test_unknown_ids_are_not_found_and_change_nothing(session: ToolSession, tool: str, args: Row) -> None:
    fails(session, tool, args, "not_found")


@pytest.mark.parametrize("args", [
    {"ship_region": "Washington"}, {"ship_postal_code": "9810"}, {"weight_oz": 0}, {"weight_oz": 99999},
    {"length_in": 200}, {"weight_oz": True}, {"reference": ""},
])
def test_bad_shipment_arguments_are_invalid_and_change_nothing(session: ToolSession, args: Row) -> None:
    base = {"recipient_email": by_ref(session, "#1862")["recipient_email"], "reference": "NW-9200", "ship_name": "A",
            "ship_line1": "B", "ship_city": "C", "ship_region": "WA", "ship_postal_code": "98101", "weight_oz": 10,
            "length_in": 8, "width_in": 6, "height_in": 4}
    fails(session, "create_shipment", {**base, **args}, "invalid_arguments")
