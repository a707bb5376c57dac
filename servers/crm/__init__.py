"""CRM: accounts, contacts, leads, opportunities, activities and notes of a sales team (Salesforce / HubSpot)."""

from mcpgym.servers.crm.models import Base
from mcpgym.servers.crm.seed import populate
from mcpgym.servers.crm.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="crm",
    title="CRM (sales)",
    instructions=(
        "You are the sales manager (user id 1) in the CRM of Northwind Systems. Accounts are the companies "
        "you sell to; contacts are people at accounts; leads are prospects not yet converted to contacts; "
        "opportunities are deals with an amount in USD and a stage: Prospecting (10%), Qualification (20%), "
        "Proposal (50%), Negotiation (75%), Closed Won (100%), Closed Lost (0%); closed deals are final. "
        "Activities are calls, meetings and tasks; notes are free text on a record. Every record has an "
        "integer id and an owner (a user, see list_users); records you create are owned by you unless you "
        "name another owner. Times are UTC, ISO 8601 (e.g. 2025-11-12T17:00:00Z); amounts are USD."
    ),
    base=Base,
    populate=populate,
    tools=tools,
)

__all__ = ["SERVER"]
