"""One world: a person looked up by email in any server has the same name, email and
organisation as in the shared world (where that server knows the person)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from mcpgym.servers.catalog import load_server, server_names
from mcpgym.servers.kernel.session import ToolSession
from mcpgym.servers.kernel.world import Person, build_world

Identity = tuple[str, str, str]
"""(name, email, organisation name)."""


def zendesk_identity(session: ToolSession, email: str) -> Identity | None:
    found = session.call("search_users", {"query": email}).data
    assert found is not None
    users = [u for u in found["users"] if u["email"] == email]
    if not users:
        return None
    user = users[0]
    if user["organization_id"] is None:
        organization = build_world(session.seed).home.name
    else:
        organization = session.call("get_organization", {"organization_id": user["organization_id"]}).data["name"]  # type: ignore[index]
    return user["name"], user["email"], organization


def by_email(tool: str, organization: str = "organization_name") -> Callable[[ToolSession, str], Identity | None]:
    """A lookup through `tool(email=...)`, whose result names the person's organisation in the
    field `organization`; None where the tool answers not_found."""

    def identity(session: ToolSession, email: str) -> Identity | None:
        result = session.call(tool, {"email": email})
        if not result.ok:
            assert (result.error or "").startswith("not_found")
            return None
        data = result.data or {}
        return data["name"], data["email"], data[organization]

    return identity


WORKPLACE = ("chat", "docs", "projects", "files", "code", "todo")
"""Servers of the company's own work: they know its employees (chat also a few customers)."""

LOOKUPS: dict[str, Callable[[ToolSession, str], Identity | None]] = {
    **{server: by_email("get_user_by_email") for server in WORKPLACE},
    "zendesk": zendesk_identity,
    "crm": by_email("find_contact_by_email", "account_name"),
    "calendar": by_email("get_person"),
    "email": by_email("lookup_contact"),
    "finance": by_email("get_investor"),
    "flights": by_email("get_passenger_by_email"),
    "retail": by_email("get_customer_by_email"),
    "hr": by_email("get_employee_by_email"),
    "social": by_email("get_user_by_email"),
    "payments": by_email("get_customer_by_email"),
    "shipping": by_email("get_recipient_by_email"),
    "hotels": by_email("get_guest_by_email"),
    "expenses": by_email("get_employee_by_email"),
    "telecom": by_email("get_customer_by_email"),
}


def sample_people(seed: int, count: int) -> list[Person]:
    people = list(build_world(seed).people)
    rng = random.Random(seed)
    return people[:3] + rng.sample(people[3:], count)


def test_every_server_with_people_has_a_lookup() -> None:
    assert set(LOOKUPS) <= set(server_names())


@pytest.mark.parametrize("server", sorted(LOOKUPS))
@pytest.mark.parametrize("seed", [0, 5])
def test_identity_agrees_with_the_world(server: str, seed: int) -> None:
    world = build_world(seed)
    organizations = {o.id: o.name for o in world.organizations}
    known = 0
    with ToolSession(load_server(server), seed) as session:
        for person in sample_people(seed, 40):
            identity = LOOKUPS[server](session, person.email)
            if identity is None:
                continue
            known += 1
            assert identity == (person.name, person.email, organizations[person.organization_id])
    employees_only = server in ("finance", "hr", "expenses") or (server in WORKPLACE and server != "files")
    minimum = 3 if employees_only else 20  # they know only the home company's staff
    assert known >= minimum, f"{server} knows only {known} of 43 sampled people"
