"""The seeded market: five years of daily prices, annual results, dividends, portfolios, watchlists.

Prices are a geometric random walk per ticker (drift and volatility drawn from the rng) over the
weekdays of the last five years up to the world's "now"; the portfolios replay trades, cash
movements and dividend payments at those prices, so every derived figure agrees with the bars.
"""

from __future__ import annotations

import math
import random
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

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
from mcpgym.servers.kernel.world import Organization, World

HISTORY_YEARS = 5
FISCAL_YEARS = 5
N_WORLD_LISTED = 30
N_GENERATED = 54
N_PERSONAL_OWNERS = 10
N_WATCHLIST_OWNERS = 14

# sector -> (industries, words for generated names, what such a company does)
SECTORS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "Technology": (
        ("Software - Application", "Software - Infrastructure", "Semiconductors",
         "Information Technology Services"),
        ("Systems", "Software", "Semiconductor", "Networks", "Data", "Cloud"),
        "It builds software, chips and IT services for businesses.",
    ),
    "Healthcare": (
        ("Biotechnology", "Medical Devices", "Medical Care Facilities", "Drug Manufacturers"),
        ("Therapeutics", "Biosciences", "Health", "Medical", "Pharma"),
        "It develops treatments and runs care services for patients and hospitals.",
    ),
    "Financial Services": (
        ("Banks - Regional", "Asset Management", "Insurance - Diversified", "Credit Services"),
        ("Financial", "Capital", "Bancorp", "Insurance", "Trust"),
        "It provides banking, lending, insurance and investment products.",
    ),
    "Consumer Cyclical": (
        ("Specialty Retail", "Lodging", "Restaurants", "Auto Parts"),
        ("Brands", "Outfitters", "Resorts", "Motors", "Stores"),
        "It sells goods and experiences that consumers spend more on when times are good.",
    ),
    "Consumer Defensive": (
        ("Packaged Foods", "Beverages - Non-Alcoholic", "Household Products",
         "Education & Training Services"),
        ("Foods", "Beverages", "Household", "Learning", "Farms"),
        "It makes everyday products and services that people buy in any economy.",
    ),
    "Industrials": (
        ("Integrated Freight & Logistics", "Specialty Industrial Machinery",
         "Aerospace & Defense", "Building Products & Equipment"),
        ("Industries", "Logistics", "Machinery", "Aerospace", "Manufacturing"),
        "It makes equipment and moves goods for other companies.",
    ),
    "Energy": (
        ("Oil & Gas Integrated", "Oil & Gas E&P", "Solar", "Oil & Gas Midstream"),
        ("Energy", "Petroleum", "Renewables", "Resources", "Pipeline"),
        "It produces, transports and sells energy.",
    ),
    "Utilities": (
        ("Utilities - Regulated Electric", "Utilities - Renewable", "Utilities - Regulated Water"),
        ("Power", "Electric", "Water", "Utilities"),
        "It supplies electricity and water to homes and businesses.",
    ),
    "Real Estate": (
        ("REIT - Diversified", "REIT - Office", "REIT - Residential", "Real Estate Services"),
        ("Realty", "Properties", "Land", "Estates"),
        "It owns, leases and manages property.",
    ),
    "Communication Services": (
        ("Telecom Services", "Entertainment", "Internet Content & Information", "Advertising Agencies"),
        ("Media", "Communications", "Telecom", "Studios", "Broadcasting"),
        "It runs networks, media and online services.",
    ),
    "Basic Materials": (
        ("Chemicals", "Steel", "Gold", "Building Materials"),
        ("Materials", "Chemicals", "Steel", "Mining", "Minerals"),
        "It produces raw materials used by other industries.",
    ),
}

WORLD_INDUSTRIES: dict[str, tuple[str, str]] = {
    "software": ("Technology", "Software - Application"),
    "retail": ("Consumer Cyclical", "Specialty Retail"),
    "logistics": ("Industrials", "Integrated Freight & Logistics"),
    "healthcare": ("Healthcare", "Medical Care Facilities"),
    "finance": ("Financial Services", "Asset Management"),
    "manufacturing": ("Industrials", "Specialty Industrial Machinery"),
    "education": ("Consumer Defensive", "Education & Training Services"),
    "media": ("Communication Services", "Entertainment"),
    "energy": ("Energy", "Oil & Gas Integrated"),
    "hospitality": ("Consumer Cyclical", "Lodging"),
    "telecom": ("Communication Services", "Telecom Services"),
    "real estate": ("Real Estate", "REIT - Diversified"),
}

