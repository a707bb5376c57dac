"""Domain behaviour of the finance server, through ToolSession calls as an agent makes them."""

from __future__ import annotations

import dataclasses
import hashlib
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgym.servers.finance import SERVER
from mcpgym.servers.kernel import ToolSession, build_world
from mcpgym.servers.kernel.initial_state import RowPatch
from tool_calls import fails, ok, uncached_env


@pytest.fixture
def session() -> Iterator[ToolSession]:
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


def all_tickers(session: ToolSession) -> list[dict[str, Any]]:
    return ok(session, "search_tickers", {"per_page": 100})["tickers"]


def funded_portfolio(session: ToolSession, deposit: float) -> int:
    owner = build_world(0).employees[0].email
    return ok(session, "create_portfolio", {"owner_email": owner, "name": "Test account",
                                            "initial_deposit": deposit})["id"]


def statements(session: ToolSession, tool: str, args: dict[str, Any]) -> int:
    """How many SQL statements a successful call sends."""
    count = 0

    def seen(*_: Any) -> None:
        nonlocal count
        count += 1

    context = session.context
    session.context = dataclasses.replace(context, sql=context.sql.traced(seen))
    try:
        ok(session, tool, args)
    finally:
        session.context = context
    return count


def held_position(session: ToolSession) -> tuple[int, dict[str, Any]]:
    """A seeded portfolio id and one of its positions holding at least 2 shares."""
    for summary in ok(session, "list_portfolios", {"per_page": 100})["portfolios"]:
        for position in ok(session, "get_portfolio", {"portfolio_id": summary["id"]})["positions"]:
            if position["quantity"] >= 2:
                return summary["id"], position
    raise AssertionError("no seeded position")


def test_world_organisations_are_listed_under_their_exact_names(session: ToolSession) -> None:
    orgs = {o.id: o for o in build_world(0).organizations}
    linked = 0
    for row in all_tickers(session):
        profile = ok(session, "get_company_profile", {"symbol": row["symbol"]})
        if profile["organization_id"] is not None:
            org = orgs[profile["organization_id"]]
            assert (profile["name"], profile["country"]) == (org.name, org.country)
            assert org.id != "org_000"
            linked += 1
    assert linked >= 20


def test_search_by_name_and_partial_symbol(session: ToolSession) -> None:
    ticker = all_tickers(session)[3]
    by_name = ok(session, "search_tickers", {"query": ticker["name"].split()[0].lower()})["tickers"]
    assert ticker["symbol"] in [t["symbol"] for t in by_name]
    by_symbol = ok(session, "search_tickers", {"query": ticker["symbol"][:2].lower()})["tickers"]
    assert ticker["symbol"] in [t["symbol"] for t in by_symbol]
    assert all(ticker["symbol"][:2] in t["symbol"] or ticker["symbol"][:2].lower() in t["name"].lower()
               for t in by_symbol)


