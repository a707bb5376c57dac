"""Finance task families: dividend, return and quote comparisons, sector leaders with
drill-down, monthly portfolio income series, a month's trading range, a portfolio's value
over a window, trades, opening a funded portfolio, a conditional trim and a conditional
withdrawal, watchlists made from top holdings and pruned of the day's laggard, and two-turn
tasks (add the day's top mover to a watchlist; review a watchlist, then delete it; find its
laggard, then remove it; quote two companies, then watch them; check cash and a price, then
top up and buy; check cash, then move some into a new portfolio).

Users name what they know: company names (not always symbols), their work email, the name of
their portfolio or watchlist, calendar years and months. Portfolio and watchlist ids come from
a lookup by email, bound by position; a check pins the name at that position.
"""

from __future__ import annotations

import calendar
import random
from datetime import date, timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, previous_month

SERVER = "finance"

SECTORS = (
    "Technology", "Healthcare", "Financial Services", "Consumer Cyclical", "Consumer Defensive",
    "Industrials", "Energy", "Utilities", "Real Estate", "Communication Services", "Basic Materials",
)
FULL_YEARS = (2021, 2022, 2023, 2024)
"""Calendar years with complete dividend and price history in every seeded world."""


# ---------------------------------------------------------------- sampling helpers


_CACHE: dict[tuple[str, int], Any] = {}
"""Market data that no tool writes (tickers, dividends), per world seed."""


def _tickers(view: WorldView) -> list[dict[str, Any]]:
    key = ("tickers", view.seed)
    if key not in _CACHE:
        _CACHE[key] = view.read(SERVER, "search_tickers", per_page=100)["tickers"]
    return _CACHE[key]


def _named(view: WorldView) -> list[dict[str, Any]]:
    """Tickers whose full company name finds only them in search_tickers(query=name)."""
    key = ("named", view.seed)
    if key not in _CACHE:
        tickers = _tickers(view)
        _CACHE[key] = [
            t for t in tickers
            if sum(t["name"].lower() in (o["name"].lower() + "\n" + o["symbol"].lower()) for o in tickers) == 1
        ]
    return _CACHE[key]


def _dividends_by_year(view: WorldView) -> dict[str, dict[int, float]]:
    """symbol -> year -> dividends per share with ex-date in that year (full years only)."""
    key = ("dividends", view.seed)
    if key not in _CACHE:
        table: dict[str, dict[int, float]] = {}
        page: int | None = 1
        while page:
            data = view.read(SERVER, "get_dividends", ex_after=f"{FULL_YEARS[0]}-01-01",
                             ex_before=f"{FULL_YEARS[-1]}-12-31", per_page=100, page=page)
            for d in data["dividends"]:
                year = int(d["ex_date"][:4])
                table.setdefault(d["symbol"], {}).setdefault(year, 0.0)
                table[d["symbol"]][year] = round(table[d["symbol"]][year] + d["amount"], 2)
            page = data["next_page"]
        _CACHE[key] = table
    return _CACHE[key]


def _portfolios(view: WorldView) -> list[dict[str, Any]]:
    return view.read(SERVER, "list_portfolios", per_page=100)["portfolios"]


def _owned(view: WorldView, email: str, portfolio_id: int) -> int | None:
    """Position of the portfolio among its owner's portfolios (list_portfolios by email)."""
    mine = view.read(SERVER, "list_portfolios", owner_email=email, per_page=25)["portfolios"]
    ids = [p["id"] for p in mine]
    return ids.index(portfolio_id) if portfolio_id in ids else None


def _month_days(year: int, month: int) -> tuple[str, str]:
    """First and last calendar day of a month (list_transactions' end is inclusive)."""
    last = calendar.monthrange(year, month)[1]
    return f"{year:04d}-{month:02d}-01", f"{year:04d}-{month:02d}-{last:02d}"


def _first_name(full: str) -> str:
    return full.split()[0]


def _year(year: int) -> dict[str, Any]:
    """get_dividends arguments for ex-dates within one calendar year."""
    return {"ex_after": f"{year}-01-01", "ex_before": f"{year}-12-31", "per_page": 25}


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


# ---------------------------------------------------------------- 1. comparison over years


class DividendYearComparison(Family):
    """Dividends per share a company paid (by ex-date) in one year against another, and the
    percentage change."""

    name = "finance.dividend-year-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        table = _dividends_by_year(view)
        payers = [t for t in _named(view) if t["symbol"] in table]
        if not payers:
            return None
        ticker = rng.choice(payers)
        years = table[ticker["symbol"]]
        pairs = [(a, b) for a in FULL_YEARS for b in FULL_YEARS
                 if a < b and years.get(a, 0.0) > 0 and years.get(a) != years.get(b, 0.0)]
        if not pairs:
            return None
        first, second = rng.choice(pairs)
        company = ticker["name"]
        user = [
            f"How much did {company} pay in dividends per share in {first} versus {second} (by ex-dividend date)? What's the percentage change?",
            f"Compare {_possessive(company)} dividends per share for {first} and {second}, counting dividends by ex-date, and give me the change from {first} to {second} in percent.",
            f"I'm looking at {_possessive(company)} dividend record. Total dividends per share with ex-dates in {first}, the same for {second}, and the percent change between them?",
        ]
        return Draft(
            family=self.name,
            key=f"{ticker['symbol']}|{first}|{second}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_tickers", "arguments": {"query": company, "per_page": 5}},
                    {"id": "c2", "tool": "get_dividends", "arguments": _year(first), "bind": {"symbol": "{c1.tickers.0.symbol}"}},
                    {"id": "c3", "tool": "get_dividends", "arguments": _year(second), "bind": {"symbol": "{c1.tickers.0.symbol}"}},
                ],
                "facts": [
                    {"name": f"dividends per share in {first}", "expr": "{c2.total_amount}", "value": None},
                    {"name": f"dividends per share in {second}", "expr": "{c3.total_amount}", "value": None},
                    {"name": "percent change", "expr": "round(100 * ({c3.total_amount} - {c2.total_amount}) / {c2.total_amount}, 1)", "value": None},
                ],
            }],
            checks=["{c1.total} == 1", "{c2.total_amount} > 0", "{c2.total_amount} != {c3.total_amount}"],
        )


WINDOWS = (
    *((f"{y}", f"{y}-01-01", f"{y}-12-31") for y in FULL_YEARS),
    *((f"the first half of {y}", f"{y}-01-01", f"{y}-06-30") for y in (2023, 2024, 2025)),
    *((f"the second half of {y}", f"{y}-07-01", f"{y}-12-31") for y in (2022, 2023, 2024)),
    ("the third quarter of 2025", "2025-07-01", "2025-09-30"),
)


