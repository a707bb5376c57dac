"""The finance tools: look up market data and manage portfolios and watchlists for employees."""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcpgym.servers.finance.models import (
    Dividend,
    Fundamental,
    Portfolio,
    Position,
    PriceBar,
    Ticker,
    Transaction,
    Watchlist,
    WatchlistItem,
    average_cost,
)
from mcpgym.servers.kernel.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from mcpgym.servers.kernel.fields import (
    DateTimeArg,
    Page,
    PerPage,
    Timestamp,
    next_page,
    page_slice,
)
from mcpgym.servers.kernel.lookup import missing
from mcpgym.servers.kernel.sql import Row, contains_pattern
from mcpgym.servers.kernel.tools import ToolContext, ToolRegistry

tools = ToolRegistry()

MAX_WATCHLIST_SYMBOLS = 50

CalendarDay = date
"""A calendar date, YYYY-MM-DD; the type of result fields that are themselves called `date`."""

Period = Literal["5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "ytd", "max"]
Interval = Literal["1d", "1wk", "1mo"]
Sector = Literal[
    "Technology", "Healthcare", "Financial Services", "Consumer Cyclical", "Consumer Defensive",
    "Industrials", "Energy", "Utilities", "Real Estate", "Communication Services", "Basic Materials",
]
TransactionKind = Literal["deposit", "withdrawal", "buy", "sell", "dividend"]

Symbol = Annotated[str, Field(min_length=1, max_length=8, description="Ticker symbol, e.g. 'GREE' (case-insensitive).")]
Symbols = Annotated[list[Symbol], Field(min_length=1, max_length=20, description="1-20 ticker symbols (case-insensitive).")]
Email = Annotated[str, Field(min_length=3, max_length=160, description="The employee's work email, e.g. 'ann.olson@northwindsystems.com'.")]
PortfolioId = Annotated[int, Field(description="The portfolio's id (see list_portfolios).")]
WatchlistId = Annotated[int, Field(description="The watchlist's id (see list_watchlists).")]
Quantity = Annotated[int, Field(ge=1, le=10_000_000, description="Number of whole shares.")]
PeriodArg = Annotated[Period, Field(description=(
    "Window ending at the latest trading day: 5d = last 5 trading days; 1mo/3mo/6mo/1y/2y/5y = since the "
    "same calendar day that many months/years earlier; ytd = since 1 January; max = all history. "
    "Ignored when start is given."))]
StartArg = Annotated[DateTimeArg | None, Field(description="First day of the window (ISO 8601 date, e.g. 2024-01-01); overrides period.")]
EndArg = Annotated[DateTimeArg | None, Field(description="Last day of the window (ISO 8601 date); default: the latest trading day.")]

SYMBOL_HINT = "Use search_tickers to find a symbol by company name or partial symbol."
PORTFOLIO_HINT = "Use list_portfolios to find portfolios, optionally by owner email."
WATCHLIST_HINT = "Use list_watchlists to find watchlists, optionally by owner email."


# ---------------------------------------------------------------- result models


class QuoteOut(BaseModel):
    symbol: str
    name: str
    exchange: str
    currency: str
    price: float = Field(description="Close of the latest trading day, the price trades execute at.")
    previous_close: float | None
    change: float | None = Field(description="price - previous_close.")
    change_percent: float | None = Field(description="Change in percent of previous_close (1.5 = 1.5%).")
    open: float
    day_high: float
    day_low: float
    volume: int = Field(description="Shares traded on the latest trading day.")
    average_volume_3m: int = Field(description="Mean daily volume over the last 3 months.")
    fifty_two_week_high: float
    fifty_two_week_low: float
    market_cap: int = Field(description="price x shares outstanding, in USD.")
    trailing_eps: float | None = Field(description="EPS of the latest fiscal year, USD.")
    pe_ratio: float | None = Field(description="price / trailing_eps; null when EPS is not positive.")
    dividend_yield_percent: float = Field(description="Dividends with ex-date in the last 365 days / price, in percent.")
    trading_day: date = Field(description="The trading day the price is the close of.")
    as_of: Timestamp


class QuoteList(BaseModel):
    quotes: list[QuoteOut]


class TickerSummary(BaseModel):
    symbol: str
    name: str
    exchange: str
    sector: str
    industry: str
    country: str
    price: float
    change_percent: float | None
    market_cap: int
    volume: int


class TickerPage(BaseModel):
    tickers: list[TickerSummary]
    total: int = Field(description="Tickers matching the filters, over all pages.")
    page: int
    next_page: int | None


class CompanyProfile(BaseModel):
    symbol: str
    name: str
    organization_id: str | None = Field(description="Id of the company in the shared directory (org_...), if any.")
    exchange: str
    sector: str
    industry: str
    country: str
    city: str
    website: str
    employees: int
    description: str
    currency: str
    shares_outstanding: int
    price: float
    market_cap: int = Field(description="price x shares_outstanding, in USD.")
    listed_on: date = Field(description="First trading day.")
    next_earnings_date: date


class BarOut(BaseModel):
    date: CalendarDay = Field(description="First trading day of the bar.")
    open: float
    high: float
    low: float
    close: float
    volume: int


class PriceHistory(BaseModel):
    symbol: str
    interval: str
    start_date: date | None = Field(description="First trading day in the window; null if none.")
    end_date: date | None
    bars: list[BarOut]


class FiscalYearOut(BaseModel):
    fiscal_year: int
    period_end: date
    revenue: int = Field(description="USD.")
    gross_profit: int
    operating_income: int
    net_income: int
    free_cash_flow: int
    diluted_shares: int
    eps: float = Field(description="Diluted earnings per share, USD.")
    net_margin_percent: float
    revenue_growth_percent: float | None = Field(description="Versus the previous fiscal year; null for the oldest.")
    year_end_price: float | None = Field(description="Close of the last trading day of the year; null before listing.")
    pe_ratio: float | None = Field(description="year_end_price / eps; null if not listed or EPS not positive.")
    dividends_per_share: float = Field(description="Sum of dividends with ex-date in the year.")
    dividend_yield_percent: float | None = Field(description="dividends_per_share / year_end_price, in percent.")


class Fundamentals(BaseModel):
    symbol: str
    name: str
    shares_outstanding: int
    years: list[FiscalYearOut] = Field(description="Newest fiscal year first.")


class DividendOut(BaseModel):
    symbol: str
    declared_on: date
    ex_date: date = Field(description="Shares held at the close before this day receive the dividend.")
    pay_date: date
    amount: float = Field(description="Cash per share, USD.")
    status: Literal["paid", "upcoming"] = Field(description="upcoming: pay_date is after now.")


class DividendPage(BaseModel):
    dividends: list[DividendOut]
    total: int
    total_amount: float = Field(description="Sum of amount over all matching dividends (all pages), per share.")
    page: int
    next_page: int | None


class ReturnOut(BaseModel):
    symbol: str
    name: str
    start_date: date = Field(description="First trading day used (later than asked if listed later).")
    end_date: date
    start_price: float = Field(description="Close on start_date.")
    end_price: float = Field(description="Close on end_date.")
    price_return_percent: float
    dividends_per_share: float = Field(description="Dividends with ex-date after start_date up to end_date.")
    total_return_percent: float = Field(
        description="(end_price + dividends_per_share - start_price) / start_price, in percent; not reinvested.")
    period_high: float
    period_low: float
    max_drawdown_percent: float = Field(description="Largest fall of the close from a previous peak, in percent (<= 0).")
    full_period: bool = Field(description="False when the ticker listed after the window began.")


class ReturnComparison(BaseModel):
    returns: list[ReturnOut] = Field(description="In the order the symbols were given.")
    ranking: list[str] = Field(description="Symbols by total_return_percent, best first.")


class PortfolioRef(BaseModel):
    id: int
    name: str
    kind: str


class WatchlistRef(BaseModel):
    id: int
    name: str


class InvestorOut(BaseModel):
    person_id: str = Field(description="Id in the shared people directory (per_...).")
    name: str
    email: str
    organization_name: str
    job_title: str
    portfolios: list[PortfolioRef]
    watchlists: list[WatchlistRef]


class PortfolioSummary(BaseModel):
    id: int
    name: str
    kind: str = Field(description="treasury (the firm's own) or personal (an employee's).")
    owner_name: str
    owner_email: str
    currency: str
    cash: float
    market_value: float = Field(description="Sum of quantity x price over open positions.")
    total_value: float = Field(description="cash + market_value.")
    unrealized_pnl: float
    open_positions: int
    created_at: Timestamp


class PortfolioPage(BaseModel):
    portfolios: list[PortfolioSummary]
    total: int
    page: int
    next_page: int | None


class PositionOut(BaseModel):
    symbol: str
    name: str
    quantity: int
    average_cost: float = Field(description="Average price paid per share held, USD.")
    cost_basis: float = Field(description="average_cost x quantity.")
    price: float
    market_value: float
    unrealized_pnl: float = Field(description="market_value - cost_basis.")
    unrealized_pnl_percent: float | None
    day_change: float = Field(description="quantity x (price - previous close).")
    weight_percent: float = Field(description="market_value / portfolio market_value, in percent.")
    realized_pnl: float = Field(description="Realised P&L of all sales of this ticker in the portfolio.")
    opened_at: Timestamp


class PortfolioDetail(PortfolioSummary):
    positions: list[PositionOut] = Field(description="Largest market value first.")
    realized_pnl: float = Field(description="Sum of realised P&L over all positions.")
    net_deposits: float = Field(description="Deposits minus withdrawals, all time.")
    dividends_received: float
    total_gain: float = Field(description="total_value - net_deposits.")


class TransactionOut(BaseModel):
    id: int
    portfolio_id: int
    kind: str
    symbol: str | None
    quantity: int | None
    price: float | None = Field(description="Price per share for buys and sells.")
    amount: float = Field(description="Signed change of cash, USD (negative for buys and withdrawals).")
    realized_pnl: float | None = Field(description="For sells: proceeds minus the average cost of the shares sold.")
    trade_date: date
    executed_at: Timestamp


class TransactionPage(BaseModel):
    transactions: list[TransactionOut]
    total: int
    net_amount: float = Field(description="Sum of amount over all matching transactions (all pages).")
    page: int
    next_page: int | None


class ValuePoint(BaseModel):
    date: CalendarDay
    cash: float
    holdings_value: float
    total_value: float
    net_deposits: float = Field(description="Deposits minus withdrawals up to this day.")


class PortfolioHistory(BaseModel):
    portfolio_id: int
    interval: str
    points: list[ValuePoint] = Field(description="Value at the close of each day (or of the last day of each week/month).")
    start_value: float | None
    end_value: float | None
    net_flows: float = Field(description="Deposits minus withdrawals after the first point up to the last.")
    gain: float = Field(description="end_value - start_value - net_flows: market gains and dividends.")


class TradeResult(BaseModel):
    transaction: TransactionOut
    position: PositionOut
    cash: float = Field(description="Portfolio cash after the trade.")


class CashResult(BaseModel):
    transaction: TransactionOut
    cash: float = Field(description="Portfolio cash after the transfer.")


class WatchlistSummary(BaseModel):
    id: int
    name: str
    owner_name: str
    owner_email: str
    symbols: list[str] = Field(description="Alphabetical.")
    created_at: Timestamp


class WatchlistPage(BaseModel):
    watchlists: list[WatchlistSummary]
    total: int
    page: int
    next_page: int | None


class WatchlistEntry(QuoteOut):
    added_at: Timestamp


class WatchlistDetail(BaseModel):
    id: int
    name: str
    owner_name: str
    owner_email: str
    created_at: Timestamp
    entries: list[WatchlistEntry] = Field(description="Alphabetical by symbol, each with its current quote.")


class WatchlistChange(BaseModel):
    watchlist: WatchlistSummary
    changed: list[str] = Field(description="Symbols added (or removed).")
    unchanged: list[str] = Field(description="Symbols that were already on the watchlist (add only).")


class DeletedWatchlist(BaseModel):
    id: int
    name: str
    deleted: bool


# ---------------------------------------------------------------- lookups

IN_LIST = "IN (SELECT value FROM json_each(?))"
"""A condition's set of values, passed as one list parameter."""

PORTFOLIOS = ("portfolios.*, investors.name AS owner_name, investors.email AS owner_email",
              "FROM portfolios JOIN investors ON investors.id = portfolios.investor_id")
"""The columns and FROM clause of portfolio rows with their owner's name and email."""

WATCHLISTS = ("watchlists.*, investors.name AS owner_name, investors.email AS owner_email",
              "FROM watchlists JOIN investors ON investors.id = watchlists.investor_id")
"""The columns and FROM clause of watchlist rows with their owner's name and email."""


def _unknown_symbol(symbol: str) -> NotFoundError:
    return NotFoundError(f"no ticker with symbol {symbol!r}. {SYMBOL_HINT}")


def _ticker(ctx: ToolContext, symbol: str) -> Row:
    ticker = ctx.sql.one("SELECT * FROM tickers WHERE symbol = ?", [symbol.strip().upper()], Ticker)
    if ticker is None:
        raise _unknown_symbol(symbol)
    return ticker


def _tickers(ctx: ToolContext, symbols: list[str]) -> list[Row]:
    """The tickers of `symbols` in order, each once, read in one statement; the first unknown
    symbol is the error."""
    keys = [symbol.strip().upper() for symbol in symbols]
    if not keys:
        return []
    found = {row["symbol"]: row for row in ctx.sql.all(f"SELECT * FROM tickers WHERE symbol {IN_LIST}", [keys], Ticker)}
    for symbol, key in zip(symbols, keys):
        if key not in found:
            raise _unknown_symbol(symbol)
    return list({key: found[key] for key in keys}.values())


def _investor(ctx: ToolContext, email: str) -> Row:
    investor = ctx.sql.one("SELECT * FROM investors WHERE email = ?", [email.strip().lower()])
    if investor is None:
        raise NotFoundError(
            f"no {ctx.world.home.name} employee with email {email!r}; portfolios and watchlists "
            "belong to employees. Use list_portfolios or list_watchlists to see their owners."
        )
    return investor


def _portfolio(ctx: ToolContext, portfolio_id: int) -> Row:
    """A portfolio's row with its owner's name and email."""
    columns, source = PORTFOLIOS
    portfolio = ctx.sql.one(f"SELECT {columns} {source} WHERE portfolios.id = ?", [portfolio_id], Portfolio)
    if portfolio is None:
        raise missing("portfolio", portfolio_id, PORTFOLIO_HINT)
    return portfolio


def _watchlist(ctx: ToolContext, watchlist_id: int) -> Row:
    """A watchlist's row with its owner's name and email."""
    columns, source = WATCHLISTS
    watchlist = ctx.sql.one(f"SELECT {columns} {source} WHERE watchlists.id = ?", [watchlist_id], Watchlist)
    if watchlist is None:
        raise missing("watchlist", watchlist_id, WATCHLIST_HINT)
    return watchlist


# ---------------------------------------------------------------- market data


def _market_day(ctx: ToolContext) -> date:
    """The latest trading day: the market is treated as closed there at the world's now."""
    day: date = ctx.sql.all("SELECT max(day) AS day FROM price_bars", (), PriceBar)[0]["day"]
    return day


def _latest_bars(ctx: ToolContext, ticker_ids: list[int], day: date) -> dict[int, tuple[Row, float | None]]:
    """Per ticker with a bar in the ten calendar days up to `day`: its latest bar there and the
    close of the bar before it (None if there is none in those days); one row per ticker, each
    found by index seeks."""
    since = day - timedelta(days=10)
    rows = ctx.sql.all(
        "SELECT price_bars.*, (SELECT close FROM price_bars AS earlier WHERE earlier.ticker_id = price_bars.ticker_id "
        "AND earlier.day > ? AND earlier.day < price_bars.day ORDER BY earlier.day DESC LIMIT 1) AS previous_close "
        "FROM json_each(?) AS wanted JOIN price_bars ON price_bars.ticker_id = wanted.value AND price_bars.day = "
        "(SELECT max(day) FROM price_bars AS latest WHERE latest.ticker_id = wanted.value "
        "AND latest.day > ? AND latest.day <= ?)", [since, ticker_ids, since, day], PriceBar)
    return {bar["ticker_id"]: (bar, bar["previous_close"]) for bar in rows}


def _change(close: float, previous: float | None) -> tuple[float | None, float | None]:
    """The change from the previous close, and in percent of it (None without a previous close)."""
    if previous is None:
        return None, None
    change = round(close - previous, 2)
    return change, round(change / previous * 100, 2)


def _quotes(ctx: ToolContext, tickers: Sequence[Row]) -> dict[int, QuoteOut]:
    """Quotes of `tickers` at the latest close, keyed by ticker id."""
    ids, day = [t["id"] for t in tickers], _market_day(ctx)
    latest = _latest_bars(ctx, ids, day)
    year_stats = {row["ticker_id"]: row for row in ctx.sql.all(
        "SELECT ticker_id, max(high) AS high, min(low) AS low, avg(CASE WHEN day > ? THEN volume END) AS volume "
        f"FROM price_bars WHERE ticker_id {IN_LIST} AND day > ? AND day <= ? GROUP BY ticker_id",
        [day - timedelta(days=91), ids, day - timedelta(days=365), day])}
    eps = {row["ticker_id"]: row["eps"] for row in ctx.sql.all(
        f"SELECT ticker_id, eps FROM fundamentals AS latest WHERE ticker_id {IN_LIST} "
        "AND fiscal_year = (SELECT max(fiscal_year) FROM fundamentals WHERE ticker_id = latest.ticker_id)", [ids])}
    dividends = {row["ticker_id"]: row["amount"] for row in ctx.sql.all(
        f"SELECT ticker_id, sum(amount) AS amount FROM dividends WHERE ticker_id {IN_LIST} "
        "AND ex_date > ? AND ex_date <= ? GROUP BY ticker_id", [ids, day - timedelta(days=365), day])}
    quotes = {}
    for t in tickers:
        last, prev = latest[t["id"]]
        stats = year_stats[t["id"]]
        change, change_percent = _change(last["close"], prev)
        trailing_eps = eps.get(t["id"])
        quotes[t["id"]] = QuoteOut(
            symbol=t["symbol"], name=t["name"], exchange=t["exchange"], currency=t["currency"], price=last["close"],
            previous_close=prev, change=change, change_percent=change_percent,
            open=last["open"], day_high=last["high"], day_low=last["low"], volume=last["volume"],
            average_volume_3m=int(stats["volume"] or 0), fifty_two_week_high=stats["high"],
            fifty_two_week_low=stats["low"], market_cap=round(last["close"] * t["shares_outstanding"]),
            trailing_eps=trailing_eps,
            pe_ratio=round(last["close"] / trailing_eps, 2) if trailing_eps and trailing_eps > 0 else None,
            dividend_yield_percent=round(dividends.get(t["id"], 0.0) / last["close"] * 100, 2),
            trading_day=last["day"], as_of=ctx.now,
        )
    return quotes


def _months_before(day: date, months: int) -> date:
    """The same day of the month `months` earlier (clamped to the month's end, and to year 1)."""
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    if year < 1:
        return date.min
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


PERIOD_MONTHS = {"1mo": 1, "3mo": 3, "6mo": 6, "1y": 12, "2y": 24, "5y": 60}


def _window(ctx: ToolContext, period: str, start: datetime | None, end: datetime | None) -> tuple[date | None, date]:
    """First and last day of a window (first None for all history); the last is at most the market day."""
    market_day = _market_day(ctx)
    last = min(end.date(), market_day) if end is not None else market_day
    if start is not None:
        first: date | None = start.date()
    elif period == "max":
        first = None
    elif period == "ytd":
        first = date(last.year, 1, 1)
    elif period == "5d":
        fifth = ctx.sql.one("SELECT DISTINCT day FROM price_bars WHERE day <= ? ORDER BY day DESC LIMIT 1 OFFSET 4",
                            [last], PriceBar)
        first = None if fifth is None else fifth["day"]
    else:
        first = _months_before(last, PERIOD_MONTHS[period])
    if first is not None and first > last:
        raise InvalidArgumentError(f"the window starts on {first} but ends on {last}; give a start before the end")
    return first, last


def _day_clauses(first: date | None, last: date) -> tuple[str, list[Any]]:
    """The condition on `price_bars.day` of a window, and its parameters."""
    if first is None:
        return "price_bars.day <= ?", [last]
    return "price_bars.day <= ? AND price_bars.day >= ?", [last, first]


def _bars(ctx: ToolContext, ticker_ids: list[int], first: date | None, last: date) -> dict[int, list[Row]]:
    """The daily bars of tickers in a window, oldest first, per ticker (tickers without one left out)."""
    days, params = _day_clauses(first, last)
    bars: dict[int, list[Row]] = {}
    for bar in ctx.sql.all(f"SELECT * FROM price_bars WHERE ticker_id {IN_LIST} AND {days} ORDER BY ticker_id, day",
                           [ticker_ids, *params], PriceBar):
        bars.setdefault(bar["ticker_id"], []).append(bar)
    return bars


def _bucket(day: date, interval: str) -> date:
    if interval == "1wk":
        return day - timedelta(days=day.weekday())
    if interval == "1mo":
        return day.replace(day=1)
    return day


def _aggregate(bars: list[Row], interval: str) -> list[BarOut]:
    """Daily bars merged into weekly (Monday-based) or calendar-month bars."""
    merged: list[dict[str, Any]] = []
    key: date | None = None
    for bar in bars:
        bucket = _bucket(bar["day"], interval)
        if merged and bucket == key:
            current = merged[-1]
            current["high"], current["low"] = max(current["high"], bar["high"]), min(current["low"], bar["low"])
            current["close"], current["volume"] = bar["close"], current["volume"] + bar["volume"]
        else:
            merged.append({"date": bar["day"], "open": bar["open"], "high": bar["high"], "low": bar["low"],
                           "close": bar["close"], "volume": bar["volume"]})
            key = bucket
    return [BarOut(**values) for values in merged]


def _fiscal_years(ctx: ToolContext, ticker: Row, years: int) -> list[FiscalYearOut]:
    """A ticker's newest `years` fiscal years, newest first, each with its year-end close and the
    dividends with ex-date in the year (read in one statement, with the year before the oldest
    for its growth)."""
    rows = ctx.sql.all(
        "SELECT fundamentals.*, "
        "(SELECT close FROM price_bars WHERE price_bars.ticker_id = fundamentals.ticker_id "
        "AND price_bars.day <= fundamentals.period_end ORDER BY price_bars.day DESC LIMIT 1) AS year_end_close, "
        "(SELECT coalesce(sum(amount), 0.0) FROM dividends WHERE dividends.ticker_id = fundamentals.ticker_id "
        "AND dividends.ex_date >= printf('%04d-01-01', fundamentals.fiscal_year) "
        "AND dividends.ex_date <= fundamentals.period_end) AS year_dividends "
        "FROM fundamentals WHERE ticker_id = ? ORDER BY fiscal_year DESC LIMIT ?",
        [ticker["id"], years + 1], Fundamental)
    out = []
    for row, previous in zip(rows[:years], [*rows[1:], None]):
        price = None if ticker["listed_on"] > row["period_end"] else row["year_end_close"]
        dps = round(row["year_dividends"] or 0.0, 2)
        growth = None if previous is None else round((row["revenue"] / previous["revenue"] - 1) * 100, 2)
        out.append(FiscalYearOut(
            **row, net_margin_percent=round(row["net_income"] / row["revenue"] * 100, 2),
            revenue_growth_percent=growth,
            year_end_price=price,
            pe_ratio=round(price / row["eps"], 2) if price is not None and row["eps"] > 0 else None,
            dividends_per_share=dps,
            dividend_yield_percent=None if price is None else round(dps / price * 100, 2),
        ))
    return out


def _dividend_out(row: Row, now: datetime) -> DividendOut:
    return DividendOut(**row, status="upcoming" if row["pay_date"] > now.date() else "paid")


def _returns(ctx: ToolContext, tickers: list[Row], first: date | None, last: date) -> list[ReturnOut]:
    """The return of each ticker over a window, in the order given; a ticker without a trading
    day in the window is the error."""
    ids = [t["id"] for t in tickers]
    bars = _bars(ctx, ids, first, last)
    days, params = _day_clauses(first, last)
    dividends = {row["ticker_id"]: row["amount"] for row in ctx.sql.all(
        "WITH spans AS (SELECT ticker_id, min(day) AS first_day, max(day) AS last_day FROM price_bars "
        f"WHERE ticker_id {IN_LIST} AND {days} GROUP BY ticker_id) "
        "SELECT spans.ticker_id, (SELECT coalesce(sum(amount), 0.0) FROM dividends "
        "WHERE dividends.ticker_id = spans.ticker_id AND dividends.ex_date > spans.first_day "
        "AND dividends.ex_date <= spans.last_day) AS amount FROM spans", [ids, *params])}
    out = []
    for ticker in tickers:
        held = bars.get(ticker["id"])
        if not held:
            raise InvalidArgumentError(f"{ticker['symbol']} has no trading days between {first} and {last} "
                                       f"(listed on {ticker['listed_on']})")
        out.append(_return(ticker, held, dividends[ticker["id"]] or 0.0, first))
    return out


def _return(ticker: Row, bars: list[Row], dividends: float, first: date | None) -> ReturnOut:
    start, end = bars[0], bars[-1]
    peak, drawdown = start["close"], 0.0
    for bar in bars:
        peak = max(peak, bar["close"])
        drawdown = min(drawdown, bar["close"] / peak - 1)
    return ReturnOut(
        symbol=ticker["symbol"], name=ticker["name"], start_date=start["day"], end_date=end["day"],
        start_price=start["close"], end_price=end["close"],
        price_return_percent=round((end["close"] / start["close"] - 1) * 100, 2),
        dividends_per_share=round(dividends, 2),
        total_return_percent=round((end["close"] + dividends - start["close"]) / start["close"] * 100, 2),
        period_high=max(b["high"] for b in bars), period_low=min(b["low"] for b in bars),
        max_drawdown_percent=round(drawdown * 100, 2),
        full_period=first is None or ticker["listed_on"] <= first,
    )


# ---------------------------------------------------------------- portfolios


def _closes(ctx: ToolContext, ticker_ids: list[int], day: date) -> dict[int, tuple[float, float]]:
    """Latest close and previous close per ticker (the latest again when there is no previous)."""
    return {tid: (bar["close"], bar["close"] if previous is None else previous)
            for tid, (bar, previous) in _latest_bars(ctx, ticker_ids, day).items()}


def _positions(ctx: ToolContext, portfolio_ids: list[int], include_closed: bool = False) -> dict[int, list[Row]]:
    """The positions of portfolios by id, each with its ticker's symbol and name."""
    closed = "" if include_closed else " AND positions.quantity > 0"
    out: dict[int, list[Row]] = {pid: [] for pid in portfolio_ids}
    for position in ctx.sql.all(
            "SELECT positions.*, tickers.symbol, tickers.name FROM positions "
            f"JOIN tickers ON tickers.id = positions.ticker_id WHERE positions.portfolio_id {IN_LIST}{closed} "
            "ORDER BY positions.id", [portfolio_ids], Position):
        out[position["portfolio_id"]].append(position)
    return out


def _market_value(held: list[Row], closes: dict[int, tuple[float, float]]) -> float:
    """Quantity times latest close, summed over positions."""
    return round(sum(p["quantity"] * closes[p["ticker_id"]][0] for p in held), 2)


def _position_out(p: Row, close: float, previous: float, portfolio_value: float) -> PositionOut:
    """A position (with its ticker's symbol and name) valued at `close`; its weight is relative
    to `portfolio_value` (the market value)."""
    value = round(p["quantity"] * close, 2)
    return PositionOut(
        symbol=p["symbol"], name=p["name"], quantity=p["quantity"],
        average_cost=average_cost(p["cost_basis"], p["quantity"]), cost_basis=p["cost_basis"], price=close,
        market_value=value, unrealized_pnl=round(value - p["cost_basis"], 2),
        unrealized_pnl_percent=round((value / p["cost_basis"] - 1) * 100, 2) if p["cost_basis"] else None,
        day_change=round(p["quantity"] * (close - previous), 2),
        weight_percent=round(value / portfolio_value * 100, 2) if portfolio_value else 0.0,
        realized_pnl=p["realized_pnl"], opened_at=p["opened_at"],
    )


def _summaries(
    ctx: ToolContext, portfolios: list[Row], include_closed: bool = False
) -> list[tuple[PortfolioSummary, list[PositionOut]]]:
    """Each portfolio (a row with its owner) valued at the latest close, with its positions,
    largest market value first."""
    positions = _positions(ctx, [p["id"] for p in portfolios], include_closed)
    ticker_ids = sorted({pos["ticker_id"] for group in positions.values() for pos in group})
    closes = _closes(ctx, ticker_ids, _market_day(ctx)) if ticker_ids else {}
    out = []
    for p in portfolios:
        held = positions[p["id"]]
        market_value = _market_value(held, closes)
        rows = sorted((_position_out(pos, *closes[pos["ticker_id"]], market_value) for pos in held),
                      key=lambda r: (-r.market_value, r.symbol))
        summary = PortfolioSummary(
            **p, market_value=market_value, total_value=round(p["cash"] + market_value, 2),
            unrealized_pnl=round(sum(r.unrealized_pnl for r in rows), 2),
            open_positions=sum(1 for r in rows if r.quantity > 0),
        )
        out.append((summary, rows))
    return out


def _detail(ctx: ToolContext, portfolio: Row, include_closed: bool) -> PortfolioDetail:
    summary, rows = _summaries(ctx, [portfolio], include_closed)[0]
    realized = ctx.sql.scalar("SELECT coalesce(sum(realized_pnl), 0.0) FROM positions WHERE portfolio_id = ?",
                              [portfolio["id"]]) or 0.0
    sums = {row["kind"]: row["amount"] for row in ctx.sql.all(
        "SELECT kind, sum(amount) AS amount FROM transactions WHERE portfolio_id = ? GROUP BY kind", [portfolio["id"]])}
    net_deposits = round(sums.get("deposit", 0.0) + sums.get("withdrawal", 0.0), 2)
    return PortfolioDetail(
        **summary.model_dump(), positions=rows, realized_pnl=round(realized, 2), net_deposits=net_deposits,
        dividends_received=round(sums.get("dividend", 0.0), 2),
        total_gain=round(summary.total_value - net_deposits, 2),
    )


def _record(ctx: ToolContext, portfolio: Row, kind: str, amount: float, day: date, ticker: Row | None = None,
            quantity: int | None = None, price: float | None = None, pnl: float | None = None) -> TransactionOut:
    """Move `amount` into the portfolio's cash (in `portfolio` too) and write the transaction,
    traded on `day`."""
    portfolio["cash"] = round(portfolio["cash"] + amount, 2)
    ctx.sql.execute("UPDATE portfolios SET cash = ? WHERE id = ?", [portfolio["cash"], portfolio["id"]])
    ticker_id = None if ticker is None else ticker["id"]
    transaction_id = ctx.sql.insert(
        "INSERT INTO transactions (portfolio_id, kind, ticker_id, quantity, price, amount, realized_pnl, trade_date, "
        "executed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [portfolio["id"], kind, ticker_id, quantity, price, amount, pnl, day, ctx.now])
    return TransactionOut(id=transaction_id, portfolio_id=portfolio["id"], kind=kind,
                          symbol=None if ticker is None else ticker["symbol"], quantity=quantity, price=price,
                          amount=amount, realized_pnl=pnl, trade_date=day, executed_at=ctx.now)


def _holding(ctx: ToolContext, portfolio_id: int, ticker_id: int) -> Position | None:
    """The position of a ticker in a portfolio, as an unsaved model whose `buy` and `sell` do
    the arithmetic; None if the portfolio never held the ticker."""
    row = ctx.sql.one("SELECT * FROM positions WHERE portfolio_id = ? AND ticker_id = ?", [portfolio_id, ticker_id],
                      Position)
    return None if row is None else Position(**row)


def _save_position(ctx: ToolContext, position: Position) -> Row:
    """Write a position (an INSERT if it has no id yet); its row as written."""
    row = {column.key: getattr(position, column.key) for column in Position.__table__.columns}
    if row["id"] is None:
        row["id"] = ctx.sql.insert(
            "INSERT INTO positions (portfolio_id, ticker_id, quantity, cost_basis, realized_pnl, opened_at, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [row["portfolio_id"], row["ticker_id"], row["quantity"], row["cost_basis"], row["realized_pnl"],
             row["opened_at"], row["updated_at"]])
    else:
        ctx.sql.execute(
            "UPDATE positions SET quantity = ?, cost_basis = ?, realized_pnl = ?, opened_at = ?, updated_at = ? "
            "WHERE id = ?",
            [row["quantity"], row["cost_basis"], row["realized_pnl"], row["opened_at"], row["updated_at"], row["id"]])
    return row


def _trade_result(ctx: ToolContext, portfolio: Row, ticker: Row, position: Row, transaction: TransactionOut,
                  day: date) -> TradeResult:
    """The trade, the traded position valued within the portfolio's market value, and the cash."""
    held = _positions(ctx, [portfolio["id"]])[portfolio["id"]]
    closes = _closes(ctx, sorted({p["ticker_id"] for p in held} | {ticker["id"]}), day)
    traded = {**position, "symbol": ticker["symbol"], "name": ticker["name"]}
    return TradeResult(transaction=transaction, cash=portfolio["cash"],
                       position=_position_out(traded, *closes[ticker["id"]], _market_value(held, closes)))


# ---------------------------------------------------------------- watchlists


def _watchlist_summaries(ctx: ToolContext, watchlists: list[Row]) -> list[WatchlistSummary]:
    """Summaries of watchlist rows (with their owners), their symbols (A-Z) read in one statement."""
    symbols: dict[int, list[str]] = {w["id"]: [] for w in watchlists}
    for item in ctx.sql.all(
            "SELECT watchlist_items.watchlist_id, tickers.symbol FROM watchlist_items "
            f"JOIN tickers ON tickers.id = watchlist_items.ticker_id WHERE watchlist_items.watchlist_id {IN_LIST} "
            "ORDER BY tickers.symbol, watchlist_items.watchlist_id", [list(symbols)]):
        symbols[item["watchlist_id"]].append(item["symbol"])
    return [WatchlistSummary(**w, symbols=symbols[w["id"]]) for w in watchlists]


def _add_items(ctx: ToolContext, watchlist_id: int, ticker_ids: list[int]) -> None:
    """Put tickers on a watchlist, in the order given."""
    if ticker_ids:
        ctx.sql.execute("INSERT INTO watchlist_items (watchlist_id, ticker_id, added_at) "
                        "SELECT ?, value, ? FROM json_each(?) ORDER BY key", [watchlist_id, ctx.now, ticker_ids])


# ---------------------------------------------------------------- reads: market data


@tools.tool(examples=[
    {"query": "green"}, {"sector": "Energy", "sort_by": "market_cap", "sort_order": "desc", "per_page": 5},
])
def search_tickers(
    ctx: ToolContext,
    query: Annotated[str | None, Field(description="Part of the company name or of the symbol (case-insensitive).")] = None,
    sector: Annotated[Sector | None, Field(description="Only tickers in this sector.")] = None,
    industry: Annotated[str | None, Field(description="Part of the industry name, e.g. 'software' (case-insensitive).")] = None,
    exchange: Annotated[Literal["NYSE", "NASDAQ"] | None, Field(description="Only tickers listed on this exchange.")] = None,
    country: Annotated[str | None, Field(description="Only companies headquartered in this country, e.g. 'United States'.")] = None,
    min_market_cap: Annotated[float | None, Field(ge=0, description="Minimum market cap in USD.")] = None,
    max_market_cap: Annotated[float | None, Field(ge=0, description="Maximum market cap in USD.")] = None,
    sort_by: Annotated[Literal["symbol", "name", "market_cap", "change_percent", "volume", "price"],
                       Field(description="Sort key; change_percent sorts by today's move (top gainers with desc).")] = "symbol",
    sort_order: Annotated[Literal["asc", "desc"], Field(description="Sort direction.")] = "asc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> TickerPage:
    """Find tickers by company name or partial symbol, sector, industry, exchange, country or market cap.

    Each result carries the latest price, today's % change and the market cap.
    """
    clauses = ["1"]
    params: list[Any] = []
    if query:
        clauses.append("(lower(name) LIKE ? ESCAPE '/' OR lower(symbol) LIKE ? ESCAPE '/')")
        params += [contains_pattern(query.strip().lower())] * 2
    if sector:
        clauses.append("sector = ?")
        params.append(sector)
    if industry:
        clauses.append("lower(industry) LIKE ? ESCAPE '/'")
        params.append(contains_pattern(industry.strip().lower()))
    if exchange:
        clauses.append("exchange = ?")
        params.append(exchange)
    if country:
        clauses.append("lower(country) = ?")
        params.append(country.strip().lower())
    tickers = ctx.sql.all("SELECT id, symbol, name, exchange, sector, industry, country, shares_outstanding "
                          f"FROM tickers WHERE {' AND '.join(clauses)} ORDER BY symbol", params)
    latest = _latest_bars(ctx, [t["id"] for t in tickers], _market_day(ctx)) if tickers else {}
    rows = []
    for t in tickers:
        last, previous = latest[t["id"]]
        market_cap = round(last["close"] * t["shares_outstanding"])
        if (min_market_cap is None or market_cap >= min_market_cap) and (
                max_market_cap is None or market_cap <= max_market_cap):
            rows.append(TickerSummary(**t, price=last["close"], change_percent=_change(last["close"], previous)[1],
                                      market_cap=market_cap, volume=last["volume"]))
    # A stable sort: ties keep the symbol order the statement gave.
    rows.sort(key=lambda r: getattr(r, sort_by) if getattr(r, sort_by) is not None else 0,
              reverse=sort_order == "desc")
    offset, limit = page_slice(page, per_page)
    return TickerPage(tickers=rows[offset:offset + limit], total=len(rows), page=page,
                      next_page=next_page(page, per_page, len(rows)))


@tools.tool(examples=[{"symbol": "GREE"}])
def get_company_profile(ctx: ToolContext, symbol: Symbol) -> CompanyProfile:
    """Get a company's profile: exchange, sector, industry, headquarters, employees, description, market cap."""
    ticker = _ticker(ctx, symbol)
    close = _latest_bars(ctx, [ticker["id"]], _market_day(ctx))[ticker["id"]][0]["close"]
    return CompanyProfile(**ticker, price=close, market_cap=round(close * ticker["shares_outstanding"]))


@tools.tool(examples=[{"symbols": ["GREE", "cros"]}])
def get_quotes(ctx: ToolContext, symbols: Symbols) -> QuoteList:
    """Get current quotes: price, change vs previous close, day range, volume, 52-week range, market cap, P/E, yield.

    Prices are end-of-day: the market is treated as closed at the latest trading day's close.
    """
    tickers = _tickers(ctx, symbols)
    quotes = _quotes(ctx, tickers)
    return QuoteList(quotes=[quotes[t["id"]] for t in tickers])


@tools.tool(examples=[
    {"symbol": "GREE", "period": "6mo", "interval": "1wk"},
    {"symbol": "CROS", "start": "2024-01-01", "end": "2024-03-31"},
])
def get_price_history(
    ctx: ToolContext,
    symbol: Symbol,
    period: PeriodArg = "1mo",
    interval: Annotated[Interval, Field(description=(
        "Bar size: 1d daily, 1wk weekly (Monday-based weeks), 1mo calendar months. Weekly and monthly bars are "
        "built from the daily bars inside the window. 5y of 1d is ~1,300 bars; prefer 1wk or 1mo for long windows."))] = "1d",
    start: StartArg = None,
    end: EndArg = None,
) -> PriceHistory:
    """Get OHLCV price bars of a ticker over a period or date range, oldest first (USD, volume in shares)."""
    ticker = _ticker(ctx, symbol)
    first, last = _window(ctx, period, start, end)
    bars = _aggregate(_bars(ctx, [ticker["id"]], first, last).get(ticker["id"], []), interval)
    return PriceHistory(symbol=ticker["symbol"], interval=interval,
                        start_date=bars[0].date if bars else None, end_date=bars[-1].date if bars else None,
                        bars=bars)


@tools.tool(examples=[{"symbol": "CROS", "years": 3}])
def get_fundamentals(
    ctx: ToolContext,
    symbol: Symbol,
    years: Annotated[int, Field(ge=1, le=5, description="How many fiscal years, newest first (at most 5).")] = 5,
) -> Fundamentals:
    """Get annual results by fiscal year (calendar years): revenue, profits, EPS, P/E and dividend yield at year end."""
    ticker = _ticker(ctx, symbol)
    return Fundamentals(symbol=ticker["symbol"], name=ticker["name"], shares_outstanding=ticker["shares_outstanding"],
                        years=_fiscal_years(ctx, ticker, years))


@tools.tool(examples=[{"status": "upcoming"}, {"symbol": "CROS", "ex_after": "2024-01-01"}])
def get_dividends(
    ctx: ToolContext,
    symbol: Annotated[str | None, Field(max_length=8, description="Only this ticker; omit for the dividend calendar of all tickers.")] = None,
    ex_after: Annotated[DateTimeArg | None, Field(description="Only ex-dates on or after this date (ISO 8601).")] = None,
    ex_before: Annotated[DateTimeArg | None, Field(description="Only ex-dates on or before this date (ISO 8601).")] = None,
    status: Annotated[Literal["paid", "upcoming"] | None, Field(description="upcoming: not yet paid (pay date after now).")] = None,
    sort_order: Annotated[Literal["asc", "desc"], Field(description="By ex-date.")] = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> DividendPage:
    """List declared cash dividends per share (ex-date, pay date, amount), for one ticker or all; includes upcoming ones."""
    clauses = ["1"]
    params: list[Any] = []
    if symbol:
        clauses.append("dividends.ticker_id = ?")
        params.append(_ticker(ctx, symbol)["id"])
    if ex_after is not None:
        clauses.append("dividends.ex_date >= ?")
        params.append(ex_after.date())
    if ex_before is not None:
        clauses.append("dividends.ex_date <= ?")
        params.append(ex_before.date())
    if status is not None:
        clauses.append("dividends.pay_date > ?" if status == "upcoming" else "dividends.pay_date <= ?")
        params.append(ctx.now.date())
    where = " AND ".join(clauses)
    direction = "ASC" if sort_order == "asc" else "DESC"
    found = ctx.sql.page("dividends.*, tickers.symbol",
                         f"FROM dividends JOIN tickers ON tickers.id = dividends.ticker_id WHERE {where} "
                         f"ORDER BY dividends.ex_date {direction}, tickers.symbol, dividends.id",
                         params, page, per_page, Dividend)
    amount = ctx.sql.scalar(f"SELECT coalesce(sum(dividends.amount), 0.0) FROM dividends WHERE {where}", params) or 0.0
    return DividendPage(dividends=[_dividend_out(row, ctx.now) for row in found.rows], total=found.total,
                        total_amount=round(amount, 2), page=page, next_page=found.next_page)


@tools.tool(examples=[{"symbols": ["GREE", "CROS", "WALK"], "period": "1y"}])
def compare_returns(
    ctx: ToolContext,
    symbols: Annotated[list[Symbol], Field(min_length=1, max_length=10, description="1-10 ticker symbols.")],
    period: PeriodArg = "1y",
    start: StartArg = None,
    end: EndArg = None,
) -> ReturnComparison:
    """Compare the returns of tickers over the same window: price return, dividends, total return, drawdown.

    Returns run from the close of the first trading day in the window to the close of the last one.
    """
    tickers = _tickers(ctx, symbols)
    first, last = _window(ctx, period, start, end)
    returns = _returns(ctx, tickers, first, last)
    ranking = [r.symbol for r in sorted(returns, key=lambda r: -r.total_return_percent)]
    return ReturnComparison(returns=returns, ranking=ranking)


# ---------------------------------------------------------------- reads: portfolios


@tools.tool(examples=[{"email": "keith.santana@northwindsystems.com"}])
def get_investor(ctx: ToolContext, email: Email) -> InvestorOut:
    """Look up an employee by email: name, email, organisation, job title, and their portfolios and watchlists."""
    investor = _investor(ctx, email)
    portfolios = ctx.sql.all("SELECT id, name, kind FROM portfolios WHERE investor_id = ? ORDER BY id",
                             [investor["id"]])
    watchlists = ctx.sql.all("SELECT id, name FROM watchlists WHERE investor_id = ? ORDER BY id", [investor["id"]])
    return InvestorOut(**investor, portfolios=[PortfolioRef(**p) for p in portfolios],
                       watchlists=[WatchlistRef(**w) for w in watchlists])


@tools.tool(examples=[{"kind": "personal"}, {"owner_email": "tanya.wagner@northwindsystems.com"}])
def list_portfolios(
    ctx: ToolContext,
    owner_email: Annotated[str | None, Field(description="Only portfolios of this employee (work email).")] = None,
    kind: Annotated[Literal["treasury", "personal"] | None, Field(description="Only this kind of portfolio.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> PortfolioPage:
    """List portfolios with owner, cash, market value and total value at the latest close, by id."""
    clauses = ["1"]
    params: list[Any] = []
    if owner_email:
        clauses.append("portfolios.investor_id = ?")
        params.append(_investor(ctx, owner_email)["id"])
    if kind:
        clauses.append("portfolios.kind = ?")
        params.append(kind)
    columns, source = PORTFOLIOS
    found = ctx.sql.page(columns, f"{source} WHERE {' AND '.join(clauses)} ORDER BY portfolios.id", params, page,
                         per_page, Portfolio)
    return PortfolioPage(portfolios=[s for s, _ in _summaries(ctx, found.rows)], total=found.total, page=page,
                         next_page=found.next_page)


@tools.tool(examples=[{"portfolio_id": 1}, {"portfolio_id": 2, "include_closed": True}])
def get_portfolio(
    ctx: ToolContext,
    portfolio_id: PortfolioId,
    include_closed: Annotated[bool, Field(description="Also list tickers sold out completely (quantity 0), for their realised P&L.")] = False,
) -> PortfolioDetail:
    """Get a portfolio: cash, positions with average cost, market value, unrealised and realised P&L, and totals."""
    return _detail(ctx, _portfolio(ctx, portfolio_id), include_closed)


@tools.tool(examples=[{"portfolio_id": 1, "kind": ["buy", "sell"], "per_page": 5}])
def list_transactions(
    ctx: ToolContext,
    portfolio_id: PortfolioId,
    kind: Annotated[list[TransactionKind] | None, Field(description="Only these kinds.")] = None,
    symbol: Annotated[str | None, Field(max_length=8, description="Only trades and dividends of this ticker.")] = None,
    start: Annotated[DateTimeArg | None, Field(description="Only trade dates on or after this date (ISO 8601).")] = None,
    end: Annotated[DateTimeArg | None, Field(description="Only trade dates on or before this date (ISO 8601).")] = None,
    sort_order: Annotated[Literal["asc", "desc"], Field(description="By execution time.")] = "desc",
    page: Page = 1,
    per_page: PerPage = 25,
) -> TransactionPage:
    """List a portfolio's transactions (deposits, withdrawals, buys, sells, dividends) with the net cash effect."""
    _portfolio(ctx, portfolio_id)
    clauses = ["transactions.portfolio_id = ?"]
    params: list[Any] = [portfolio_id]
    if kind:
        clauses.append(f"transactions.kind {IN_LIST}")
        params.append(kind)
    if symbol:
        clauses.append("transactions.ticker_id = ?")
        params.append(_ticker(ctx, symbol)["id"])
    if start is not None:
        clauses.append("transactions.trade_date >= ?")
        params.append(start.date())
    if end is not None:
        clauses.append("transactions.trade_date <= ?")
        params.append(end.date())
    where = " AND ".join(clauses)
    direction = "ASC" if sort_order == "asc" else "DESC"
    found = ctx.sql.page("transactions.*, tickers.symbol",
                         f"FROM transactions LEFT JOIN tickers ON tickers.id = transactions.ticker_id WHERE {where} "
                         f"ORDER BY transactions.executed_at {direction}, transactions.id {direction}",
                         params, page, per_page, Transaction)
    net = ctx.sql.scalar(f"SELECT coalesce(sum(transactions.amount), 0.0) FROM transactions WHERE {where}",
                         params) or 0.0
    return TransactionPage(
        transactions=[TransactionOut(**row) for row in found.rows],
        total=found.total, net_amount=round(net, 2), page=page, next_page=found.next_page,
    )


@tools.tool(examples=[{"portfolio_id": 1, "period": "3mo"}])
def get_portfolio_history(
    ctx: ToolContext,
    portfolio_id: PortfolioId,
    period: PeriodArg = "1y",
    interval: Annotated[Interval, Field(description="1d: every trading day; 1wk/1mo: the last trading day of each week/month.")] = "1wk",
    start: StartArg = None,
    end: EndArg = None,
) -> PortfolioHistory:
    """Get a portfolio's value over time (cash + holdings at each day's close), from its transactions and prices.

    Days before the portfolio was created are left out. The last point equals get_portfolio's total_value.
    """
    portfolio = _portfolio(ctx, portfolio_id)
    first, last = _window(ctx, period, start, end)
    created = portfolio["created_at"].date()
    first = max(first or created, created)
    transactions = ctx.sql.all("SELECT * FROM transactions WHERE portfolio_id = ? ORDER BY trade_date, executed_at, id",
                               [portfolio_id], Transaction)
    ticker_ids = sorted({t["ticker_id"] for t in transactions if t["kind"] in ("buy", "sell") and t["ticker_id"]})
    closes = {(bar["ticker_id"], bar["day"]): bar["close"] for bar in ctx.sql.all(
        f"SELECT ticker_id, day, close FROM price_bars WHERE ticker_id {IN_LIST} AND day >= ? AND day <= ?",
        [ticker_ids, first, last], PriceBar)} if ticker_ids else {}
    days = [row["day"] for row in ctx.sql.all(
        "SELECT DISTINCT day FROM price_bars WHERE day >= ? AND day <= ? ORDER BY day", [first, last], PriceBar)]
    points = _value_points(transactions, days, closes)
    if interval != "1d":
        points = [p for i, p in enumerate(points)
                  if i + 1 == len(points) or _bucket(points[i + 1].date, interval) != _bucket(p.date, interval)]
    flows = round(points[-1].net_deposits - points[0].net_deposits, 2) if points else 0.0
    start_value = points[0].total_value if points else None
    end_value = points[-1].total_value if points else None
    return PortfolioHistory(
        portfolio_id=portfolio_id, interval=interval, points=points, start_value=start_value, end_value=end_value,
        net_flows=flows, gain=round((end_value or 0.0) - (start_value or 0.0) - flows, 2),
    )


def _value_points(transactions: list[Row], days: list[date], closes: dict[tuple[int, date], float]) -> list[ValuePoint]:
    """Replay `transactions` and value cash plus holdings at the close of each of `days`."""
    cash, deposits, i = 0.0, 0.0, 0
    holdings: dict[int, int] = {}
    points = []
    for day in days:
        while i < len(transactions) and transactions[i]["trade_date"] <= day:
            t = transactions[i]
            cash += t["amount"]
            if t["kind"] in ("deposit", "withdrawal"):
                deposits += t["amount"]
            elif t["kind"] in ("buy", "sell") and t["ticker_id"] is not None and t["quantity"] is not None:
                change = t["quantity"] if t["kind"] == "buy" else -t["quantity"]
                holdings[t["ticker_id"]] = holdings.get(t["ticker_id"], 0) + change
            i += 1
        value = round(sum(q * closes[(tid, day)] for tid, q in sorted(holdings.items()) if q), 2)
        points.append(ValuePoint(date=day, cash=round(cash, 2), holdings_value=value,
                                 total_value=round(cash + value, 2), net_deposits=round(deposits, 2)))
    return points


# ---------------------------------------------------------------- reads: watchlists


@tools.tool(examples=[{"owner_email": "david.wilson@northwindsystems.com"}, {"symbol": "GREE"}])
def list_watchlists(
    ctx: ToolContext,
    owner_email: Annotated[str | None, Field(description="Only watchlists of this employee (work email).")] = None,
    symbol: Annotated[str | None, Field(max_length=8, description="Only watchlists containing this ticker.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> WatchlistPage:
    """List watchlists with their owners and symbols, by id."""
    clauses = ["1"]
    params: list[Any] = []
    if owner_email:
        clauses.append("watchlists.investor_id = ?")
        params.append(_investor(ctx, owner_email)["id"])
    if symbol:
        clauses.append("watchlists.id IN (SELECT watchlist_id FROM watchlist_items WHERE ticker_id = ?)")
        params.append(_ticker(ctx, symbol)["id"])
    columns, source = WATCHLISTS
    found = ctx.sql.page(columns, f"{source} WHERE {' AND '.join(clauses)} ORDER BY watchlists.id", params, page,
                         per_page, Watchlist)
    return WatchlistPage(watchlists=_watchlist_summaries(ctx, found.rows), total=found.total, page=page,
                         next_page=found.next_page)


@tools.tool(examples=[{"watchlist_id": 1}])
def get_watchlist(ctx: ToolContext, watchlist_id: WatchlistId) -> WatchlistDetail:
    """Get a watchlist with the current quote of each of its symbols."""
    watchlist = _watchlist(ctx, watchlist_id)
    items = ctx.sql.all("SELECT tickers.*, watchlist_items.added_at FROM watchlist_items "
                        "JOIN tickers ON tickers.id = watchlist_items.ticker_id WHERE watchlist_items.watchlist_id = ? "
                        "ORDER BY tickers.symbol", [watchlist_id], (WatchlistItem, Ticker))
    quotes = _quotes(ctx, items) if items else {}
    return WatchlistDetail(
        **watchlist,
        entries=[WatchlistEntry(**quotes[item["id"]].model_dump(), added_at=item["added_at"]) for item in items],
    )


# ---------------------------------------------------------------- writes: portfolios


@tools.tool(writes=True, destructive=False, idempotent=True, title="Open a portfolio", examples=[
    {"owner_email": "ann.olson@northwindsystems.com", "name": "Brokerage", "initial_deposit": 25000},
])
def create_portfolio(
    ctx: ToolContext,
    owner_email: Email,
    name: Annotated[str, Field(min_length=1, max_length=80, description="Name, unique among the owner's portfolios.")],
    initial_deposit: Annotated[float, Field(ge=0, le=1_000_000_000, description="Cash to deposit now, USD (0 for none).")] = 0.0,
) -> PortfolioDetail:
    """Open a personal portfolio (USD) for an employee, optionally with a first cash deposit."""
    investor = _investor(ctx, owner_email)
    existing = ctx.sql.scalar("SELECT id FROM portfolios WHERE investor_id = ? AND name = ?", [investor["id"], name])
    if existing is not None:
        raise InvalidArgumentError(f"{investor['name']} already has a portfolio named {name!r} (id {existing})")
    portfolio: Row = {"investor_id": investor["id"], "name": name, "kind": "personal", "currency": "USD", "cash": 0.0,
                      "created_at": ctx.now, "owner_name": investor["name"], "owner_email": investor["email"]}
    portfolio["id"] = ctx.sql.insert(
        "INSERT INTO portfolios (investor_id, name, kind, currency, cash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        [portfolio["investor_id"], name, portfolio["kind"], portfolio["currency"], portfolio["cash"], ctx.now])
    if initial_deposit > 0:
        _record(ctx, portfolio, "deposit", round(initial_deposit, 2), _market_day(ctx))
    return _detail(ctx, portfolio, include_closed=False)


@tools.tool(writes=True, destructive=True, idempotent=False, title="Deposit or withdraw cash", examples=[{"portfolio_id": 2, "direction": "deposit", "amount": 5000}])
def transfer_cash(
    ctx: ToolContext,
    portfolio_id: PortfolioId,
    direction: Annotated[Literal["deposit", "withdrawal"], Field(description="deposit adds cash; withdrawal takes it out.")],
    amount: Annotated[float, Field(ge=0.01, le=1_000_000_000, description="USD, rounded to cents.")],
) -> CashResult:
    """Deposit cash into a portfolio or withdraw cash from it; a withdrawal cannot exceed the cash balance."""
    portfolio = _portfolio(ctx, portfolio_id)
    amount = round(amount, 2)
    if direction == "withdrawal" and amount > portfolio["cash"]:
        raise ForbiddenError(f"portfolio {portfolio_id} has {portfolio['cash']:,.2f} USD cash; cannot withdraw "
                             f"{amount:,.2f}. Sell shares with sell_shares first to raise cash.")
    transaction = _record(ctx, portfolio, direction, amount if direction == "deposit" else -amount, _market_day(ctx))
    return CashResult(transaction=transaction, cash=portfolio["cash"])


@tools.tool(writes=True, destructive=True, idempotent=False, title="Buy shares", examples=[{"portfolio_id": 1, "symbol": "GREE", "quantity": 100}])
def buy_shares(ctx: ToolContext, portfolio_id: PortfolioId, symbol: Symbol, quantity: Quantity) -> TradeResult:
    """Buy whole shares at the latest close, paid from the portfolio's cash (no commission).

    The cost (quantity x price) cannot exceed the cash balance.
    """
    portfolio = _portfolio(ctx, portfolio_id)
    ticker = _ticker(ctx, symbol)
    day = _market_day(ctx)
    price = _closes(ctx, [ticker["id"]], day)[ticker["id"]][0]
    cost = round(quantity * price, 2)
    if cost > portfolio["cash"]:
        affordable = int(portfolio["cash"] // price)
        raise ForbiddenError(
            f"buying {quantity} {ticker['symbol']} at {price:,.2f} costs {cost:,.2f} USD but portfolio {portfolio_id} "
            f"has {portfolio['cash']:,.2f} cash; at most {affordable} shares are affordable, or deposit cash with "
            "transfer_cash first"
        )
    position = _holding(ctx, portfolio_id, ticker["id"]) or Position(
        id=None, portfolio_id=portfolio_id, ticker_id=ticker["id"], quantity=0, cost_basis=0.0, realized_pnl=0.0,
        opened_at=ctx.now, updated_at=ctx.now)
    position.buy(quantity, price, ctx.now)
    saved = _save_position(ctx, position)
    transaction = _record(ctx, portfolio, "buy", -cost, day, ticker, quantity, price)
    return _trade_result(ctx, portfolio, ticker, saved, transaction, day)


@tools.tool(writes=True, destructive=True, idempotent=False, title="Sell shares", examples=[{"portfolio_id": 1, "symbol": "MONT", "quantity": 80}])
def sell_shares(ctx: ToolContext, portfolio_id: PortfolioId, symbol: Symbol, quantity: Quantity) -> TradeResult:
    """Sell whole shares at the latest close; proceeds go to cash and the realised P&L uses the average cost.

    You cannot sell more shares than the portfolio holds (no short selling).
    """
    portfolio = _portfolio(ctx, portfolio_id)
    ticker = _ticker(ctx, symbol)
    position = _holding(ctx, portfolio_id, ticker["id"])
    held = position.quantity if position is not None else 0
    if position is None or quantity > held:
        raise ForbiddenError(f"portfolio {portfolio_id} holds {held} shares of {ticker['symbol']}; cannot sell "
                             f"{quantity}. Use get_portfolio to see the positions.")
    day = _market_day(ctx)
    price = _closes(ctx, [ticker["id"]], day)[ticker["id"]][0]
    proceeds, pnl = position.sell(quantity, price, ctx.now)
    saved = _save_position(ctx, position)
    transaction = _record(ctx, portfolio, "sell", proceeds, day, ticker, quantity, price, pnl)
    return _trade_result(ctx, portfolio, ticker, saved, transaction, day)


# ---------------------------------------------------------------- writes: watchlists


@tools.tool(writes=True, destructive=False, idempotent=True, title="Create a watchlist", examples=[
    {"owner_email": "ann.olson@northwindsystems.com", "name": "Energy names", "symbols": ["CROS", "HOPE"]},
])
def create_watchlist(
    ctx: ToolContext,
    owner_email: Email,
    name: Annotated[str, Field(min_length=1, max_length=80, description="Name, unique among the owner's watchlists.")],
    symbols: Annotated[list[Symbol], Field(max_length=MAX_WATCHLIST_SYMBOLS, description="Symbols to start with (may be empty).")] = [],
) -> WatchlistSummary:
    """Create a watchlist for an employee, optionally with symbols (at most 50)."""
    investor = _investor(ctx, owner_email)
    tickers = _tickers(ctx, symbols)
    existing = ctx.sql.scalar("SELECT id FROM watchlists WHERE investor_id = ? AND name = ?", [investor["id"], name])
    if existing is not None:
        raise InvalidArgumentError(f"{investor['name']} already has a watchlist named {name!r} (id {existing})")
    watchlist: Row = {"investor_id": investor["id"], "name": name, "created_at": ctx.now,
                      "owner_name": investor["name"], "owner_email": investor["email"]}
    watchlist["id"] = ctx.sql.insert("INSERT INTO watchlists (investor_id, name, created_at) VALUES (?, ?, ?)",
                                     [investor["id"], name, ctx.now])
    _add_items(ctx, watchlist["id"], [t["id"] for t in tickers])
    return _watchlist_summaries(ctx, [watchlist])[0]


@tools.tool(writes=True, destructive=False, idempotent=True, title="Add symbols to a watchlist", examples=[{"watchlist_id": 1, "symbols": ["GREE", "CROS"]}])
def add_to_watchlist(ctx: ToolContext, watchlist_id: WatchlistId, symbols: Symbols) -> WatchlistChange:
    """Add symbols to a watchlist; symbols already on it are left as they are. A watchlist holds at most 50."""
    watchlist = _watchlist(ctx, watchlist_id)
    tickers = _tickers(ctx, symbols)
    have = set(ctx.sql.column("SELECT ticker_id FROM watchlist_items WHERE watchlist_id = ?", [watchlist_id]))
    new = [t for t in tickers if t["id"] not in have]
    if len(have) + len(new) > MAX_WATCHLIST_SYMBOLS:
        raise ForbiddenError(f"watchlist {watchlist_id} has {len(have)} symbols; adding {len(new)} would exceed "
                             f"the limit of {MAX_WATCHLIST_SYMBOLS}. Remove some with remove_from_watchlist first.")
    _add_items(ctx, watchlist_id, [t["id"] for t in new])
    return WatchlistChange(watchlist=_watchlist_summaries(ctx, [watchlist])[0],
                           changed=[t["symbol"] for t in new],
                           unchanged=[t["symbol"] for t in tickers if t["id"] in have])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Remove symbols from a watchlist", examples=[{"watchlist_id": 1, "symbols": ["PECK"]}])
def remove_from_watchlist(ctx: ToolContext, watchlist_id: WatchlistId, symbols: Symbols) -> WatchlistChange:
    """Remove symbols from a watchlist; every symbol named must be on it."""
    watchlist = _watchlist(ctx, watchlist_id)
    tickers = _tickers(ctx, symbols)
    have = set(ctx.sql.column("SELECT ticker_id FROM watchlist_items WHERE watchlist_id = ?", [watchlist_id]))
    absent = [t["symbol"] for t in tickers if t["id"] not in have]
    if absent:
        raise InvalidArgumentError(f"watchlist {watchlist_id} does not contain {', '.join(absent)}; "
                                   "use get_watchlist to see its symbols")
    ctx.sql.execute(f"DELETE FROM watchlist_items WHERE watchlist_id = ? AND ticker_id {IN_LIST}",
                    [watchlist_id, [t["id"] for t in tickers]])
    return WatchlistChange(watchlist=_watchlist_summaries(ctx, [watchlist])[0],
                           changed=[t["symbol"] for t in tickers], unchanged=[])


@tools.tool(writes=True, destructive=True, idempotent=True, title="Delete a watchlist", examples=[{"watchlist_id": 1}])
def delete_watchlist(ctx: ToolContext, watchlist_id: WatchlistId) -> DeletedWatchlist:
    """Delete a watchlist and its symbols."""
    watchlist = _watchlist(ctx, watchlist_id)
    ctx.sql.execute("DELETE FROM watchlist_items WHERE watchlist_id = ?", [watchlist_id])
    ctx.sql.execute("DELETE FROM watchlists WHERE id = ?", [watchlist_id])
    return DeletedWatchlist(id=watchlist_id, name=watchlist["name"], deleted=True)