NAME_PREFIXES = (
    "Apex", "Summit", "Harbor", "Northstar", "Crescent", "Pinnacle", "Ironwood", "Silverline",
    "Cobalt", "Meridian", "Evergreen", "Granite", "Redwood", "Atlas", "Beacon", "Horizon",
    "Keystone", "Lumen", "Orion", "Pioneer", "Quantum", "Sterling", "Vertex", "Zenith",
    "Bluewater", "Copperleaf", "Falcon", "Juniper", "Lakeshore", "Prairie", "Sequoia", "Tidewater",
)
NAME_SUFFIXES = ("Inc.", "Corp.", "Holdings", "Group", "Co.")
SYMBOL_SKIP_WORDS = ("and", "co", "corp", "group", "holdings", "inc", "llc", "ltd", "plc", "sons")

CITIES: dict[str, tuple[str, ...]] = {
    "United States": ("New York", "San Jose", "Austin", "Chicago", "Boston", "Denver", "Atlanta",
                      "Seattle", "Houston", "Charlotte"),
    "Canada": ("Toronto", "Vancouver", "Calgary"),
    "United Kingdom": ("London", "Manchester", "Edinburgh"),
    "Germany": ("Munich", "Frankfurt", "Hamburg"),
    "Netherlands": ("Amsterdam", "Eindhoven"),
    "Switzerland": ("Zurich", "Basel"),
    "Japan": ("Tokyo", "Osaka"),
    "Ireland": ("Dublin",),
}

PORTFOLIO_NAMES = ("Brokerage", "Retirement", "Growth", "Dividend Income", "College Fund")
WATCHLIST_NAMES = ("Tech watch", "Dividend ideas", "Long-term buys", "Earnings season",
                   "Energy & materials", "Healthcare picks", "Turnaround candidates")


@dataclass
class Listing:
    """A ticker being generated, with the daily closes the portfolios trade at."""

    ticker: Ticker
    first_index: int
    closes: list[float] = field(default_factory=list)

    def listed(self, index: int) -> bool:
        """Whether the ticker trades on trading day `index`."""
        return index >= self.first_index

    def close(self, index: int) -> float:
        """The close on trading day `index` (the first close before the listing)."""
        return self.closes[max(0, index - self.first_index)]


def _years_before(day: date, years: int) -> date:
    return day.replace(year=day.year - years, day=min(day.day, 28) if day.month == 2 else day.day)


def _weekday_on_or_after(day: date) -> date:
    return day + timedelta(days=7 - day.weekday() if day.weekday() >= 5 else 0)


def _trading_days(now: datetime) -> list[date]:
    """Weekdays from five years before `now` up to the day of `now` (or the Friday before)."""
    end, day = now.date(), _years_before(now.date(), HISTORY_YEARS)
    days = []
    while day <= end:
        if day.weekday() < 5:
            days.append(day)
        day += timedelta(days=1)
    return days


def _mint_symbol(name: str, taken: set[str]) -> str:
    """A 3-4 letter symbol from a company name, unique among `taken` (which it extends)."""
    words = [w.upper() for w in re.findall(r"[A-Za-z]+", name) if w.lower() not in SYMBOL_SKIP_WORDS]
    words = words or ["X"]
    if len(words) >= 3:
        base = "".join(w[0] for w in words[:3])
    elif len(words) == 2:
        base = words[0][:2] + words[1][:2]
    else:
        base = words[0][:4]
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    candidates = [base] + [base[:3] + c for c in letters] + [base[:2] + c for c in letters]
    symbol = next(c for c in candidates if c not in taken)
    taken.add(symbol)
    return symbol


def _lognormal_int(rng: random.Random, low: float, high: float) -> int:
    return int(math.exp(rng.uniform(math.log(low), math.log(high))))


