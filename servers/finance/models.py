"""The finance schema: tickers, daily price bars, fundamentals, dividends, portfolios, watchlists.

Linking to the shared world:
- a ticker of a world organisation stores its id (`organization_id`, e.g. `org_012`) and uses the
  organisation's exact name, city, country and domain; the other tickers are fictional listings
  with no organisation id;
- investors are the home company's employees (`org_000`, Northwind Systems): `person_id`
  (`per_0007`), name, email and `organization_name` are exactly the world's values;
- portfolios and watchlists belong to investors; the firm's treasury portfolio (kind `treasury`)
  is held in the name of an employee.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of the finance schema."""


class Ticker(Base):
    __tablename__ = "tickers"

    id: Mapped[int] = mapped_column(primary_key=True)
    symbol: Mapped[str] = mapped_column(String(8), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    organization_id: Mapped[str | None] = mapped_column(String(16), unique=True)
    exchange: Mapped[str] = mapped_column(String(16))
    sector: Mapped[str] = mapped_column(String(40))
    industry: Mapped[str] = mapped_column(String(60))
    country: Mapped[str] = mapped_column(String(80))
    city: Mapped[str] = mapped_column(String(80))
    website: Mapped[str] = mapped_column(String(120))
    employees: Mapped[int]
    description: Mapped[str]
    currency: Mapped[str] = mapped_column(String(3))
    shares_outstanding: Mapped[int]
    listed_on: Mapped[date]
    next_earnings_date: Mapped[date]


class PriceBar(Base):
    """One trading day of one ticker; prices in the ticker's currency, volume in shares."""

    __tablename__ = "price_bars"
    __table_args__ = (Index("ix_price_bars_day", "day"),)

    ticker_id: Mapped[int] = mapped_column(ForeignKey("tickers.id"), primary_key=True)
    day: Mapped[date] = mapped_column(primary_key=True)
    open: Mapped[float]
    high: Mapped[float]
    low: Mapped[float]
    close: Mapped[float]
    volume: Mapped[int]


class Fundamental(Base):
    """Annual results of one fiscal year (calendar year, ending 31 December); amounts in USD."""

    __tablename__ = "fundamentals"
    __table_args__ = (UniqueConstraint("ticker_id", "fiscal_year"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    ticker_id: Mapped[int] = mapped_column(ForeignKey("tickers.id"))
    fiscal_year: Mapped[int]
    period_end: Mapped[date]
    revenue: Mapped[int]
    gross_profit: Mapped[int]
    operating_income: Mapped[int]
    net_income: Mapped[int]
    free_cash_flow: Mapped[int]
    diluted_shares: Mapped[int]
    eps: Mapped[float]


class Dividend(Base):
    """A cash dividend per share; holders at the close before `ex_date` are paid on `pay_date`."""

    __tablename__ = "dividends"
    __table_args__ = (Index("ix_dividends_ticker_ex", "ticker_id", "ex_date"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    ticker_id: Mapped[int] = mapped_column(ForeignKey("tickers.id"))
    declared_on: Mapped[date]
    ex_date: Mapped[date]
    pay_date: Mapped[date]
    amount: Mapped[float]


class Investor(Base):
    """An employee of the home company who owns portfolios or watchlists."""

    __tablename__ = "investors"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(160), unique=True)
    organization_name: Mapped[str] = mapped_column(String(120))
    job_title: Mapped[str] = mapped_column(String(120))


class Portfolio(Base):
    __tablename__ = "portfolios"
    __table_args__ = (UniqueConstraint("investor_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    investor_id: Mapped[int] = mapped_column(ForeignKey("investors.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    kind: Mapped[str] = mapped_column(String(16))
    currency: Mapped[str] = mapped_column(String(3))
    cash: Mapped[float]
    created_at: Mapped[datetime]


def average_cost(cost_basis: float, quantity: int) -> float:
    """Cost per share of `quantity` shares bought for `cost_basis` in all (0 when none are held)."""
    return round(cost_basis / quantity, 4) if quantity else 0.0


class Position(Base):
    """Shares of one ticker held in a portfolio; `cost_basis` is the average cost times quantity."""

    __tablename__ = "positions"
    __table_args__ = (UniqueConstraint("portfolio_id", "ticker_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    portfolio_id: Mapped[int] = mapped_column(ForeignKey("portfolios.id"), index=True)
    ticker_id: Mapped[int] = mapped_column(ForeignKey("tickers.id"))
    quantity: Mapped[int]
    cost_basis: Mapped[float]
    realized_pnl: Mapped[float]
    opened_at: Mapped[datetime]
    updated_at: Mapped[datetime]

    @property
    def average_cost(self) -> float:
        """Cost per share of the shares held (0 when none are held)."""
        return average_cost(self.cost_basis, self.quantity)

    def buy(self, quantity: int, price: float, when: datetime) -> float:
        """Add `quantity` shares bought at `price`; returns the cash spent."""
        cost = round(quantity * price, 2)
        if self.quantity == 0:
            self.opened_at = when
        self.quantity += quantity
        self.cost_basis = round(self.cost_basis + cost, 2)
        self.updated_at = when
        return cost

    def sell(self, quantity: int, price: float, when: datetime) -> tuple[float, float]:
        """Remove `quantity` shares sold at `price`; returns (cash received, realised P&L)."""
        proceeds = round(quantity * price, 2)
        released = (
            self.cost_basis
            if quantity == self.quantity
            else round(self.cost_basis * quantity / self.quantity, 2)
        )
        pnl = round(proceeds - released, 2)
        self.quantity -= quantity
        self.cost_basis = round(self.cost_basis - released, 2)
        self.realized_pnl = round(self.realized_pnl + pnl, 2)
        self.updated_at = when
        return proceeds, pnl


class Transaction(Base):
    """A cash movement or trade; `amount` is the signed change of the portfolio's cash."""

    __tablename__ = "transactions"
    __table_args__ = (Index("ix_transactions_portfolio_date", "portfolio_id", "trade_date"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    portfolio_id: Mapped[int] = mapped_column(ForeignKey("portfolios.id"))
    kind: Mapped[str] = mapped_column(String(16))
    ticker_id: Mapped[int | None] = mapped_column(ForeignKey("tickers.id"))
    quantity: Mapped[int | None]
    price: Mapped[float | None]
    amount: Mapped[float]
    realized_pnl: Mapped[float | None]
    trade_date: Mapped[date]
    executed_at: Mapped[datetime]


class Watchlist(Base):
    __tablename__ = "watchlists"
    __table_args__ = (UniqueConstraint("investor_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    investor_id: Mapped[int] = mapped_column(ForeignKey("investors.id"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime]


class WatchlistItem(Base):
    __tablename__ = "watchlist_items"

    watchlist_id: Mapped[int] = mapped_column(ForeignKey("watchlists.id"), primary_key=True)
    ticker_id: Mapped[int] = mapped_column(ForeignKey("tickers.id"), primary_key=True)
    added_at: Mapped[datetime]
