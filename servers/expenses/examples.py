"""Ids and values of the seed-0 world that the tools' examples use."""

CLEAN_DRAFT = 463
"""Your draft "Team offsite supplies": every item within the policy."""
OVER_LIMIT_DRAFT = 462
"""Your draft "Partner dinner": a dinner over the meals limit without a justification."""
OVER_LIMIT_ITEM = 1971
"""That dinner."""
SMALL_ITEM = 1973
"""A small item of the clean draft."""
MY_REJECTED = 437
"""Your rejected report."""
TEAM_SUBMITTED = 449
"""A report of your team waiting for you."""
TEAM_APPROVED = 461
"""A report of your team you approved, not yet paid."""
TRIP_REPORT = 436
"""A reimbursed trip report."""
TRIP_NUMBER = 'ER-10436'
"""Its number."""
PNR = 'RMEG3Y'
"""An airline booking claimed as airfare."""
ME_EMAIL = 'david.wilson@northwindsystems.com'
"""Your email."""
COLLEAGUE = 9
"""One of your direct reports."""