def test_search_pagination_and_filters_are_consistent(session: ToolSession) -> None:
    everything = all_tickers(session)
    pages, page = [], 1
    while page:
        data = ok(session, "search_tickers", {"sort_by": "market_cap", "sort_order": "desc",
                                              "page": page, "per_page": 7})
        assert data["total"] == len(everything)
        pages += data["tickers"]
        page = data["next_page"]
    caps = [t["market_cap"] for t in pages]
    assert caps == sorted(caps, reverse=True) and len(pages) == len(everything)
    threshold = caps[len(caps) // 2]
    energy = ok(session, "search_tickers", {"sector": "Energy", "min_market_cap": threshold, "per_page": 100})
    expected = [t for t in everything if t["sector"] == "Energy" and t["market_cap"] >= threshold]
    assert energy["total"] == len(expected) > 0


def test_quote_agrees_with_daily_bars_and_profile(session: ToolSession) -> None:
    symbol = all_tickers(session)[0]["symbol"]
    quote = ok(session, "get_quotes", {"symbols": [symbol]})["quotes"][0]
    bars = ok(session, "get_price_history", {"symbol": symbol, "period": "5d"})["bars"]
    assert len(bars) == 5
    assert quote["price"] == bars[-1]["close"] and quote["previous_close"] == bars[-2]["close"]
    assert quote["change"] == pytest.approx(bars[-1]["close"] - bars[-2]["close"], abs=0.005)
    assert (quote["day_high"], quote["day_low"], quote["volume"]) == (
        bars[-1]["high"], bars[-1]["low"], bars[-1]["volume"])
    profile = ok(session, "get_company_profile", {"symbol": symbol})
    assert quote["market_cap"] == round(quote["price"] * profile["shares_outstanding"])
    year = ok(session, "get_price_history", {"symbol": symbol, "period": "1y"})["bars"]
    assert quote["fifty_two_week_high"] <= max(b["high"] for b in year)
    assert quote["fifty_two_week_low"] >= min(b["low"] for b in year)
    assert quote["fifty_two_week_low"] <= quote["price"] <= quote["fifty_two_week_high"]


def test_history_covers_five_years_up_to_now(session: ToolSession) -> None:
    now = build_world(0).now.date()
    symbol = all_tickers(session)[0]["symbol"]
    bars = ok(session, "get_price_history", {"symbol": symbol, "period": "max", "interval": "1d"})["bars"]
    days = [date.fromisoformat(b["date"]) for b in bars]
    last_weekday = now - timedelta(days=max(0, now.weekday() - 4))
    assert days[-1] == last_weekday
    assert all(d.weekday() < 5 for d in days) and days == sorted(set(days))
    ytd = ok(session, "get_price_history", {"symbol": symbol, "period": "ytd"})["bars"]
    assert date.fromisoformat(ytd[0]["date"]).year == now.year
    assert ok(session, "get_company_profile", {"symbol": symbol})["listed_on"] == bars[0]["date"]


def test_weekly_and_monthly_bars_aggregate_the_daily_ones(session: ToolSession) -> None:
    symbol = all_tickers(session)[5]["symbol"]
    daily = ok(session, "get_price_history", {"symbol": symbol, "period": "6mo"})["bars"]
    for interval in ("1wk", "1mo"):
        bars = ok(session, "get_price_history", {"symbol": symbol, "period": "6mo", "interval": interval})["bars"]
        assert sum(b["volume"] for b in bars) == sum(b["volume"] for b in daily)
        assert bars[0]["open"] == daily[0]["open"] and bars[-1]["close"] == daily[-1]["close"]
        assert max(b["high"] for b in bars) == max(b["high"] for b in daily)
        assert min(b["low"] for b in bars) == min(b["low"] for b in daily)
        assert len(bars) < len(daily)


def test_compare_returns_agrees_with_history_and_dividends(session: ToolSession) -> None:
    payer = ok(session, "get_dividends", {"status": "paid", "per_page": 1})["dividends"][0]["symbol"]
    symbols = [payer, all_tickers(session)[0]["symbol"]]
    result = ok(session, "compare_returns", {"symbols": symbols, "period": "2y"})
    for row in result["returns"]:
        bars = ok(session, "get_price_history", {"symbol": row["symbol"], "period": "2y"})["bars"]
        assert (row["start_price"], row["end_price"]) == (bars[0]["close"], bars[-1]["close"])
        after = (date.fromisoformat(row["start_date"]) + timedelta(days=1)).isoformat()
        dividends = ok(session, "get_dividends", {"symbol": row["symbol"], "ex_after": after,
                                                  "ex_before": row["end_date"], "per_page": 100})
        assert row["dividends_per_share"] == pytest.approx(dividends["total_amount"], abs=0.01)
        expected = (bars[-1]["close"] + dividends["total_amount"]) / bars[0]["close"] * 100 - 100
        assert row["total_return_percent"] == pytest.approx(expected, abs=0.02)
    assert result["returns"][0]["dividends_per_share"] > 0
    ranks = {r["symbol"]: r["total_return_percent"] for r in result["returns"]}
    assert [ranks[s] for s in result["ranking"]] == sorted(ranks.values(), reverse=True)


def test_fundamentals_ratios_derive_from_stored_figures(session: ToolSession) -> None:
    payer = ok(session, "get_dividends", {"status": "paid", "per_page": 1})["dividends"][0]["symbol"]
    years = ok(session, "get_fundamentals", {"symbol": payer})["years"]
    assert [y["fiscal_year"] for y in years] == sorted((y["fiscal_year"] for y in years), reverse=True)
    assert len(years) == 5
    for newer, older in zip(years, years[1:]):
        assert newer["revenue_growth_percent"] == pytest.approx(
            (newer["revenue"] / older["revenue"] - 1) * 100, abs=0.01)
    latest = years[0]
    if latest["eps"] > 0:
        assert latest["pe_ratio"] == pytest.approx(latest["year_end_price"] / latest["eps"], abs=0.01)
    in_year = ok(session, "get_dividends", {"symbol": payer, "ex_after": f"{latest['fiscal_year']}-01-01",
                                            "ex_before": f"{latest['fiscal_year']}-12-31"})
    assert latest["dividends_per_share"] == pytest.approx(in_year["total_amount"], abs=0.01)


def test_dividend_calendar_status_and_totals(session: ToolSession) -> None:
    now = build_world(0).now.date()
    upcoming = ok(session, "get_dividends", {"status": "upcoming", "per_page": 100})
    assert upcoming["total"] > 0
    assert all(date.fromisoformat(d["pay_date"]) > now for d in upcoming["dividends"])
    pages, page = [], 1
    while page:
        data = ok(session, "get_dividends", {"page": page, "per_page": 100})
        pages += data["dividends"]
        page = data["next_page"]
    assert len(pages) == data["total"]
    assert sum(d["amount"] for d in pages) == pytest.approx(data["total_amount"], abs=0.01)


def test_employee_lookup_by_email_matches_the_world(session: ToolSession) -> None:
    world = build_world(0)
    portfolios = ok(session, "list_portfolios", {"per_page": 100})["portfolios"]
    treasury = [p for p in portfolios if p["kind"] == "treasury"]
    assert len(treasury) == 1
    employees = {p.email: p for p in world.employees}
    for portfolio in portfolios:
        person = employees[portfolio["owner_email"]]
        investor = ok(session, "get_investor", {"email": person.email.upper()})
        assert (investor["person_id"], investor["name"], investor["email"], investor["organization_name"]) == (
            person.id, person.name, person.email, world.home.name)
        assert portfolio["id"] in [p["id"] for p in investor["portfolios"]]
    customer = world.customers[0].email
    fails(session, "get_investor", {"email": customer}, "not_found")


def test_seeded_ledgers_add_up(session: ToolSession) -> None:
    for summary in ok(session, "list_portfolios", {"per_page": 100})["portfolios"]:
        detail = ok(session, "get_portfolio", {"portfolio_id": summary["id"], "include_closed": True})
        net = ok(session, "list_transactions", {"portfolio_id": summary["id"]})["net_amount"]
        assert net == pytest.approx(detail["cash"], abs=0.05)
        open_ = [p for p in detail["positions"] if p["quantity"] > 0]
        assert detail["market_value"] == pytest.approx(sum(p["market_value"] for p in open_), abs=0.05)
        gains = detail["dividends_received"] + detail["realized_pnl"] + detail["unrealized_pnl"]
        assert detail["total_gain"] == pytest.approx(gains, abs=1.0)
        assert detail["realized_pnl"] == pytest.approx(sum(p["realized_pnl"] for p in detail["positions"]), abs=0.05)


def test_portfolio_history_ends_at_the_current_value(session: ToolSession) -> None:
    detail = ok(session, "get_portfolio", {"portfolio_id": 1})
    history = ok(session, "get_portfolio_history", {"portfolio_id": 1, "period": "max", "interval": "1d"})
    assert history["points"][-1]["total_value"] == pytest.approx(detail["total_value"], abs=0.05)
    assert history["points"][-1]["net_deposits"] == pytest.approx(detail["net_deposits"], abs=0.05)
    created = datetime.fromisoformat(detail["created_at"].rstrip("Z")).date()
    assert date.fromisoformat(history["points"][0]["date"]) >= created
    assert (date.fromisoformat(history["points"][-1]["date"]) - created).days > 365
    monthly = ok(session, "get_portfolio_history", {"portfolio_id": 1, "period": "1y", "interval": "1mo"})
    assert monthly["points"][-1] == history["points"][-1]
    assert 12 <= len(monthly["points"]) <= 13
    expected_gain = monthly["end_value"] - monthly["start_value"] - monthly["net_flows"]
    assert monthly["gain"] == pytest.approx(expected_gain, abs=0.05)


def test_buy_moves_cash_into_a_position(session: ToolSession) -> None:
    portfolio_id = funded_portfolio(session, 50_000)
    symbol = all_tickers(session)[2]["symbol"]
    price = ok(session, "get_quotes", {"symbols": [symbol]})["quotes"][0]["price"]
    quantity = int(20_000 // price)
    trade = ok(session, "buy_shares", {"portfolio_id": portfolio_id, "symbol": symbol.lower(), "quantity": quantity})
    assert trade["cash"] == pytest.approx(50_000 - quantity * price, abs=0.01)
    assert trade["transaction"]["amount"] == pytest.approx(-quantity * price, abs=0.01)
    trade = ok(session, "buy_shares", {"portfolio_id": portfolio_id, "symbol": symbol, "quantity": 1})
    detail = ok(session, "get_portfolio", {"portfolio_id": portfolio_id})
    (position,) = detail["positions"]
    assert (position["symbol"], position["quantity"]) == (symbol, quantity + 1)
    assert position["average_cost"] == pytest.approx(price, abs=0.001)
    assert detail["total_value"] == pytest.approx(50_000, abs=0.02)
    history = ok(session, "list_transactions", {"portfolio_id": portfolio_id, "kind": ["buy"]})
    assert history["total"] == 2 and history["transactions"][0]["id"] == trade["transaction"]["id"]


def test_sell_realises_pnl_at_average_cost(session: ToolSession) -> None:
    portfolio_id, position = held_position(session)
    before = ok(session, "get_portfolio", {"portfolio_id": portfolio_id})
    quantity = position["quantity"] // 2
    trade = ok(session, "sell_shares", {"portfolio_id": portfolio_id, "symbol": position["symbol"],
                                        "quantity": quantity})
    proceeds = quantity * position["price"]
    released = position["cost_basis"] * quantity / position["quantity"]
    assert trade["transaction"]["realized_pnl"] == pytest.approx(proceeds - released, abs=0.02)
    assert trade["cash"] == pytest.approx(before["cash"] + proceeds, abs=0.01)
    assert trade["position"]["quantity"] == position["quantity"] - quantity
    after = ok(session, "get_portfolio", {"portfolio_id": portfolio_id})
    assert after["realized_pnl"] == pytest.approx(before["realized_pnl"] + trade["transaction"]["realized_pnl"],
                                                  abs=0.01)
    assert after["total_value"] == pytest.approx(before["total_value"], abs=0.02)


def test_cannot_sell_more_than_held(session: ToolSession) -> None:
    portfolio_id, position = held_position(session)
    before = session.state_hash()
    message = fails(session, "sell_shares", {"portfolio_id": portfolio_id, "symbol": position["symbol"],
                                             "quantity": position["quantity"] + 1}, "forbidden")
    assert str(position["quantity"]) in message
    held_symbols = {p["symbol"] for p in ok(session, "get_portfolio", {"portfolio_id": portfolio_id,
                                                                        "include_closed": True})["positions"]}
    other = next(t["symbol"] for t in all_tickers(session) if t["symbol"] not in held_symbols)
    fails(session, "sell_shares", {"portfolio_id": portfolio_id, "symbol": other, "quantity": 1}, "forbidden")
    assert session.state_hash() == before


def test_cannot_spend_or_withdraw_more_than_the_cash(session: ToolSession) -> None:
    portfolio_id = funded_portfolio(session, 1_000)
    before = session.state_hash()
    symbol = max(all_tickers(session), key=lambda t: t["price"])["symbol"]
    message = fails(session, "buy_shares", {"portfolio_id": portfolio_id, "symbol": symbol, "quantity": 1000},
                    "forbidden")
    assert "transfer_cash" in message
    fails(session, "transfer_cash", {"portfolio_id": portfolio_id, "direction": "withdrawal", "amount": 1000.01},
          "forbidden")
    assert session.state_hash() == before
    ok(session, "transfer_cash", {"portfolio_id": portfolio_id, "direction": "withdrawal", "amount": 1000})
    assert ok(session, "get_portfolio", {"portfolio_id": portfolio_id})["cash"] == 0


def test_unknown_ids_name_the_search_tool(session: ToolSession) -> None:
    assert "search_tickers" in fails(session, "get_quotes", {"symbols": ["ZZZZZ"]}, "not_found")
    fails(session, "get_price_history", {"symbol": "ZZZZZ"}, "not_found")
    assert "list_portfolios" in fails(session, "get_portfolio", {"portfolio_id": 9999}, "not_found")
    assert "list_watchlists" in fails(session, "get_watchlist", {"watchlist_id": 9999}, "not_found")
    fails(session, "create_portfolio", {"owner_email": "nobody@example.com", "name": "X"}, "not_found")


def test_portfolio_names_are_unique_per_owner(session: ToolSession) -> None:
    portfolio_id = funded_portfolio(session, 0)
    owner = ok(session, "get_portfolio", {"portfolio_id": portfolio_id})["owner_email"]
    before = session.state_hash()
    message = fails(session, "create_portfolio", {"owner_email": owner, "name": "Test account"}, "invalid_arguments")
    assert str(portfolio_id) in message
    assert session.state_hash() == before


def test_watchlist_lifecycle(session: ToolSession) -> None:
    owner = build_world(0).employees[1].email
    symbols = [t["symbol"] for t in all_tickers(session)[:3]]
    created = ok(session, "create_watchlist", {"owner_email": owner, "name": "Ideas", "symbols": symbols[:2]})
    change = ok(session, "add_to_watchlist", {"watchlist_id": created["id"], "symbols": symbols[1:]})
    assert change["changed"] == [symbols[2]] and change["unchanged"] == [symbols[1]]
    detail = ok(session, "get_watchlist", {"watchlist_id": created["id"]})
    quotes = ok(session, "get_quotes", {"symbols": symbols})["quotes"]
    assert [e["symbol"] for e in detail["entries"]] == sorted(symbols)
    assert {e["symbol"]: e["price"] for e in detail["entries"]} == {q["symbol"]: q["price"] for q in quotes}
    ok(session, "remove_from_watchlist", {"watchlist_id": created["id"], "symbols": [symbols[0]]})
    mine = ok(session, "list_watchlists", {"owner_email": owner})["watchlists"]
    assert next(w for w in mine if w["id"] == created["id"])["symbols"] == sorted(symbols[1:])
    containing = ok(session, "list_watchlists", {"symbol": symbols[2], "per_page": 100})["watchlists"]
    assert created["id"] in [w["id"] for w in containing]
    ok(session, "delete_watchlist", {"watchlist_id": created["id"]})
    fails(session, "get_watchlist", {"watchlist_id": created["id"]}, "not_found")
    assert created["id"] not in [w["id"] for w in ok(session, "get_investor", {"email": owner})["watchlists"]]


def test_watchlist_limit_and_removing_absent_symbols(session: ToolSession) -> None:
    watchlist = ok(session, "list_watchlists", {})["watchlists"][0]
    absent = [t["symbol"] for t in all_tickers(session) if t["symbol"] not in watchlist["symbols"]]
    before = session.state_hash()
    fails(session, "remove_from_watchlist", {"watchlist_id": watchlist["id"], "symbols": absent[:1]},
          "invalid_arguments")
    room = 50 - len(watchlist["symbols"])
    ok(session, "add_to_watchlist", {"watchlist_id": watchlist["id"], "symbols": absent[:min(room, 20)]})
    for start in range(20, room, 20):
        batch = absent[start:min(room, start + 20)]
        ok(session, "add_to_watchlist", {"watchlist_id": watchlist["id"], "symbols": batch})
    full = session.state_hash()
    assert full != before
    fails(session, "add_to_watchlist", {"watchlist_id": watchlist["id"], "symbols": absent[room:room + 1]},
          "forbidden")
    assert session.state_hash() == full


@pytest.mark.slow  # every server's seeded bytes across two processes: test_kernel, in the default suite
def test_same_seed_builds_the_same_database_in_another_process(tmp_path: Path) -> None:
    code = ("import hashlib\n"
            "from mcpgym.servers.kernel import ToolSession\n"
            "from mcpgym.servers.finance import SERVER\n"
            "print(ToolSession(SERVER, 0).state_hash(), hashlib.sha256(SERVER.seeded(0).snapshot).hexdigest())")
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           cwd=tmp_path, env=uncached_env()).stdout.strip() for _ in range(2)}
    snapshot = hashlib.sha256(SERVER.seeded(0).snapshot).hexdigest()
    assert runs == {f"{ToolSession(SERVER, 0).state_hash()} {snapshot}"}