class ReturnComparison(Family):
    """Total returns of two companies over the same window, which did better, and by how
    many percentage points."""

    name = "finance.return-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        named = _named(view)
        if len(named) < 2:
            return None
        a, b = rng.sample(named, 2)
        label, start, end = rng.choice(WINDOWS)
        data = view.read(SERVER, "compare_returns", symbols=[a["symbol"], b["symbol"]], start=start, end=end)
        returns = data["returns"]
        if not all(r["full_period"] for r in returns) or returns[0]["total_return_percent"] == returns[1]["total_return_percent"]:
            return None
        best = 0 if data["ranking"][0] == returns[0]["symbol"] else 1
        user = [
            f"Over {label}, which did better including dividends: {a['name']} or {b['name']}? Give me both total returns and the gap in percentage points.",
            f"Compare the total return (price plus dividends) of {a['name']} and {b['name']} over {label}. Which one came out ahead, and by how much?",
            f"I want the total returns of {a['name']} and {b['name']} for {label}, which was the better investment, and the difference between the two in points.",
        ]
        return Draft(
            family=self.name,
            key=f"{'|'.join(sorted((a['symbol'], b['symbol'])))}|{start}|{end}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_tickers", "arguments": {"query": a["name"], "per_page": 5}},
                    {"id": "c2", "tool": "search_tickers", "arguments": {"query": b["name"], "per_page": 5}},
                    {"id": "c3", "tool": "compare_returns", "arguments": {"start": start, "end": end},
                     "bind": {"symbols": "[{c1.tickers.0.symbol}, {c2.tickers.0.symbol}]"}},
                ],
                "facts": [
                    {"name": f"{a['name']} total return (%)", "expr": "{c3.returns.0.total_return_percent}", "value": None},
                    {"name": f"{b['name']} total return (%)", "expr": "{c3.returns.1.total_return_percent}", "value": None},
                    {"name": "better performer", "expr": f"{{c3.returns.{best}.name}}", "value": None},
                    {"name": "gap in percentage points",
                     "expr": "round(abs({c3.returns.0.total_return_percent} - {c3.returns.1.total_return_percent}), 2)", "value": None},
                ],
            }],
            checks=[
                "{c1.total} == 1", "{c2.total} == 1",
                f"{{c3.ranking.0}} == {{c3.returns.{best}.symbol}}",
                "{c3.returns.0.full_period} and {c3.returns.1.full_period}",
                "{c3.returns.0.total_return_percent} != {c3.returns.1.total_return_percent}",
            ],
        )


# ---------------------------------------------------------------- 2. argmax / argmin, drill-down


LEADERS = (
    # (sort_by, sort_order, what the user asks for)
    ("market_cap", "desc", "is the largest by market cap"),
    ("market_cap", "asc", "is the smallest by market cap"),
    ("price", "desc", "has the highest share price"),
    ("price", "asc", "has the lowest share price"),
    ("volume", "desc", "had the most shares traded on the latest trading day"),
)


class SectorLeaderDrillDown(Family):
    """The top company of a sector (optionally on one exchange) by market cap, price or volume;
    its headquarters and headcount, its latest annual revenue, and how many watchlists hold it."""

    name = "finance.sector-leader-drill-down"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        sector = rng.choice(SECTORS)
        exchange = rng.choice((None, "NYSE", "NASDAQ"))
        sort_by, order, words = rng.choice(LEADERS)
        search: dict[str, Any] = {"sector": sector, "sort_by": sort_by, "sort_order": order, "per_page": 2}
        if exchange:
            search["exchange"] = exchange
        found = view.read(SERVER, "search_tickers", **search)
        if found["total"] < 2:
            return None
        where = f"{sector} stocks listed on the {exchange}" if exchange else f"{sector} stocks"
        user = [
            f"Among {where}, which one {words}? Tell me where the company is headquartered, how many employees it has, its revenue in the latest fiscal year, and how many of our employees' watchlists include it.",
            f"Of the {where}, find the one that {words}: I need the company name, its headquarters city, headcount, latest annual revenue, and the number of watchlists it appears on.",
            f"Which of the {where} {words}? Give its name, HQ city, number of employees, revenue for its most recent fiscal year, and how many watchlists track it.",
        ]
        return Draft(
            family=self.name,
            key=f"{sector}|{exchange or 'any'}|{sort_by}|{order}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_tickers", "arguments": search},
                    {"id": "c2", "tool": "get_company_profile", "bind": {"symbol": "{c1.tickers.0.symbol}"}},
                    {"id": "c3", "tool": "get_fundamentals", "arguments": {"years": 1}, "bind": {"symbol": "{c1.tickers.0.symbol}"}},
                    {"id": "c4", "tool": "list_watchlists", "arguments": {"per_page": 100}, "bind": {"symbol": "{c1.tickers.0.symbol}"}},
                ],
                "facts": [
                    {"name": "company", "expr": "{c1.tickers.0.name}", "value": None},
                    {"name": "headquarters city", "expr": "{c2.city}", "value": None},
                    {"name": "employees", "expr": "{c2.employees}", "value": None},
                    {"name": "latest fiscal year revenue (USD)", "expr": "{c3.years.0.revenue}", "value": None},
                    {"name": "watchlists that include it", "expr": "{c4.total}", "value": None},
                ],
            }],
            checks=[f"{{c1.total}} == 1 or {{c1.tickers.0.{sort_by}}} != {{c1.tickers.1.{sort_by}}}"],
        )


# ---------------------------------------------------------------- 3. long monthly series


SERIES = (
    # (transaction kind, what the user calls it, how they ask for one month, sign of the amounts)
    ("dividend", "dividend income", "how much did {mine} receive in dividends", 1),
    ("deposit", "cash deposited", "how much cash did I deposit into {mine}", 1),
    ("buy", "amount spent on share purchases", "how much did I spend buying shares in {mine}", -1),
)


class MonthlyPortfolioSeries(Family):
    """One list_transactions call per month over 6-12 months of a named portfolio; the total,
    the best month's amount and the monthly average."""

    name = "finance.monthly-portfolio-series"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        portfolio = rng.choice(_portfolios(view))
        kind, words, question, sign = rng.choice(SERIES)
        months = rng.randint(6, 12)
        last_full = previous_month(view.now.year, view.now.month, 1)
        created = (int(portfolio["created_at"][:4]), int(portfolio["created_at"][5:7]))
        ends = [previous_month(*last_full, back) for back in range(13)]
        ends = [e for e in ends if previous_month(*e, months - 1) > created]
        if not ends:
            return None
        end = rng.choice(ends)
        span = [previous_month(*end, back) for back in range(months - 1, -1, -1)]
        first_day, last_day = _month_days(*span[0])[0], _month_days(*span[-1])[1]
        email = portfolio["owner_email"]
        index = _owned(view, email, portfolio["id"])
        if index is None:
            return None
        whole = view.read(SERVER, "list_transactions", portfolio_id=portfolio["id"], kind=[kind],
                          start=first_day, end=last_day, per_page=1)
        if whole["net_amount"] == 0:
            return None
        calls: list[dict[str, Any]] = [
            {"id": "c0", "tool": "list_portfolios", "arguments": {"owner_email": email}},
        ]
        refs = []
        for i, (year, month) in enumerate(span, start=1):
            start, stop = _month_days(year, month)
            calls.append({"id": f"m{i}", "tool": "list_transactions",
                          "arguments": {"kind": [kind], "start": start, "end": stop},
                          "bind": {"portfolio_id": f"{{c0.portfolios.{index}.id}}"}})
            refs.append(f"{{m{i}.net_amount}}")
        terms = " + ".join(refs)
        if sign < 0:
            total, peak = f"round(-({terms}), 2)", f"round(-min({', '.join(refs)}), 2)"
        else:
            total, peak = f"round({terms}, 2)", f"round(max({', '.join(refs)}), 2)"
        frm, to = month_name(*span[0]), month_name(*span[-1])
        mine = f"my {portfolio['name']} portfolio"
        asked = question.format(mine=mine)
        user = [
            f"I'm {email}. Month by month from {frm} through {to}, {asked}? Give me the total, the biggest single month, and the average per month over all {months} months.",
            f"For {mine} (my email is {email}), I need the {words} for each month from {frm} to {to}: the total over those {months} months, the largest monthly amount, and the monthly average across all {months}.",
            f"Could you add up the {words} in {mine} for every month between {frm} and {to}, inclusive? Tell me the total, the biggest month's figure and the average per month (over all {months} months). This is {email}.",
        ]
        return Draft(
            family=self.name,
            key=f"portfolio:{portfolio['id']}|{kind}|{span[0][0]}-{span[0][1]:02d}|{months}",
            turns=[{
                "user": user,
                "calls": calls,
                "facts": [
                    {"name": f"total {words}, {frm} to {to}", "expr": total, "value": None},
                    {"name": f"largest monthly {words}", "expr": peak, "value": None},
                    {"name": f"average monthly {words}", "expr": f"round(({total}) / {months}, 2)", "value": None},
                ],
            }],
            checks=[f"{{c0.portfolios.{index}.name}} == {portfolio['name']!r}", f"({terms}) != 0"],
        )


