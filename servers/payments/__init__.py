"""Payments: a Stripe-like payment processor account of Northwind: the shop's customers and
card payments (charges, refunds, disputes), the cloud subscriptions billed by invoices, and
payouts to the bank."""

from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.payments.models import REFUND_WINDOW_DAYS, Base
from mcpgym.servers.payments.seed import populate
from mcpgym.servers.payments.tools import tools

SERVER = ServerSpec(
    name="payments",
    title="Stripe-like payments",
    instructions=(
        "You operate Northwind's payment processor account (Stripe-like) as a payments specialist. Customers are "
        "the online shop's buyers and the billing contacts of companies on a Northwind Cloud subscription. Ids are "
        "Stripe-like: cus_ (customer), pm_ (payment method), ch_ (charge), re_ (refund), dp_ (dispute), price_ (plan), "
        "sub_ (subscription), in_ (invoice), po_ (payout). A shop order's charge names the order number "
        "(order_number '#1001'); invoices have numbers (NW-10001). Amounts are integer cents (amount_cents) in USD; "
        "times are UTC, ISO 8601.\n"
        "Policy (the tools refuse anything else, and change nothing):\n"
        "- A refund never exceeds what remains of its charge: the amount minus earlier refunds (nothing remains of a "
        "failed charge, which moved no money).\n"
        "- A disputed charge cannot be refunded: while its dispute is open (needs_response or under_review) "
        "the money is held by the card network, and after a lost dispute it is already returned.\n"
        f"- A charge older than {REFUND_WINDOW_DAYS} days cannot be refunded.\n"
        "- Cancelling a subscription at period end keeps it active until current_period_end (no credit) and can "
        "be undone with resume_subscription before then. Cancelling immediately ends it now and credits the unused "
        "part of the paid period to the customer's credit balance: whole days left / days in the period x plan "
        "price x quantity, rounded down to the cent; no money goes back to the card. The credit is spent on the "
        "customer's next invoice payment.\n"
        "- A canceled subscription cannot be changed, resumed or canceled again.\n"
        "- New subscriptions and plan changes use active plans only (legacy plans are kept only by those who "
        "have them); a customer has at most one active or past-due subscription per plan.\n"
        "- A card cannot be charged or made the default once past its expiry month; a subscription is created "
        "and an invoice paid only with an unexpired default card.\n"
        "- Only a draft invoice can be edited (items added); an open invoice can be paid or voided; a paid or "
        "void invoice cannot be edited, paid or voided (refund the charge of a paid one instead).\n"
        "- Dispute evidence is submitted only while the dispute needs a response and before evidence_due_by; "
        "only a dispute that needs a response can be accepted (conceded)."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("retail", "crm"),
)

__all__ = ["SERVER"]
