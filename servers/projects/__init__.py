"""Projects: a Jira-like issue tracker of Northwind Systems' engineering: projects, issues
(epics, stories, tasks, bugs, subtasks) moving through workflows, sprints, links, comments
and field history. Support bugs link to the Zendesk tickets they were escalated from."""

from mcpgym.servers.kernel.spec import ServerSpec
from mcpgym.servers.projects.models import Base
from mcpgym.servers.projects.seed import populate
from mcpgym.servers.projects.tools import tools

SERVER = ServerSpec(
    name="projects",
    title="Jira issue tracker",
    instructions=(
        "You work in the Jira issue tracker of Northwind Systems as user 1 (get_myself says who that is), "
        "head of engineering: lead of the WEB, API and DATA projects and a member of every project. "
        "Projects have keys (WEB); issues have keys <PROJECT>-<n> (WEB-42); users and sprints have integer ids. "
        "Scrum projects plan work in sprints; kanban projects (SUP support escalations, OPS) have none. "
        "SUP bugs carry the Zendesk ticket they were escalated from (support_ticket_id). Times are UTC, ISO 8601.\n"
        "Policy (the tools refuse anything else, and change nothing):\n"
        "- An issue's status changes only along its project's workflow (get_workflow lists the next statuses).\n"
        "- An issue cannot be Done while an issue that blocks it, or one of its subtasks, is unresolved.\n"
        "- A sprint closes only when every issue in it is resolved (Done or Won't Do) or moved out to another "
        "sprint or the backlog; a project has at most one active sprint; a sprint starts with at least one issue.\n"
        "- Only a project's lead creates, starts and closes its sprints.\n"
        "- Story points are Fibonacci estimates (1, 2, 3, 5, 8, 13, 21) on stories, tasks and bugs only.\n"
        "- Issues are assigned only to members of their project.\n"
        "- Only unresolved stories, tasks and bugs are planned in sprints, and only in their own project's "
        "future or active sprints.\n"
        "- A help-desk ticket is escalated to at most one issue.\n"
        "- Epics have no parent; a subtask's parent is a story, task or bug; parents are in the same project; "
        "blocking links never form a cycle."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("zendesk",),
)

__all__ = ["SERVER"]