# ---------------------------------------------------------------- 4. a named write


QUANTITIES = (5, 10, 15, 20, 25, 40, 50, 75, 100, 150, 200, 250, 300, 500, 1000)


class TradeInNamedPortfolio(Family):
    """Buy or sell a number of shares of a company (by name) in the user's named portfolio."""

    name = "finance.trade-in-named-portfolio"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        portfolio = rng.choice([p for p in _portfolios(view) if p["kind"] == "personal"])
        email = portfolio["owner_email"]
        index = _owned(view, email, portfolio["id"])
        if index is None:
            return None
        named = {t["symbol"]: t for t in _named(view)}
        side = rng.choice(("buy", "sell"))
        if side == "buy":
            ticker = rng.choice(list(named.values()))
            affordable = [q for q in QUANTITIES if q * ticker["price"] <= 0.6 * portfolio["cash"]]
            if not affordable:
                return None
            quantity = rng.choice(affordable)
        else:
            detail = view.read(SERVER, "get_portfolio", portfolio_id=portfolio["id"])
            held = [p for p in detail["positions"] if p["symbol"] in named and p["quantity"] >= 2]
            if not held:
                return None
            position = rng.choice(held)
            ticker = named[position["symbol"]]
            choices = [q for q in QUANTITIES if q < position["quantity"]] or [position["quantity"] - 1]
            quantity = rng.choice(choices)
        company, where = ticker["name"], f"my {portfolio['name']} portfolio"
        if side == "buy":
            user = [
                f"Please buy {quantity} shares of {company} in {where}. I'm {email}. What price did they go at, what did it cost in total, and how much cash is left?",
                f"This is {_first_name(portfolio['owner_name'])} ({email}). Put {quantity} shares of {company} into {where}, then tell me the price per share, the total cost and the remaining cash.",
                f"Go ahead and purchase {quantity} {company} shares for {where} (account email {email}). Report the execution price, total cost and my cash balance afterwards.",
            ]
            facts = [
                {"name": "price per share", "expr": "{c3.transaction.price}", "value": None},
                {"name": "total cost", "expr": "abs({c3.transaction.amount})", "value": None},
                {"name": "cash left", "expr": "{c3.cash}", "value": None},
            ]
        else:
            user = [
                f"Sell {quantity} of my {company} shares in {where}; my email is {email}. What price did I get, how much came in, and what's my realized gain or loss on them?",
                f"I'm {email}. Please sell {quantity} shares of {company} from {where} and tell me the sale price, the proceeds and the realized P&L.",
                f"Could you sell {quantity} {company} shares out of {where} ({email})? Let me know the price, the total proceeds and the realized profit or loss.",
            ]
            facts = [
                {"name": "price per share", "expr": "{c3.transaction.price}", "value": None},
                {"name": "proceeds", "expr": "{c3.transaction.amount}", "value": None},
                {"name": "realized P&L", "expr": "{c3.transaction.realized_pnl}", "value": None},
            ]
        return Draft(
            family=self.name,
            key=f"portfolio:{portfolio['id']}|{side}|{ticker['symbol']}|{quantity}",
            writes=True,
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "list_portfolios", "arguments": {"owner_email": email}},
                    {"id": "c2", "tool": "search_tickers", "arguments": {"query": company, "per_page": 5}},
                    {"id": "c3", "tool": f"{side}_shares", "arguments": {"quantity": quantity},
                     "bind": {"portfolio_id": f"{{c1.portfolios.{index}.id}}", "symbol": "{c2.tickers.0.symbol}"}},
                ],
                "facts": facts,
            }],
            checks=[f"{{c1.portfolios.{index}.name}} == {portfolio['name']!r}", "{c2.total} == 1"],
        )


# ---------------------------------------------------------------- 5. conditional write


TAKE_PROFIT = (5, 10, 15, 20, 25, 30, 40, 50, 75, 100)
STOP_LOSS = (5, 10, 15, 20, 25, 30, 40)