# ---------------------------------------------------------------- batched reads and plain-SQL writes


@pytest.fixture(scope="module")
def reader() -> Iterator[ToolSession]:
    """One session for read-only calls (reads never change its state)."""
    with ToolSession(SERVER, 0) as fresh:
        yield fresh


@pytest.fixture(scope="module")
def symbols(reader: ToolSession) -> list[str]:
    return [t["symbol"] for t in all_tickers(reader)]


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_symbols_are_looked_up_together_in_the_order_given(reader: ToolSession, symbols: list[str],
                                                          data: st.DataObject) -> None:
    known = st.sampled_from(symbols).map(str.lower) | st.sampled_from(symbols).map(lambda s: f" {s} ")
    unknown = st.sampled_from(["ZZZZ", "N%PE", "A_C", " ", "GREE'"])
    given_symbols = data.draw(st.lists(known | unknown, min_size=1, max_size=20))
    result = reader.call("get_quotes", {"symbols": given_symbols})
    first_unknown = next((s for s in given_symbols if s.strip().upper() not in symbols), None)
    if first_unknown is not None:
        assert result.error == (f"not_found: no ticker with symbol {first_unknown!r}. Use search_tickers to find a "
                                "symbol by company name or partial symbol.")
    else:
        expected = list(dict.fromkeys(s.strip().upper() for s in given_symbols))
        assert result.data is not None and [q["symbol"] for q in result.data["quotes"]] == expected


