"""The finance tools: look up market data and manage portfolios and watchlists for employees."""

from __future__ import annotations

import calendar
from datetime import date, datetime, timedelta
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from sqlalchemy import ColumnElement, case, func, select
from sqlalchemy.orm import Session

from mcpgym.servers.finance.models import (
    Dividend,
    Fundamental,
    Investor,
    Portfolio,
    Position,
    PriceBar,
    Ticker,
    Transaction,
    Watchlist,
    WatchlistItem,
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
from mcpgym.servers.kernel.lookup import get_or_raise
from mcpgym.servers.kernel.query import contains_text, fetch_page
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


def _ticker(ctx: ToolContext, symbol: str) -> Ticker:
    ticker = ctx.db.scalar(select(Ticker).where(Ticker.symbol == symbol.strip().upper()))
    if ticker is None:
        raise NotFoundError(f"no ticker with symbol {symbol!r}. {SYMBOL_HINT}")
    return ticker


def _tickers(ctx: ToolContext, symbols: list[str]) -> list[Ticker]:
    """The tickers of `symbols` in order, each once."""
    seen: dict[int, Ticker] = {}
    for symbol in symbols:
        ticker = _ticker(ctx, symbol)
        seen.setdefault(ticker.id, ticker)
    return list(seen.values())


def _investor(ctx: ToolContext, email: str) -> Investor:
    investor = ctx.db.scalar(select(Investor).where(Investor.email == email.strip().lower()))
    if investor is None:
        raise NotFoundError(
            f"no {ctx.world.home.name} employee with email {email!r}; portfolios and watchlists "
            "belong to employees. Use list_portfolios or list_watchlists to see their owners."
        )
    return investor


def _portfolio(ctx: ToolContext, portfolio_id: int) -> Portfolio:
    return get_or_raise(ctx, Portfolio, portfolio_id, "portfolio", PORTFOLIO_HINT)


def _watchlist(ctx: ToolContext, watchlist_id: int) -> Watchlist:
    return get_or_raise(ctx, Watchlist, watchlist_id, "watchlist", WATCHLIST_HINT)


def _symbols(db: Session, ticker_ids: list[int]) -> dict[int, Ticker]:
    return {t.id: t for t in db.scalars(select(Ticker).where(Ticker.id.in_(ticker_ids)))}


# ---------------------------------------------------------------- market data


def _market_day(db: Session) -> date:
    """The latest trading day: the market is treated as closed there at the world's now."""
    day: date = db.execute(select(func.max(PriceBar.day))).scalar_one()
    return day


def _recent_bars(db: Session, ticker_ids: list[int], day: date) -> dict[int, list[PriceBar]]:
    """The bars of the last ten calendar days up to `day`, oldest first, per ticker."""
    rows = db.scalars(
        select(PriceBar).where(PriceBar.ticker_id.in_(ticker_ids), PriceBar.day > day - timedelta(days=10),
                               PriceBar.day <= day).order_by(PriceBar.ticker_id, PriceBar.day)
    )
    bars: dict[int, list[PriceBar]] = {}
    for bar in rows:
        bars.setdefault(bar.ticker_id, []).append(bar)
    return bars


def _quotes(ctx: ToolContext, tickers: list[Ticker]) -> dict[int, QuoteOut]:
    """Quotes of `tickers` at the latest close, keyed by ticker id."""
    db, ids, day = ctx.db, [t.id for t in tickers], _market_day(ctx.db)
    recent = _recent_bars(db, ids, day)
    year_stats = {
        tid: (high, low, avg)
        for tid, high, low, avg in db.execute(
            select(PriceBar.ticker_id, func.max(PriceBar.high), func.min(PriceBar.low),
                   func.avg(case((PriceBar.day > day - timedelta(days=91), PriceBar.volume))))
            .where(PriceBar.ticker_id.in_(ids), PriceBar.day > day - timedelta(days=365), PriceBar.day <= day)
            .group_by(PriceBar.ticker_id)
        )
    }
    latest = select(Fundamental.ticker_id, func.max(Fundamental.fiscal_year).label("year")).group_by(
        Fundamental.ticker_id).subquery()
    eps = dict(db.execute(
        select(Fundamental.ticker_id, Fundamental.eps)
        .join(latest, (latest.c.ticker_id == Fundamental.ticker_id) & (latest.c.year == Fundamental.fiscal_year))
        .where(Fundamental.ticker_id.in_(ids))
    ).all())
    dividends = dict(db.execute(
        select(Dividend.ticker_id, func.sum(Dividend.amount))
        .where(Dividend.ticker_id.in_(ids), Dividend.ex_date > day - timedelta(days=365), Dividend.ex_date <= day)
        .group_by(Dividend.ticker_id)
    ).all())
    quotes = {}
    for t in tickers:
        bars = recent[t.id]
        last, prev = bars[-1], (bars[-2].close if len(bars) > 1 else None)
        high, low, avg_volume = year_stats[t.id]
        change = None if prev is None else round(last.close - prev, 2)
        trailing_eps = eps.get(t.id)
        quotes[t.id] = QuoteOut(
            symbol=t.symbol, name=t.name, exchange=t.exchange, currency=t.currency, price=last.close,
            previous_close=prev, change=change,
            change_percent=None if prev is None or change is None else round(change / prev * 100, 2),
            open=last.open, day_high=last.high, day_low=last.low, volume=last.volume,
            average_volume_3m=int(avg_volume or 0), fifty_two_week_high=high, fifty_two_week_low=low,
            market_cap=round(last.close * t.shares_outstanding), trailing_eps=trailing_eps,
            pe_ratio=round(last.close / trailing_eps, 2) if trailing_eps and trailing_eps > 0 else None,
            dividend_yield_percent=round(dividends.get(t.id, 0.0) / last.close * 100, 2),
            trading_day=last.day, as_of=ctx.now,
        )
    return quotes


def _months_before(day: date, months: int) -> date:
    """The same day of the month `months` earlier (clamped to the month's end, and to year 1)."""
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    if year < 1:
        return date.min
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


PERIOD_MONTHS = {"1mo": 1, "3mo": 3, "6mo": 6, "1y": 12, "2y": 24, "5y": 60}


def _window(db: Session, period: str, start: datetime | None, end: datetime | None) -> tuple[date | None, date]:
    """First and last day of a window (first None for all history); the last is at most the market day."""
    market_day = _market_day(db)
    last = min(end.date(), market_day) if end is not None else market_day
    if start is not None:
        first: date | None = start.date()
    elif period == "max":
        first = None
    elif period == "ytd":
        first = date(last.year, 1, 1)
    elif period == "5d":
        first = db.scalar(select(PriceBar.day).where(PriceBar.day <= last).distinct()
                          .order_by(PriceBar.day.desc()).offset(4).limit(1))
    else:
        first = _months_before(last, PERIOD_MONTHS[period])
    if first is not None and first > last:
        raise InvalidArgumentError(f"the window starts on {first} but ends on {last}; give a start before the end")
    return first, last


def _bars(db: Session, ticker_id: int, first: date | None, last: date) -> list[PriceBar]:
    clauses = [PriceBar.ticker_id == ticker_id, PriceBar.day <= last]
    if first is not None:
        clauses.append(PriceBar.day >= first)
    return list(db.scalars(select(PriceBar).where(*clauses).order_by(PriceBar.day)))


def _bucket(day: date, interval: str) -> date:
    if interval == "1wk":
        return day - timedelta(days=day.weekday())
    if interval == "1mo":
        return day.replace(day=1)
    return day


def _aggregate(bars: list[PriceBar], interval: str) -> list[BarOut]:
    """Daily bars merged into weekly (Monday-based) or calendar-month bars."""
    out: list[BarOut] = []
    key: date | None = None
    for bar in bars:
        bucket = _bucket(bar.day, interval)
        if out and bucket == key:
            current = out[-1]
            current.high, current.low = max(current.high, bar.high), min(current.low, bar.low)
            current.close, current.volume = bar.close, current.volume + bar.volume
        else:
            out.append(BarOut(date=bar.day, open=bar.open, high=bar.high, low=bar.low, close=bar.close,
                              volume=bar.volume))
            key = bucket
    return out


def _year_end_close(db: Session, ticker: Ticker, period_end: date) -> float | None:
    if ticker.listed_on > period_end:
        return None
    return db.scalar(select(PriceBar.close).where(PriceBar.ticker_id == ticker.id, PriceBar.day <= period_end)
                     .order_by(PriceBar.day.desc()).limit(1))


def _fiscal_year(db: Session, ticker: Ticker, row: Fundamental, previous: Fundamental | None) -> FiscalYearOut:
    price = _year_end_close(db, ticker, row.period_end)
    dps = round(db.scalar(select(func.coalesce(func.sum(Dividend.amount), 0.0)).where(
        Dividend.ticker_id == ticker.id, Dividend.ex_date >= date(row.fiscal_year, 1, 1),
        Dividend.ex_date <= row.period_end)) or 0.0, 2)
    return FiscalYearOut(
        fiscal_year=row.fiscal_year, period_end=row.period_end, revenue=row.revenue,
        gross_profit=row.gross_profit, operating_income=row.operating_income, net_income=row.net_income,
        free_cash_flow=row.free_cash_flow, diluted_shares=row.diluted_shares, eps=row.eps,
        net_margin_percent=round(row.net_income / row.revenue * 100, 2),
        revenue_growth_percent=None if previous is None else round((row.revenue / previous.revenue - 1) * 100, 2),
        year_end_price=price,
        pe_ratio=round(price / row.eps, 2) if price is not None and row.eps > 0 else None,
        dividends_per_share=dps,
        dividend_yield_percent=None if price is None else round(dps / price * 100, 2),
    )


def _dividend_out(d: Dividend, symbol: str, now: datetime) -> DividendOut:
    return DividendOut(symbol=symbol, declared_on=d.declared_on, ex_date=d.ex_date, pay_date=d.pay_date,
                       amount=d.amount, status="upcoming" if d.pay_date > now.date() else "paid")


def _return(db: Session, ticker: Ticker, first: date | None, last: date) -> ReturnOut:
    bars = _bars(db, ticker.id, first, last)
    if not bars:
        raise InvalidArgumentError(f"{ticker.symbol} has no trading days between {first} and {last} "
                                   f"(listed on {ticker.listed_on})")
    start, end = bars[0], bars[-1]
    dividends = db.scalar(select(func.coalesce(func.sum(Dividend.amount), 0.0)).where(
        Dividend.ticker_id == ticker.id, Dividend.ex_date > start.day, Dividend.ex_date <= end.day)) or 0.0
    peak, drawdown = start.close, 0.0
    for bar in bars:
        peak = max(peak, bar.close)
        drawdown = min(drawdown, bar.close / peak - 1)
    return ReturnOut(
        symbol=ticker.symbol, name=ticker.name, start_date=start.day, end_date=end.day,
        start_price=start.close, end_price=end.close,
        price_return_percent=round((end.close / start.close - 1) * 100, 2),
        dividends_per_share=round(dividends, 2),
        total_return_percent=round((end.close + dividends - start.close) / start.close * 100, 2),
        period_high=max(b.high for b in bars), period_low=min(b.low for b in bars),
        max_drawdown_percent=round(drawdown * 100, 2),
        full_period=first is None or ticker.listed_on <= first,
    )


# ---------------------------------------------------------------- portfolios


def _closes(db: Session, ticker_ids: list[int]) -> dict[int, tuple[float, float]]:
    """Latest close and previous close per ticker."""
    recent = _recent_bars(db, ticker_ids, _market_day(db))
    return {tid: (bars[-1].close, bars[-2].close if len(bars) > 1 else bars[-1].close)
            for tid, bars in recent.items()}


def _positions(db: Session, portfolio_ids: list[int], include_closed: bool = False) -> dict[int, list[Position]]:
    clauses: list[ColumnElement[bool]] = [Position.portfolio_id.in_(portfolio_ids)]
    if not include_closed:
        clauses.append(Position.quantity > 0)
    out: dict[int, list[Position]] = {pid: [] for pid in portfolio_ids}
    for position in db.scalars(select(Position).where(*clauses).order_by(Position.id)):
        out[position.portfolio_id].append(position)
    return out


def _position_out(
    p: Position, ticker: Ticker, close: float, previous: float, portfolio_value: float
) -> PositionOut:
    """A position valued at `close`; its weight is relative to `portfolio_value` (the market value)."""
    value = round(p.quantity * close, 2)
    return PositionOut(
        symbol=ticker.symbol, name=ticker.name, quantity=p.quantity, average_cost=p.average_cost,
        cost_basis=p.cost_basis, price=close, market_value=value,
        unrealized_pnl=round(value - p.cost_basis, 2),
        unrealized_pnl_percent=round((value / p.cost_basis - 1) * 100, 2) if p.cost_basis else None,
        day_change=round(p.quantity * (close - previous), 2),
        weight_percent=round(value / portfolio_value * 100, 2) if portfolio_value else 0.0,
        realized_pnl=p.realized_pnl, opened_at=p.opened_at,
    )


def _summaries(
    db: Session, portfolios: list[Portfolio], include_closed: bool = False
) -> list[tuple[PortfolioSummary, list[PositionOut]]]:
    """Each portfolio valued at the latest close, with its positions, largest market value first."""
    ids = [p.id for p in portfolios]
    positions = _positions(db, ids, include_closed)
    ticker_ids = sorted({pos.ticker_id for group in positions.values() for pos in group})
    tickers, closes = _symbols(db, ticker_ids), _closes(db, ticker_ids)
    owners = {i.id: i for i in db.scalars(select(Investor).where(
        Investor.id.in_([p.investor_id for p in portfolios])))}
    out = []
    for p in portfolios:
        held = positions[p.id]
        market_value = round(sum(pos.quantity * closes[pos.ticker_id][0] for pos in held), 2)
        rows = sorted((_position_out(pos, tickers[pos.ticker_id], *closes[pos.ticker_id], market_value)
                       for pos in held), key=lambda r: (-r.market_value, r.symbol))
        owner = owners[p.investor_id]
        summary = PortfolioSummary(
            id=p.id, name=p.name, kind=p.kind, owner_name=owner.name, owner_email=owner.email,
            currency=p.currency, cash=p.cash, market_value=market_value,
            total_value=round(p.cash + market_value, 2),
            unrealized_pnl=round(sum(r.unrealized_pnl for r in rows), 2),
            open_positions=sum(1 for r in rows if r.quantity > 0),
            created_at=p.created_at,
        )
        out.append((summary, rows))
    return out


def _detail(db: Session, portfolio: Portfolio, include_closed: bool) -> PortfolioDetail:
    summary, rows = _summaries(db, [portfolio], include_closed)[0]
    realized = db.scalar(select(func.coalesce(func.sum(Position.realized_pnl), 0.0)).where(
        Position.portfolio_id == portfolio.id)) or 0.0
    sums = dict(db.execute(select(Transaction.kind, func.sum(Transaction.amount)).where(
        Transaction.portfolio_id == portfolio.id).group_by(Transaction.kind)).all())
    net_deposits = round(sums.get("deposit", 0.0) + sums.get("withdrawal", 0.0), 2)
    return PortfolioDetail(
        **summary.model_dump(), positions=rows, realized_pnl=round(realized, 2), net_deposits=net_deposits,
        dividends_received=round(sums.get("dividend", 0.0), 2),
        total_gain=round(summary.total_value - net_deposits, 2),
    )


def _transaction_out(t: Transaction, symbol: str | None) -> TransactionOut:
    return TransactionOut(
        id=t.id, portfolio_id=t.portfolio_id, kind=t.kind, symbol=symbol, quantity=t.quantity, price=t.price,
        amount=t.amount, realized_pnl=t.realized_pnl, trade_date=t.trade_date, executed_at=t.executed_at,
    )


def _record(ctx: ToolContext, portfolio: Portfolio, kind: str, amount: float, ticker: Ticker | None = None,
            quantity: int | None = None, price: float | None = None, pnl: float | None = None) -> TransactionOut:
    portfolio.cash = round(portfolio.cash + amount, 2)
    transaction = Transaction(
        portfolio_id=portfolio.id, kind=kind, ticker_id=ticker.id if ticker else None, quantity=quantity,
        price=price, amount=amount, realized_pnl=pnl, trade_date=_market_day(ctx.db), executed_at=ctx.now,
    )
    ctx.db.add(transaction)
    ctx.db.flush()
    return _transaction_out(transaction, ticker.symbol if ticker else None)


def _trade_result(ctx: ToolContext, portfolio: Portfolio, ticker: Ticker, position: Position,
                  transaction: TransactionOut) -> TradeResult:
    close, previous = _closes(ctx.db, [ticker.id])[ticker.id]
    summary, _ = _summaries(ctx.db, [portfolio])[0]
    return TradeResult(transaction=transaction, cash=portfolio.cash,
                       position=_position_out(position, ticker, close, previous, summary.market_value))


# ---------------------------------------------------------------- watchlists


def _watchlist_summaries(db: Session, watchlists: list[Watchlist]) -> list[WatchlistSummary]:
    ids = [w.id for w in watchlists]
    symbols: dict[int, list[str]] = {i: [] for i in ids}
    for wid, symbol in db.execute(select(WatchlistItem.watchlist_id, Ticker.symbol).join(
            Ticker, Ticker.id == WatchlistItem.ticker_id).where(WatchlistItem.watchlist_id.in_(ids))
            .order_by(Ticker.symbol)):
        symbols[wid].append(symbol)
    owners = {i.id: i for i in db.scalars(select(Investor).where(
        Investor.id.in_([w.investor_id for w in watchlists])))}
    return [
        WatchlistSummary(id=w.id, name=w.name, owner_name=owners[w.investor_id].name,
                         owner_email=owners[w.investor_id].email, symbols=symbols[w.id], created_at=w.created_at)
        for w in watchlists
    ]


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
    clauses: list[ColumnElement[bool]] = []
    if query:
        clauses.append(contains_text(query, Ticker.name, Ticker.symbol))
    if sector:
        clauses.append(Ticker.sector == sector)
    if industry:
        clauses.append(contains_text(industry, Ticker.industry))
    if exchange:
        clauses.append(Ticker.exchange == exchange)
    if country:
        clauses.append(func.lower(Ticker.country) == country.strip().lower())
    tickers = list(ctx.db.scalars(select(Ticker).where(*clauses).order_by(Ticker.symbol)))
    quotes = _quotes(ctx, tickers) if tickers else {}
    rows = [
        TickerSummary(symbol=t.symbol, name=t.name, exchange=t.exchange, sector=t.sector, industry=t.industry,
                      country=t.country, price=quotes[t.id].price, change_percent=quotes[t.id].change_percent,
                      market_cap=quotes[t.id].market_cap, volume=quotes[t.id].volume)
        for t in tickers
        if (min_market_cap is None or quotes[t.id].market_cap >= min_market_cap)
        and (max_market_cap is None or quotes[t.id].market_cap <= max_market_cap)
    ]
    rows.sort(key=lambda r: r.symbol)
    rows.sort(key=lambda r: getattr(r, sort_by) if getattr(r, sort_by) is not None else 0,
              reverse=sort_order == "desc")
    offset, limit = page_slice(page, per_page)
    return TickerPage(tickers=rows[offset:offset + limit], total=len(rows), page=page,
                      next_page=next_page(page, per_page, len(rows)))


@tools.tool(examples=[{"symbol": "GREE"}])
def get_company_profile(ctx: ToolContext, symbol: Symbol) -> CompanyProfile:
    """Get a company's profile: exchange, sector, industry, headquarters, employees, description, market cap."""
    ticker = _ticker(ctx, symbol)
    quote = _quotes(ctx, [ticker])[ticker.id]
    return CompanyProfile(
        symbol=ticker.symbol, name=ticker.name, organization_id=ticker.organization_id, exchange=ticker.exchange,
        sector=ticker.sector, industry=ticker.industry, country=ticker.country, city=ticker.city,
        website=ticker.website, employees=ticker.employees, description=ticker.description,
        currency=ticker.currency, shares_outstanding=ticker.shares_outstanding, price=quote.price,
        market_cap=quote.market_cap, listed_on=ticker.listed_on, next_earnings_date=ticker.next_earnings_date,
    )


@tools.tool(examples=[{"symbols": ["GREE", "cros"]}])
def get_quotes(ctx: ToolContext, symbols: Symbols) -> QuoteList:
    """Get current quotes: price, change vs previous close, day range, volume, 52-week range, market cap, P/E, yield.

    Prices are end-of-day: the market is treated as closed at the latest trading day's close.
    """
    tickers = _tickers(ctx, symbols)
    quotes = _quotes(ctx, tickers)
    return QuoteList(quotes=[quotes[t.id] for t in tickers])


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
    first, last = _window(ctx.db, period, start, end)
    bars = _aggregate(_bars(ctx.db, ticker.id, first, last), interval)
    return PriceHistory(symbol=ticker.symbol, interval=interval,
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
    rows = list(ctx.db.scalars(select(Fundamental).where(Fundamental.ticker_id == ticker.id)
                               .order_by(Fundamental.fiscal_year)))
    out = [_fiscal_year(ctx.db, ticker, row, rows[i - 1] if i else None) for i, row in enumerate(rows)]
    return Fundamentals(symbol=ticker.symbol, name=ticker.name, shares_outstanding=ticker.shares_outstanding,
                        years=out[::-1][:years])


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
    clauses: list[ColumnElement[bool]] = []
    if symbol:
        clauses.append(Dividend.ticker_id == _ticker(ctx, symbol).id)
    if ex_after is not None:
        clauses.append(Dividend.ex_date >= ex_after.date())
    if ex_before is not None:
        clauses.append(Dividend.ex_date <= ex_before.date())
    if status is not None:
        today = ctx.now.date()
        clauses.append(Dividend.pay_date > today if status == "upcoming" else Dividend.pay_date <= today)
    order = Dividend.ex_date.asc() if sort_order == "asc" else Dividend.ex_date.desc()
    statement = (select(Dividend, Ticker.symbol).join(Ticker, Ticker.id == Dividend.ticker_id)
                 .where(*clauses).order_by(order, Ticker.symbol))
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    amount = ctx.db.scalar(select(func.coalesce(func.sum(Dividend.amount), 0.0)).where(*clauses)) or 0.0
    return DividendPage(dividends=[_dividend_out(d, s, ctx.now) for d, s in rows], total=total,
                        total_amount=round(amount, 2), page=page, next_page=following)


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
    first, last = _window(ctx.db, period, start, end)
    returns = [_return(ctx.db, t, first, last) for t in tickers]
    ranking = [r.symbol for r in sorted(returns, key=lambda r: -r.total_return_percent)]
    return ReturnComparison(returns=returns, ranking=ranking)


# ---------------------------------------------------------------- reads: portfolios


@tools.tool(examples=[{"email": "keith.santana@northwindsystems.com"}])
def get_investor(ctx: ToolContext, email: Email) -> InvestorOut:
    """Look up an employee by email: name, email, organisation, job title, and their portfolios and watchlists."""
    investor = _investor(ctx, email)
    portfolios = ctx.db.scalars(select(Portfolio).where(Portfolio.investor_id == investor.id).order_by(Portfolio.id))
    watchlists = ctx.db.scalars(select(Watchlist).where(Watchlist.investor_id == investor.id).order_by(Watchlist.id))
    return InvestorOut(
        person_id=investor.person_id, name=investor.name, email=investor.email,
        organization_name=investor.organization_name, job_title=investor.job_title,
        portfolios=[PortfolioRef(id=p.id, name=p.name, kind=p.kind) for p in portfolios],
        watchlists=[WatchlistRef(id=w.id, name=w.name) for w in watchlists],
    )


@tools.tool(examples=[{"kind": "personal"}, {"owner_email": "tanya.wagner@northwindsystems.com"}])
def list_portfolios(
    ctx: ToolContext,
    owner_email: Annotated[str | None, Field(description="Only portfolios of this employee (work email).")] = None,
    kind: Annotated[Literal["treasury", "personal"] | None, Field(description="Only this kind of portfolio.")] = None,
    page: Page = 1,
    per_page: PerPage = 25,
) -> PortfolioPage:
    """List portfolios with owner, cash, market value and total value at the latest close, by id."""
    clauses: list[ColumnElement[bool]] = []
    if owner_email:
        clauses.append(Portfolio.investor_id == _investor(ctx, owner_email).id)
    if kind:
        clauses.append(Portfolio.kind == kind)
    statement = select(Portfolio).where(*clauses).order_by(Portfolio.id)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return PortfolioPage(portfolios=[s for s, _ in _summaries(ctx.db, rows)], total=total, page=page,
                         next_page=following)


@tools.tool(examples=[{"portfolio_id": 1}, {"portfolio_id": 2, "include_closed": True}])
def get_portfolio(
    ctx: ToolContext,
    portfolio_id: PortfolioId,
    include_closed: Annotated[bool, Field(description="Also list tickers sold out completely (quantity 0), for their realised P&L.")] = False,
) -> PortfolioDetail:
    """Get a portfolio: cash, positions with average cost, market value, unrealised and realised P&L, and totals."""
    return _detail(ctx.db, _portfolio(ctx, portfolio_id), include_closed)


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
    clauses: list[ColumnElement[bool]] = [Transaction.portfolio_id == portfolio_id]
    if kind:
        clauses.append(Transaction.kind.in_(kind))
    if symbol:
        clauses.append(Transaction.ticker_id == _ticker(ctx, symbol).id)
    if start is not None:
        clauses.append(Transaction.trade_date >= start.date())
    if end is not None:
        clauses.append(Transaction.trade_date <= end.date())
    order = ([Transaction.executed_at.asc(), Transaction.id.asc()] if sort_order == "asc"
             else [Transaction.executed_at.desc(), Transaction.id.desc()])
    statement = (select(Transaction, Ticker.symbol).outerjoin(Ticker, Ticker.id == Transaction.ticker_id)
                 .where(*clauses).order_by(*order))
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    net = ctx.db.scalar(select(func.coalesce(func.sum(Transaction.amount), 0.0)).where(*clauses)) or 0.0
    return TransactionPage(
        transactions=[_transaction_out(t, symbol) for t, symbol in rows],
        total=total, net_amount=round(net, 2), page=page, next_page=following,
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
    first, last = _window(ctx.db, period, start, end)
    first = max(first or portfolio.created_at.date(), portfolio.created_at.date())
    transactions = list(ctx.db.scalars(select(Transaction).where(Transaction.portfolio_id == portfolio_id)
                                       .order_by(Transaction.trade_date, Transaction.executed_at, Transaction.id)))
    ticker_ids = sorted({t.ticker_id for t in transactions if t.kind in ("buy", "sell") and t.ticker_id})
    closes = {(tid, day): close for tid, day, close in ctx.db.execute(
        select(PriceBar.ticker_id, PriceBar.day, PriceBar.close)
        .where(PriceBar.ticker_id.in_(ticker_ids), PriceBar.day >= first, PriceBar.day <= last))}
    days = list(ctx.db.scalars(select(PriceBar.day).where(PriceBar.day >= first, PriceBar.day <= last)
                               .distinct().order_by(PriceBar.day)))
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


def _value_points(transactions: list[Transaction], days: list[date],
                  closes: dict[tuple[int, date], float]) -> list[ValuePoint]:
    """Replay `transactions` and value cash plus holdings at the close of each of `days`."""
    cash, deposits, i = 0.0, 0.0, 0
    holdings: dict[int, int] = {}
    points = []
    for day in days:
        while i < len(transactions) and transactions[i].trade_date <= day:
            t = transactions[i]
            cash += t.amount
            if t.kind in ("deposit", "withdrawal"):
                deposits += t.amount
            elif t.kind in ("buy", "sell") and t.ticker_id is not None and t.quantity is not None:
                change = t.quantity if t.kind == "buy" else -t.quantity
                holdings[t.ticker_id] = holdings.get(t.ticker_id, 0) + change
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
    clauses: list[ColumnElement[bool]] = []
    if owner_email:
        clauses.append(Watchlist.investor_id == _investor(ctx, owner_email).id)
    if symbol:
        ticker_id = _ticker(ctx, symbol).id
        holding = select(WatchlistItem.watchlist_id).where(WatchlistItem.ticker_id == ticker_id)
        clauses.append(Watchlist.id.in_(holding))
    statement = select(Watchlist).where(*clauses).order_by(Watchlist.id)
    rows, total, following = fetch_page(ctx.db, statement, page, per_page)
    return WatchlistPage(watchlists=_watchlist_summaries(ctx.db, rows), total=total, page=page, next_page=following)


@tools.tool(examples=[{"watchlist_id": 1}])
def get_watchlist(ctx: ToolContext, watchlist_id: WatchlistId) -> WatchlistDetail:
    """Get a watchlist with the current quote of each of its symbols."""
    watchlist = _watchlist(ctx, watchlist_id)
    items = list(ctx.db.execute(select(WatchlistItem, Ticker).join(Ticker, Ticker.id == WatchlistItem.ticker_id)
                                .where(WatchlistItem.watchlist_id == watchlist_id).order_by(Ticker.symbol)))
    quotes = _quotes(ctx, [t for _, t in items]) if items else {}
    summary = _watchlist_summaries(ctx.db, [watchlist])[0]
    return WatchlistDetail(
        id=watchlist.id, name=watchlist.name, owner_name=summary.owner_name, owner_email=summary.owner_email,
        created_at=watchlist.created_at,
        entries=[WatchlistEntry(**quotes[t.id].model_dump(), added_at=item.added_at) for item, t in items],
    )


# ---------------------------------------------------------------- writes: portfolios


@tools.tool(writes=True, examples=[
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
    existing = ctx.db.scalar(select(Portfolio).where(Portfolio.investor_id == investor.id, Portfolio.name == name))
    if existing is not None:
        raise InvalidArgumentError(f"{investor.name} already has a portfolio named {name!r} (id {existing.id})")
    portfolio = Portfolio(investor_id=investor.id, name=name, kind="personal", currency="USD", cash=0.0,
                          created_at=ctx.now)
    ctx.db.add(portfolio)
    ctx.db.flush()
    if initial_deposit > 0:
        _record(ctx, portfolio, "deposit", round(initial_deposit, 2))
    return _detail(ctx.db, portfolio, include_closed=False)


@tools.tool(writes=True, examples=[{"portfolio_id": 2, "direction": "deposit", "amount": 5000}])
def transfer_cash(
    ctx: ToolContext,
    portfolio_id: PortfolioId,
    direction: Annotated[Literal["deposit", "withdrawal"], Field(description="deposit adds cash; withdrawal takes it out.")],
    amount: Annotated[float, Field(ge=0.01, le=1_000_000_000, description="USD, rounded to cents.")],
) -> CashResult:
    """Deposit cash into a portfolio or withdraw cash from it; a withdrawal cannot exceed the cash balance."""
    portfolio = _portfolio(ctx, portfolio_id)
    amount = round(amount, 2)
    if direction == "withdrawal" and amount > portfolio.cash:
        raise ForbiddenError(f"portfolio {portfolio_id} has {portfolio.cash:,.2f} USD cash; cannot withdraw "
                             f"{amount:,.2f}. Sell shares with sell_shares first to raise cash.")
    transaction = _record(ctx, portfolio, direction, amount if direction == "deposit" else -amount)
    return CashResult(transaction=transaction, cash=portfolio.cash)


@tools.tool(writes=True, examples=[{"portfolio_id": 1, "symbol": "GREE", "quantity": 100}])
def buy_shares(ctx: ToolContext, portfolio_id: PortfolioId, symbol: Symbol, quantity: Quantity) -> TradeResult:
    """Buy whole shares at the latest close, paid from the portfolio's cash (no commission).

    The cost (quantity x price) cannot exceed the cash balance.
    """
    portfolio = _portfolio(ctx, portfolio_id)
    ticker = _ticker(ctx, symbol)
    price = _closes(ctx.db, [ticker.id])[ticker.id][0]
    cost = round(quantity * price, 2)
    if cost > portfolio.cash:
        affordable = int(portfolio.cash // price)
        raise ForbiddenError(
            f"buying {quantity} {ticker.symbol} at {price:,.2f} costs {cost:,.2f} USD but portfolio {portfolio_id} "
            f"has {portfolio.cash:,.2f} cash; at most {affordable} shares are affordable, or deposit cash with "
            "transfer_cash first"
        )
    position = ctx.db.scalar(select(Position).where(Position.portfolio_id == portfolio_id,
                                                    Position.ticker_id == ticker.id))
    if position is None:
        position = Position(portfolio_id=portfolio_id, ticker_id=ticker.id, quantity=0, cost_basis=0.0,
                            realized_pnl=0.0, opened_at=ctx.now, updated_at=ctx.now)
        ctx.db.add(position)
    position.buy(quantity, price, ctx.now)
    transaction = _record(ctx, portfolio, "buy", -cost, ticker, quantity, price)
    return _trade_result(ctx, portfolio, ticker, position, transaction)


@tools.tool(writes=True, examples=[{"portfolio_id": 1, "symbol": "MONT", "quantity": 80}])
def sell_shares(ctx: ToolContext, portfolio_id: PortfolioId, symbol: Symbol, quantity: Quantity) -> TradeResult:
    """Sell whole shares at the latest close; proceeds go to cash and the realised P&L uses the average cost.

    You cannot sell more shares than the portfolio holds (no short selling).
    """
    portfolio = _portfolio(ctx, portfolio_id)
    ticker = _ticker(ctx, symbol)
    position = ctx.db.scalar(select(Position).where(Position.portfolio_id == portfolio_id,
                                                    Position.ticker_id == ticker.id))
    held = position.quantity if position is not None else 0
    if position is None or quantity > held:
        raise ForbiddenError(f"portfolio {portfolio_id} holds {held} shares of {ticker.symbol}; cannot sell "
                             f"{quantity}. Use get_portfolio to see the positions.")
    price = _closes(ctx.db, [ticker.id])[ticker.id][0]
    proceeds, pnl = position.sell(quantity, price, ctx.now)
    transaction = _record(ctx, portfolio, "sell", proceeds, ticker, quantity, price, pnl)
    return _trade_result(ctx, portfolio, ticker, position, transaction)


# ---------------------------------------------------------------- writes: watchlists


@tools.tool(writes=True, examples=[
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
    existing = ctx.db.scalar(select(Watchlist).where(Watchlist.investor_id == investor.id, Watchlist.name == name))
    if existing is not None:
        raise InvalidArgumentError(f"{investor.name} already has a watchlist named {name!r} (id {existing.id})")
    watchlist = Watchlist(investor_id=investor.id, name=name, created_at=ctx.now)
    ctx.db.add(watchlist)
    ctx.db.flush()
    ctx.db.add_all([WatchlistItem(watchlist_id=watchlist.id, ticker_id=t.id, added_at=ctx.now) for t in tickers])
    ctx.db.flush()
    return _watchlist_summaries(ctx.db, [watchlist])[0]


@tools.tool(writes=True, examples=[{"watchlist_id": 1, "symbols": ["GREE", "CROS"]}])
def add_to_watchlist(ctx: ToolContext, watchlist_id: WatchlistId, symbols: Symbols) -> WatchlistChange:
    """Add symbols to a watchlist; symbols already on it are left as they are. A watchlist holds at most 50."""
    watchlist = _watchlist(ctx, watchlist_id)
    tickers = _tickers(ctx, symbols)
    have = set(ctx.db.scalars(select(WatchlistItem.ticker_id).where(WatchlistItem.watchlist_id == watchlist_id)))
    new = [t for t in tickers if t.id not in have]
    if len(have) + len(new) > MAX_WATCHLIST_SYMBOLS:
        raise ForbiddenError(f"watchlist {watchlist_id} has {len(have)} symbols; adding {len(new)} would exceed "
                             f"the limit of {MAX_WATCHLIST_SYMBOLS}. Remove some with remove_from_watchlist first.")
    ctx.db.add_all([WatchlistItem(watchlist_id=watchlist_id, ticker_id=t.id, added_at=ctx.now) for t in new])
    ctx.db.flush()
    return WatchlistChange(watchlist=_watchlist_summaries(ctx.db, [watchlist])[0],
                           changed=[t.symbol for t in new],
                           unchanged=[t.symbol for t in tickers if t.id in have])


@tools.tool(writes=True, examples=[{"watchlist_id": 1, "symbols": ["PECK"]}])
def remove_from_watchlist(ctx: ToolContext, watchlist_id: WatchlistId, symbols: Symbols) -> WatchlistChange:
    """Remove symbols from a watchlist; every symbol named must be on it."""
    watchlist = _watchlist(ctx, watchlist_id)
    tickers = _tickers(ctx, symbols)
    rows = ctx.db.scalars(select(WatchlistItem).where(WatchlistItem.watchlist_id == watchlist_id))
    items = {item.ticker_id: item for item in rows}
    missing = [t.symbol for t in tickers if t.id not in items]
    if missing:
        raise InvalidArgumentError(f"watchlist {watchlist_id} does not contain {', '.join(missing)}; "
                                   "use get_watchlist to see its symbols")
    for t in tickers:
        ctx.db.delete(items[t.id])
    ctx.db.flush()
    return WatchlistChange(watchlist=_watchlist_summaries(ctx.db, [watchlist])[0],
                           changed=[t.symbol for t in tickers], unchanged=[])


@tools.tool(writes=True, examples=[{"watchlist_id": 1}])
def delete_watchlist(ctx: ToolContext, watchlist_id: WatchlistId) -> DeletedWatchlist:
    """Delete a watchlist and its symbols."""
    watchlist = _watchlist(ctx, watchlist_id)
    for item in ctx.db.scalars(select(WatchlistItem).where(WatchlistItem.watchlist_id == watchlist_id)):
        ctx.db.delete(item)
    ctx.db.delete(watchlist)
    ctx.db.flush()
    return DeletedWatchlist(id=watchlist_id, name=watchlist.name, deleted=True)
