"""Telecom: the customer-care system of Bluewave Mobile, a mobile carrier: customers (world
customers, most of them CRM contacts), billing accounts, lines with plans and handsets, daily
usage, bills and payments, add-ons and roaming passes, suspensions, network outages and a
troubleshooting log."""

from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.telecom.models import Base
from mcpgym.servers.telecom.seed import populate
from mcpgym.servers.telecom.tools import tools

SERVER = ServerSpec(
    name="telecom",
    title="Mobile carrier customer care",
    instructions=(
        "You are a customer-care agent of Bluewave Mobile, a mobile carrier. Customers (get_customer_by_email, "
        "search_accounts) hold billing accounts (account numbers like BW-40210173; standing good, past_due or "
        "suspended); an account's lines (phone numbers; search_lines finds one in any format) each have a plan, a "
        "handset with its settings and SIM, add-ons (data packs, international calling, roaming day passes for zone 1: "
        "Canada and Mexico, zone 2: Europe, zone 3: the rest of the world) and daily usage. Billing cycles are calendar "
        "months: a cycle's bill is issued on the 1st of the next month and due on the 21st. Money is in integer cents "
        "(USD). run_line_diagnostics explains why a line has no service or data; check_network_outages lists outages "
        "by city; log_ticket records what was done. Dates are UTC; 'today' is the world's current UTC date.\n"
        "Policy (the tools refuse anything else, and change nothing):\n"
        "- Plan changes take effect at the start of the next billing cycle (the 1st of next month). Only an upgrade "
        "(a plan with a higher monthly price) may take effect immediately, and only when the customer asks; a downgrade "
        "never does.\n"
        "- Retired plans cannot be chosen; lines that have one keep it.\n"
        "- A suspended line must be reactivated before any change to it: plan, add-ons, roaming, roaming passes, "
        "device settings.\n"
        "- Roaming (turning it on, or buying a roaming pass) needs the account in good standing: no bill unpaid after "
        "its due date.\n"
        "- A line suspended for non-payment is reactivated only once the account has nothing past due; a line "
        "suspended as lost/stolen or at the customer's request can be reactivated at any time.\n"
        "- A line may have at most 2 data packs per billing cycle.\n"
        "- Data packs, and roaming passes already under way, are non-refundable and cannot be removed; international "
        "calling and passes that have not started can.\n"
        "- A payment may not exceed the account's balance."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("crm",),
)

__all__ = ["SERVER"]