def test_batched_reads_cost_the_same_statements_for_one_symbol_or_many(reader: ToolSession,
                                                                       symbols: list[str]) -> None:
    for tool, args, many in [("get_quotes", {}, 20), ("compare_returns", {"period": "2y"}, 10)]:
        one = statements(reader, tool, {**args, "symbols": symbols[:1]})
        assert statements(reader, tool, {**args, "symbols": symbols[-many:]}) == one
    owner = build_world(0).employees[2].email
    with ToolSession(SERVER, 0) as session:
        one = statements(session, "create_watchlist", {"owner_email": owner, "name": "One", "symbols": symbols[:1]})
        fifty = statements(session, "create_watchlist", {"owner_email": owner, "name": "All", "symbols": symbols[:50]})
        assert fifty == one
        listed = {w["name"]: w["symbols"] for w in ok(session, "list_watchlists", {"owner_email": owner})["watchlists"]}
        assert listed["All"] == sorted(symbols[:50]) and listed["One"] == symbols[:1]


def test_fewer_fiscal_years_are_the_newest_of_all(reader: ToolSession, symbols: list[str]) -> None:
    for symbol in symbols[::7]:
        every = ok(reader, "get_fundamentals", {"symbol": symbol})["years"]
        for years in range(1, 5):
            assert ok(reader, "get_fundamentals", {"symbol": symbol, "years": years})["years"] == every[:years]
        assert all(y["revenue_growth_percent"] is not None for y in every[:-1])


