"""The seeded tracker: five projects of Northwind Systems' engineering, worked by its employees.

Scrum projects (WEB, API, MOB) are simulated sprint by sprint: issues are filed, the team
commits to about its velocity at planning, most committed work is done by the end, the rest
is moved out to the next sprint or the backlog just before the sprint closes; one sprint is
active now and one or two are planned. Kanban projects (SUP, OPS) flow continuously; SUP's
bugs are escalated from the Zendesk help desk's problem and incident tickets (the issue
follows its ticket's subject, priority and timeline). Every status change walks the
project's workflow and is recorded in the issue's history, so the seeded world obeys the
rules the tools enforce (no Done issue with an unresolved blocker or subtask, one active
sprint per project, Fibonacci estimates, assignees who are project members).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import DeclarativeBase, Session

from mcpgym.servers.kernel.links import seeded_rows
from mcpgym.servers.kernel.world import World
from mcpgym.servers.projects.data import (
    API,
    COMMENTS,
    DATA,
    LABELS,
    MOBILE,
    OPS,
    PLANS,
    SUBTASKS,
    SUPPORT,
    WEB,
    ProjectPlan,
)
from mcpgym.servers.projects.models import (
    ACTING_USER_ID,
    Comment,
    Component,
    Issue,
    IssueChange,
    IssueComponent,
    IssueLabel,
    IssueLink,
    Project,
    ProjectMember,
    Sprint,
    SprintIssue,
    User,
)
from mcpgym.servers.projects.workflow import STATUS_CATEGORIES, WORKFLOWS, Workflow

LED_BY_ACTING_USER = ("WEB", "API", "DATA")
"""The projects the acting user leads (they belong to every project)."""
SUPPORT_HISTORY_DAYS = 545
OPS_HISTORY_DAYS = 500

ESCALATION_CHANCE = {"bug": 0.55, "outage": 0.8, "sso": 0.6, "login": 0.15, "payment": 0.1}
"""Chance that a problem or incident ticket with this tag was escalated to a SUP bug."""
TICKET_PRIORITY = {"urgent": "highest", "high": "high", "normal": "medium", "low": "low"}
TAG_COMPONENT = {"outage": "Infrastructure", "sso": "Authentication", "login": "Authentication", "payment": "Billing"}
SUBJECT_COMPONENT = (("Mobile", "Mobile app"), ("Export", "Data export"), ("API", "API"), ("Webhook", "API"),
                     ("Sync", "Infrastructure"), ("Error 503", "Infrastructure"), ("unavailable", "Infrastructure"))

PRIORITY_WEIGHTS = {"highest": 1, "high": 5, "medium": 10, "low": 3, "lowest": 1}
POINT_WEIGHTS = {"story": ((1, 2, 3, 5, 8, 13), (1, 3, 4, 4, 2, 1)),
                 "task": ((1, 2, 3, 5, 8), (3, 4, 3, 2, 1)),
                 "bug": ((1, 2, 3, 5, 8), (3, 4, 3, 2, 1))}

def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


def status_path(flow: Workflow, source: str, target: str) -> list[str]:
    """The fewest statuses an issue walks through from `source` to reach `target` (not
    counting `source`), taking transitions in board order."""
    frontier: deque[tuple[str, list[str]]] = deque([(source, [])])
    seen = {source}
    while frontier:
        status, steps = frontier.popleft()
        if status == target:
            return steps
        for following in flow.next_statuses(status):
            if following not in seen:
                seen.add(following)
                frontier.append((following, [*steps, following]))
    raise ValueError(f"{flow.name}: no way from {source} to {target}")


@dataclass(eq=False)
class IssueSeed:
    """An issue while it is simulated; ids and keys are given once all exist (by creation time)."""

    project: ProjectPlan
    type: str
    summary: str
    description: str
    priority: str
    reporter: int
    created: datetime
    assignee: int | None = None
    points: int | None = None
    parent: IssueSeed | None = None
    labels: set[str] = field(default_factory=set)
    components: list[str] = field(default_factory=list)
    status: str = "To Do"
    resolution: str | None = None
    resolved: datetime | None = None
    ticket: int | None = None
    events: list[tuple[datetime, int, str, str | None, str | None]] = field(default_factory=list)
    comments: list[tuple[datetime, int, str]] = field(default_factory=list)
    children: list[IssueSeed] = field(default_factory=list)
    id: int = 0
    key: str = ""

    @property
    def unresolved(self) -> bool:
        return self.resolution is None


@dataclass(eq=False)
class SprintSeed:
    project: ProjectPlan
    name: str
    state: str
    goal: str | None
    start: datetime | None
    end: datetime | None
    completed: datetime | None
    created: datetime
    members: list[dict[str, Any]] = field(default_factory=list)
    id: int = 0


class Tracker:
    """Builds the seeded rows of one world from its random stream."""

    def __init__(self, world: World, rng: random.Random) -> None:
        self.world = world
        self.rng = rng
        self.now = world.now
        self.issues: list[IssueSeed] = []
        self.sprints: list[SprintSeed] = []
        self.links: list[tuple[IssueSeed, IssueSeed, str, int, datetime]] = []
        self.teams: dict[str, list[int]] = {}
        self.leads: dict[str, int] = {}
        self.created: dict[str, datetime] = {}

    # ------------------------------------------------------------ people

    def staff_projects(self) -> None:
        """Teams from the employees: the acting user leads WEB and API and belongs to every
        project; the others are split between the teams, a few in two."""
        others = [i + 1 for i, person in enumerate(self.world.people) if person.is_employee and i + 1 != ACTING_USER_ID]
        self.rng.shuffle(others)
        at = 0
        for plan in PLANS:
            size = plan.team_size - (1 if plan.key in LED_BY_ACTING_USER else 0)
            team = others[at:at + size]
            at += size
            lead = ACTING_USER_ID if plan.key in LED_BY_ACTING_USER else team[0]
            self.leads[plan.key] = lead
            self.teams[plan.key] = [lead, *[m for m in team if m != lead]]
        for extra in others[at:at + 4]:
            self.teams[self.rng.choice(PLANS).key].append(extra)
        for plan in PLANS:
            if ACTING_USER_ID not in self.teams[plan.key]:
                self.teams[plan.key].append(ACTING_USER_ID)

    def worker(self, plan: ProjectPlan) -> int:
        """A team member to assign work to (the acting user rarely, outside their projects never)."""
        team = [m for m in self.teams[plan.key] if m != ACTING_USER_ID or plan.key in LED_BY_ACTING_USER]
        weights = [0.3 if m == self.leads[plan.key] else 1.0 for m in team]
        return self.rng.choices(team, weights)[0]

    # ------------------------------------------------------------ issues

    def new_issue(self, plan: ProjectPlan, type_: str, summary: str, created: datetime, **extra: Any) -> IssueSeed:
        issue = IssueSeed(project=plan, type=type_, summary=summary[:255], created=_second(created),
                          description=extra.pop("description", None) or self.description(plan, type_, summary),
                          priority=extra.pop("priority", None) or self.priority(),
                          reporter=extra.pop("reporter", None) or self.rng.choice(self.teams[plan.key]), **extra)
        self.issues.append(issue)
        return issue

    def priority(self) -> str:
        return self.rng.choices(list(PRIORITY_WEIGHTS), list(PRIORITY_WEIGHTS.values()))[0]

    def points(self, type_: str) -> int:
        values, weights = POINT_WEIGHTS[type_]
        return self.rng.choices(values, weights)[0]

    def description(self, plan: ProjectPlan, type_: str, summary: str) -> str:
        if type_ == "bug":
            return (f"Steps to reproduce: open {plan.name} and follow the flow in the summary. "
                    f"Expected: it works as documented. Actual: {summary[0].lower() + summary[1:]}.")
        if type_ == "story":
            return f"{summary}. Acceptance criteria: the flow works on desktop and mobile widths and is covered by tests."
        if type_ == "epic":
            return f"Everything for {summary}: scope, milestones and the stories that deliver it."
        return f"{summary}. Definition of done: merged, deployed to staging and noted in the changelog."

    def work_item(self, plan: ProjectPlan, created: datetime, epics: list[IssueSeed]) -> IssueSeed:
        """A story, task or bug of a scrum project, possibly under a recent epic."""
        rng = self.rng
        type_ = rng.choices(("story", "task", "bug"), (45, 30, 25))[0]
        area = rng.choice(plan.components)[0]
        if type_ == "story":
            summary = f"As {plan.persona}, I can {rng.choice(plan.actions)}"
        elif type_ == "task":
            summary = rng.choice(plan.tasks).format(area=area, n=rng.randrange(10, 99))
        else:
            summary = f"{area}: {rng.choice(plan.symptoms)}"
        open_epics = [e for e in epics if e.created < created][-3:]
        issue = self.new_issue(
            plan, type_, summary, created,
            points=self.points(type_) if rng.random() < 0.7 else None,
            parent=rng.choice(open_epics) if open_epics and rng.random() < 0.7 else None,
            labels=set(rng.sample(LABELS, rng.choice((0, 1, 1, 2)))) | ({"regression"} if type_ == "bug" and rng.random() < 0.3 else set()),
            components=sorted({area, *([rng.choice(plan.components)[0]] if rng.random() < 0.2 else [])}),
            assignee=self.worker(plan) if rng.random() < 0.3 else None,
        )
        if issue.parent is not None:
            issue.parent.children.append(issue)
        return issue

    # ------------------------------------------------------------ life cycle

    def event(self, issue: IssueSeed, at: datetime, author: int, name: str, before: Any, after: Any) -> None:
        text = (lambda v: None if v is None or v == "" else str(v))
        issue.events.append((_second(at), author, name, text(before), text(after)))

    def comment(self, issue: IssueSeed, at: datetime, author: int, kind: str) -> None:
        if at < self.now:
            issue.comments.append((_second(at), author, self.rng.choice(COMMENTS[kind])))

    def times(self, start: datetime, end: datetime, n: int) -> list[datetime]:
        """`n` increasing times in [start, end] (the last one is `end`)."""
        span = (end - start).total_seconds()
        picks = sorted(self.rng.uniform(0, span) for _ in range(n - 1))
        return [_second(start + timedelta(seconds=s)) for s in picks] + [_second(end)]

    def assign(self, issue: IssueSeed, at: datetime, by: int) -> None:
        if issue.assignee is None:
            issue.assignee = self.worker(issue.project)
            self.event(issue, at, by, "assignee", None, self.name_of(issue.assignee))

    def name_of(self, user_id: int) -> str:
        return self.world.people[user_id - 1].name

    def progress(self, issue: IssueSeed, target: str, start: datetime, end: datetime,
                 resolution: str | None = None) -> None:
        """Walk `issue` from its status to `target` along its workflow, the last step at `end`."""
        flow = WORKFLOWS[issue.project.workflow]
        path = status_path(flow, issue.status, target)
        if not path:
            return
        start = max(start, self.last_touch(issue) + timedelta(minutes=1))
        assert end > start, (issue.summary, start, end)
        if issue.assignee is None:
            self.assign(issue, start, self.leads[issue.project.key])
        assert issue.assignee is not None
        when = self.times(start, end, len(path))
        for status, at in zip(path, when, strict=True):
            assert flow.allows(issue.status, status), (issue.status, status)
            self.event(issue, at, issue.assignee, "status", issue.status, status)
            issue.status = status
            kind = {"In Progress": "start", "In Review": "review", "Done": "done", "Blocked": "blocked"}.get(status)
            if kind and self.rng.random() < (0.8 if kind == "blocked" else 0.35):
                self.comment(issue, at + timedelta(minutes=self.rng.randint(1, 90)), issue.assignee, kind)
        if STATUS_CATEGORIES[target] == "done":
            issue.resolution = resolution or ("Done" if target == "Done" else "Won't Do")
            issue.resolved = when[-1]
            self.event(issue, when[-1], issue.assignee, "resolution", None, issue.resolution)

    def last_touch(self, issue: IssueSeed) -> datetime:
        """When the issue last changed (its creation, if never)."""
        return max([issue.created, *(event[0] for event in issue.events)])

    def finish_children(self, issue: IssueSeed, before: datetime, target: str = "Done") -> None:
        """Resolve the subtasks of an issue about to be resolved, before it."""
        for child in issue.children:
            if child.type == "subtask" and child.unresolved:
                self.progress(child, target, child.created + timedelta(hours=1), before - timedelta(minutes=30))

    # ------------------------------------------------------------ scrum

    def scrum_project(self, plan: ProjectPlan) -> None:
        """Sprint after sprint up to now; where `plan.phase` says the team is now."""
        rng = self.rng
        assert plan.sprint_days is not None
        length = timedelta(days=plan.sprint_days)
        today = self.now.replace(hour=9, minute=0, second=0, microsecond=0)
        sprints = plan.closed_sprints + (0 if plan.phase == "between" else 1)
        if plan.phase == "mid":
            first_start = today - timedelta(days=rng.randint(2, plan.sprint_days - 3)) - plan.closed_sprints * length
        elif plan.phase == "ending":
            first_start = today - sprints * length
        else:
            first_start = today - timedelta(days=rng.randint(1, 3)) - sprints * length
        created = first_start - timedelta(days=rng.randint(20, 45))
        self.created[plan.key] = created
        lead = self.leads[plan.key]
        span = (self.now - timedelta(days=30) - created).total_seconds()
        epic_times = sorted(created + timedelta(seconds=rng.uniform(0, span)) for _ in plan.epics)
        epic_times[0] = created + timedelta(hours=2)
        epics = [self.new_issue(plan, "epic", name, when, reporter=lead, assignee=lead, priority="high")
                 for name, when in zip(plan.epics, epic_times, strict=True)]
        backlog: list[IssueSeed] = []

        def file_between(start: datetime, end: datetime, n: int) -> None:
            for when in sorted(start + (end - start) * rng.random() for _ in range(n)):
                backlog.append(self.work_item(plan, when, epics))

        file_between(created + timedelta(hours=3), first_start - timedelta(days=2), rng.randint(24, 34))
        carried: list[IssueSeed] = []
        moved_at = first_start
        previous: SprintSeed | None = None
        for index in range(sprints):
            start = first_start + index * length
            end = start + length
            under_way = index == plan.closed_sprints
            if previous is not None:
                file_between(previous.start or start, start - timedelta(hours=6), rng.randint(8, 12))
            sprint = SprintSeed(plan, f"{plan.key} Sprint {index + 1}", "active" if under_way else "closed",
                                rng.choice(plan.goals), start, end, None,
                                created=start - timedelta(days=rng.randint(3, 10)))
            self.sprints.append(sprint)
            planning = start - timedelta(hours=rng.randint(2, 30))
            members: list[tuple[IssueSeed, bool]] = []
            for issue in carried:
                members.append((issue, True))
                sprint.members.append(self.membership(issue, moved_at, True))
            self.plan_sprint(plan, sprint, backlog, planning, plan.velocity * rng.uniform(0.9, 1.25), members)
            last_add = min(end, self.now) - timedelta(days=1)
            for _ in range(rng.choice((0, 1, 1, 2, 3))):
                when = start + (last_add - start) * rng.uniform(0.1, 0.9)
                if when <= start:
                    continue
                issue = self.work_item(plan, when, epics)
                if issue.points is None:
                    issue.points = self.points(issue.type)
                    self.event(issue, when + timedelta(minutes=20), lead, "story_points", None, issue.points)
                self.event(issue, when + timedelta(minutes=30), lead, "sprint", None, sprint.name)
                self.assign(issue, when + timedelta(minutes=35), lead)
                members.append((issue, False))
                sprint.members.append(self.membership(issue, when + timedelta(minutes=30), False))
            if under_way and plan.phase == "mid":
                self.work_active_sprint(sprint, [issue for issue, _ in members])
                carried = []
            else:
                close = self.now - timedelta(hours=rng.randint(1, 6)) if under_way else end + timedelta(hours=rng.randint(0, 6))
                carried = self.work_closed_sprint(plan, sprint, members, backlog, close, closes=not under_way)
                moved_at = close - timedelta(minutes=5)
            previous = sprint
        self.file_during_active(plan, first_start + (sprints - 1) * length, epics, backlog)
        self.plan_future_sprints(plan, backlog, carried, moved_at)
        for issue in backlog:
            if issue.unresolved and issue.created < self.now - timedelta(days=60) and rng.random() < 0.08:
                touched = self.last_touch(issue)
                when = touched + (self.now - touched) * rng.uniform(0.2, 0.9)
                self.finish_children(issue, when, "Won't Do")
                self.progress(issue, "Won't Do", when - timedelta(hours=1), when)
        for epic in epics:
            self.settle_epic(epic)

    def plan_sprint(self, plan: ProjectPlan, sprint: SprintSeed, backlog: list[IssueSeed], planning: datetime,
                    capacity: float, members: list[tuple[IssueSeed, bool]], committed: bool = True) -> None:
        """Pull the backlog's top issues (by priority, roughly) into a sprint up to `capacity`
        points, estimating and assigning them on the way."""
        rng = self.rng
        lead = self.leads[plan.key]
        points = sum(issue.points or 0 for issue, _ in members)
        ranked = sorted((i for i in backlog if i.unresolved and i.created < planning),
                        key=lambda i: (list(PRIORITY_WEIGHTS).index(i.priority) + rng.random() * 2, i.created))
        for issue in ranked:
            if points >= capacity:
                break
            backlog.remove(issue)
            if issue.points is None:
                issue.points = self.points(issue.type)
                self.event(issue, max(issue.created, planning - timedelta(minutes=30)), lead, "story_points", None, issue.points)
            self.event(issue, planning, lead, "sprint", None, sprint.name)
            self.assign(issue, planning + timedelta(minutes=5), lead)
            points += issue.points
            members.append((issue, committed))
            sprint.members.append(self.membership(issue, planning, committed))
            if issue.type == "story" and issue.points >= 5 and rng.random() < 0.35:
                self.subtasks(issue, planning + timedelta(minutes=10))

    def sprints_of(self, plan: ProjectPlan) -> list[SprintSeed]:
        return [s for s in self.sprints if s.project is plan]

    def membership(self, issue: IssueSeed, added: datetime, committed: bool) -> dict[str, Any]:
        return {"issue": issue, "added_at": _second(added), "removed_at": None, "committed": committed,
                "points_at_start": issue.points if committed else None, "completed": False}

    def subtasks(self, parent: IssueSeed, when: datetime) -> None:
        for summary in self.rng.sample(SUBTASKS, self.rng.randint(2, 3)):
            child = self.new_issue(parent.project, "subtask", f"{summary}: {parent.summary}"[:255], when,
                                   parent=parent, priority=parent.priority, reporter=parent.reporter,
                                   assignee=self.worker(parent.project), components=list(parent.components))
            parent.children.append(child)

    def work_closed_sprint(self, plan: ProjectPlan, sprint: SprintSeed, members: list[tuple[IssueSeed, bool]],
                           backlog: list[IssueSeed], close: datetime, closes: bool = True) -> list[IssueSeed]:
        """Most work is done by the end; the rest leaves just before `close`: to the next sprint
        (carried, returned) or back to the backlog. `closes`: the sprint is then closed (else it
        stays active, ready to close)."""
        rng = self.rng
        assert sprint.start is not None and sprint.end is not None
        if closes:
            sprint.completed = _second(close)
        carried: list[IssueSeed] = []
        rows = {id(row["issue"]): row for row in sprint.members}
        for issue, committed in members:
            row = rows[id(issue)]
            begin = max(sprint.start, issue.created) + timedelta(hours=2)
            roll = rng.random()
            if roll < 0.03 and issue.type != "bug":
                dropped = begin + (sprint.end - begin) * rng.uniform(0.2, 0.8)
                self.finish_children(issue, dropped, "Won't Do")
                self.progress(issue, "Won't Do", begin, dropped)
            elif roll < (0.85 if committed else 0.72):
                done_at = begin + (sprint.end - timedelta(hours=2) - begin) * rng.uniform(0.3, 1.0)
                self.finish_children(issue, done_at)
                self.progress(issue, "Done", begin, done_at)
                row["completed"] = closes
            else:
                partial = rng.choice(("To Do", "In Progress", "In Progress"))
                self.progress(issue, partial, begin, begin + (sprint.end - begin) * rng.uniform(0.2, 0.9))
                row["removed_at"] = _second(close - timedelta(minutes=5))
                if rng.random() < 0.85:
                    carried.append(issue)  # planned into the next sprint as it leaves this one
                    self.event(issue, close - timedelta(minutes=5), self.leads[plan.key], "sprint", sprint.name,
                               f"{plan.key} Sprint {len(self.sprints_of(plan)) + 1}")
                else:
                    backlog.append(issue)
                    self.event(issue, close - timedelta(minutes=5), self.leads[plan.key], "sprint", sprint.name, None)
        return carried

    def work_active_sprint(self, sprint: SprintSeed, members: list[IssueSeed]) -> None:
        """The sprint under way: work spread over the board, more of it done the later it is."""
        rng = self.rng
        assert sprint.start is not None and sprint.end is not None
        elapsed = (self.now - sprint.start) / (sprint.end - sprint.start)
        weights = {"Done": 0.1 + 0.5 * elapsed, "In Review": 0.2, "In Progress": 0.3, "Blocked": 0.06,
                   "To Do": max(0.05, 0.4 - 0.35 * elapsed)}
        for issue in members:
            target = rng.choices(list(weights), list(weights.values()))[0]
            begin = max(sprint.start, issue.created) + timedelta(minutes=30)
            until = self.now - timedelta(minutes=rng.randint(20, 600))
            if until <= begin:
                continue
            reached = begin + (until - begin) * rng.uniform(0.3, 1.0)
            if target == "Done":
                self.finish_children(issue, reached)
            self.progress(issue, target, begin, reached)

    def plan_future_sprints(self, plan: ProjectPlan, backlog: list[IssueSeed], carried: list[IssueSeed],
                            moved_at: datetime) -> None:
        """The next sprint holds the work carried over and the top of the backlog (nearly full
        when it is about to start); sometimes one after it is sketched too."""
        rng = self.rng
        number = len(self.sprints_of(plan)) + 1
        first_share = rng.uniform(0.8, 1.0) if plan.phase == "between" else rng.uniform(0.5, 0.8)
        for offset, share in enumerate((first_share, rng.uniform(0.1, 0.3) if rng.random() < 0.6 else 0.0)):
            if share == 0.0:
                break
            sprint = SprintSeed(plan, f"{plan.key} Sprint {number + offset}", "future", rng.choice(plan.goals),
                                None, None, None, created=_second(self.now - timedelta(days=rng.randint(2, 9))))
            self.sprints.append(sprint)
            members: list[tuple[IssueSeed, bool]] = []
            if offset == 0:
                for issue in carried:
                    members.append((issue, False))
                    sprint.members.append(self.membership(issue, moved_at, False))
            planned = max(sprint.created + timedelta(hours=rng.randint(1, 30)), moved_at + timedelta(minutes=10))
            self.plan_sprint(plan, sprint, backlog, min(planned, self.now - timedelta(minutes=30)),
                             plan.velocity * share, members, committed=False)

    def file_during_active(self, plan: ProjectPlan, start: datetime, epics: list[IssueSeed],
                           backlog: list[IssueSeed]) -> None:
        """Issues filed since the active sprint began wait in the backlog."""
        for _ in range(self.rng.randint(4, 8)):
            when = start + (self.now - timedelta(hours=1) - start) * self.rng.random()
            backlog.append(self.work_item(plan, when, epics))

    def settle_epic(self, epic: IssueSeed) -> None:
        """An epic is in progress once work under it starts and done once all of it is."""
        work = [c for c in epic.children if c.type != "subtask"]
        started = [e[0] for c in work for e in c.events if e[2] == "status"]
        if not started:
            return
        if all(not c.unresolved for c in work) and any(c.resolution == "Done" for c in work):
            last = max(c.resolved for c in work if c.resolved is not None)
            done_at = last + timedelta(days=self.rng.randint(1, 5))
            if done_at < self.now:
                self.progress(epic, "Done", min(started), done_at)
                return
        self.progress(epic, "In Progress", min(started) - timedelta(hours=1), min(started))

    # ------------------------------------------------------------ kanban

    def support_project(self) -> None:
        """SUP: bugs escalated from help-desk problem and incident tickets, and the support
        engineers' own tasks."""
        rng = self.rng
        plan = SUPPORT
        lead = self.leads[plan.key]
        self.created[plan.key] = self.now - timedelta(days=SUPPORT_HISTORY_DAYS)
        tickets = seeded_rows(
            "zendesk", self.world.seed,
            "SELECT tickets.id, tickets.subject, tickets.description, tickets.priority, tickets.created_at, "
            "tickets.solved_at, tickets.assignee_id, group_concat(ticket_tags.tag) AS tags FROM tickets "
            "JOIN ticket_tags ON ticket_tags.ticket_id = tickets.id "
            "WHERE tickets.type IN ('problem', 'incident') AND tickets.merged_into_id IS NULL "
            "GROUP BY tickets.id ORDER BY tickets.id")
        by_summary: dict[str, list[IssueSeed]] = {}
        for ticket in tickets:
            tags = set(ticket["tags"].split(","))
            chance = max((ESCALATION_CHANCE.get(tag, 0.0) for tag in tags), default=0.0)
            if "escalated" in tags:
                chance = max(chance, 0.9)
            if rng.random() >= chance:
                continue
            opened = datetime.fromisoformat(ticket["created_at"])
            solved = datetime.fromisoformat(ticket["solved_at"]) if ticket["solved_at"] else None
            window = (solved - opened) * 0.5 if solved else timedelta(hours=36)
            created = opened + min(window, timedelta(hours=24)) * rng.uniform(0.05, 1.0)
            if created >= self.now - timedelta(minutes=30):
                continue
            component = next((c for tag, c in TAG_COMPONENT.items() if tag in tags), None) or next(
                (c for word, c in SUBJECT_COMPONENT if word.lower() in ticket["subject"].lower()), "Web app")
            employee = ticket["assignee_id"] if ticket["assignee_id"] and ticket["assignee_id"] <= len(self.world.employees) else None
            issue = self.new_issue(
                plan, "bug", ticket["subject"], created, ticket=ticket["id"],
                description=f"Escalated from help-desk ticket #{ticket['id']}.\n\nCustomer report: {ticket['description']}",
                priority=TICKET_PRIORITY.get(ticket["priority"], "medium"),
                reporter=employee or lead,
                labels={"customer-reported", *({"p1-incident"} if "outage" in tags else set()),
                        *({"regression"} if rng.random() < 0.15 else set())},
                components=[component],
            )
            earlier = [e for e in by_summary.get(issue.summary, []) if e.created < issue.created]
            by_summary.setdefault(issue.summary, []).append(issue)
            if solved is not None and solved < self.now and rng.random() < 0.9:
                fixed = _second(created + (solved - created) * rng.uniform(0.6, 0.95))
                if earlier and rng.random() < 0.1:
                    self.progress(issue, "Won't Do", created, created + (fixed - created) * 0.3, resolution="Duplicate")
                    self.links.append((issue, earlier[-1], "duplicates", issue.assignee or lead, issue.resolved or fixed))
                elif rng.random() < 0.06:
                    self.progress(issue, "Won't Do", created, fixed, resolution="Cannot Reproduce")
                else:
                    self.progress(issue, "Done", created, fixed)
            else:  # still open: the ticket is new, or a workaround closed it while the fix waits
                target = rng.choices(("To Do", "In Progress", "Blocked"), (4, 4, 2))[0]
                self.progress(issue, target, created, created + (self.now - created) * rng.uniform(0.1, 0.9))
            if rng.random() < 0.5:
                end = issue.resolved or self.now
                self.comment(issue, created + (end - created) * rng.random(), self.rng.choice(self.teams[plan.key]), "support")
        self.kanban_work(plan, SUPPORT_HISTORY_DAYS, rng.randint(30, 40), types=(("task", 1.0),))

    def kanban_work(self, plan: ProjectPlan, days: int, count: int, types: tuple[tuple[str, float], ...]) -> None:
        """Tasks and bugs filed over `days` and worked in flow: old ones resolved, recent ones open."""
        rng = self.rng
        start = self.now - timedelta(days=days)
        self.created.setdefault(plan.key, start)
        for when in sorted(start + timedelta(days=2) + (self.now - start - timedelta(days=2)) * rng.random()
                           for _ in range(count)):
            type_ = rng.choices([t for t, _ in types], [w for _, w in types])[0]
            area = rng.choice(plan.components)[0]
            if type_ == "bug":
                summary = f"{area}: {rng.choice(plan.symptoms)}"
            else:
                summary = rng.choice(plan.tasks).format(area=area, n=rng.randrange(10, 99))
            issue = self.new_issue(plan, type_, summary, when, components=[area],
                                   labels=set(rng.sample(("security", "performance", "tech-debt", "docs"), rng.choice((0, 0, 1)))))
            took = timedelta(hours=rng.expovariate(1 / 120) + 2)
            if when + took < self.now - timedelta(hours=1) and rng.random() < 0.88:
                if rng.random() < 0.9:
                    self.progress(issue, "Done", when, when + took)
                else:
                    self.progress(issue, "Won't Do", when, when + took)
            else:
                target = rng.choices(("To Do", "In Progress", "Blocked"), (5, 4, 1))[0]
                self.progress(issue, target, when, when + (self.now - when) * rng.uniform(0.2, 0.9))
            if rng.random() < 0.25:
                end = issue.resolved or self.now
                self.comment(issue, when + (end - when) * rng.random(), rng.choice(self.teams[plan.key]), "question")

    # ------------------------------------------------------------ links

    def link_blockers(self) -> None:
        """Blocked issues wait on an unresolved issue; some In Review issues too (their Done
        must wait); some done work was blocked by work done before it. Nothing Done waits
        on anything unresolved."""
        rng = self.rng
        by_project: dict[str, list[IssueSeed]] = {}
        for issue in self.issues:
            if issue.type not in ("epic", "subtask"):
                by_project.setdefault(issue.project.key, []).append(issue)
        for key, issues in by_project.items():
            open_work = [i for i in issues if i.unresolved and i.status in ("To Do", "In Progress")]
            blocked = [i for i in issues if i.status == "Blocked"]
            in_review = [i for i in issues if i.status == "In Review"]
            waiting = blocked + in_review[:1 if len(in_review) > 1 or rng.random() < 0.5 else 0]
            for issue in waiting:
                candidates = [b for b in open_work if b is not issue and b.created < issue.created + timedelta(days=3)]
                if not candidates:
                    continue
                blocker = rng.choice(candidates)
                when = max(blocker.created, issue.created) + timedelta(hours=1)
                self.links.append((blocker, issue, "blocks", self.leads[key], min(when, self.now - timedelta(minutes=5))))
                open_work = [b for b in open_work if b is not issue]
            done = [i for i in issues if i.status == "Done" and i.resolved is not None]
            for issue in rng.sample(done, len(done) // 16):
                assert issue.resolved is not None
                before = [b for b in done if b is not issue and b.resolved is not None and b.resolved < issue.resolved
                          and b.created <= issue.created]
                if before:
                    blocker = rng.choice(before[-20:])
                    self.links.append((blocker, issue, "blocks", self.leads[key], issue.created + timedelta(minutes=20)))
            for _ in range(len(issues) // 25):
                a, b = rng.sample(issues, 2)
                self.links.append((a, b, "relates", self.leads[key], max(a.created, b.created) + timedelta(hours=2)))

    # ------------------------------------------------------------ rows

    def build(self) -> None:
        self.staff_projects()
        self.support_project()
        for plan in (WEB, API, MOBILE, DATA):
            self.scrum_project(plan)
        self.kanban_work(OPS, OPS_HISTORY_DAYS, self.rng.randint(170, 200), types=(("task", 0.7), ("bug", 0.3)))
        self.link_blockers()
        order = sorted(self.issues, key=lambda i: i.created)
        numbers: dict[str, int] = {}
        for issue_id, issue in enumerate(order, start=1):
            numbers[issue.project.key] = numbers.get(issue.project.key, 0) + 1
            issue.id, issue.key = issue_id, f"{issue.project.key}-{numbers[issue.project.key]}"
        self.issues = order

    def insert(self, db: Session) -> None:
        """Every row, table by table in key order, as bulk inserts."""
        world, now = self.world, self.now
        plans = {plan.key: index for index, plan in enumerate(PLANS, start=1)}
        users = [{"id": i + 1, "external_id": p.id, "name": p.name, "email": p.email, "title": p.job_title,
                  "timezone": p.timezone, "created_at": _second(now - timedelta(days=600 + 7 * i))}
                 for i, p in enumerate(world.people) if p.is_employee]
        projects = [{"id": plans[p.key], "key": p.key, "name": p.name, "description": p.description, "type": p.type,
                     "workflow": p.workflow, "lead_id": self.leads[p.key], "sprint_days": p.sprint_days,
                     "created_at": _second(self.created[p.key])} for p in PLANS]
        members = [{"project_id": plans[key], "user_id": user, "role": "lead" if user == self.leads[key] else "member"}
                   for key, team in self.teams.items() for user in sorted(set(team))]
        components, component_ids = [], {}
        for plan in PLANS:
            for name, description in plan.components:
                component_ids[(plan.key, name)] = len(components) + 1
                components.append({"id": len(components) + 1, "project_id": plans[plan.key], "name": name,
                                   "description": description})
        sprints = sorted(self.sprints, key=lambda s: (plans[s.project.key], s.start or now + timedelta(days=400), s.name))
        for sprint_id, sprint in enumerate(sprints, start=1):
            sprint.id = sprint_id
        issues, labels, issue_components, changes, comments = [], [], [], [], []
        for issue in self.issues:
            last = max([issue.created, *(e[0] for e in issue.events), *(c[0] for c in issue.comments)])
            issues.append({
                "id": issue.id, "project_id": plans[issue.project.key], "number": int(issue.key.split("-")[1]),
                "key": issue.key, "type": issue.type, "summary": issue.summary, "description": issue.description,
                "status": issue.status, "priority": issue.priority, "assignee_id": issue.assignee,
                "reporter_id": issue.reporter, "story_points": issue.points,
                "parent_id": issue.parent.id if issue.parent else None, "resolution": issue.resolution,
                "support_ticket_id": issue.ticket, "created_at": issue.created, "updated_at": last,
                "resolved_at": issue.resolved})
            labels += [{"issue_id": issue.id, "label": label} for label in sorted(issue.labels)]
            issue_components += [{"issue_id": issue.id, "component_id": component_ids[(issue.project.key, name)]}
                                 for name in sorted(set(issue.components))]
            changes += [(at, issue.id, author, name, before, after) for at, author, name, before, after in issue.events]
            comments += [(at, issue.id, author, body) for at, author, body in issue.comments]
        sprint_rows = [{"id": s.id, "project_id": plans[s.project.key], "name": s.name, "state": s.state, "goal": s.goal,
                        "start_at": s.start, "end_at": s.end, "completed_at": s.completed, "created_at": s.created}
                       for s in sprints]
        sprint_issues = sorted(({"sprint_id": s.id, **{k: v for k, v in row.items() if k != "issue"},
                                 "issue_id": row["issue"].id} for s in sprints for row in s.members),
                               key=lambda r: (r["sprint_id"], r["issue_id"]))
        linked: dict[tuple[int, int, str], tuple[IssueSeed, IssueSeed, str, int, datetime]] = {}
        for link in sorted(self.links, key=lambda l: (l[4], l[0].id, l[1].id)):
            a, b, kind = link[0], link[1], link[2]
            if a is not b and (b.id, a.id, kind) not in linked:
                linked.setdefault((a.id, b.id, kind), link)
        links = [{"id": n, "source_id": a.id, "target_id": b.id, "type": kind, "author_id": author, "created_at": _second(at)}
                 for n, (a, b, kind, author, at) in enumerate(linked.values(), start=1)]
        change_rows = [{"id": n, "issue_id": issue_id, "author_id": author, "field": name, "from_value": before,
                        "to_value": after, "created_at": at}
                       for n, (at, issue_id, author, name, before, after) in enumerate(sorted(changes, key=lambda c: c[:2]), start=1)]
        comment_rows = [{"id": n, "issue_id": issue_id, "author_id": author, "body": body, "created_at": at}
                        for n, (at, issue_id, author, body) in enumerate(sorted(comments, key=lambda c: c[:2]), start=1)]
        tables: list[tuple[type[DeclarativeBase], list[dict[str, Any]]]] = [
            (User, users), (Project, projects), (ProjectMember, members), (Component, components),
            (Sprint, sprint_rows), (Issue, issues), (IssueLabel, labels), (IssueComponent, issue_components),
            (SprintIssue, sprint_issues), (IssueLink, links), (IssueChange, change_rows), (Comment, comment_rows),
        ]
        connection = db.connection()
        for model, rows in tables:
            if rows:
                connection.execute(insert(model.__table__), rows)  # one executemany per table


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty tracker database from the shared world and the help desk's tickets."""
    tracker = Tracker(world, rng)
    tracker.build()
    tracker.insert(db)
