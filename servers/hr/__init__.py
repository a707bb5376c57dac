"""HR: a BambooHR-like people system of employees, departments, pay, time off, reviews and onboarding."""

from mcpgym.servers.hr.models import Base
from mcpgym.servers.hr.seed import populate
from mcpgym.servers.hr.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="hr",
    title="BambooHR-like HR system",
    instructions=(
        "You are signed in to the HR system of Northwind Systems as employee 1, the Head of People: an HR admin "
        "who reports to the CEO and manages the People team (your direct reports); get_employee with employee_id 1 "
        "says who you are. Employees, departments, time-off requests, reviews and onboarding tasks have integer "
        "ids; find people with search_employees or get_employee_by_email and departments with list_departments. "
        "Salaries are annual base pay in integer cents (USD), within the pay band of the employee's job level "
        "(list_job_levels). Time off is counted in working days (Monday to Friday, both ends included) against a "
        "yearly balance per policy (vacation, sick, personal, parental); a request waits for the employee's "
        "manager. Dates are ISO (2025-11-12); times are UTC.\n"
        "Policy (the tools refuse anything else, and change nothing):\n"
        "- Leave beyond the remaining balance is refused: a request's working days may not exceed the policy's "
        "remaining days for that year (entitled - approved - pending).\n"
        "- Only the employee's manager approves or denies a time-off request, never the employee themself: you "
        "decide your direct reports' requests only; yours go to your manager.\n"
        "- Only pending requests are approved or denied; a request is cancelled only while pending, or approved "
        "and not yet started.\n"
        "- Requests start today or later and may not overlap the employee's pending or approved time off.\n"
        "- Salary data is visible only to HR staff (admins and partners) and to the employee themself: a "
        "compensation statement is shared only with HR staff or with the employee it is about (never their "
        "manager or anyone outside).\n"
        "- Nobody changes their own salary.\n"
        "- A salary must lie within the pay band of the employee's job level.\n"
        "- Terminated employees' records are closed: no time off, salary, manager or review changes.\n"
        "- Reporting lines may not loop, and a manager must be a current (not terminated) employee.\n"
        "- An employee with direct reports, or who heads a department, is not terminated (reassign the reports "
        "first); you do not terminate yourself.\n"
        "- Only the reviewer (the employee's manager) submits a performance review, and submitted reviews are "
        "final.\n"
        "- Onboarding tasks are ticked off only by their assignee."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("crm",),
)

__all__ = ["SERVER"]
