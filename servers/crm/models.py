"""The CRM schema: users (owners), accounts, contacts, leads, opportunities, activities, notes.

Linking rules with the shared world (`mcpgym.servers.kernel.world`):
- users are employees of the home organisation (`org_000`, Northwind Systems): the sales team.
  `external_id` is the person id (`per_0007`); name and email are the world's, unchanged;
- accounts are the world's customer organisations, one per organisation: `external_id` is the
  organisation id (`org_012`); name, domain, industry, city and country are the world's;
- contacts are world customers: `external_id` is the person id; first and last name, email,
  phone and job title are the world's, and the account is the person's organisation;
- leads are world customers who are not (yet) contacts, with the person's id, name, email,
  phone, job title and organisation name as `company`; a converted lead and the contact it
  became share the person id;
- records created through the tools carry the person id when their email is a world person's.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

STAGES = ("Prospecting", "Qualification", "Proposal", "Negotiation", "Closed Won", "Closed Lost")
OPEN_STAGES = STAGES[:4]
CLOSED_STAGES = STAGES[4:]
STAGE_PROBABILITY = {
    "Prospecting": 10, "Qualification": 20, "Proposal": 50, "Negotiation": 75,
    "Closed Won": 100, "Closed Lost": 0,
}
"""Default win probability (percent) of each stage."""

LEAD_SOURCES = ("web", "referral", "event", "cold_call", "partner", "advertisement")
LEAD_RATINGS = ("hot", "warm", "cold")
OPPORTUNITY_TYPES = ("new_business", "upsell", "renewal")
LOSS_REASONS = ("price", "competitor", "no_budget", "timing", "no_decision", "missing_features")
TASK_PRIORITIES = ("low", "normal", "high")
CALL_OUTCOMES = ("connected", "left_voicemail", "no_answer")


class Base(DeclarativeBase):
    """Declarative base of the CRM schema."""


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    email: Mapped[str] = mapped_column(String(160), unique=True)
    role: Mapped[str] = mapped_column(String(32))
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime]


class Account(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str | None] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    domain: Mapped[str | None] = mapped_column(String(120))
    industry: Mapped[str | None] = mapped_column(String(40), index=True)
    type: Mapped[str] = mapped_column(String(16))
    city: Mapped[str | None] = mapped_column(String(80))
    country: Mapped[str | None] = mapped_column(String(80))
    annual_revenue: Mapped[int | None]
    employee_count: Mapped[int | None]
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]

    owner: Mapped[User] = relationship(lazy="joined")


class Contact(Base):
    __tablename__ = "contacts"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str | None] = mapped_column(String(16), unique=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60), index=True)
    email: Mapped[str] = mapped_column(String(160), unique=True)
    phone: Mapped[str | None] = mapped_column(String(32))
    title: Mapped[str | None] = mapped_column(String(120))
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    lead_source: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]

    account: Mapped[Account] = relationship(lazy="joined")
    owner: Mapped[User] = relationship(lazy="joined")


class Lead(Base):
    __tablename__ = "leads"

    id: Mapped[int] = mapped_column(primary_key=True)
    external_id: Mapped[str | None] = mapped_column(String(16), index=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60))
    email: Mapped[str] = mapped_column(String(160), index=True)
    phone: Mapped[str | None] = mapped_column(String(32))
    title: Mapped[str | None] = mapped_column(String(120))
    company: Mapped[str] = mapped_column(String(120))
    industry: Mapped[str | None] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(16), index=True)
    source: Mapped[str] = mapped_column(String(16))
    rating: Mapped[str] = mapped_column(String(8))
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    converted_at: Mapped[datetime | None]
    converted_contact_id: Mapped[int | None] = mapped_column(ForeignKey("contacts.id"))
    converted_account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"))
    converted_opportunity_id: Mapped[int | None] = mapped_column(ForeignKey("opportunities.id"))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]

    owner: Mapped[User] = relationship(lazy="joined")


class Opportunity(Base):
    __tablename__ = "opportunities"
    __table_args__ = (Index("ix_opportunities_close", "close_date"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    contact_id: Mapped[int | None] = mapped_column(ForeignKey("contacts.id"))
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    type: Mapped[str] = mapped_column(String(16))
    stage: Mapped[str] = mapped_column(String(16), index=True)
    probability: Mapped[int]
    amount: Mapped[float]
    close_date: Mapped[datetime]
    lead_source: Mapped[str | None] = mapped_column(String(16))
    next_step: Mapped[str | None] = mapped_column(String(200))
    loss_reason: Mapped[str | None] = mapped_column(String(24))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]

    account: Mapped[Account] = relationship(lazy="joined")
    owner: Mapped[User] = relationship(lazy="joined")


class StageChange(Base):
    __tablename__ = "stage_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    opportunity_id: Mapped[int] = mapped_column(ForeignKey("opportunities.id"), index=True)
    from_stage: Mapped[str | None] = mapped_column(String(16))
    to_stage: Mapped[str] = mapped_column(String(16))
    changed_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    changed_at: Mapped[datetime]


class Activity(Base):
    """A call, meeting or task, about a lead or about an account and its contacts and deals."""

    __tablename__ = "activities"
    __table_args__ = (Index("ix_activities_scheduled", "scheduled_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    type: Mapped[str] = mapped_column(String(8), index=True)
    subject: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None]
    status: Mapped[str] = mapped_column(String(12))
    priority: Mapped[str | None] = mapped_column(String(8))
    outcome: Mapped[str | None] = mapped_column(String(16))
    scheduled_at: Mapped[datetime]
    duration_minutes: Mapped[int | None]
    completed_at: Mapped[datetime | None]
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), index=True)
    contact_id: Mapped[int | None] = mapped_column(ForeignKey("contacts.id"), index=True)
    opportunity_id: Mapped[int | None] = mapped_column(ForeignKey("opportunities.id"), index=True)
    lead_id: Mapped[int | None] = mapped_column(ForeignKey("leads.id"), index=True)
    created_at: Mapped[datetime]


class Note(Base):
    """A free-text note on one record; `account_id` is also set for notes on its contacts and deals."""

    __tablename__ = "notes"

    id: Mapped[int] = mapped_column(primary_key=True)
    body: Mapped[str]
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), index=True)
    contact_id: Mapped[int | None] = mapped_column(ForeignKey("contacts.id"), index=True)
    opportunity_id: Mapped[int | None] = mapped_column(ForeignKey("opportunities.id"), index=True)
    lead_id: Mapped[int | None] = mapped_column(ForeignKey("leads.id"), index=True)
    created_at: Mapped[datetime]
