"""Task-manager families: project and task lookups, the agenda, comments, label counts,
completion history and reports; adding, editing, assigning, moving, completing, reopening and
deleting tasks, ending recurring series, projects made, shared, archived and brought back,
sections and labels; refusals the app's rules call for; two-turn follow-ups; and tasks tied
to Jira issues of the issue tracker (projects server).

A user names a project by its name, a task by its words, a person by name or email and a
Jira issue by its key, never by an internal id.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import date, timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, WorldView, month_name, month_window, previous_month

SERVER = "todo"
ME = 1
Row = dict[str, Any]
Call = dict[str, Any]

NEW_TASKS = (
    "Send the meeting notes", "Book a call with the vendor", "Draft the status update", "Review the budget sheet",
    "Prepare questions for the review", "Order the team lunch", "Update the project brief", "Check the contract dates",
)
COMMENTS = (
    "I will pick this up tomorrow morning.", "Waiting for the numbers from finance.", "Done with the first draft.",
    "Moved this after the team sync.", "Please review when you have a minute.",
)
NEW_PROJECTS = (("Garden Makeover", ("Plants", "Tools")), ("Kitchen Renovation", ("Quotes", "Design")),
                ("Marathon Training", ("Plans", "Races")), ("Product Launch", ("Content", "Launch day")),
                ("Board Meeting Prep", ("Deck", "Numbers")), ("Move House", ("Packing", "Admin")))
NEW_LABELS = ("next-actions", "agenda", "delegated", "blocked", "weekend", "big-rock")
PRIORITY_WORDS = {"p1": "priority 1", "p2": "priority 2", "p3": "priority 3"}


# ---------------------------------------------------------------- sampling helpers


def _projects(view: WorldView, state: str = "all") -> list[Row]:
    return view.read(SERVER, "list_projects", state=state, per_page=100)["projects"]


def _tasks(view: WorldView, status: str = "open", **filters: Any) -> list[Row]:
    """Every task with `status` (archived projects included), up to 300."""
    rows: list[Row] = []
    for page in (1, 2, 3):
        found = view.read(SERVER, "search_tasks", status=status, include_archived=True, per_page=100, page=page, **filters)
        rows += found["tasks"]
        if found["next_page"] is None:
            break
    return rows


def _unique(tasks: list[Row], everything: list[Row]) -> list[Row]:
    """Tasks whose words name no other task."""
    counts = Counter(t["content"].lower() for t in everything)
    return [t for t in tasks if counts[t["content"].lower()] == 1 and len(t["content"]) >= 8]


def _all(view: WorldView) -> list[Row]:
    return _tasks(view, status="all")


def _find_project(call_id: str, name: str, state: str = "all") -> Call:
    return {"id": call_id, "tool": "list_projects", "arguments": {"query": name, "state": state}}


def _find_task(call_id: str, task: Row, **extra: Any) -> Call:
    return {"id": call_id, "tool": "search_tasks", "arguments": {"query": task["content"], **extra}}


def _one(call_id: str, key: str = "tasks") -> str:
    return f"{{{call_id}.total}} == 1"


def _pick_open(view: WorldView, rng: random.Random, keep: Any = None) -> Row | None:
    everything = _all(view)
    projects = {p["id"]: p for p in _projects(view)}
    candidates = [t for t in _unique([t for t in everything if not t["is_completed"]], everything)
                  if not projects[t["project_id"]]["is_archived"] and (keep is None or keep(t))]
    return rng.choice(candidates) if candidates else None


def _future(view: WorldView, rng: random.Random) -> date:
    return view.now.date() + timedelta(days=rng.randint(2, 30))


# ---------------------------------------------------------------- lookups and reports


class ProjectOverview(Family):
    """A project's open and overdue tasks, owner and collaborators."""

    name = "todo.project-overview"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice([p for p in _projects(view, "active") if not p["is_inbox"]])
        name = project["name"]
        user = [
            f"In my '{name}' project, how many tasks are still open, how many are overdue, and who owns the project?",
            f"Give me the state of the {name} project: open tasks, overdue tasks and its owner.",
        ]
        return Draft(family=self.name, key=f"project:{name}", turns=[{"user": user, "calls": [
            _find_project("c1", name),
            {"id": "c2", "tool": "get_project", "bind": {"project_id": "{c1.projects.0.id}"}},
        ], "facts": [
            {"name": "open tasks", "expr": "{c2.open_tasks}", "value": None},
            {"name": "overdue tasks", "expr": "{c2.overdue_tasks}", "value": None},
            {"name": "owner", "expr": "{c2.owner_name}", "value": None},
        ]}], checks=[_one("c1")])