class ConditionalPositionTrim(Family):
    """If a position is up more than N% take some profit, or if it is down more than N% sell
    it all; otherwise only report the unrealised return. The sale is in the ground truth only
    when the condition holds in the world."""

    name = "finance.conditional-position-trim"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        portfolio = rng.choice(_portfolios(view))
        email = portfolio["owner_email"]
        index = _owned(view, email, portfolio["id"])
        if index is None:
            return None
        detail = view.read(SERVER, "get_portfolio", portfolio_id=portfolio["id"])
        positions = [(i, p) for i, p in enumerate(detail["positions"])
                     if p["unrealized_pnl_percent"] is not None and p["quantity"] >= 2]
        if not positions:
            return None
        at, position = rng.choice(positions)
        value = position["unrealized_pnl_percent"]
        natural = "take-profit" if value >= 0 else "stop-loss"
        rule = natural if rng.random() < 0.8 else ("stop-loss" if natural == "take-profit" else "take-profit")
        want_write = rng.random() < 0.5
        if rule == "take-profit":
            holds = [n for n in TAKE_PROFIT if value > n + 1]
            fails = [n for n in TAKE_PROFIT if value < n - 1]
        else:
            holds = [n for n in STOP_LOSS if value < -n - 1]
            fails = [n for n in STOP_LOSS if value > -n + 1]
        options = (holds if want_write else fails) or holds or fails
        if not options:
            return None
        # thresholds near the position's return make the test worth doing
        threshold = rng.choice(sorted(options, key=lambda n: (abs(abs(value) - n), n))[:3])
        writes = threshold in holds
        company, where = position["name"], f"my {portfolio['name']} portfolio"
        pnl = f"{{c2.positions.{at}.unrealized_pnl_percent}}"
        calls: list[dict[str, Any]] = [
            {"id": "c1", "tool": "list_portfolios", "arguments": {"owner_email": email}},
            {"id": "c2", "tool": "get_portfolio", "bind": {"portfolio_id": f"{{c1.portfolios.{index}.id}}"}},
        ]
        facts = [{"name": f"unrealized return on {company} (%)", "expr": pnl, "value": None}]
        if rule == "take-profit":
            quantity = rng.choice([q for q in QUANTITIES if q < position["quantity"]] or [position["quantity"] // 2])
            user = [
                f"I'm {email}. In {where}, if my {company} position is up more than {threshold}% (unrealized), sell {quantity} shares of it; if not, leave it alone and just tell me its current return.",
                f"Check {where} ({email}): should my {company} holding show an unrealized gain above {threshold}%, take some profit by selling {quantity} shares. Otherwise don't trade. Either way tell me the unrealized return in percent.",
                f"Take-profit rule for {where}, email {email}: {company} up over {threshold}% versus my average cost means sell {quantity} shares, anything less means do nothing. Where does it stand, and what did you do?",
            ]
            sale_quantity: dict[str, Any] = {"arguments": {"symbol": position["symbol"], "quantity": quantity}, "bind": {}}
            condition = f"{pnl} > {threshold}"
        else:
            user = [
                f"I'm {email}. If my {company} position in {where} is down more than {threshold}% from what I paid, sell the whole position; otherwise keep it and tell me where it stands.",
                f"Stop-loss check on {where} ({email}): if {company} shows an unrealized loss worse than {threshold}%, sell all of my shares. If not, no trade, just give me the current return.",
                f"For {where} (email {email}): sell all my {company} shares if they're more than {threshold}% under water; otherwise leave them. Tell me the unrealized return you saw.",
            ]
            sale_quantity = {"arguments": {"symbol": position["symbol"]},
                             "bind": {"quantity": f"{{c2.positions.{at}.quantity}}"}}
            condition = f"{pnl} < -{threshold}"
        if writes:
            calls.append({"id": "c3", "tool": "sell_shares", "arguments": sale_quantity["arguments"],
                          "bind": {"portfolio_id": f"{{c1.portfolios.{index}.id}}", **sale_quantity["bind"]}})
            facts += [
                {"name": "shares sold", "expr": "{c3.transaction.quantity}", "value": None},
                {"name": "realized P&L of the sale", "expr": "{c3.transaction.realized_pnl}", "value": None},
            ]
        return Draft(
            family=self.name,
            key=f"portfolio:{portfolio['id']}|{position['symbol']}|{rule}|{threshold}",
            writes=writes,
            turns=[{"user": user, "calls": calls, "facts": facts}],
            checks=[
                f"{{c1.portfolios.{index}.name}} == {portfolio['name']!r}",
                f"{{c2.positions.{at}.symbol}} == {position['symbol']!r}",
                condition if writes else _negate(condition),
            ],
        )


def _negate(condition: str) -> str:
    """The opposite comparison (expressions allow no `not`)."""
    left, op, right = condition.rsplit(" ", 2)
    return f"{left} {'<=' if op == '>' else '>='} {right}"


# ---------------------------------------------------------------- 6. two turns, write in the second


class TopMoverToWatchlist(Family):
    """Turn 1: the biggest gainer (or loser) of a sector on the latest trading day. Turn 2: add
    'that one' to the user's named watchlist and say how many symbols it now holds."""

    name = "finance.top-mover-to-watchlist"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        sector = rng.choice(SECTORS)
        order = rng.choice(("desc", "asc"))
        search = {"sector": sector, "sort_by": "change_percent", "sort_order": order, "per_page": 2}
        found = view.read(SERVER, "search_tickers", **search)
        tickers = found["tickers"]
        if len(tickers) < 2 or tickers[0]["change_percent"] == tickers[1]["change_percent"]:
            return None
        mover = tickers[0]["symbol"]
        lists = view.read(SERVER, "list_watchlists", per_page=100)["watchlists"]
        candidates = [w for w in lists if mover not in w["symbols"] and len(w["symbols"]) < 50]
        if not candidates:
            return None
        watchlist = rng.choice(candidates)
        email = watchlist["owner_email"]
        mine = view.read(SERVER, "list_watchlists", owner_email=email, per_page=25)["watchlists"]
        index = [w["id"] for w in mine].index(watchlist["id"])
        verb, most = ("gained", "rose the most") if order == "desc" else ("lost", "fell the most")
        first = [
            f"Which {sector} stock {most} on the latest trading day? Give me the company, its ticker and the percentage move.",
            f"In the {sector} sector, who {verb} the most in the last session? I need the name, symbol and % change.",
            f"What was the {sector} stock that {most} in the most recent trading session, and by how many percent?",
        ]
        second = [
            f"Add that one to my '{watchlist['name']}' watchlist, please. I'm {email}. How many symbols are on it now?",
            f"Put it on my {watchlist['name']} watchlist (my email is {email}) and tell me how many stocks the list has afterwards.",
            f"Okay, track that stock in my '{watchlist['name']}' watchlist ({email}). How many symbols does the watchlist hold now?",
        ]
        return Draft(
            family=self.name,
            key=f"{sector}|{order}|watchlist:{watchlist['id']}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [{"id": "c1", "tool": "search_tickers", "arguments": search}],
                    "facts": [
                        {"name": "company", "expr": "{c1.tickers.0.name}", "value": None},
                        {"name": "ticker", "expr": "{c1.tickers.0.symbol}", "value": None},
                        {"name": "change (%)", "expr": "{c1.tickers.0.change_percent}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [
                        {"id": "c2", "tool": "list_watchlists", "arguments": {"owner_email": email}},
                        {"id": "c3", "tool": "add_to_watchlist",
                         "bind": {"watchlist_id": f"{{c2.watchlists.{index}.id}}", "symbols": "[{c1.tickers.0.symbol}]"}},
                    ],
                    "facts": [
                        {"name": "symbols on the watchlist now", "expr": "len({c3.watchlist.symbols})", "value": None},
                    ],
                },
            ],
            checks=[
                "{c1.tickers.0.change_percent} != {c1.tickers.1.change_percent}",
                f"{{c2.watchlists.{index}.name}} == {watchlist['name']!r}",
                "len({c3.changed}) == 1",
            ],
        )


# ---------------------------------------------------------------- 7. market data: quotes and price bars


QUOTE_METRICS = (
    ("market_cap", "market capitalisation", "larger", "is worth more on the market"),
    ("pe_ratio", "P/E ratio", "higher", "trades at the higher P/E"),
    ("dividend_yield_percent", "dividend yield", "higher", "has the higher dividend yield"),
    ("fifty_two_week_high", "52-week high", "higher", "has the higher 52-week high"),
)


class QuoteComparison(Family):
    """Current quotes of two companies (by name): a metric of each and which is ahead."""

    name = "finance.quote-comparison"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        named = _named(view)
        if len(named) < 2:
            return None
        a, b = rng.sample(named, 2)
        field_name, label, adjective, phrase = rng.choice(QUOTE_METRICS)
        quotes = view.read(SERVER, "get_quotes", symbols=[a["symbol"], b["symbol"]])["quotes"]
        values = [q[field_name] for q in quotes]
        if None in values or values[0] == values[1]:
            return None
        best = 0 if values[0] > values[1] else 1
        user = [
            f"What are the current {label}s of {a['name']} and {b['name']}, and which one {phrase}?",
            f"Pull up today's quotes for {a['name']} and {b['name']}: give me each {label} and tell me which is {adjective}.",
            f"Compare {a['name']} with {b['name']} on {label} as of the latest close. Both figures, please, and which company {phrase}.",
        ]
        return Draft(
            family=self.name,
            key=f"{'|'.join(sorted((a['symbol'], b['symbol'])))}|{field_name}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_tickers", "arguments": {"query": a["name"], "per_page": 5}},
                    {"id": "c2", "tool": "search_tickers", "arguments": {"query": b["name"], "per_page": 5}},
                    {"id": "c3", "tool": "get_quotes", "bind": {"symbols": "[{c1.tickers.0.symbol}, {c2.tickers.0.symbol}]"}},
                ],
                "facts": [
                    {"name": f"{a['name']} {label}", "expr": f"{{c3.quotes.0.{field_name}}}", "value": None},
                    {"name": f"{b['name']} {label}", "expr": f"{{c3.quotes.1.{field_name}}}", "value": None},
                    {"name": f"{adjective} {label}", "expr": f"{{c3.quotes.{best}.name}}", "value": None},
                ],
            }],
            checks=["{c1.total} == 1", "{c2.total} == 1",
                    f"{{c3.quotes.{best}.{field_name}}} > {{c3.quotes.{1 - best}.{field_name}}}"],
        )


HISTORY_MONTHS = 24
"""How many whole months back from now a trading-range question may ask about."""