def _profile(
    rng: random.Random, name: str, sector: str, industry: str, city: str, country: str, website: str
) -> dict[str, object]:
    employees = _lognormal_int(rng, 300, 150_000)
    blurb = SECTORS[sector][2]
    return {
        "name": name, "sector": sector, "industry": industry, "city": city, "country": country,
        "website": website, "employees": employees,
        "exchange": "NASDAQ" if sector in ("Technology", "Healthcare") or rng.random() < 0.3 else "NYSE",
        "description": (
            f"{name} is a {industry.lower()} company headquartered in {city}, {country}. {blurb} "
            f"It has about {employees:,} employees."
        ),
    }


def _world_profiles(world: World, rng: random.Random) -> list[tuple[Organization | None, dict[str, object]]]:
    orgs = sorted(rng.sample(list(world.organizations[1:]), N_WORLD_LISTED), key=lambda o: o.id)
    return [
        (org, _profile(rng, org.name, *WORLD_INDUSTRIES[org.industry], org.city, org.country,
                       f"www.{org.domain}"))
        for org in orgs
    ]


def _generated_profiles(
    world: World, rng: random.Random
) -> list[tuple[Organization | None, dict[str, object]]]:
    world_names = [org.name for org in world.organizations]
    stems: list[str] = []
    sectors = list(SECTORS)
    countries = list(CITIES)
    out: list[tuple[Organization | None, dict[str, object]]] = []
    while len(out) < N_GENERATED:
        sector = sectors[len(out) % len(sectors)]
        industries, nouns, _ = SECTORS[sector]
        stem = f"{rng.choice(NAME_PREFIXES)} {rng.choice(nouns)}"
        name = f"{stem} {rng.choice(NAME_SUFFIXES)}"
        if stem in stems or name in world_names:
            continue
        stems.append(stem)
        country = "United States" if rng.random() < 0.8 else rng.choice(countries[1:])
        website = "www." + "".join(ch for ch in stem.lower() if ch.isalnum()) + ".com"
        out.append((None, _profile(rng, name, sector, rng.choice(industries),
                                   rng.choice(CITIES[country]), country, website)))
    return out


Bar = tuple[int, str, float, float, float, float, int]
"""A price_bars row in column order: ticker_id, day (ISO date), open, high, low, close, volume."""


def _walk(rng: random.Random, ticker_id: int, days: list[str]) -> tuple[list[Bar], list[float]]:
    """Daily OHLCV bars of a geometric random walk over `days`, and the closes."""
    mu = rng.uniform(-0.12, 0.32) / 252
    sigma = rng.uniform(0.16, 0.55) / math.sqrt(252)
    drift, gap, wick = mu - sigma * sigma / 2, sigma * 0.6, sigma * 0.5
    price = math.exp(rng.uniform(math.log(12), math.log(320)))
    base_volume = _lognormal_int(rng, 150_000, 15_000_000)
    gauss, uniform, exp = rng.gauss, rng.random, math.exp
    bars: list[Bar] = []
    for day in days:
        ret = drift + sigma * gauss(0.0, 1.0)
        open_ = round(price * (1 + gap * (uniform() - 0.5)), 2)
        price *= exp(ret)
        close = round(price, 2)
        top, bottom = (open_, close) if open_ > close else (close, open_)
        bars.append((ticker_id, day, open_, round(top * (1 + wick * uniform()), 2),
                     round(bottom * (1 - wick * uniform()), 2), close,
                     int(base_volume * (0.6 + 0.8 * uniform()) * (1 + 12 * abs(ret)))))
    return bars, [bar[5] for bar in bars]


def _insert_bars(db: Session, bars: list[Bar]) -> None:
    """Bulk-insert bars with the driver's executemany: ~100k rows, ten times faster than the ORM."""
    table = PriceBar.__table__
    names = [column.name for column in table.columns]
    db.connection().exec_driver_sql(
        f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
        bars,
    )