class TaskDetails(Family):
    """A task's due date, priority and creator, and its open sub-tasks."""

    name = "todo.task-details"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng, lambda t: t["due_date"] is not None)
        if task is None:
            return None
        content = task["content"]
        user = [
            f"When is my task '{content}' due, what priority does it have, and who created it?",
            f"Look up '{content}' in my to-do list: due date, priority and who added it.",
        ]
        return Draft(family=self.name, key=f"task:{task['id']}", turns=[{"user": user, "calls": [
            _find_task("c1", task),
            {"id": "c2", "tool": "get_task", "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": [
            {"name": "due date", "expr": "{c2.due_date}", "value": None},
            {"name": "priority", "expr": "{c2.priority}", "value": None},
            {"name": "creator", "expr": "{c2.creator_name}", "value": None},
        ]}], checks=[_one("c1")])


class TodayAgenda(Family):
    """How many tasks are overdue and due today, and the first of today's."""

    name = "todo.today-agenda"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        days = rng.choice((1, 3, 7))
        mine = rng.random() < 0.5
        agenda = view.read(SERVER, "get_agenda", days=days, assigned_to_me_only=mine)
        if not agenda["days"][0]["tasks"]:
            return None
        scope = "only tasks assigned to me or to nobody" if mine else "tasks of everyone in my projects"
        window = "today" if days == 1 else f"the {days} days starting today"
        user = [
            f"How many of my tasks are overdue, how many are due today, and how many are due over {window} "
            f"(overdue ones aside)? Count {scope}.",
            f"Agenda check, counting {scope}: the number of overdue tasks, the number due today, and the number due "
            f"over {window}, not counting overdue ones.",
        ]
        return Draft(family=self.name, key=f"{days}|{mine}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_agenda", "arguments": {"days": days, "assigned_to_me_only": mine}},
        ], "facts": [
            {"name": "overdue", "expr": "len({c1.overdue})", "value": None},
            {"name": "due today", "expr": "len({c1.days.0.tasks})", "value": None},
            {"name": "due in the window", "expr": "{c1.total} - len({c1.overdue})", "value": None},
        ]}])


class LabelUsage(Family):
    """How many open tasks carry a label, and which of them is due first."""

    name = "todo.label-usage"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        labels = [lb for lb in view.read(SERVER, "list_labels")["labels"] if lb["open_tasks"] >= 2]
        label = rng.choice(labels)
        dated = view.read(SERVER, "search_tasks", label=label["name"], sort_by="due_date", per_page=2)["tasks"]
        if len(dated) < 2 or dated[0]["due_date"] is None or dated[0]["due_date"] == dated[1]["due_date"]:
            return None
        name = label["name"]
        user = [
            f"How many open tasks are labelled '{name}', and which of them is due first?",
            f"Count my open @{name} tasks and tell me the one with the earliest due date.",
        ]
        return Draft(family=self.name, key=f"label:{name}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_labels"},
            {"id": "c2", "tool": "search_tasks", "arguments": {"label": name, "sort_by": "due_date", "per_page": 5}},
        ], "facts": [
            {"name": "open tasks", "expr": "{c2.total}", "value": None},
            {"name": "due first", "expr": "{c2.tasks.0.content}", "value": None},
        ]}])


class LastComment(Family):
    """The latest comment on a task and its author."""

    name = "todo.last-comment"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng, lambda t: t["comment_count"] >= 1)
        if task is None:
            return None
        content = task["content"]
        user = [
            f"What does the latest comment on '{content}' say, and who wrote it?",
            f"Read me the most recent comment on my task '{content}' and its author.",
        ]
        return Draft(family=self.name, key=f"task:{task['id']}", turns=[{"user": user, "calls": [
            _find_task("c1", task),
            {"id": "c2", "tool": "list_comments", "arguments": {"per_page": 100}, "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": [
            {"name": "comment", "expr": "{c2.comments.-1.content}", "value": None},
            {"name": "author", "expr": "{c2.comments.-1.author_name}", "value": None},
        ]}], checks=[_one("c1"), "{c2.total} == 1 or {c2.comments.-1.posted_at} != {c2.comments.-2.posted_at}"])


class RecurringHistory(Family):
    """How often a recurring chore was done since a date, and its next due date."""

    name = "todo.recurring-history"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = rng.choice(view.read(SERVER, "search_tasks", recurring=True, per_page=100)["tasks"])
        year, month = previous_month(view.now.year, view.now.month, rng.randint(1, 6))
        start, _ = month_window(year, month)
        content = task["content"]
        user = [
            f"How many times have I completed '{content}' since the start of {month_name(year, month)}, and when is it due next?",
            f"'{content}' repeats ({task['recurrence']}). Count the occurrences I've checked off since {start[:10]} and tell me its next due date.",
        ]
        return Draft(family=self.name, key=f"{task['id']}|{start}", turns=[{"user": user, "calls": [
            _find_task("c1", task, recurring=True),
            {"id": "c2", "tool": "get_activity", "arguments": {"event": ["completed"], "after": start, "per_page": 1},
             "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": [
            {"name": "completions", "expr": "{c2.total}", "value": None},
            {"name": "next due", "expr": "{c1.tasks.0.due_date}", "value": None},
        ]}], checks=[_one("c1")])


class BusiestProject(Family):
    """The project with the most completions in a month, and the month's total."""

    name = "todo.busiest-project"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        year, month = previous_month(view.now.year, view.now.month, rng.randint(1, 10))
        start, end = month_window(year, month)
        report = view.read(SERVER, "completion_report", after=start[:10], before=end[:10], group_by="project")
        counts = sorted((g["completed"] for g in report["groups"]), reverse=True)
        if len(counts) < 2 or counts[0] == counts[1]:
            return None
        when = month_name(year, month)
        user = [
            f"In {when}, which of my projects saw the most completed tasks (recurring occurrences count), and how many tasks did I complete in total that month?",
            f"Completion stats for {when}: the busiest project by completions and the overall number completed.",
        ]
        return Draft(family=self.name, key=f"{year}-{month}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "completion_report", "arguments": {"after": start[:10], "before": end[:10], "group_by": "project"}},
        ], "facts": [
            {"name": "busiest project", "expr": "{c1.busiest.key}", "value": None},
            {"name": "its completions", "expr": "{c1.busiest.completed}", "value": None},
            {"name": "total", "expr": "{c1.total_completed}", "value": None},
        ]}])


class ColleagueWorkload(Family):
    """A colleague found by email: their title and the open tasks assigned to them."""

    name = "todo.colleague-workload"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        assigned = Counter(t["assignee_id"] for t in _tasks(view) if t["assignee_id"] not in (None, ME))
        if not assigned:
            return None
        user_id = rng.choice(sorted(assigned))
        person = next(u for u in view.read(SERVER, "list_users", per_page=100)["users"] if u["id"] == user_id)
        email = person["email"]
        user = [
            f"How many open tasks in my projects are assigned to {email}, and what is that person's name and job title?",
            f"Who is {email}, and how many of our open tasks do they have on their plate?",
        ]
        return Draft(family=self.name, key=f"user:{user_id}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_user_by_email", "arguments": {"email": email}},
            {"id": "c2", "tool": "search_tasks", "arguments": {"per_page": 1, "include_archived": True},
             "bind": {"assignee_id": "{c1.id}"}},
        ], "facts": [
            {"name": "name", "expr": "{c1.name}", "value": None},
            {"name": "title", "expr": "{c1.title}", "value": None},
            {"name": "open tasks", "expr": "{c2.total}", "value": None},
        ]}])


