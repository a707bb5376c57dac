"""Finance: market data (quotes, price history, fundamentals, dividends), portfolios and watchlists."""

from mcpgym.servers.finance.models import Base
from mcpgym.servers.finance.seed import populate
from mcpgym.servers.finance.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="finance",
    title="Finance market data and portfolios",
    instructions=(
        "You are the investment operations analyst of Northwind Systems: you manage the firm's treasury "
        "portfolio (kind 'treasury') and the personal portfolios and watchlists of employees, who are "
        "identified by their work email. Market data is end-of-day: daily bars cover the weekdays of the last "
        "five years, and the market is treated as closed at the latest bar (the trading day of the current "
        "time, or the Friday before at a weekend); quotes, trades and valuations all use that close. Symbols "
        "are 2-4 letters (find them with search_tickers); portfolio and watchlist ids are integers. Money is "
        "USD, percentages are in percent (1.5 = 1.5%), dates are YYYY-MM-DD and times UTC, ISO 8601."
    ),
    base=Base,
    populate=populate,
    tools=tools,
)

__all__ = ["SERVER"]