class MonthlyPriceRange(Family):
    """A company's trading range in one calendar month: highest high, lowest low, the month's
    close and its change from the open, from one monthly price bar."""

    name = "finance.monthly-price-range"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        ticker = rng.choice(_named(view))
        year, month = previous_month(view.now.year, view.now.month, rng.randint(1, HISTORY_MONTHS))
        first, last = _month_days(year, month)
        if view.read(SERVER, "get_company_profile", symbol=ticker["symbol"])["listed_on"] >= first:
            return None  # listed during the month or later: no whole month of prices
        args = {"interval": "1mo", "start": first, "end": last}
        if len(view.read(SERVER, "get_price_history", symbol=ticker["symbol"], **args)["bars"]) != 1:
            return None
        company, when = ticker["name"], month_name(year, month)
        user = [
            f"What was {_possessive(company)} trading range in {when}? I need the highest and lowest price, where it closed the month, and the change from the month's opening price in percent.",
            f"For {company} in {when}: the month's high, its low, the closing price on the last trading day, and how much it moved from the first day's open (%).",
            f"Give me {company}'s price action for {when}: high, low, month-end close, and the percentage change open to close over the month.",
        ]
        bar = "{c2.bars.0"
        return Draft(
            family=self.name,
            key=f"{ticker['symbol']}|{year}-{month:02d}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "search_tickers", "arguments": {"query": company, "per_page": 5}},
                    {"id": "c2", "tool": "get_price_history", "arguments": args, "bind": {"symbol": "{c1.tickers.0.symbol}"}},
                ],
                "facts": [
                    {"name": f"high in {when}", "expr": f"{bar}.high}}", "value": None},
                    {"name": f"low in {when}", "expr": f"{bar}.low}}", "value": None},
                    {"name": f"close at the end of {when}", "expr": f"{bar}.close}}", "value": None},
                    {"name": "change from the month's open (%)",
                     "expr": f"round(100 * ({bar}.close}} - {bar}.open}}) / {bar}.open}}, 2)", "value": None},
                ],
            }],
            checks=["{c1.total} == 1", "len({c2.bars}) == 1"],
        )


# ---------------------------------------------------------------- 8. a portfolio's value over time


HISTORY_WINDOWS = (
    *((f"{y}", f"{y}-01-01", f"{y}-12-31") for y in (2021, 2022, 2023, 2024)),
    *((f"the first half of {y}", f"{y}-01-01", f"{y}-06-30") for y in (2022, 2023, 2024, 2025)),
    *((f"the second half of {y}", f"{y}-07-01", f"{y}-12-31") for y in (2021, 2022, 2023, 2024)),
    ("the third quarter of 2025", "2025-07-01", "2025-09-30"),
)


class PortfolioValueChange(Family):
    """How a named portfolio's value moved over a window: value at the start (the last close
    before it) and at the end, net deposits in between and the market gain, from its
    month-end value history."""

    name = "finance.portfolio-value-change"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        portfolio = rng.choice(_portfolios(view))
        label, start, end = rng.choice(HISTORY_WINDOWS)
        # month-end points from the last close before the window: its value at the start
        before = str(date.fromisoformat(start) - timedelta(days=7))
        if portfolio["created_at"][:10] >= before or end >= str(view.now.date()):
            return None  # the window must fall wholly within the portfolio's life
        email = portfolio["owner_email"]
        index = _owned(view, email, portfolio["id"])
        if index is None:
            return None
        args = {"interval": "1mo", "start": before, "end": end}
        mine = f"my {portfolio['name']} portfolio" if portfolio["kind"] == "personal" else f"the {portfolio['name']} portfolio"
        user = [
            f"I'm {email}. How did {mine} do over {label}? Its value at the start and at the end, the net deposits in between, and the gain excluding those deposits.",
            f"For {mine} ({email}), what was it worth at the beginning and the end of {label}, how much net cash went in, and what did the market add?",
            f"Review {label} for {mine}, email {email}: opening value, closing value, net deposits or withdrawals, and the investment gain.",
        ]
        return Draft(
            family=self.name,
            key=f"portfolio:{portfolio['id']}|{start}|{end}",
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "list_portfolios", "arguments": {"owner_email": email}},
                    {"id": "c2", "tool": "get_portfolio_history", "arguments": args,
                     "bind": {"portfolio_id": f"{{c1.portfolios.{index}.id}}"}},
                ],
                "facts": [
                    {"name": f"value at the start of {label}", "expr": "{c2.start_value}", "value": None},
                    {"name": f"value at the end of {label}", "expr": "{c2.end_value}", "value": None},
                    {"name": "net deposits", "expr": "{c2.net_flows}", "value": None},
                    {"name": "investment gain", "expr": "{c2.gain}", "value": None},
                ],
            }],
            checks=[f"{{c1.portfolios.{index}.name}} == {portfolio['name']!r}", f"{{c2.points.0.date}} < {start!r}"],
        )


# ---------------------------------------------------------------- 9. opening a portfolio, moving cash


OPENING_NAMES = ("Brokerage", "Retirement", "College Fund", "Growth", "Dividend Income", "Rainy Day", "Index Core",
                 "Kids' Savings", "House Deposit", "Value Picks")
DEPOSITS = (5_000, 10_000, 15_000, 20_000, 25_000, 50_000, 100_000)


class OpenPortfolioAndBuy(Family):
    """Open a new personal portfolio for the user with a first deposit and buy a company's
    shares in it; report the price, the cost and the cash left."""

    name = "finance.open-portfolio-and-buy"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        owners = sorted({p["owner_email"] for p in _portfolios(view) if p["kind"] == "personal"})
        email = rng.choice(owners)
        investor = view.read(SERVER, "get_investor", email=email)
        taken = {p["name"] for p in investor["portfolios"]}
        name = rng.choice([n for n in OPENING_NAMES if n not in taken])
        deposit = rng.choice(DEPOSITS)
        ticker = rng.choice(_named(view))
        affordable = [q for q in QUANTITIES if q * ticker["price"] <= 0.8 * deposit]
        if not affordable:
            return None
        quantity = rng.choice(affordable)
        company = ticker["name"]
        user = [
            f"I'm {email}. Open a new portfolio called '{name}' for me with ${deposit:,} and buy {quantity} shares of {company} in it. What did they cost per share and in total, and how much cash is left?",
            f"Please set up a portfolio named {name} for {investor['name']} ({email}), fund it with {deposit:,} dollars, then buy {quantity} {company} shares. Tell me the price, the total cost and the remaining cash.",
            f"New portfolio for me ({email}): name it '{name}', deposit ${deposit:,}, and use it to buy {quantity} shares of {company}. Report the execution price, what I paid in total and the cash balance afterwards.",
        ]
        return Draft(
            family=self.name,
            key=f"{email}|{name}|{ticker['symbol']}|{deposit}|{quantity}",
            writes=True,
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "create_portfolio", "arguments": {"owner_email": email, "name": name, "initial_deposit": deposit}},
                    {"id": "c2", "tool": "search_tickers", "arguments": {"query": company, "per_page": 5}},
                    {"id": "c3", "tool": "buy_shares", "arguments": {"quantity": quantity},
                     "bind": {"portfolio_id": "{c1.id}", "symbol": "{c2.tickers.0.symbol}"}},
                ],
                "facts": [
                    {"name": "price per share", "expr": "{c3.transaction.price}", "value": None},
                    {"name": "total cost", "expr": "abs({c3.transaction.amount})", "value": None},
                    {"name": "cash left", "expr": "{c3.cash}", "value": None},
                ],
            }],
            checks=["{c2.total} == 1", f"{{c1.cash}} == {deposit}"],
        )


WITHDRAWALS = (500, 1_000, 2_000, 2_500, 5_000, 7_500, 10_000, 15_000, 20_000, 25_000, 50_000, 100_000, 250_000)


