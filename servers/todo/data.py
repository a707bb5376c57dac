"""Static catalogues of the seeded task manager: projects with their sections and tasks,
recurring chores, labels and comment phrases."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProjectPlan:
    """A project to seed: name, colour, sections, task texts, who owns it and how many colleagues
    it is shared with, and whether it is archived (then every task is done)."""

    name: str
    color: str
    sections: tuple[str, ...]
    tasks: tuple[str, ...]
    shared_with: int = 0
    owned_by_colleague: bool = False
    archived: bool = False
    finished: bool = False
    """Every task done, the project still active (nothing keeps it from being archived)."""
    work: bool = True


INBOX_TASKS = (
    "Call the dentist to reschedule", "Reply to Priya about the workshop", "Buy a birthday card for Mom",
    "Read the security training email", "Book a haircut", "Check the expense report status",
    "Return the library books", "Look into standing desk options", "Send the signed NDA back",
    "Renew the parking permit", "Update my LinkedIn headline", "Find a plumber for the kitchen sink",
    "Print boarding passes", "Pick up dry cleaning", "Order printer toner", "Back up the phone photos",
    "Unsubscribe from old newsletters", "Schedule the car service", "Cancel the unused streaming plan",
    "Write thank-you note to the Denver team", "Submit the benefits enrollment form", "Fix the calendar sync on my phone",
)

PLANS: tuple[ProjectPlan, ...] = (
    ProjectPlan("Work", "blue", ("This week", "Next week", "Waiting on others"), (
        "Prepare the QBR deck", "Review the renewal pipeline", "Draft the pricing FAQ", "Clean up CRM duplicates",
        "Send the partner newsletter", "Update the territory plan", "Review the support backlog with the team",
        "Write the case study outline", "Collect feedback on the new proposal template", "Plan the Q1 kickoff agenda",
        "Approve the marketing budget request", "Prepare the board metrics", "Follow up on the security questionnaire",
        "Sync with legal about the MSA changes", "Reconcile the travel expenses", "Shadow a support call",
        "Review the onboarding checklist", "Book the customer advisory board venue", "Answer the analyst survey",
        "Outline the annual planning memo", "Update the org chart", "Interview prep for the account manager role",
        "Refresh the sales playbook", "Check the win/loss notes", "Review contract redlines",
    )),
    ProjectPlan("Engineering follow-ups", "charcoal", ("Reviews", "Decisions"), (
        "Review the API rate-limit proposal", "Read the incident postmortem", "Sign off the data retention policy",
        "Check the on-call rotation for December", "Comment on the SDK naming RFC", "Review the hiring scorecards",
        "Decide on the analytics vendor", "Approve the infrastructure budget", "Read the architecture review notes",
    )),
    ProjectPlan("Q4 Planning", "orange", ("Goals", "Budget", "Headcount"), (
        "Draft the Q4 OKRs", "Collect team goals", "Review last quarter's results", "Model the budget scenarios",
        "Align with finance on the forecast", "List the open headcount", "Prioritise the roadmap asks",
        "Write the planning summary", "Schedule the planning review", "Share the final plan",
    ), shared_with=4),
    ProjectPlan("Customer Onboarding", "teal", ("Kickoff", "Setup", "Training", "Go-live"), (
        "Send the welcome pack", "Schedule the kickoff call", "Confirm the admin contacts", "Provision the sandbox",
        "Import the customer's user list", "Configure SSO", "Run the admin training", "Run the end-user training",
        "Check the data migration", "Agree on the go-live date", "Send the go-live checklist", "Hand over to support",
        "Collect onboarding feedback", "Book the 30-day check-in",
    ), shared_with=5),
    ProjectPlan("Website Redesign", "violet", ("Content", "Design", "Launch"), (
        "Audit the current pages", "Write the new homepage copy", "Collect customer logos", "Review the wireframes",
        "Approve the colour palette", "Update the pricing page", "Check the page speed report", "Set up redirects",
        "Proofread the product pages", "Plan the launch announcement", "Test the contact form", "Update the blog template",
    ), shared_with=6, owned_by_colleague=True),
    ProjectPlan("Team Offsite 2026", "green", ("Venue", "Agenda", "Travel"), (
        "Shortlist the venues", "Get quotes from the venues", "Pick the dates", "Draft the agenda",
        "Book the team dinner", "Arrange the flights", "Plan a team activity", "Send the invitations",
        "Collect dietary requirements", "Prepare the welcome talk",
    ), shared_with=3),
    ProjectPlan("Hiring: Account Manager", "salmon", ("Sourcing", "Interviews", "Offer"), (
        "Write the job description", "Post the role", "Screen the applications", "Schedule the first interviews",
        "Prepare the case exercise", "Debrief with the panel", "Check the references", "Draft the offer",
    ), shared_with=2, owned_by_colleague=True),
    ProjectPlan("Conference Talk", "magenta", ("Draft", "Slides", "Rehearsal"), (
        "Pick the talk title", "Write the abstract", "Outline the story", "Gather the customer examples",
        "Draft the slides", "Get feedback from marketing", "Rehearse with the team", "Record a practice run",
        "Book the travel to the conference",
    ), work=True),
    ProjectPlan("Home", "lime_green", ("Kitchen", "Garden", "Repairs"), (
        "Fix the leaking tap", "Replace the hallway bulb", "Clean the gutters", "Paint the fence",
        "Sort the garage", "Plant the spring bulbs", "Deep clean the oven", "Replace the smoke alarm batteries",
        "Organise the spice rack", "Buy new doormat", "Call the window cleaner", "Service the boiler",
    ), work=False),
    ProjectPlan("Errands", "yellow", ("Groceries", "Shops"), (
        "Buy milk and eggs", "Pick up the prescription", "Post the parcel", "Buy batteries", "Get stamps",
        "Return the jacket", "Buy coffee beans", "Collect the repaired shoes", "Drop off the recycling",
    ), work=False),
    ProjectPlan("Health & Fitness", "mint_green", ("Training", "Appointments"), (
        "Book the annual check-up", "Sign up for the 10k", "Buy new running shoes", "Try the yoga class",
        "Plan the weekly meals", "Schedule the eye test", "Renew the gym membership",
    ), work=False),
    ProjectPlan("Reading List", "lavender", (), (
        "Read 'Thinking, Fast and Slow'", "Read 'The Mom Test'", "Read 'Never Split the Difference'",
        "Read 'Atomic Habits'", "Read 'The Hard Thing About Hard Things'", "Read 'Crossing the Chasm'",
        "Read 'Good Strategy Bad Strategy'", "Read 'Deep Work'",
    ), work=False),
    ProjectPlan("Finances", "olive_green", ("Bills", "Taxes"), (
        "File the tax return", "Review the pension contributions", "Check the credit card statement",
        "Set up the savings transfer", "Compare home insurance quotes", "Update the budget spreadsheet",
    ), work=False),
    ProjectPlan("Holiday Party 2024", "red", ("Planning",), (
        "Book the venue", "Choose the menu", "Send the invites", "Order the decorations", "Plan the raffle",
        "Collect the RSVPs",
    ), shared_with=4, archived=True),
    ProjectPlan("Office Move 2024", "taupe", ("Before", "Moving day"), (
        "Pack the desk", "Label the boxes", "Update the address on the website", "Order new desk chairs",
        "Set up the new meeting rooms", "Return the old keys",
    ), shared_with=5, owned_by_colleague=True, archived=True),
    ProjectPlan("Sales Kickoff 2025", "sky_blue", ("Content",), (
        "Book the keynote speaker", "Write the awards script", "Prepare the territory slides", "Collect the win stories",
    ), shared_with=3, archived=True),
    ProjectPlan("Spanish Course", "grape", (), (
        "Finish unit 1", "Finish unit 2", "Finish unit 3", "Take the placement test", "Practice with the tutor",
    ), finished=True, work=False),
    ProjectPlan("Partner Summit Prep", "light_blue", ("Logistics",), (
        "Confirm the partner list", "Send the summit agenda", "Book the summit room", "Order the name badges",
    ), shared_with=3, owned_by_colleague=True, finished=True),
)

RECURRING: tuple[tuple[str, str, str | None, str], ...] = (
    ("Water the plants", "every 3 days", None, "Home"),
    ("Take out the recycling", "every tue", "07:00", "Home"),
    ("Pay the rent", "every month on the 1st", None, "Finances"),
    ("Review the credit card bill", "every month on the 20th", None, "Finances"),
    ("Weekly review", "every fri", "16:00", "Inbox"),
    ("Plan the week", "every mon", "08:30", "Inbox"),
    ("Submit the timesheet", "every fri", "15:00", "Work"),
    ("Check the pipeline report", "every mon, thu", "09:00", "Work"),
    ("Update the forecast", "every 2 weeks", None, "Work"),
    ("Clear the email inbox", "every weekday", "17:30", "Inbox"),
    ("Go for a run", "every tue, thu, sat", "06:30", "Health & Fitness"),
    ("Stretching routine", "every day", "21:00", "Health & Fitness"),
    ("Back up the laptop", "every month on the 15th", None, "Inbox"),
    ("Renew the car insurance", "every year", None, "Finances"),
    ("Change the bed sheets", "every week", None, "Home"),
    ("Team 1:1 notes", "every wed", "10:00", "Work"),
    ("Check the on-call handoff", "every mon", "09:30", "Engineering follow-ups"),
    ("Send the onboarding status update", "every fri", None, "Customer Onboarding"),
    ("Quarterly account review", "every 3 months on the 5th", None, "Work"),
    ("Grocery run", "every sat", "10:00", "Errands"),
)
"""Recurring chores: content, rule, time of day (UTC) and project."""

SUBTASK_TREES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Team Offsite 2026", "Shortlist the venues", ("Check venues in Lisbon", "Compare the prices", "Call the top venue", "Ask about the AV setup")),
    ("Q4 Planning", "Draft the Q4 OKRs", ("Collect the sales targets", "Draft the objectives", "Write the key results", "Check the metric definitions")),
    ("Customer Onboarding", "Configure SSO", ("Get the IdP metadata", "Set up the test tenant", "Run the SSO test", "Confirm with the customer's IT")),
    ("Home", "Sort the garage", ("Empty the shelves", "Sort what to keep", "Take the rest to the tip", "Book the skip")),
    ("Conference Talk", "Draft the slides", ("Title slide", "Story arc", "Customer examples", "Closing slide")),
)
"""Chains four levels deep: a task, a sub-task, its sub-task and so on (the depth limit)."""

SUBTASKS = (
    "Draft", "Review", "Send for approval", "Follow up", "Book a slot", "Write notes", "Share the summary",
    "Check the numbers", "Ask for feedback", "Update the doc",
)
"""Steps under a task: the sub-task's content is `<step>: <parent content>`-like."""

LABELS: tuple[tuple[str, str], ...] = (
    ("waiting", "grey"), ("quick-win", "lime_green"), ("calls", "orange"), ("email", "sky_blue"),
    ("errands", "yellow"), ("deep-work", "violet"), ("low-energy", "mint_green"), ("reading", "lavender"),
    ("meeting-prep", "teal"), ("follow-up", "red"), ("jira", "blue"), ("someday", "taupe"), ("home", "green"),
    ("customer", "magenta"), ("finance", "olive_green"),
)

COMMENTS = (
    "I have started on this, draft by end of week.", "Can you take a look when you have a minute?",
    "Blocked until we hear back from the customer.", "Done the first half, the rest tomorrow.",
    "Moved the deadline after the sync.", "Added the notes from the call.", "Let's discuss at the next 1:1.",
    "Shared the doc in the channel.", "The vendor sent a new quote.", "I need one more day for this.",
    "Looks good to me.", "Reminder: this is due soon.", "Attached the latest numbers in the doc.",
)

DESCRIPTIONS = (
    "", "", "", "Notes are in the shared drive.", "Check last year's version first.", "Keep it under one page.",
    "Loop in the team lead.", "Use the new template.", "Ask for a quote before committing.",
)