def test_like_wildcards_in_searches_match_literally(reader: ToolSession, symbols: list[str]) -> None:
    everything = all_tickers(reader)
    for text in ("%", "_", "/", "a%", "e_"):
        found = ok(reader, "search_tickers", {"query": text, "per_page": 100})
        expected = [t["symbol"] for t in everything if text in t["name"].lower() or text in t["symbol"].lower()]
        assert [t["symbol"] for t in found["tickers"]] == expected
        assert ok(reader, "search_tickers", {"industry": text})["total"] == sum(
            text in t["industry"].lower() for t in everything)


def test_compare_returns_names_the_first_ticker_without_days_in_the_window(reader: ToolSession,
                                                                           symbols: list[str]) -> None:
    profiles = [ok(reader, "get_company_profile", {"symbol": s}) for s in symbols]
    late = sorted(profiles, key=lambda p: p["listed_on"])[-2:]
    before = (date.fromisoformat(late[0]["listed_on"]) - timedelta(days=1)).isoformat()
    result = reader.call("compare_returns", {"symbols": [symbols[0], late[1]["symbol"], late[0]["symbol"]],
                                             "start": "2015-01-01", "end": before})
    assert result.error is not None
    assert result.error.startswith(f"invalid_arguments: {late[1]['symbol']} has no trading days")