class ConditionalCashWithdrawal(Family):
    """Withdraw an amount from a named portfolio only if its cash covers it with some to spare;
    otherwise only report the cash balance. The withdrawal is in the ground truth only when the
    condition holds in the world."""

    name = "finance.conditional-cash-withdrawal"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        portfolio = rng.choice([p for p in _portfolios(view) if p["kind"] == "personal"])
        email = portfolio["owner_email"]
        index = _owned(view, email, portfolio["id"])
        if index is None:
            return None
        cash = portfolio["cash"]
        want_write = rng.random() < 0.5
        holds = [a for a in WITHDRAWALS if cash >= 2 * a]
        fails = [a for a in WITHDRAWALS if cash < 2 * a]
        options = (holds if want_write else fails) or holds or fails
        # amounts near half the balance make the test worth doing
        amount = rng.choice(sorted(options, key=lambda a: (abs(2 * a - cash), a))[:3])
        writes = amount in holds
        where = f"my {portfolio['name']} portfolio"
        user = [
            f"I'm {email}. If {where} has at least twice ${amount:,} in cash, withdraw ${amount:,}; otherwise leave it. Either way, what's the cash balance now?",
            f"Take ${amount:,} out of {where} ({email}), but only if that leaves at least as much cash behind. Tell me the cash balance afterwards.",
            f"Cash check for {where}, email {email}: withdraw {amount:,} dollars if the cash on hand is at least double that, otherwise do nothing. What's the cash now?",
        ]
        calls: list[dict[str, Any]] = [{"id": "c1", "tool": "list_portfolios", "arguments": {"owner_email": email}}]
        condition = f"{{c1.portfolios.{index}.cash}} >= {2 * amount}"
        if writes:
            calls.append({"id": "c2", "tool": "transfer_cash", "arguments": {"direction": "withdrawal", "amount": amount},
                          "bind": {"portfolio_id": f"{{c1.portfolios.{index}.id}}"}})
            facts = [{"name": "cash after the withdrawal", "expr": "{c2.cash}", "value": None}]
        else:
            facts = [{"name": "cash balance", "expr": f"{{c1.portfolios.{index}.cash}}", "value": None}]
        return Draft(
            family=self.name,
            key=f"portfolio:{portfolio['id']}|{amount}",
            writes=writes,
            turns=[{"user": user, "calls": calls, "facts": facts}],
            checks=[f"{{c1.portfolios.{index}.name}} == {portfolio['name']!r}",
                    condition if writes else _negate(condition)],
        )


# ---------------------------------------------------------------- 10. watchlists: create, prune, delete


WATCHLIST_NAMES = ("Core holdings", "My top positions", "Biggest bets", "Keep an eye on", "Portfolio leaders",
                   "Main positions", "Largest holdings")


class WatchlistFromTopHoldings(Family):
    """Create a watchlist holding the three largest positions (by market value) of the user's
    named portfolio."""

    name = "finance.watchlist-from-top-holdings"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        portfolio = rng.choice(_portfolios(view))
        email = portfolio["owner_email"]
        index = _owned(view, email, portfolio["id"])
        if index is None:
            return None
        values = [p["market_value"] for p in view.read(SERVER, "get_portfolio", portfolio_id=portfolio["id"])["positions"]]
        if len(values) < 3 or len(set(values[:4])) < len(values[:4]):
            return None  # fewer than three holdings, or a tie decides the top three
        taken = {w["name"] for w in view.read(SERVER, "get_investor", email=email)["watchlists"]}
        name = rng.choice([n for n in WATCHLIST_NAMES if n not in taken])
        mine = f"my {portfolio['name']} portfolio" if portfolio["kind"] == "personal" else f"the {portfolio['name']} portfolio"
        user = [
            f"I'm {email}. Make me a new watchlist called '{name}' with the three biggest positions (by market value) in {mine}. Which symbols went on it?",
            f"Create a watchlist named {name} for {email} containing the top three holdings of {mine} by current value, and tell me which companies those are.",
            f"Could you start a '{name}' watchlist for me ({email}) with the three largest holdings of {mine}? List what you added.",
        ]
        top = "[{c2.positions.0.symbol}, {c2.positions.1.symbol}, {c2.positions.2.symbol}]"
        checks = [f"{{c1.portfolios.{index}.name}} == {portfolio['name']!r}",
                  "{c2.positions.1.market_value} < {c2.positions.0.market_value}",
                  "{c2.positions.2.market_value} < {c2.positions.1.market_value}"]
        if len(values) > 3:
            checks.append("{c2.positions.3.market_value} < {c2.positions.2.market_value}")
        return Draft(
            family=self.name,
            key=f"portfolio:{portfolio['id']}",
            writes=True,
            turns=[{
                "user": user,
                "calls": [
                    {"id": "c1", "tool": "list_portfolios", "arguments": {"owner_email": email}},
                    {"id": "c2", "tool": "get_portfolio", "bind": {"portfolio_id": f"{{c1.portfolios.{index}.id}}"}},
                    {"id": "c3", "tool": "create_watchlist", "arguments": {"owner_email": email, "name": name},
                     "bind": {"symbols": top}},
                ],
                "facts": [
                    {"name": "largest holding", "expr": "{c2.positions.0.name}", "value": None},
                    {"name": "second largest holding", "expr": "{c2.positions.1.name}", "value": None},
                    {"name": "third largest holding", "expr": "{c2.positions.2.name}", "value": None},
                    {"name": "symbols on the new watchlist", "expr": "{c3.symbols}", "value": None},
                ],
            }],
            checks=checks,
        )


class Laggard:
    """A watchlist with a unique worst mover of the latest trading day, as a user finds it:
    their watchlists by email (c1), the watchlist's quotes (c2), the laggard's position."""

    def __init__(self, view: WorldView, rng: random.Random) -> None:
        self.watchlist = rng.choice(view.read(SERVER, "list_watchlists", per_page=100)["watchlists"])
        self.email = self.watchlist["owner_email"]
        mine = view.read(SERVER, "list_watchlists", owner_email=self.email, per_page=25)["watchlists"]
        self.index = [w["id"] for w in mine].index(self.watchlist["id"])
        self.entries = view.read(SERVER, "get_watchlist", watchlist_id=self.watchlist["id"])["entries"]
        moves = [e["change_percent"] for e in self.entries]
        self.worst = min(range(len(moves)), key=lambda i: moves[i] if moves[i] is not None else 0.0)
        self.ok = len(moves) >= 3 and None not in moves and moves.count(moves[self.worst]) == 1

    def calls(self) -> list[dict[str, Any]]:
        return [
            {"id": "c1", "tool": "list_watchlists", "arguments": {"owner_email": self.email}},
            {"id": "c2", "tool": "get_watchlist", "bind": {"watchlist_id": f"{{c1.watchlists.{self.index}.id}}"}},
        ]

    def removal(self, call_id: str) -> dict[str, Any]:
        return {"id": call_id, "tool": "remove_from_watchlist",
                "bind": {"watchlist_id": f"{{c1.watchlists.{self.index}.id}}",
                         "symbols": f"[{{c2.entries.{self.worst}.symbol}}]"}}

    def facts(self) -> list[dict[str, Any]]:
        return [
            {"name": "worst performer", "expr": f"{{c2.entries.{self.worst}.name}}", "value": None},
            {"name": "its change (%)", "expr": f"{{c2.entries.{self.worst}.change_percent}}", "value": None},
        ]

    def checks(self) -> list[str]:
        """The watchlist is the one named, and no other symbol did as badly."""
        checks = [f"{{c1.watchlists.{self.index}.name}} == {self.watchlist['name']!r}",
                  f"len({{c2.entries}}) == {len(self.entries)}"]
        return checks + [f"{{c2.entries.{self.worst}.change_percent}} < {{c2.entries.{i}.change_percent}}"
                         for i in range(len(self.entries)) if i != self.worst]


