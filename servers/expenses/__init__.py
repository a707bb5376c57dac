"""Expenses: Northwind Systems' expense tool (Expensify/Concur-like): reports of items,
approvals by the submitter's manager and reimbursements."""

from mcpgym.servers.expenses.models import Base
from mcpgym.servers.expenses.seed import populate
from mcpgym.servers.expenses.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="expenses",
    title="Northwind expense reports",
    instructions=(
        "You are signed in to Northwind Systems' expense tool as an employee who manages a team (get_my_profile says "
        "who you are, who your manager is and who reports to you). You file your own expense reports, approve or "
        "reject your direct reports' reports, and, as one of the company's expense administrators, record the "
        "reimbursement of approved reports. You can read every employee's reports. A report (number ER-10042, id "
        "an integer) holds items (merchant, date, category, amount, receipt, justification); it goes draft -> "
        "submitted -> approved -> reimbursed, or submitted -> rejected -> (reopened) draft. Employees and managers "
        "are HR's. Airfare items carry the Meridian Air reservation code (PNR) they paid for. Money is integer "
        "cents: an item's amount_cents is in its currency (USD, EUR, GBP or CAD) and usd_cents in US dollars at the "
        "company rate; limits, totals and reimbursements are USD cents. Dates are YYYY-MM-DD, times UTC.\n"
        "Policy (the tools refuse anything else, and change nothing):\n"
        "- Owner edits drafts only: only a report's owner changes it (title, purpose, items, receipts, removing "
        "items) and only while it is a draft; only drafts never submitted may be deleted.\n"
        "- Submitted once: a report is submitted by its owner, from draft, with at least one item; a submitted, "
        "approved or reimbursed report is never submitted again; a rejected one is first reopened by its owner "
        "(reopening applies only to rejected reports) and then submitted again.\n"
        "- Over-limit items need a justification: an item above its category's limit (list_categories: per item, "
        "per day for meals and car rental, per night for lodging) without a justification blocks submission.\n"
        "- Receipts above 75.00 USD: an item above 75.00 USD without a receipt blocks submission.\n"
        "- Claim window: expenses dated in the future or more than 90 days ago cannot be added, and a report holding "
        "one cannot be submitted.\n"
        "- Approved by the submitter's manager: only the submitter's manager (for the CEO, the head of Finance) "
        "approves or rejects a report, only while it is submitted, never the submitter; a rejection gives a reason.\n"
        "- Reimbursement: only approved reports are reimbursed, once, for their total; nobody records the "
        "reimbursement of their own report (segregation of duties)."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("hr", "flights"),
)

__all__ = ["SERVER"]
