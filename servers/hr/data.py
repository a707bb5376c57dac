"""Static catalogues of the HR world: departments, job levels and pay bands, time-off
policies, onboarding checklist items and review wording."""

from __future__ import annotations

DEPARTMENTS: tuple[tuple[str, str], ...] = (
    ("Executive", "CC-100"),
    ("People", "CC-110"),
    ("Sales", "CC-200"),
    ("Engineering", "CC-300"),
    ("Customer Support", "CC-400"),
    ("Product", "CC-310"),
    ("Marketing", "CC-210"),
    ("Finance", "CC-120"),
    ("IT", "CC-130"),
)
"""Department names and cost centers, in id order (Executive is 1, People 2, Sales 3)."""

DEPARTMENT_SIZES: dict[str, int] = {
    "People": 4, "Finance": 2, "IT": 2, "Product": 3, "Marketing": 3, "Customer Support": 5,
}
"""Headcount of the departments outside Executive, Sales and Engineering (which takes the rest)."""

# code, name, track, band minimum, band maximum (annual base salary in USD)
JOB_LEVELS: tuple[tuple[str, str, str, int, int], ...] = (
    ("IC1", "Associate", "individual", 55_000, 80_000),
    ("IC2", "Professional", "individual", 70_000, 100_000),
    ("IC3", "Senior", "individual", 95_000, 135_000),
    ("IC4", "Staff", "individual", 125_000, 175_000),
    ("IC5", "Principal", "individual", 160_000, 220_000),
    ("M1", "Manager", "management", 110_000, 160_000),
    ("M2", "Director", "management", 140_000, 210_000),
    ("M3", "Vice President", "management", 180_000, 260_000),
    ("E1", "Executive", "executive", 220_000, 400_000),
)

# code, name, annual days, days carried over into the next year, paid
POLICIES: tuple[tuple[str, str, int, int, bool], ...] = (
    ("vacation", "Vacation", 20, 5, True),
    ("sick", "Sick leave", 10, 0, True),
    ("personal", "Personal days", 3, 0, True),
    ("parental", "Parental leave", 60, 0, True),
)

# title, category, who does it (hr, it, manager, employee), due days after the hire date
ONBOARDING: tuple[tuple[str, str, str, int], ...] = (
    ("Collect the signed offer letter and contract", "paperwork", "hr", -7),
    ("Verify I-9 identity documents", "paperwork", "hr", 3),
    ("Enroll in payroll and benefits", "benefits", "hr", 5),
    ("Prepare the laptop and accounts", "equipment", "it", -1),
    ("Grant access to email, chat and the code host", "access", "it", 1),
    ("Welcome meeting with the team", "team", "manager", 1),
    ("Assign an onboarding buddy", "team", "manager", 3),
    ("Complete security awareness training", "training", "employee", 14),
    ("Read and sign the employee handbook", "paperwork", "employee", 7),
    ("Set up a first 30-day plan", "team", "manager", 10),
    ("30-day check-in", "check-in", "manager", 30),
    ("60-day HR check-in", "check-in", "hr", 60),
)

SALARY_REASONS = ("hire", "merit", "promotion", "market_adjustment", "equity_adjustment")
"""Why a salary changed; the tools accept all but `hire`."""

REVIEW_SUMMARIES: dict[int, tuple[str, ...]] = {
    1: ("Did not meet the goals of this cycle; a performance plan is agreed.",
        "Struggled with ownership and deadlines; needs close support next cycle."),
    2: ("Met some expectations; delivery was uneven and needs to become more predictable.",
        "Good intent, but several commitments slipped; focus on planning and follow-through."),
    3: ("Solid cycle: met expectations on delivery and collaboration.",
        "Reliable contributor who met the agreed goals; next step is leading a larger piece of work.",
        "Met expectations; communication with other teams improved noticeably."),
    4: ("Exceeded expectations: delivered ahead of plan and helped the team grow.",
        "Strong cycle with clear impact on customers; a role model for the team.",
        "Consistently high-quality work and great ownership of a difficult project."),
    5: ("Outstanding cycle: shaped the team's direction and delivered exceptional results.",
        "Exceptional impact well beyond the role; ready for the next level."),
}

TIME_OFF_NOTES: dict[str, tuple[str, ...]] = {
    "vacation": ("Family trip", "Summer holiday", "Long weekend away", "Visiting family", "Wedding abroad",
                 "Ski trip", "Beach week", "Moving house", ""),
    "sick": ("Flu", "Doctor's appointment", "Migraine", "Dental surgery", "Unwell", ""),
    "personal": ("Personal errand", "Moving day", "Family matter", "Jury duty follow-up", ""),
    "parental": ("Parental leave", "Birth of our child"),
}