class DropWatchlistLaggard(Family):
    """Remove the symbol of the user's named watchlist that fell the most on the latest trading
    day; report it and how many symbols remain."""

    name = "finance.drop-watchlist-laggard"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = Laggard(view, rng)
        if not found.ok:
            return None
        email, name = found.email, found.watchlist["name"]
        user = [
            f"I'm {email}. On my '{name}' watchlist, drop whichever stock fell the most on the latest trading day. Which one was it, how much did it lose, and how many symbols are left?",
            f"Remove the worst performer of the last session from my {name} watchlist ({email}). Tell me the company, its % change and the number of symbols remaining.",
            f"Prune my '{name}' watchlist (email {email}): take off the stock with the biggest one-day drop (or smallest gain). Name it, give its move, and say how many symbols remain.",
        ]
        return Draft(
            family=self.name,
            key=f"watchlist:{found.watchlist['id']}",
            writes=True,
            turns=[{
                "user": user,
                "calls": [*found.calls(), found.removal("c3")],
                "facts": [*found.facts(), {"name": "symbols left", "expr": "len({c3.watchlist.symbols})", "value": None}],
            }],
            checks=found.checks(),
        )


class WatchlistReviewThenDelete(Family):
    """Turn 1: the user's watchlists (by email) and the symbols on a named one with its best
    mover of the day. Turn 2: delete that watchlist."""

    name = "finance.watchlist-review-then-delete"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        watchlist = rng.choice(view.read(SERVER, "list_watchlists", per_page=100)["watchlists"])
        email = watchlist["owner_email"]
        investor = view.read(SERVER, "get_investor", email=email)
        index = [w["id"] for w in investor["watchlists"]].index(watchlist["id"])
        entries = view.read(SERVER, "get_watchlist", watchlist_id=watchlist["id"])["entries"]
        moves = [e["change_percent"] for e in entries]
        if len(entries) < 2 or None in moves:
            return None
        best = max(range(len(moves)), key=lambda i: moves[i])
        if moves.count(moves[best]) > 1:
            return None
        name = watchlist["name"]
        first = [
            f"I'm {email}. How many watchlists do I have, how many symbols are on my '{name}' one, and which of them rose the most on the latest trading day?",
            f"Look me up ({email}): number of watchlists I keep, the symbol count of '{name}', and its best performer in the last session.",
            f"For {email}: how many watchlists, how big is the {name} watchlist, and which stock on it gained the most today?",
        ]
        second = [
            f"I don't need '{name}' any more, please delete it.",
            "Thanks. Go ahead and delete that watchlist.",
            f"Okay, remove the {name} watchlist entirely.",
        ]
        checks = [f"{{c1.watchlists.{index}.name}} == {name!r}", f"len({{c2.entries}}) == {len(entries)}"]
        checks += [f"{{c2.entries.{best}.change_percent}} > {{c2.entries.{i}.change_percent}}"
                   for i in range(len(entries)) if i != best]
        return Draft(
            family=self.name,
            key=f"watchlist:{watchlist['id']}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "get_investor", "arguments": {"email": email}},
                        {"id": "c2", "tool": "get_watchlist", "bind": {"watchlist_id": f"{{c1.watchlists.{index}.id}}"}},
                    ],
                    "facts": [
                        {"name": "watchlists", "expr": "len({c1.watchlists})", "value": None},
                        {"name": f"symbols on {name}", "expr": "len({c2.entries})", "value": None},
                        {"name": "best performer", "expr": f"{{c2.entries.{best}.name}}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [{"id": "c3", "tool": "delete_watchlist", "bind": {"watchlist_id": f"{{c1.watchlists.{index}.id}}"}}],
                    "facts": [{"name": "deleted", "expr": "{c3.deleted}", "value": None}],
                },
            ],
            checks=checks,
        )



class LaggardThenRemove(Family):
    """Turn 1: which stock on the user's named watchlist did worst on the latest trading day.
    Turn 2: take that one off the watchlist."""

    name = "finance.laggard-then-remove"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = Laggard(view, rng)
        if not found.ok:
            return None
        email, name = found.email, found.watchlist["name"]
        first = [
            f"I'm {email}. Which stock on my '{name}' watchlist did worst in the latest trading session, and what was its move?",
            f"Looking at my {name} watchlist ({email}): who was the weakest performer on the last trading day, and by how many percent?",
            f"For {email}: on the '{name}' watchlist, which company had the lowest % change today, and what was the change?",
        ]
        second = [
            "Take it off that watchlist, please. How many symbols are left?",
            "Remove that one from the list and tell me how many stocks remain on it.",
            f"Drop it from '{name}'. How many symbols does the watchlist hold now?",
        ]
        return Draft(
            family=self.name,
            key=f"watchlist:{found.watchlist['id']}",
            writes=True,
            turns=[
                {"user": first, "calls": found.calls(), "facts": found.facts()},
                {"user": second, "calls": [found.removal("c3")],
                 "facts": [{"name": "symbols left", "expr": "len({c3.watchlist.symbols})", "value": None}]},
            ],
            checks=found.checks(),
        )


def _investor_email(view: WorldView, rng: random.Random) -> str:
    """The email of an employee who owns a portfolio or a watchlist."""
    owners = {p["owner_email"] for p in _portfolios(view)}
    owners |= {w["owner_email"] for w in view.read(SERVER, "list_watchlists", per_page=100)["watchlists"]}
    return rng.choice(sorted(owners))


NEW_WATCHLIST_NAMES = ("Shortlist", "Ideas to research", "Head to head", "Pair watch", "Maybe later", "New ideas",
                       "Comparables")


class QuotesThenNewWatchlist(Family):
    """Turn 1: the current price, day change and P/E of two companies (by name). Turn 2: start
    a new watchlist of the user's with both."""

    name = "finance.quotes-then-new-watchlist"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        named = _named(view)
        if len(named) < 2:
            return None
        a, b = rng.sample(named, 2)
        quotes = view.read(SERVER, "get_quotes", symbols=[a["symbol"], b["symbol"]])["quotes"]
        if any(q["change_percent"] is None or q["pe_ratio"] is None for q in quotes):
            return None
        email = _investor_email(view, rng)
        taken = {w["name"] for w in view.read(SERVER, "get_investor", email=email)["watchlists"]}
        name = rng.choice([n for n in NEW_WATCHLIST_NAMES if n not in taken])
        first = [
            f"Where do {a['name']} and {b['name']} trade right now? Price, change on the day in percent, and P/E for each.",
            f"Quote {a['name']} and {b['name']} for me: last price, today's % change and the P/E ratio of both.",
            f"I'd like current quotes for {a['name']} and {b['name']}: each one's price, daily percentage change and price/earnings ratio.",
        ]
        second = [
            f"Start a new watchlist called '{name}' with both of them. My email is {email}.",
            f"Please put the two into a new watchlist named {name} for me ({email}).",
            f"Create a '{name}' watchlist for {email} holding those two stocks.",
        ]
        facts = []
        for at, company in enumerate((a["name"], b["name"])):
            facts += [
                {"name": f"{company} price", "expr": f"{{c3.quotes.{at}.price}}", "value": None},
                {"name": f"{company} change (%)", "expr": f"{{c3.quotes.{at}.change_percent}}", "value": None},
                {"name": f"{company} P/E", "expr": f"{{c3.quotes.{at}.pe_ratio}}", "value": None},
            ]
        return Draft(
            family=self.name,
            key=f"{'|'.join(sorted((a['symbol'], b['symbol'])))}|{email}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "search_tickers", "arguments": {"query": a["name"], "per_page": 5}},
                        {"id": "c2", "tool": "search_tickers", "arguments": {"query": b["name"], "per_page": 5}},
                        {"id": "c3", "tool": "get_quotes", "bind": {"symbols": "[{c1.tickers.0.symbol}, {c2.tickers.0.symbol}]"}},
                    ],
                    "facts": facts,
                },
                {
                    "user": second,
                    "calls": [{"id": "c4", "tool": "create_watchlist", "arguments": {"owner_email": email, "name": name},
                               "bind": {"symbols": "[{c1.tickers.0.symbol}, {c2.tickers.0.symbol}]"}}],
                    "facts": [{"name": "symbols on the new watchlist", "expr": "{c4.symbols}", "value": None}],
                },
            ],
            checks=["{c1.total} == 1", "{c2.total} == 1"],
        )


