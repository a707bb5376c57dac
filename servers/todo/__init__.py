"""Todo: a Todoist-like task manager of Northwind Systems' first employee, with projects shared
with colleagues, sections, sub-tasks, due dates, recurring tasks, labels, comments and an
activity log. Tasks made from tracker issues carry the issue's key."""

from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.todo.models import Base
from mcpgym.servers.todo.seed import populate
from mcpgym.servers.todo.tools import tools

SERVER = ServerSpec(
    name="todo",
    title="Todoist-like task manager",
    instructions=(
        "You manage the to-do lists of a Northwind Systems employee, user 1 (get_user_by_email or list_users "
        "says who people are). Projects (the Inbox, personal ones and ones shared with colleagues) hold sections "
        "and tasks; tasks have sub-tasks, a priority from p1 (most urgent) to p4 (none), labels, an assignee, "
        "comments, a due date with an optional time (HH:MM) and possibly a repeat rule in words ('every day', "
        "'every weekday', 'every mon, thu', 'every 2 weeks', 'every month on the 1st', 'every year'). Tasks made "
        "from Jira issues carry the issue key (jira_issue_key, e.g. WEB-42). Projects, sections, tasks, "
        "comments, labels and users have integer ids; list_projects finds a project by name and search_tasks a "
        "task by its words. Dates and times are UTC; 'today' is the world's current UTC date.\n"
        "Policy (the tools refuse anything else, and change nothing):\n"
        "- A recurring task is a series: complete_task completes only its current occurrence (the due date moves "
        "to the next occurrence after both the due date and today; the task stays open). Ending the series is a "
        "separate, explicit action (end_recurrence); a recurring task is never deleted, and its due date is "
        "never removed.\n"
        "- A project with open tasks cannot be archived.\n"
        "- Archived projects are read-only: no tasks added, edited, completed, reopened, moved in or out, "
        "commented or deleted, no sections added and no sharing, until the project is unarchived.\n"
        "- Only a project's owner may archive or unarchive it; the Inbox can be neither archived nor shared.\n"
        "- Sub-tasks nest at most 4 levels deep (a top-level task and three levels of sub-tasks below it), "
        "moves included.\n"
        "- Tasks are assigned only to collaborators of their project (in a project shared with nobody, only to "
        "you); a task moves to another project only if its assignees are collaborators there.\n"
        "- Completed tasks are closed: reopen them (reopen_task) before editing, assigning, moving, completing "
        "them or adding sub-tasks.\n"
        "- Label names are unique whatever their case, and so are project names."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("projects",),
)

__all__ = ["SERVER"]