def test_selling_out_and_buying_again_reopens_the_same_position(session: ToolSession) -> None:
    portfolio_id, position = held_position(session)
    symbol, quantity = position["symbol"], position["quantity"]
    sold = ok(session, "sell_shares", {"portfolio_id": portfolio_id, "symbol": symbol, "quantity": quantity})
    assert (sold["position"]["quantity"], sold["position"]["cost_basis"], sold["position"]["average_cost"]) == (0, 0, 0)
    realized = position["realized_pnl"] + sold["transaction"]["realized_pnl"]
    assert sold["position"]["realized_pnl"] == pytest.approx(realized, abs=0.01)
    assert symbol not in [p["symbol"] for p in ok(session, "get_portfolio", {"portfolio_id": portfolio_id})["positions"]]
    closed = ok(session, "get_portfolio", {"portfolio_id": portfolio_id, "include_closed": True})["positions"]
    assert next(p for p in closed if p["symbol"] == symbol)["quantity"] == 0
    bought = ok(session, "buy_shares", {"portfolio_id": portfolio_id, "symbol": symbol, "quantity": 3})["position"]
    now = build_world(0).now.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert (bought["quantity"], bought["average_cost"], bought["opened_at"]) == (3, bought["price"], now)
    assert bought["realized_pnl"] == sold["position"]["realized_pnl"]
    positions = [c for c in session.diff() if c.table == "positions"]
    assert [c.op for c in positions] == ["update"]
    assert positions[0].after is not None and positions[0].after["quantity"] == 3