# ---------------------------------------------------------------- writes


class AddTask(Family):
    """Add a dated, prioritised task to a project named by the user."""

    name = "todo.add-task"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(_projects(view, "active"))
        content, due = rng.choice(NEW_TASKS), _future(view, rng)
        priority = rng.choice(list(PRIORITY_WORDS))
        name = project["name"]
        user = [
            f"Add '{content}' to my {name} project, due {due}, {PRIORITY_WORDS[priority]} ({priority}).",
            f"New task in '{name}': \"{content}\", due on {due} with priority {priority}.",
        ]
        return Draft(family=self.name, key=f"{name}|{content}|{due}", writes=True, turns=[{"user": user, "calls": [
            _find_project("c1", name, "active"),
            {"id": "c2", "tool": "create_task", "arguments": {"content": content, "due_date": str(due), "priority": priority},
             "bind": {"project_id": "{c1.projects.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class AddSubtask(Family):
    """Add a sub-task under a task the user names."""

    name = "todo.add-subtask"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng, lambda t: t["parent_id"] is None)
        if task is None:
            return None
        step = rng.choice(("Ask for input", "Write the first draft", "Check the details", "Send a reminder"))
        content = task["content"]
        user = [f"Under my task '{content}', add a sub-task '{step}'.",
                f"Break '{content}' down: add '{step}' as a sub-task of it."]
        return Draft(family=self.name, key=f"{task['id']}|{step}", writes=True, turns=[{"user": user, "calls": [
            _find_task("c1", task),
            {"id": "c2", "tool": "create_task", "arguments": {"content": step}, "bind": {"parent_id": "{c1.tasks.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class Reschedule(Family):
    """Move a task's due date and raise its priority."""

    name = "todo.reschedule"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng, lambda t: t["recurrence"] is None and t["priority"] != "p1")
        if task is None:
            return None
        due = _future(view, rng)
        content = task["content"]
        user = [f"Push '{content}' to {due} and make it p1.",
                f"Reschedule my task '{content}' to {due}, and set its priority to p1 (urgent)."]
        return Draft(family=self.name, key=f"{task['id']}|{due}", writes=True, turns=[{"user": user, "calls": [
            _find_task("c1", task),
            {"id": "c2", "tool": "update_task", "arguments": {"due_date": str(due), "priority": "p1"},
             "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class AssignTask(Family):
    """Assign a task of a shared project to one of its collaborators, named by the user."""

    name = "todo.assign-task"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        shared = {p["id"]: p for p in _projects(view, "active") if p["is_shared"]}
        task = _pick_open(view, rng, lambda t: t["project_id"] in shared)
        if task is None:
            return None
        people = [u for u in view.read(SERVER, "list_users", project_id=task["project_id"], per_page=100)["users"]
                  if u["id"] not in (ME, task["assignee_id"])]
        if not people:
            return None
        person = rng.choice(people)
        content = task["content"]
        user = [f"Assign '{content}' to {person['name']}.", f"Hand my task '{content}' over to {person['name']}."]
        return Draft(family=self.name, key=f"{task['id']}|{person['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_task("c1", task),
            {"id": "c2", "tool": "list_users", "arguments": {"query": person["name"]}},
            {"id": "c3", "tool": "assign_task", "bind": {"task_id": "{c1.tasks.0.id}", "assignee_id": "{c2.users.0.id}"}},
        ], "facts": []}], checks=[_one("c1"), "{c2.total} == 1"])


class MoveTask(Family):
    """Move an Inbox task to a project of yours."""

    name = "todo.move-task"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng, lambda t: t["project_name"] == "Inbox" and t["parent_id"] is None
                          and t["assignee_id"] is None)
        targets = [p for p in _projects(view, "active") if not p["is_inbox"]]
        if task is None or not targets:
            return None
        target = rng.choice(targets)["name"]
        content = task["content"]
        user = [f"Move '{content}' from my Inbox to the {target} project.",
                f"File the Inbox task '{content}' under '{target}'."]
        return Draft(family=self.name, key=f"{task['id']}|{target}", writes=True, turns=[{"user": user, "calls": [
            _find_task("c1", task),
            _find_project("c2", target, "active"),
            {"id": "c3", "tool": "move_task", "bind": {"task_id": "{c1.tasks.0.id}", "project_id": "{c2.projects.0.id}"}},
        ], "facts": []}], checks=[_one("c1"), _one("c2")])


class CompleteTask(Family):
    """Check off a one-off task; say how many of its sub-tasks closed with it."""

    name = "todo.complete-task"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng, lambda t: t["recurrence"] is None)
        if task is None:
            return None
        content = task["content"]
        user = [f"Mark '{content}' as done.", f"I finished '{content}'. Check it off."]
        return Draft(family=self.name, key=f"task:{task['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_task("c1", task),
            {"id": "c2", "tool": "complete_task", "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class CompleteOccurrence(Family):
    """Check off today's occurrence of a recurring chore and say when it is due next."""

    name = "todo.complete-occurrence"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = rng.choice(view.read(SERVER, "search_tasks", recurring=True, per_page=100)["tasks"])
        content = task["content"]
        user = [f"I did '{content}'. Check it off and tell me when it's due next.",
                f"Mark this occurrence of '{content}' as complete; what's the next due date?"]
        return Draft(family=self.name, key=f"task:{task['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_task("c1", task, recurring=True),
            {"id": "c2", "tool": "complete_task", "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": [{"name": "next due", "expr": "{c2.next_due_date}", "value": None}]}], checks=[_one("c1")])


class ReopenTask(Family):
    """Reopen a task completed by mistake, then set a new due date."""

    name = "todo.reopen-task"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        everything = _all(view)
        active = {p["id"] for p in _projects(view, "active")}
        done = [t for t in _unique([t for t in everything if t["is_completed"]], everything)
                if t["project_id"] in active and t["parent_id"] is None]
        if not done:
            return None
        task, due = rng.choice(done), _future(view, rng)
        content = task["content"]
        user = [f"'{content}' isn't actually finished. Reopen it and make it due {due}.",
                f"Uncomplete my task '{content}' and give it a due date of {due}."]
        return Draft(family=self.name, key=f"{task['id']}|{due}", writes=True, turns=[{"user": user, "calls": [
            _find_task("c1", task, status="completed"),
            {"id": "c2", "tool": "reopen_task", "bind": {"task_id": "{c1.tasks.0.id}"}},
            {"id": "c3", "tool": "update_task", "arguments": {"due_date": str(due)}, "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class EndSeries(Family):
    """Stop a recurring chore for good; say how often it repeated."""

    name = "todo.end-series"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = rng.choice(view.read(SERVER, "search_tasks", recurring=True, per_page=100)["tasks"])
        content = task["content"]
        user = [f"I don't need to do '{content}' anymore. Stop the recurring series.",
                f"End the repeating task '{content}' for good (no more occurrences)."]
        return Draft(family=self.name, key=f"task:{task['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_task("c1", task, recurring=True),
            {"id": "c2", "tool": "end_recurrence", "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class DeleteTask(Family):
    """Delete a one-off task the user no longer needs."""

    name = "todo.delete-task"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng, lambda t: t["recurrence"] is None and t["open_subtask_count"] == 0)
        if task is None:
            return None
        content = task["content"]
        user = [f"Delete '{content}' from my list, I don't need it.", f"Remove the task '{content}' entirely."]
        return Draft(family=self.name, key=f"task:{task['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_task("c1", task),
            {"id": "c2", "tool": "delete_task", "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class CommentOnTask(Family):
    """Leave a comment on a task."""

    name = "todo.comment-on-task"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng)
        if task is None:
            return None
        text, content = rng.choice(COMMENTS), task["content"]
        user = [f"Comment on '{content}': \"{text}\"", f"Add a note to the task '{content}' saying \"{text}\""]
        return Draft(family=self.name, key=f"{task['id']}|{text}", writes=True, turns=[{"user": user, "calls": [
            _find_task("c1", task),
            {"id": "c2", "tool": "add_comment", "arguments": {"content": text}, "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class NewProject(Family):
    """Create a project with two sections and a first task in the first one."""

    name = "todo.new-project"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        name, (first, second) = rng.choice(NEW_PROJECTS)
        color = rng.choice(("green", "blue", "orange", "violet", "teal"))
        task = rng.choice(NEW_TASKS)
        user = [f"Create a {color} project called '{name}' with two sections, '{first}' and '{second}' (in that order), "
                f"and put a task '{task}' in '{first}'.",
                f"Set up a new project '{name}' (colour {color}), sections '{first}' then '{second}', plus the task "
                f"'{task}' in the '{first}' section."]
        return Draft(family=self.name, key=f"{name}|{color}|{task}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "create_project", "arguments": {"name": name, "color": color}},
            {"id": "c2", "tool": "create_section", "arguments": {"name": first}, "bind": {"project_id": "{c1.id}"}},
            {"id": "c3", "tool": "create_section", "arguments": {"name": second}, "bind": {"project_id": "{c1.id}"}},
            {"id": "c4", "tool": "create_task", "arguments": {"content": task},
             "bind": {"project_id": "{c1.id}", "section_id": "{c2.id}"}},
        ], "facts": []}])


class ArchiveIfDone(Family):
    """Archive a project of yours if nothing in it is open; either way say how many tasks are open."""

    name = "todo.archive-if-done"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        mine = [p for p in _projects(view, "active") if p["owner_id"] == ME and not p["is_inbox"]]
        done = [p for p in mine if p["open_tasks"] == 0]
        project = rng.choice(done) if done and rng.random() < 0.6 else rng.choice(mine)
        name, archive = project["name"], project["open_tasks"] == 0
        user = [f"If every task in '{name}' is done, archive the project. Either way, tell me how many tasks are still open in it.",
                f"Check '{name}': how many open tasks are left? If none, archive it."]
        calls: list[Call] = [_find_project("c1", name, "active")]
        if archive:
            calls.append({"id": "c2", "tool": "archive_project", "bind": {"project_id": "{c1.projects.0.id}"}})
        return Draft(family=self.name, key=f"project:{name}", writes=archive, turns=[{"user": user, "calls": calls, "facts": [
            {"name": "open tasks", "expr": "{c1.projects.0.open_tasks}", "value": None}]}], checks=[_one("c1")])


class ReviveProject(Family):
    """Unarchive a project you own and add a task to it."""

    name = "todo.revive-project"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        mine = [p for p in _projects(view, "archived") if p["owner_id"] == ME]
        if not mine:
            return None
        name, task = rng.choice(mine)["name"], rng.choice(NEW_TASKS)
        user = [f"Bring '{name}' back from the archive and add the task '{task}' to it.",
                f"Unarchive my project {name}, then create a task '{task}' in it."]
        return Draft(family=self.name, key=f"{name}|{task}", writes=True, turns=[{"user": user, "calls": [
            _find_project("c1", name, "archived"),
            {"id": "c2", "tool": "unarchive_project", "bind": {"project_id": "{c1.projects.0.id}"}},
            {"id": "c3", "tool": "create_task", "arguments": {"content": task}, "bind": {"project_id": "{c1.projects.0.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class ShareProject(Family):
    """Share a project with a colleague by email and assign them a new task in it."""

    name = "todo.share-project"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice([p for p in _projects(view, "active") if not p["is_inbox"]])
        inside = {u["id"] for u in view.read(SERVER, "list_users", project_id=project["id"], per_page=100)["users"]}
        people = [u for u in view.read(SERVER, "list_users", per_page=100)["users"] if u["id"] not in inside]
        person, task = rng.choice(people), rng.choice(NEW_TASKS)
        name = project["name"]
        user = [f"Share my '{name}' project with {person['email']} and give them a new task there: '{task}'.",
                f"Add {person['email']} as a collaborator on {name}, then create '{task}' in it assigned to them."]
        return Draft(family=self.name, key=f"{name}|{person['id']}", writes=True, turns=[{"user": user, "calls": [
            _find_project("c1", name, "active"),
            {"id": "c2", "tool": "share_project", "arguments": {"email": person["email"]}, "bind": {"project_id": "{c1.projects.0.id}"}},
            {"id": "c3", "tool": "get_user_by_email", "arguments": {"email": person["email"]}},
            {"id": "c4", "tool": "create_task", "arguments": {"content": task},
             "bind": {"project_id": "{c1.projects.0.id}", "assignee_id": "{c3.id}"}},
        ], "facts": []}], checks=[_one("c1")])


class NewLabel(Family):
    """Create a label and put it on a task."""

    name = "todo.new-label"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng, lambda t: t["recurrence"] is None)
        if task is None:
            return None
        label, content = rng.choice(NEW_LABELS), task["content"]
        user = [f"Create a label '{label}' and tag '{content}' with it, keeping its other labels.",
                f"Make a new '{label}' label and add it to my task '{content}' (keep the labels it already has)."]
        return Draft(family=self.name, key=f"{task['id']}|{label}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "create_label", "arguments": {"name": label}},
            _find_task("c2", task),
            {"id": "c3", "tool": "update_task", "bind": {"task_id": "{c2.tasks.0.id}", "labels": "{c2.tasks.0.labels} + [{c1.name}]"}},
        ], "facts": []}], checks=[_one("c2")])


class DropLabel(Family):
    """Delete a label; say how many tasks carried it."""

    name = "todo.drop-label"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        labels = view.read(SERVER, "list_labels")["labels"]
        index = rng.randrange(len(labels))
        name = labels[index]["name"]
        user = [f"Delete the '{name}' label. How many tasks had it?",
                f"I no longer use the label '{name}': remove it, and tell me how many tasks it was on."]
        return Draft(family=self.name, key=f"label:{name}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_labels"},
            {"id": "c2", "tool": "delete_label", "bind": {"label_id": f"{{c1.labels.{index}.id}}"}},
        ], "facts": [{"name": "tasks", "expr": "{c2.removed_from_tasks}", "value": None}]}])


# ---------------------------------------------------------------- refusals


class DeleteRecurring(Family):
    """Asked to delete a recurring task: refuse (a series is ended, not deleted); say how often it repeats."""

    name = "todo.delete-recurring"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = rng.choice(view.read(SERVER, "search_tasks", recurring=True, per_page=100)["tasks"])
        content = task["content"]
        user = [f"Delete my task '{content}'. If that isn't allowed, tell me how often it repeats and when it's due next.",
                f"Get rid of '{content}' by deleting it; if you can't, what's its repeat rule and next due date?"]
        return Draft(family=self.name, key=f"task:{task['id']}", turns=[{"user": user, "calls": [
            _find_task("c1", task, recurring=True)], "facts": [
            {"name": "repeats", "expr": "{c1.tasks.0.recurrence}", "value": None},
            {"name": "next due", "expr": "{c1.tasks.0.due_date}", "value": None},
        ]}], checks=[_one("c1")])


class ArchiveWithOpenTasks(Family):
    """Asked to archive a project of yours that still has open tasks: refuse; say how many."""

    name = "todo.archive-with-open-tasks"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        busy = [p for p in _projects(view, "active") if p["owner_id"] == ME and not p["is_inbox"] and p["open_tasks"]]
        name = rng.choice(busy)["name"]
        user = [f"Archive my '{name}' project. If you can't, tell me how many open tasks are holding it up.",
                f"Please archive {name}; if that's not possible, how many of its tasks are still open?"]
        return Draft(family=self.name, key=f"project:{name}", turns=[{"user": user, "calls": [
            _find_project("c1", name, "active")], "facts": [
            {"name": "open tasks", "expr": "{c1.projects.0.open_tasks}", "value": None}]}], checks=[_one("c1")])


class AddToArchived(Family):
    """Asked to add a task to an archived project: refuse; say how many tasks it completed."""

    name = "todo.add-to-archived"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        name, task = rng.choice(_projects(view, "archived"))["name"], rng.choice(NEW_TASKS)
        user = [f"Add '{task}' to the '{name}' project. If that's not possible, tell me how many tasks were completed in it.",
                f"Put a task '{task}' in {name}; if you can't, how many completed tasks does that project have?"]
        return Draft(family=self.name, key=f"{name}|{task}", turns=[{"user": user, "calls": [
            _find_project("c1", name, "archived")], "facts": [
            {"name": "completed tasks", "expr": "{c1.projects.0.completed_tasks}", "value": None}]}], checks=[_one("c1")])


class SubtaskTooDeep(Family):
    """Asked to add a sub-task below a task already four levels deep: refuse; name its parent."""

    name = "todo.subtask-too-deep"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        everything = _all(view)
        by_id = {t["id"]: t for t in everything}

        def level(task: Row) -> int:
            return 1 if task["parent_id"] is None else 1 + level(by_id[task["parent_id"]])

        deep = [t for t in _unique([t for t in everything if not t["is_completed"]], everything) if level(t) == 4]
        if not deep:
            return None
        task = rng.choice(deep)
        step = rng.choice(("Confirm the booking", "Send the follow-up email"))
        content = task["content"]
        user = [f"Add a sub-task '{step}' under '{content}'. If you can't, tell me which task '{content}' sits under.",
                f"Nest '{step}' as a sub-task of my task '{content}'; if that's not allowed, what is its parent task?"]
        return Draft(family=self.name, key=f"task:{task['id']}", turns=[{"user": user, "calls": [
            _find_task("c1", task),
            {"id": "c2", "tool": "get_task", "bind": {"task_id": "{c1.tasks.0.id}"}},
        ], "facts": [{"name": "parent", "expr": "{c2.parent_content}", "value": None}]}], checks=[_one("c1")])


class AssignOutsider(Family):
    """Asked to assign a task to someone who is not a collaborator of its project: refuse; say
    how many people the project is shared with."""

    name = "todo.assign-outsider"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng)
        if task is None:
            return None
        inside = {u["id"] for u in view.read(SERVER, "list_users", project_id=task["project_id"], per_page=100)["users"]}
        person = rng.choice([u for u in view.read(SERVER, "list_users", per_page=100)["users"] if u["id"] not in inside])
        content = task["content"]
        user = [f"Assign '{content}' to {person['name']}. If you can't, tell me how many people its project is shared with (me included).",
                f"Give my task '{content}' to {person['name']}; if that isn't allowed, how many collaborators does the task's project have?"]
        return Draft(family=self.name, key=f"{task['id']}|{person['id']}", turns=[{"user": user, "calls": [
            _find_task("c1", task),
            {"id": "c2", "tool": "get_project", "bind": {"project_id": "{c1.tasks.0.project_id}"}},
        ], "facts": [{"name": "collaborators", "expr": "{c2.collaborator_count}", "value": None}]}], checks=[_one("c1")])


class DuplicateLabel(Family):
    """Asked to create a label whose name exists (another case): refuse; say how many open tasks use it."""

    name = "todo.duplicate-label"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        labels = view.read(SERVER, "list_labels")["labels"]
        index = rng.randrange(len(labels))
        name = labels[index]["name"]
        asked = rng.choice((name.capitalize(), name.upper(), name))
        user = [f"Create a label called '{asked}'. If one like it already exists, tell me how many open tasks use it.",
                f"I need a new label '{asked}'; if that name is taken, how many open tasks carry the existing one?"]
        return Draft(family=self.name, key=f"label:{name}|{asked}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_labels"}], "facts": [
            {"name": "open tasks", "expr": f"{{c1.labels.{index}.open_tasks}}", "value": None}]}])


class EditCompleted(Family):
    """Asked to reschedule a completed task: refuse; say when it was completed."""

    name = "todo.edit-completed"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        everything = _all(view)
        active = {p["id"] for p in _projects(view, "active")}
        done = [t for t in _unique([t for t in everything if t["is_completed"]], everything) if t["project_id"] in active]
        task, due = rng.choice(done), _future(view, rng)
        content = task["content"]
        user = [f"Change the due date of '{content}' to {due}, without reopening it. If that's not possible, tell me when it was completed.",
                f"Set '{content}' to be due {due} but leave it completed; if you can't, when was it checked off?"]
        return Draft(family=self.name, key=f"{task['id']}|{due}", turns=[{"user": user, "calls": [
            _find_task("c1", task, status="completed")], "facts": [
            {"name": "completed at", "expr": "{c1.tasks.0.completed_at}", "value": None}]}], checks=[_one("c1")])


class ArchiveOthersProject(Family):
    """Asked to archive a project a colleague owns: refuse; name the owner."""

    name = "todo.archive-others-project"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        theirs = [p for p in _projects(view, "active") if p["owner_id"] != ME]
        name = rng.choice(theirs)["name"]
        user = [f"Archive the '{name}' project. If you're not allowed to, tell me who owns it.",
                f"Please archive {name}; if that can't be done by me, who is its owner?"]
        return Draft(family=self.name, key=f"project:{name}", turns=[{"user": user, "calls": [
            _find_project("c1", name, "active")], "facts": [
            {"name": "owner", "expr": "{c1.projects.0.owner_name}", "value": None}]}], checks=[_one("c1")])


class ShareInbox(Family):
    """Asked to share the Inbox with a colleague: refuse; say how many open tasks it holds."""

    name = "todo.share-inbox"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        person = rng.choice([u for u in view.read(SERVER, "list_users", per_page=100)["users"] if u["id"] != ME])
        user = [f"Share my Inbox with {person['email']}. If you can't, tell me how many open tasks are in the Inbox.",
                f"Give {person['email']} access to my Inbox; if that's not allowed, how many open Inbox tasks do I have?"]
        return Draft(family=self.name, key=f"user:{person['id']}", turns=[{"user": user, "calls": [
            _find_project("c1", "Inbox", "active")], "facts": [
            {"name": "open tasks", "expr": "{c1.projects.0.open_tasks}", "value": None}]}], checks=[_one("c1")])


# ---------------------------------------------------------------- two turns


class OverdueThenReschedule(Family):
    """Two turns: the longest-overdue task, then move it to a date."""

    name = "todo.overdue-then-reschedule"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        found = view.read(SERVER, "search_tasks", due="overdue", recurring=False, sort_by="due_date", per_page=2)["tasks"]
        if len(found) < 2 or found[0]["due_date"] == found[1]["due_date"]:
            return None
        due = _future(view, rng)
        first = ["Which of my one-off tasks has been overdue the longest, and since when?",
                 "What's my oldest overdue task (ignore recurring ones) and its due date?"]
        second = [f"Move it to {due}.", f"Reschedule that one to {due}."]
        return Draft(family=self.name, key=f"{found[0]['id']}|{due}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "search_tasks", "arguments": {"due": "overdue", "recurring": False, "sort_by": "due_date", "per_page": 2}},
            ], "facts": [
                {"name": "task", "expr": "{c1.tasks.0.content}", "value": None},
                {"name": "due", "expr": "{c1.tasks.0.due_date}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "update_task", "arguments": {"due_date": str(due)}, "bind": {"task_id": "{c1.tasks.0.id}"}},
            ], "facts": []},
        ])


class SectionsThenAdd(Family):
    """Two turns: a project's sections and the busiest one, then a new section."""

    name = "todo.sections-then-add"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        projects = [p for p in _projects(view, "active") if not p["is_inbox"]]
        project = rng.choice(projects)
        detail = view.read(SERVER, "get_project", project_id=project["id"])
        counts = sorted((s["open_tasks"] for s in detail["sections"]), reverse=True)
        if len(counts) < 2 or counts[0] == counts[1]:
            return None
        busiest = max(range(len(detail["sections"])), key=lambda i: detail["sections"][i]["open_tasks"])
        section = rng.choice(("Backlog", "Someday", "Done this month", "Ideas"))
        if section.lower() in {s["name"].lower() for s in detail["sections"]}:
            return None
        name = project["name"]
        first = [f"How many sections does '{name}' have, and which one has the most open tasks?",
                 f"List the sections of {name}: how many are there and which is busiest (most open tasks)?"]
        second = [f"Add a section '{section}' at the end of it.", f"Create another section there called '{section}'."]
        return Draft(family=self.name, key=f"{name}|{section}", writes=True, turns=[
            {"user": first, "calls": [
                _find_project("c1", name, "active"),
                {"id": "c2", "tool": "get_project", "bind": {"project_id": "{c1.projects.0.id}"}},
            ], "facts": [
                {"name": "sections", "expr": "len({c2.sections})", "value": None},
                {"name": "busiest", "expr": f"{{c2.sections.{busiest}.name}}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "create_section", "arguments": {"name": section}, "bind": {"project_id": "{c1.projects.0.id}"}},
            ], "facts": []},
        ], checks=[_one("c1")])


class HistoryThenComment(Family):
    """Two turns: when a task was added and by whom (the activity log), then a comment on it."""

    name = "todo.history-then-comment"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        task = _pick_open(view, rng)
        if task is None:
            return None
        text, content = rng.choice(COMMENTS), task["content"]
        first = [f"Who added '{content}' and when?", f"Check the history of my task '{content}': who created it, and on what date?"]
        second = [f"Leave a comment on it: \"{text}\"", f"Comment on that task: \"{text}\""]
        return Draft(family=self.name, key=f"{task['id']}|{text}", writes=True, turns=[
            {"user": first, "calls": [
                _find_task("c1", task),
                {"id": "c2", "tool": "get_activity", "arguments": {"event": ["added"]}, "bind": {"task_id": "{c1.tasks.0.id}"}},
            ], "facts": [
                {"name": "added by", "expr": "{c2.entries.0.user_name}", "value": None},
                {"name": "added at", "expr": "{c2.entries.0.happened_at}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c3", "tool": "add_comment", "arguments": {"content": text}, "bind": {"task_id": "{c1.tasks.0.id}"}},
            ], "facts": []},
        ], checks=[_one("c1")])


# ---------------------------------------------------------------- with the issue tracker


class JiraTaskStatus(Family):
    """A to-do that follows a Jira issue: the issue's status and reporter in the tracker."""

    name = "cross.todo-jira-status"
    servers = (SERVER, "projects")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        linked = [t for t in _tasks(view, status="all", label="jira") if t["jira_issue_key"]]
        everything = _all(view)
        linked = _unique(linked, everything)
        if not linked:
            return None
        task = rng.choice(linked)
        content = task["content"]
        user = [f"My to-do '{content}' comes from a Jira issue. What is that issue's status in Jira now, and who reported it?",
                f"Look up the Jira issue behind my task '{content}': its current status and its reporter."]
        return Draft(family=self.name, key=f"task:{task['id']}", turns=[{"user": user, "calls": [
            {**_find_task("c1", task, status="all"), "server": SERVER},
            {"id": "c2", "server": "projects", "tool": "get_issue", "bind": {"issue_key": "{c1.tasks.0.jira_issue_key}"}},
        ], "facts": [
            {"name": "status", "expr": "{c2.status}", "value": None},
            {"name": "reporter", "expr": "{c2.reporter.name}", "value": None},
        ]}], checks=[_one("c1")])


class JiraToTodo(Family):
    """Turn a Jira issue assigned to you into a to-do with its summary, key, a due date and priority."""

    name = "cross.todo-from-jira"
    servers = (SERVER, "projects")
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issues = view.read("projects", "search_issues", assignee_id=ME, resolved=False, per_page=100)["issues"]
        if not issues:
            return None
        issue, due = rng.choice(issues), _future(view, rng)
        priority = rng.choice(("p1", "p2"))
        key = issue["key"]
        user = [f"Add Jira issue {key} to my 'Engineering follow-ups' to-do project: use the issue's summary as the task "
                f"name, link the issue key, due {due}, priority {priority}.",
                f"Create a to-do for {key} in 'Engineering follow-ups' named exactly like the Jira issue's summary, "
                f"linked to {key}, due on {due} with {priority}."]
        return Draft(family=self.name, key=f"{key}|{due}|{priority}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "server": "projects", "tool": "get_issue", "arguments": {"issue_key": key}},
            {**_find_project("c2", "Engineering follow-ups", "active"), "server": SERVER},
            {"id": "c3", "server": SERVER, "tool": "create_task",
             "arguments": {"due_date": str(due), "priority": priority, "jira_issue_key": key},
             "bind": {"content": "{c1.summary}", "project_id": "{c2.projects.0.id}"}},
        ], "facts": []}], checks=[_one("c2")])


TODO_FAMILIES: tuple[Family, ...] = (
    ProjectOverview(), TaskDetails(), TodayAgenda(), LabelUsage(), LastComment(), RecurringHistory(), BusiestProject(),
    ColleagueWorkload(),
    AddTask(), AddSubtask(), Reschedule(), AssignTask(), MoveTask(), CompleteTask(), CompleteOccurrence(), ReopenTask(),
    EndSeries(), DeleteTask(), CommentOnTask(), NewProject(), ArchiveIfDone(), ReviveProject(), ShareProject(), NewLabel(),
    DropLabel(),
    DeleteRecurring(), ArchiveWithOpenTasks(), AddToArchived(), SubtaskTooDeep(), AssignOutsider(), DuplicateLabel(),
    EditCompleted(), ArchiveOthersProject(), ShareInbox(),
    OverdueThenReschedule(), SectionsThenAdd(), HistoryThenComment(),
    JiraTaskStatus(), JiraToTodo(),
)
"""Every todo family, the cross-server ones (with the issue tracker) last."""