TOP_UPS = (1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 25_000, 50_000, 100_000)


class AffordThenTopUpAndBuy(Family):
    """Turn 1: the cash in the user's named portfolio and a company's current price. Turn 2:
    deposit an amount that makes a purchase affordable, then buy the shares."""

    name = "finance.afford-then-top-up-and-buy"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        portfolio = rng.choice([p for p in _portfolios(view) if p["kind"] == "personal"])
        email = portfolio["owner_email"]
        index = _owned(view, email, portfolio["id"])
        if index is None:
            return None
        ticker = rng.choice(_named(view))
        cash, price = portfolio["cash"], ticker["price"]
        # more shares than the cash pays for, and a deposit that covers them with room to spare
        options = [(q, d) for q in QUANTITIES for d in TOP_UPS if cash < q * price <= 0.9 * (cash + d)]
        if not options:
            return None
        quantity, deposit = min(rng.sample(options, min(3, len(options))), key=lambda o: o[1])
        company, where = ticker["name"], f"my {portfolio['name']} portfolio"
        first = [
            f"I'm {email}. How much cash is in {where}, and what's {company} trading at?",
            f"Quick check for {email}: the cash balance of {where} and the current share price of {company}.",
            f"What's the cash position of {where} ({email}), and the latest price of {company}?",
        ]
        second = [
            f"That's not enough for {quantity} shares. Deposit ${deposit:,} into it and then buy {quantity} {company} shares. What did they cost and how much cash is left?",
            f"Okay, add ${deposit:,} of cash to that portfolio, then buy {quantity} shares of {company}. Tell me the total cost and the cash remaining.",
            f"Top it up with {deposit:,} dollars and purchase {quantity} {company} shares; report the cost and the cash afterwards.",
        ]
        return Draft(
            family=self.name,
            key=f"portfolio:{portfolio['id']}|{ticker['symbol']}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [
                        {"id": "c1", "tool": "list_portfolios", "arguments": {"owner_email": email}},
                        {"id": "c2", "tool": "search_tickers", "arguments": {"query": company, "per_page": 5}},
                        {"id": "c3", "tool": "get_quotes", "bind": {"symbols": "[{c2.tickers.0.symbol}]"}},
                    ],
                    "facts": [
                        {"name": "cash", "expr": f"{{c1.portfolios.{index}.cash}}", "value": None},
                        {"name": f"{company} price", "expr": "{c3.quotes.0.price}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [
                        {"id": "c4", "tool": "transfer_cash", "arguments": {"direction": "deposit", "amount": deposit},
                         "bind": {"portfolio_id": f"{{c1.portfolios.{index}.id}}"}},
                        {"id": "c5", "tool": "buy_shares", "arguments": {"quantity": quantity},
                         "bind": {"portfolio_id": f"{{c1.portfolios.{index}.id}}", "symbol": "{c2.tickers.0.symbol}"}},
                    ],
                    "facts": [
                        {"name": "total cost", "expr": "abs({c5.transaction.amount})", "value": None},
                        {"name": "cash left", "expr": "{c5.cash}", "value": None},
                    ],
                },
            ],
            checks=[f"{{c1.portfolios.{index}.name}} == {portfolio['name']!r}", "{c2.total} == 1",
                    f"{quantity} * {{c3.quotes.0.price}} > {{c1.portfolios.{index}.cash}}"],
        )


class CashThenNewPortfolio(Family):
    """Turn 1: the cash and total value of the user's named portfolio. Turn 2: move part of that
    cash into a new portfolio (a withdrawal, then a new portfolio with it as first deposit)."""

    name = "finance.cash-then-new-portfolio"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        portfolio = rng.choice([p for p in _portfolios(view) if p["kind"] == "personal"])
        email = portfolio["owner_email"]
        index = _owned(view, email, portfolio["id"])
        amounts = [a for a in WITHDRAWALS if 2 * a <= portfolio["cash"]]
        if index is None or not amounts:
            return None
        amount = rng.choice(amounts)
        taken = {p["name"] for p in view.read(SERVER, "get_investor", email=email)["portfolios"]}
        name = rng.choice([n for n in OPENING_NAMES if n not in taken])
        where = f"my {portfolio['name']} portfolio"
        first = [
            f"I'm {email}. How much cash is sitting in {where}, and what's the portfolio worth in total?",
            f"For {email}: the cash balance and the total value of {where}, please.",
            f"What's the uninvested cash in {where} ({email}), and its total value including holdings?",
        ]
        second = [
            f"Move ${amount:,} of that cash into a new portfolio called '{name}'. How much cash is left in the {portfolio['name']} one?",
            f"Take ${amount:,} out of it and open a new portfolio named {name} with that money. What cash remains in {portfolio['name']}?",
            f"Withdraw {amount:,} dollars from it and use it to start a '{name}' portfolio for me. Tell me the cash left behind and the new portfolio's cash.",
        ]
        return Draft(
            family=self.name,
            key=f"portfolio:{portfolio['id']}",
            writes=True,
            turns=[
                {
                    "user": first,
                    "calls": [{"id": "c1", "tool": "list_portfolios", "arguments": {"owner_email": email}}],
                    "facts": [
                        {"name": "cash", "expr": f"{{c1.portfolios.{index}.cash}}", "value": None},
                        {"name": "total value", "expr": f"{{c1.portfolios.{index}.total_value}}", "value": None},
                    ],
                },
                {
                    "user": second,
                    "calls": [
                        {"id": "c2", "tool": "transfer_cash", "arguments": {"direction": "withdrawal", "amount": amount},
                         "bind": {"portfolio_id": f"{{c1.portfolios.{index}.id}}"}},
                        {"id": "c3", "tool": "create_portfolio",
                         "arguments": {"owner_email": email, "name": name, "initial_deposit": amount}},
                    ],
                    "facts": [
                        {"name": f"cash left in {portfolio['name']}", "expr": "{c2.cash}", "value": None},
                        {"name": f"cash in {name}", "expr": "{c3.cash}", "value": None},
                    ],
                },
            ],
            checks=[f"{{c1.portfolios.{index}.name}} == {portfolio['name']!r}"],
        )


FINANCE_FAMILIES = (
    DividendYearComparison(),
    ReturnComparison(),
    SectorLeaderDrillDown(),
    MonthlyPortfolioSeries(),
    TradeInNamedPortfolio(),
    ConditionalPositionTrim(),
    TopMoverToWatchlist(),
    QuoteComparison(),
    MonthlyPriceRange(),
    PortfolioValueChange(),
    OpenPortfolioAndBuy(),
    ConditionalCashWithdrawal(),
    WatchlistFromTopHoldings(),
    DropWatchlistLaggard(),
    WatchlistReviewThenDelete(),
    LaggardThenRemove(),
    QuotesThenNewWatchlist(),
    AffordThenTopUpAndBuy(),
    CashThenNewPortfolio(),
)