def test_watchlist_writes_touch_only_their_rows(session: ToolSession, symbols: list[str]) -> None:
    owner = build_world(0).employees[1].email
    created = ok(session, "create_watchlist", {"owner_email": owner, "name": "Ideas",
                                               "symbols": [symbols[2], symbols[0].lower(), symbols[2]]})
    assert created["symbols"] == sorted({symbols[0], symbols[2]})
    change = ok(session, "add_to_watchlist", {"watchlist_id": created["id"],
                                              "symbols": [symbols[5], symbols[0], symbols[5], symbols[4]]})
    assert (change["changed"], change["unchanged"]) == ([symbols[5], symbols[4]], [symbols[0]])
    fails(session, "remove_from_watchlist", {"watchlist_id": created["id"], "symbols": [symbols[4], symbols[9]]},
          "invalid_arguments")
    fails(session, "create_watchlist", {"owner_email": owner, "name": "Other", "symbols": [symbols[1], "ZZZZ"]},
          "not_found")
    fails(session, "create_watchlist", {"owner_email": owner, "name": "Ideas"}, "invalid_arguments")
    removed = ok(session, "remove_from_watchlist", {"watchlist_id": created["id"],
                                                    "symbols": [symbols[4], symbols[0], symbols[4]]})
    assert removed["watchlist"]["symbols"] == sorted({symbols[2], symbols[5]})
    seeded = ok(session, "list_watchlists", {"per_page": 100})["watchlists"]
    ok(session, "delete_watchlist", {"watchlist_id": created["id"]})
    assert ok(session, "list_watchlists", {"per_page": 100})["watchlists"] == [
        w for w in seeded if w["id"] != created["id"]]
    assert session.diff() == []


def test_a_close_without_an_earlier_bar_in_ten_days_has_no_change() -> None:
    with ToolSession(SERVER, 0) as seeded:
        ticker_id = seeded.context.sql.scalar("SELECT id FROM tickers WHERE symbol = 'GREE'")
        bars = ok(seeded, "get_price_history", {"symbol": "GREE", "period": "1mo"})["bars"]
    last = date.fromisoformat(bars[-1]["date"])
    patch = RowPatch.model_validate([
        {"op": "delete", "table": "price_bars", "key": {"ticker_id": ticker_id, "day": bar["date"]}}
        for bar in bars[:-1] if date.fromisoformat(bar["date"]) > last - timedelta(days=10)])
    with ToolSession(SERVER, 0, patch) as session:
        quote = ok(session, "get_quotes", {"symbols": ["GREE"]})["quotes"][0]
        assert (quote["price"], quote["previous_close"], quote["change"], quote["change_percent"]) == (
            bars[-1]["close"], None, None, None)
        (found,) = [t for t in ok(session, "search_tickers", {"query": "gree"})["tickers"] if t["symbol"] == "GREE"]
        assert (found["price"], found["change_percent"]) == (bars[-1]["close"], None)
