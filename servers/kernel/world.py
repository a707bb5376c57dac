"""One shared world of people and organisations, generated from an integer seed.

Every domain server draws its users from here, so a Zendesk requester, a CRM contact and an
email sender can be the same person (same id, name, email and organisation). The world also
fixes the clock: `now` is a function of the seed, so dates in tasks never drift.

Linking rules, for every server:
- a person's `id` (`per_0042`) and `email` are the keys other servers store;
- a person belongs to exactly one organisation; employees belong to the home organisation
  (the company whose help desk, CRM and calendar the servers model), customers to the others;
- emails are `first.last@<organisation domain>` and unique.
"""

from __future__ import annotations

import random
import sys
from datetime import datetime, timedelta
from functools import cache
from importlib.metadata import version
from pathlib import Path

import pydantic
from pydantic import BaseModel, ConfigDict, ValidationError

from mcpgym.servers.kernel import disk_cache
from mcpgym.servers.kernel.memo import BoundedCache

BASE_NOW = datetime(2025, 11, 12, 17, 0, 0)
"""The clock of the world of seed 0; other seeds move it forward by `seed % 366` days."""

N_ORGANIZATIONS = 48
N_EMPLOYEES = 40
N_CUSTOMERS = 560

INDUSTRIES = (
    "software", "retail", "logistics", "healthcare", "finance", "manufacturing",
    "education", "media", "energy", "hospitality", "telecom", "real estate",
)
TIMEZONES = (
    "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles",
    "Europe/London", "Europe/Berlin", "Asia/Singapore", "Australia/Sydney",
)


class Organization(BaseModel):
    """A company in the world; `org_000` is the home organisation."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    domain: str
    industry: str
    city: str
    country: str


class Person(BaseModel):
    """A person known to every server that needs people."""

    model_config = ConfigDict(frozen=True)

    id: str
    first_name: str
    last_name: str
    email: str
    phone: str
    organization_id: str
    job_title: str
    timezone: str
    city: str
    is_employee: bool

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}"


class World(BaseModel):
    """The people, organisations and clock of one seed."""

    model_config = ConfigDict(frozen=True)

    seed: int
    now: datetime
    organizations: tuple[Organization, ...]
    people: tuple[Person, ...]

    @property
    def home(self) -> Organization:
        return self.organizations[0]

    @property
    def employees(self) -> tuple[Person, ...]:
        return tuple(p for p in self.people if p.is_employee)

    @property
    def customers(self) -> tuple[Person, ...]:
        return tuple(p for p in self.people if not p.is_employee)


def world_clock(seed: int) -> datetime:
    """The fixed "now" of the world of `seed`."""
    return BASE_NOW + timedelta(days=seed % 366)


def domain_rng(seed: int, domain: str) -> random.Random:
    """A random stream for one domain of one world, independent of hash randomisation."""
    return random.Random(f"mcpgym:{domain}:{seed}")


def _domain_of(name: str, taken: set[str]) -> str:
    stem = "".join(ch for ch in name.lower() if ch.isalnum())[:18] or "company"
    domain, n = f"{stem}.com", 2
    while domain in taken:
        domain, n = f"{stem}{n}.com", n + 1
    taken.add(domain)
    return domain


WORLDS_IN_MEMORY = 128
"""Worlds kept in memory (about 1 MB each); others come back from the disk cache."""

_worlds: BoundedCache[World] = BoundedCache(WORLDS_IN_MEMORY)


def build_world(seed: int) -> World:
    """The world of `seed`; the same seed gives the same world, field for field.

    Generated once, then kept in memory and in the disk cache (`disk_cache`), so other
    processes load it instead of running Faker again."""
    return _worlds.get(seed, lambda: _load_or_generate(seed))


WORLD_SOURCE_DIGEST = disk_cache.source_digest([Path(__file__)])
"""This module's code, read as it is imported (so it describes the code that runs)."""


@cache
def world_code_digest() -> str:
    """A digest of what shapes a world: this module's code and the library versions."""
    versions = (version("faker"), pydantic.VERSION, f"{sys.version_info.major}.{sys.version_info.minor}")
    return disk_cache.digest_of([WORLD_SOURCE_DIGEST, *versions])


def _load_or_generate(seed: int) -> World:
    key = f"world-{seed}-{world_code_digest()}"
    stored = disk_cache.load(key)
    if stored is not None:
        try:
            world = World.model_validate_json(stored)
        except ValidationError:
            world = None
        if world is not None and world.seed == seed:
            return world
    world = generate_world(seed)
    disk_cache.store(key, world.model_dump_json().encode())
    return world


def generate_world(seed: int) -> World:
    """Generate the world of `seed` with Faker (what `build_world` caches).

    Faker is imported here, on first use: it takes about 0.1 s to load, and a process whose
    worlds come from the disk cache never needs it."""
    from faker import Faker

    fake = Faker("en_US")
    fake.seed_instance(seed)
    rng = domain_rng(seed, "world")
    domains: set[str] = set()
    org_names: set[str] = set()
    organizations = []
    for i in range(N_ORGANIZATIONS + 1):
        name = "Northwind Systems" if i == 0 else fake.company()
        while name in org_names:
            name = fake.company()
        org_names.add(name)
        organizations.append(
            Organization(
                id=f"org_{i:03d}",
                name=name,
                domain=_domain_of(name, domains),
                industry="software" if i == 0 else rng.choice(INDUSTRIES),
                city=fake.city(),
                country="United States" if rng.random() < 0.7 else fake.country(),
            )
        )
    emails: set[str] = set()
    people = []
    for i in range(N_EMPLOYEES + N_CUSTOMERS):
        employee = i < N_EMPLOYEES
        org = organizations[0] if employee else organizations[1 + rng.randrange(N_ORGANIZATIONS)]
        first, last = fake.first_name(), fake.last_name()
        local = f"{first}.{last}".lower().replace("'", "").replace(" ", "")
        email, n = f"{local}@{org.domain}", 2
        while email in emails:
            email, n = f"{local}{n}@{org.domain}", n + 1
        emails.add(email)
        people.append(
            Person(
                id=f"per_{i:04d}",
                first_name=first,
                last_name=last,
                email=email,
                phone=f"+1-{rng.randrange(200, 990)}-555-{rng.randrange(10000):04d}",
                organization_id=org.id,
                job_title=fake.job(),
                timezone=rng.choice(TIMEZONES),
                city=org.city if rng.random() < 0.8 else fake.city(),
                is_employee=employee,
            )
        )
    return World(
        seed=seed, now=world_clock(seed), organizations=tuple(organizations), people=tuple(people)
    )