def _listings(db: Session, world: World, rng: random.Random, days: list[date]) -> list[Listing]:
    profiles = _world_profiles(world, rng) + _generated_profiles(world, rng)
    taken: set[str] = set()
    symbols = [_mint_symbol(str(p["name"]), taken) for _, p in profiles]
    iso_days = [day.isoformat() for day in days]
    listings: list[Listing] = []
    bars: list[Bar] = []
    for ticker_id, (symbol, (org, profile)) in enumerate(sorted(zip(symbols, profiles), key=lambda x: x[0]), 1):
        first = 0 if rng.random() < 0.85 else rng.randrange(120, len(days) - 260)
        ticker = Ticker(
            id=ticker_id, symbol=symbol, organization_id=org.id if org else None, currency="USD",
            shares_outstanding=_lognormal_int(rng, 40_000_000, 4_000_000_000),
            listed_on=days[first],
            next_earnings_date=_weekday_on_or_after(world.now.date() + timedelta(days=rng.randrange(6, 85))),
            **profile,
        )
        ticker_bars, closes = _walk(rng, ticker_id, iso_days[first:])
        bars.extend(ticker_bars)
        listings.append(Listing(ticker=ticker, first_index=first, closes=closes))
    db.add_all([listing.ticker for listing in listings])
    db.flush()
    _insert_bars(db, bars)
    return listings


def _dividends(rng: random.Random, listings: list[Listing], days: list[date], now: datetime) -> list[Dividend]:
    """Quarterly dividends of about 40% of tickers, declared up to `now` (some paid after it)."""
    dividends: list[Dividend] = []
    for listing in listings:
        if rng.random() > 0.4:
            continue
        first_close = listing.closes[0]
        per_quarter = max(0.01, round(first_close * rng.uniform(0.008, 0.06) / 4, 2))
        month0, dom = rng.randrange(1, 4), rng.randrange(3, 24)
        for year in range(days[0].year, now.year + 2):
            if year > days[0].year:
                per_quarter = round(per_quarter * (1 + rng.uniform(0.0, 0.1)), 2)
            for month in range(month0, 13, 3):
                ex_date = _weekday_on_or_after(date(year, month, dom))
                declared = ex_date - timedelta(days=21)
                if ex_date <= listing.ticker.listed_on or ex_date < days[0] or declared > now.date():
                    continue
                pay_date = _weekday_on_or_after(ex_date + timedelta(days=rng.randrange(10, 30)))
                dividends.append(Dividend(ticker_id=listing.ticker.id, declared_on=declared,
                                          ex_date=ex_date, pay_date=pay_date, amount=per_quarter))
    dividends.sort(key=lambda d: (d.ex_date, d.ticker_id))
    for i, d in enumerate(dividends, 1):
        d.id = i
    return dividends


def _fundamentals(rng: random.Random, listings: list[Listing], days: list[date], now: datetime) -> list[Fundamental]:
    """Five fiscal years of results, growing year on year; the latest fits the year-end market value."""
    rows: list[Fundamental] = []
    for listing in listings:
        ticker = listing.ticker
        price_to_sales = math.exp(rng.uniform(math.log(0.8), math.log(9)))
        gross_margin, net_margin = rng.uniform(0.2, 0.75), rng.uniform(-0.08, 0.28)
        growth, share_growth = rng.uniform(-0.04, 0.22), rng.uniform(-0.03, 0.04)
        latest_end = date(now.year - 1, 12, 31)
        price = listing.close(bisect_right(days, latest_end) - 1)
        revenue = price * ticker.shares_outstanding / (1 + share_growth) / price_to_sales
        years: list[Fundamental] = []
        for back in range(1, FISCAL_YEARS + 1):
            shares = int(ticker.shares_outstanding / (1 + share_growth) ** back)
            margin = net_margin + rng.uniform(-0.04, 0.04)
            net_income = int(revenue * margin)
            years.append(Fundamental(
                ticker_id=ticker.id, fiscal_year=now.year - back, period_end=date(now.year - back, 12, 31),
                revenue=int(revenue), gross_profit=int(revenue * (gross_margin + rng.uniform(-0.03, 0.03))),
                operating_income=int(revenue * (margin + rng.uniform(0.02, 0.09))),
                net_income=net_income, free_cash_flow=int(net_income * rng.uniform(0.7, 1.3)),
                diluted_shares=shares, eps=round(net_income / shares, 2),
            ))
            revenue /= 1 + growth + rng.uniform(-0.06, 0.06)
        rows.extend(reversed(years))
    for i, row in enumerate(rows, 1):
        row.id = i
    return rows


def _investors(world: World) -> list[Investor]:
    home = world.home.name
    return [
        Investor(id=i, person_id=p.id, name=p.name, email=p.email, organization_name=home,
                 job_title=p.job_title)
        for i, p in enumerate(world.employees, 1)
    ]


