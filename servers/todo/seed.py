"""The seeded task manager of Northwind Systems' first employee: an Inbox, work and personal
projects (some shared with colleagues, some archived), two years of tasks and their history.

Open tasks are overdue, due today, upcoming or undated around the world's now; done tasks
were completed over the past eighteen months. Recurring chores carry one completion per
occurrence in the activity log. Issues of the tracker (the projects server) assigned to the
user appear as tasks of "Engineering follow-ups", linked by their key. The seeded world obeys
the rules the tools enforce: no archived project has an open task, every assignee is a
collaborator of the task's project, no task is more than four levels deep, labels are unique.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Insert
from sqlalchemy.orm import Session

from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import World
from mcpgym.servers.todo.data import (
    COMMENTS,
    DESCRIPTIONS,
    INBOX_TASKS,
    LABELS,
    PLANS,
    RECURRING,
    SUBTASK_TREES,
    SUBTASKS,
    ProjectPlan,
)
from mcpgym.servers.todo.models import (
    ME,
    Activity,
    Base,
    Collaborator,
    Comment,
    Label,
    Project,
    Section,
    Task,
    TaskLabel,
    User,
)
from mcpgym.servers.todo.recurrence import first_on_or_after, next_due, parse

HISTORY_DAYS = 365
"""Occurrences of recurring chores are logged this far back."""
PRIORITY_WEIGHTS = {"p1": 8, "p2": 15, "p3": 22, "p4": 55}
JIRA_PROJECT = "Engineering follow-ups"


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


@dataclass
class Seeder:
    """Builds every row in memory, in id order, then inserts them table by table."""

    world: World
    rng: random.Random
    projects: list[dict[str, Any]] = field(default_factory=list)
    members: dict[int, list[int]] = field(default_factory=dict)
    joined: dict[tuple[int, int], datetime] = field(default_factory=dict)
    sections: list[dict[str, Any]] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)
    task_labels: list[dict[str, Any]] = field(default_factory=list)
    comments: list[dict[str, Any]] = field(default_factory=list)
    activity: list[dict[str, Any]] = field(default_factory=list)
    by_name: dict[str, dict[str, Any]] = field(default_factory=dict)
    positions: dict[tuple[int, int | None], int] = field(default_factory=dict)
    label_ids: dict[str, int] = field(default_factory=dict)

    @property
    def now(self) -> datetime:
        return self.world.now

    @property
    def today(self) -> date:
        return self.world.now.date()

    def between(self, start: datetime, end: datetime) -> datetime:
        if end <= start:
            return _second(start)
        return _second(start + (end - start) * self.rng.random())

    # ------------------------------------------------------------ projects

    def project(self, plan: ProjectPlan | None) -> dict[str, Any]:
        rng, now = self.rng, self.now
        colleagues = list(range(2, len(self.world.employees) + 1))
        if plan is None:
            row = {"name": "Inbox", "color": "grey", "owner_id": ME, "is_inbox": True, "is_favorite": False,
                   "view_style": "list", "created": _second(now - timedelta(days=rng.uniform(900, 1100)))}
            people = [ME]
        else:
            owner = rng.choice(colleagues) if plan.owned_by_colleague else ME
            if plan.archived:
                created = _second(now - timedelta(days=rng.uniform(420, 560)))
            else:
                created = _second(now - timedelta(days=rng.uniform(60, 700)))
            row = {"name": plan.name, "color": plan.color, "owner_id": owner, "is_inbox": False,
                   "is_favorite": rng.random() < 0.3, "view_style": "board" if plan.sections and rng.random() < 0.3 else "list",
                   "created": created}
            others = sorted(rng.sample([c for c in colleagues if c != owner], plan.shared_with)) if plan.shared_with else []
            people = sorted({owner, ME, *others})
        row.update(id=len(self.projects) + 1, is_archived=False, archived_at=None, created_at=row["created"])
        self.projects.append(row)
        self.by_name[row["name"]] = row
        self.members[row["id"]] = people
        for person in people:
            when = row["created"] if person == row["owner_id"] else self.between(row["created"], row["created"] + timedelta(days=20))
            self.joined[(row["id"], person)] = when
        if plan is not None:
            for position, name in enumerate(plan.sections, start=1):
                self.sections.append({"id": len(self.sections) + 1, "project_id": row["id"], "name": name,
                                      "position": position, "created_at": self.between(row["created"], row["created"] + timedelta(days=3))})
        return row

    def sections_of(self, project: dict[str, Any]) -> list[int]:
        return [s["id"] for s in self.sections if s["project_id"] == project["id"]]

    # ------------------------------------------------------------ tasks

    def task(self, project: dict[str, Any], content: str, *, done: bool | None = None, parent: dict[str, Any] | None = None,
             due: date | None = None, due_time: str | None = None, recurrence: str | None = None,
             jira: str | None = None, labels: tuple[str, ...] = (), end: datetime | None = None,
             created: datetime | None = None) -> dict[str, Any]:
        """A task row (with its labels, its `added` and `completed` history and comments)."""
        rng, now = self.rng, self.now
        people = self.members[project["id"]]
        start = parent["created_at"] if parent else project["created_at"] + timedelta(hours=1)
        last = end or now - timedelta(hours=2)
        if done is None:
            done = rng.random() < 0.45
        if created is not None:
            pass
        elif parent is not None:
            created = self.between(start, min(last, start + timedelta(days=5)))
        elif done:
            created = self.between(start, last - (last - start) * 0.1)
        else:
            created = self.between(max(start, now - timedelta(days=200)), now - timedelta(hours=3))
        completed_at = self.between(created + timedelta(hours=1), last) if done else None
        if parent is not None and parent["completed_at"] is not None and completed_at is not None:
            completed_at = min(completed_at, parent["completed_at"])
        if due is None and recurrence is None and rng.random() < 0.7:
            due = self._due(created, completed_at)
            if rng.random() < 0.3:
                due_time = f"{rng.choice((8, 9, 10, 11, 13, 14, 15, 16, 17)):02d}:{rng.choice((0, 0, 15, 30, 45)):02d}"
        assignee = None
        if len(people) > 1 and rng.random() < 0.7:
            assignee = ME if rng.random() < 0.45 else rng.choice(people)
        creator = ME if len(people) == 1 or rng.random() < 0.55 else rng.choice(people)
        section = None
        if parent is not None:
            section = parent["section_id"]
        elif (options := self.sections_of(project)) and rng.random() < 0.8:
            section = rng.choice(options)
        row = {
            "id": len(self.tasks) + 1, "project_id": project["id"], "section_id": section,
            "parent_id": parent["id"] if parent else None, "content": content,
            "description": rng.choice(DESCRIPTIONS), "priority": rng.choices(list(PRIORITY_WEIGHTS), list(PRIORITY_WEIGHTS.values()))[0],
            "due_date": due, "due_time": due_time, "recurrence": recurrence, "assignee_id": assignee,
            "creator_id": creator, "jira_issue_key": jira, "is_completed": done, "completed_at": completed_at,
            "position": self._position(project["id"], parent["id"] if parent else None),
            "created_at": created, "updated_at": completed_at or created,
        }
        self.tasks.append(row)
        self.log(row, "added", creator, created)
        if assignee is not None:
            self.log(row, "assigned", creator, created + timedelta(minutes=rng.randint(1, 600)))
        if done:
            self.log(row, "completed", assignee or ME, completed_at, due)  # type: ignore[arg-type]
        chosen = set(labels)
        if rng.random() < 0.45:
            chosen |= set(rng.sample([name for name, _ in LABELS if name != "jira"], rng.choice((1, 1, 2))))
        for name in sorted(chosen):
            self.task_labels.append({"task_id": row["id"], "label_id": self.label_ids[name]})
        if rng.random() < 0.18:
            for _ in range(rng.randint(1, 3)):
                posted = self.between(created, completed_at or now - timedelta(hours=1))
                author = rng.choice(people)
                self.comments.append({"id": len(self.comments) + 1, "task_id": row["id"], "author_id": author,
                                      "content": rng.choice(COMMENTS), "posted_at": posted})
                self.log(row, "commented", author, posted)
        return row

    def _position(self, project_id: int, parent_id: int | None) -> int:
        key = (project_id, parent_id)
        self.positions[key] = self.positions.get(key, 0) + 1
        return self.positions[key]

    def _due(self, created: datetime, completed_at: datetime | None) -> date:
        rng = self.rng
        if completed_at is not None:
            return (completed_at + timedelta(days=rng.randint(-3, 10))).date()
        roll = rng.random()
        if roll < 0.3:
            return self.today - timedelta(days=rng.randint(1, 40))
        if roll < 0.42:
            return self.today
        return self.today + timedelta(days=rng.randint(1, 70))

    def log(self, task: dict[str, Any], event: str, who: int, when: datetime, due: date | None = None) -> None:
        self.activity.append({"task_id": task["id"], "project_id": task["project_id"], "event": event,
                              "initiator_id": who, "content": task["content"], "due_date": due, "happened_at": when})

    def recurring(self, project: dict[str, Any], content: str, words: str, at: str | None) -> None:
        """A chore with one logged completion per occurrence over the history window; its
        current occurrence is overdue by a day or two, due today, or ahead."""
        rng = self.rng
        rule = parse(words)
        created = _second(self.now - timedelta(days=rng.uniform(200, 600)))
        due = first_on_or_after(rule.anchored(created.date()), created.date())
        rule = rule.anchored(due)
        row = self.task(project, content, done=False, due=due, due_time=at, recurrence=rule.text(), created=created)
        row["description"] = ""
        stop = self.today - timedelta(days=rng.choice((0, 0, 1, 2, -1, -3)))
        while due < stop:
            late = rng.random() < 0.15
            done_on = min(due + timedelta(days=rng.randint(1, 3)) if late else due, self.today - timedelta(days=1))
            if (self.today - due).days <= HISTORY_DAYS:
                moment = datetime.combine(done_on, datetime.min.time()) + timedelta(hours=rng.uniform(7, 21))
                self.log(row, "completed", ME, _second(moment), due)
                row["updated_at"] = _second(moment)
            due = next_due(rule, due, done_on)
        row["due_date"] = due

    # ------------------------------------------------------------ the whole world

    def build(self, issues: list[dict[str, Any]]) -> None:
        rng = self.rng
        self.label_ids = {name: i for i, (name, _) in enumerate(LABELS, start=1)}
        inbox = self.project(None)
        for plan in PLANS:
            self.project(plan)
        for content in INBOX_TASKS:
            self.task(inbox, content, done=rng.random() < 0.3)
        for plan in PLANS:
            project = self.by_name[plan.name]
            end = None
            if plan.archived:
                end = _second(self.now - timedelta(days=rng.uniform(250, 380)))
            closed = plan.archived or plan.finished
            for content in plan.tasks:
                parent = self.task(project, content, done=True if closed else None, end=end)
                if plan.work and not closed and rng.random() < 0.22:
                    for step in rng.sample(SUBTASKS, rng.randint(1, 3)):
                        done = parent["is_completed"] or rng.random() < 0.35
                        self.task(project, f"{step}: {content[0].lower()}{content[1:]}", parent=parent, done=done)
            if plan.archived:
                last = max(t["completed_at"] for t in self.tasks if t["project_id"] == project["id"])
                project.update(is_archived=True, archived_at=_second(last + timedelta(days=rng.uniform(1, 20))))
        for project_name, root, chain in SUBTASK_TREES:
            project = self.by_name[project_name]
            top = next(t for t in self.tasks if t["project_id"] == project["id"] and t["content"] == root)
            top.update(is_completed=False, completed_at=None, updated_at=top["created_at"])
            self.activity = [a for a in self.activity if not (a["task_id"] == top["id"] and a["event"] == "completed")]
            parent = top
            for content in chain[:3]:
                parent = self.task(project, content, parent=parent, done=False)
            self.task(project, chain[3], parent=top, done=False)
        for content, words, at, project_name in RECURRING:
            self.recurring(self.by_name[project_name], content, words, at)
        jira = self.by_name[JIRA_PROJECT]
        for issue in issues:
            done = issue["resolution"] is not None
            end = datetime.fromisoformat(issue["resolved_at"]) if done else None
            self.task(jira, issue["summary"][:200], done=done, jira=issue["key"], labels=("jira",),
                      end=end if end and end < self.now else None)
        self.activity.sort(key=lambda a: (a["happened_at"], a["task_id"], a["event"]))
        for index, entry in enumerate(self.activity, start=1):
            entry["id"] = index

    def insert(self, db: Session) -> None:
        employees = self.world.employees
        db.execute(_insert(User), [
            {"id": i, "external_id": p.id, "name": p.name, "email": p.email, "title": p.job_title,
             "organization_name": self.world.home.name, "timezone": p.timezone}
            for i, p in enumerate(employees, start=1)])
        db.execute(_insert(Label), [{"id": i, "name": name, "color": color, "is_favorite": name in ("deep-work", "follow-up")}
                                    for i, (name, color) in enumerate(LABELS, start=1)])
        db.execute(_insert(Project), [{k: v for k, v in p.items() if k != "created"} for p in self.projects])
        db.execute(_insert(Collaborator), [{"project_id": pid, "user_id": uid, "joined_at": when}
                                           for (pid, uid), when in sorted(self.joined.items())])
        db.execute(_insert(Section), self.sections)
        db.execute(_insert(Task), self.tasks)
        db.execute(_insert(TaskLabel), self.task_labels)
        db.execute(_insert(Comment), self.comments)
        db.execute(_insert(Activity), self.activity)


def _insert(model: type[Base]) -> Insert:
    return model.__table__.insert()  # type: ignore[attr-defined, no-any-return]


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty task-manager database from the shared world and the tracker's issues."""
    issues = seeded_rows(
        "projects", world.seed,
        "SELECT issues.key, issues.summary, issues.resolution, issues.resolved_at FROM issues "
        "WHERE issues.assignee_id = ? AND issues.type != 'epic' ORDER BY issues.created_at DESC, issues.id LIMIT 14",
        [ME])
    seeder = Seeder(world, rng)
    seeder.build([i for i in issues if i["resolution"] is None or rng.random() < 0.6])
    seeder.insert(db)