def _at(day: date, rng: random.Random, first: time, hours: float) -> datetime:
    """A random second in the `hours` after `first` on `day`."""
    return datetime.combine(day, first) + timedelta(seconds=rng.randrange(int(hours * 3600)))


def _cash_time(day: date, rng: random.Random) -> datetime:
    """Cash moves land at the open of US markets, 14:30-16:00 UTC."""
    return _at(day, rng, time(14, 30), 1.5)


def _trade_time(day: date, rng: random.Random) -> datetime:
    """Trades follow during the session, 16:00-21:00 UTC."""
    return _at(day, rng, time(16, 0), 5)


@dataclass
class Ledger:
    """A portfolio being replayed: its positions and the transactions written so far."""

    portfolio: Portfolio
    positions: dict[int, Position] = field(default_factory=dict)
    transactions: list[Transaction] = field(default_factory=list)
    entitlements: list[tuple[date, int, float]] = field(default_factory=list)

    def cash_move(self, kind: str, amount: float, day: date, when: datetime, ticker_id: int | None = None) -> None:
        self.portfolio.cash = round(self.portfolio.cash + amount, 2)
        self.transactions.append(Transaction(
            portfolio_id=self.portfolio.id, kind=kind, ticker_id=ticker_id, quantity=None, price=None,
            amount=amount, realized_pnl=None, trade_date=day, executed_at=when))

    def trade(self, kind: str, listing: Listing, quantity: int, price: float, day: date, when: datetime) -> None:
        tid = listing.ticker.id
        position = self.positions.get(tid)
        if position is None:
            position = Position(portfolio_id=self.portfolio.id, ticker_id=tid, quantity=0,
                                cost_basis=0.0, realized_pnl=0.0, opened_at=when, updated_at=when)
            self.positions[tid] = position
        pnl = None
        if kind == "buy":
            amount = -position.buy(quantity, price, when)
        else:
            amount, pnl = position.sell(quantity, price, when)
        self.portfolio.cash = round(self.portfolio.cash + amount, 2)
        self.transactions.append(Transaction(
            portfolio_id=self.portfolio.id, kind=kind, ticker_id=tid, quantity=quantity, price=price,
            amount=amount, realized_pnl=pnl, trade_date=day, executed_at=when))


def _replay(
    rng: random.Random, ledger: Ledger, start: int, days: list[date], universe: list[Listing],
    dividends: dict[date, list[Dividend]], deposit: float,
) -> None:
    """Replay a portfolio from trading day `start`: deposits, buys, sells and dividends."""
    trade_days = set(rng.sample(range(start + 1, len(days)), min(rng.randrange(18, 70), len(days) - start - 1)))
    ledger.cash_move("deposit", round(deposit, 2), days[start], _cash_time(days[start], rng))
    for i in range(start, len(days)):
        day = days[i]
        for d in dividends.get(day, ()):
            held = ledger.positions.get(d.ticker_id)
            if held is not None and held.quantity > 0:
                ledger.entitlements.append((d.pay_date, d.ticker_id, round(held.quantity * d.amount, 2)))
        for pay_date, tid, amount in ledger.entitlements:
            if pay_date == day:
                ledger.cash_move("dividend", amount, day, datetime.combine(day, time(12, 0)), tid)
        if i > start and (i - start) % 21 == 0:
            _monthly_cash(rng, ledger, deposit, day)
        if i in trade_days:
            _random_trade(rng, ledger, universe, i, day, _trade_time(day, rng))


def _monthly_cash(rng: random.Random, ledger: Ledger, deposit: float, day: date) -> None:
    """Now and then a top-up of a few percent of the first deposit, rarely a withdrawal."""
    draw = rng.random()
    if draw < 0.45:
        ledger.cash_move("deposit", round(deposit * rng.uniform(0.03, 0.12), 2), day, _cash_time(day, rng))
    elif draw < 0.5 and ledger.portfolio.cash >= 100:
        ledger.cash_move("withdrawal", -round(ledger.portfolio.cash * 0.2, 2), day, _cash_time(day, rng))


def _random_trade(
    rng: random.Random, ledger: Ledger, universe: list[Listing], i: int, day: date, when: datetime
) -> None:
    """Sell part of a holding (about a third of the time) or buy a ticker of the universe with spare cash."""
    held = [p for p in ledger.positions.values() if p.quantity > 0]
    if held and rng.random() < 0.35:
        position = rng.choice(held)
        listing = next(x for x in universe if x.ticker.id == position.ticker_id)
        quantity = rng.randrange(1, position.quantity + 1)
        ledger.trade("sell", listing, quantity, listing.close(i), day, when)
        return
    listed = [listing for listing in universe if listing.listed(i)]
    if not listed:
        return
    listing = rng.choice(listed)
    price = listing.close(i)
    quantity = int(ledger.portfolio.cash * rng.uniform(0.05, 0.3) / price)
    if quantity >= 1:
        ledger.trade("buy", listing, quantity, price, day, when)


def _portfolios(
    db: Session, world: World, rng: random.Random, investors: list[Investor], listings: list[Listing],
    days: list[date], dividends: list[Dividend],
) -> None:
    by_ex_date: dict[date, list[Dividend]] = {}
    for d in dividends:
        by_ex_date.setdefault(d.ex_date, []).append(d)
    treasurer = rng.choice(investors)
    owners = rng.sample([i for i in investors if i is not treasurer], N_PERSONAL_OWNERS)
    plans: list[tuple[Investor, str, str, float, int]] = [
        (treasurer, f"{world.home.name} Treasury", "treasury", 6_000_000.0, rng.randrange(0, 40))]
    for owner in owners:
        for name in rng.sample(PORTFOLIO_NAMES, rng.choice((1, 1, 2))):
            start = rng.randrange(0, len(days) - 120)
            plans.append((owner, name, "personal", float(_lognormal_int(rng, 8_000, 400_000)), start))
    ledgers: list[Ledger] = []
    for pid, (owner, name, kind, deposit, start) in enumerate(plans, 1):
        created_at = datetime.combine(days[start], time(13, rng.randrange(60)))
        portfolio = Portfolio(id=pid, investor_id=owner.id, name=name, kind=kind, currency="USD",
                              cash=0.0, created_at=created_at)
        ledger = Ledger(portfolio=portfolio)
        universe = rng.sample(listings, rng.randrange(8, 20))
        _replay(rng, ledger, start, days, universe, by_ex_date, deposit)
        ledgers.append(ledger)
    db.add_all([ledger.portfolio for ledger in ledgers])
    db.flush()
    positions = [p for ledger in ledgers for _, p in sorted(ledger.positions.items())]
    for i, position in enumerate(positions, 1):
        position.id = i
    transactions = sorted((t for ledger in ledgers for t in ledger.transactions),
                          key=lambda t: (t.executed_at, t.portfolio_id))
    for i, transaction in enumerate(transactions, 1):
        transaction.id = i
    db.add_all(positions)
    db.add_all(transactions)


def _watchlists(
    db: Session, rng: random.Random, investors: list[Investor], listings: list[Listing], now: datetime
) -> None:
    watchlist_id = 0
    for owner in sorted(rng.sample(investors, N_WATCHLIST_OWNERS), key=lambda i: i.id):
        for name in rng.sample(WATCHLIST_NAMES, rng.choice((1, 1, 2, 3))):
            watchlist_id += 1
            created = now - timedelta(days=rng.randrange(20, 700), seconds=rng.randrange(86400))
            db.add(Watchlist(id=watchlist_id, investor_id=owner.id, name=name, created_at=created))
            for listing in sorted(rng.sample(listings, rng.randrange(3, 14)), key=lambda x: x.ticker.id):
                added = created + (now - created) * rng.random() ** 3
                db.add(WatchlistItem(watchlist_id=watchlist_id, ticker_id=listing.ticker.id,
                                     added_at=added.replace(microsecond=0)))


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty finance database from the shared world."""
    days = _trading_days(world.now)
    listings = _listings(db, world, rng, days)
    dividends = _dividends(rng, listings, days, world.now)
    db.add_all(dividends)
    db.add_all(_fundamentals(rng, listings, days, world.now))
    investors = _investors(world)
    db.add_all(investors)
    db.flush()
    _portfolios(db, world, rng, investors, listings, days, dividends)
    _watchlists(db, rng, investors, listings, world.now)
