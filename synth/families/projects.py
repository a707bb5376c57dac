"""Issue-tracker (projects) task families: issue lookups and histories, sprint reports and
velocity, workload, writes an engineering lead makes (file, plan, start work, review, link,
wrap up and start sprints), policy requests whose right outcome is a refusal, two-turn
follow-ups, and cross-server tasks with the Zendesk help desk (the issue behind a ticket,
escalating a ticket to a bug).

Requests name what a user knows: issue keys (WEB-42), project keys, sprint names, people by
name or email, help-desk ticket numbers; never user or sprint ids.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from mcpgym.synth.family import Draft, Family, SamplingError, WorldView

SERVER = "projects"
SCRUM = ("WEB", "API", "MOB", "DATA")
PRIORITY_ORDER = ("highest", "high", "medium", "low", "lowest")
TICKET_PRIORITY = {"urgent": "highest", "high": "high", "normal": "medium", "low": "low"}
NOT_FIBONACCI = (4, 6, 7, 10, 12, 20)
SYMPTOMS = ("crashes when the list is empty", "shows a stale total after refresh", "times out for large accounts",
            "loses the selected filter on back navigation", "renders dates in the wrong timezone",
            "fails silently when the session expires")
SPRINT_GOALS = ("Stabilise before the release", "Burn down the bug backlog", "Ship the beta to five customers",
                "Pay back test debt", "Finish the migration")


def _read(view: WorldView, tool: str, **arguments: Any) -> dict[str, Any]:
    return view.read(SERVER, tool, **arguments)


def _random_issue(view: WorldView, rng: random.Random, **filters: Any) -> dict[str, Any] | None:
    """An issue matching `filters` from a random page of the search."""
    total = _read(view, "search_issues", per_page=1, **filters)["total"]
    if not total:
        return None
    page = rng.randint(1, -(-total // 50))
    found = _read(view, "search_issues", per_page=50, page=page, **filters)["issues"]
    return rng.choice(found) if found else None


def _led_projects(view: WorldView) -> list[dict[str, Any]]:
    """The projects the acting user leads."""
    me = _read(view, "get_myself")["id"]
    return [p for p in _read(view, "list_projects")["projects"] if p["lead"]["id"] == me]


def _sprints(view: WorldView, project: str, state: str) -> list[dict[str, Any]]:
    return _read(view, "list_sprints", project_key=project, state=[state], per_page=25)["sprints"]


def _keys_list(call: str, count: int) -> str:
    """A bind expression listing the first `count` issue keys of a search result."""
    return "[" + ", ".join(f"{{{call}.issues.{i}.key}}" for i in range(count)) + "]"


# ---------------------------------------------------------------- lookups and drill-downs


class IssueLookup(Family):
    """The status and assignee of an issue named by key, and the epic it belongs to."""

    name = "projects.issue-lookup"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issue = _random_issue(view, rng, project_key=rng.choice(SCRUM), type=["story", "task", "bug"])
        if issue is None or issue["assignee"] is None or issue["parent_key"] is None:
            return None
        key = issue["key"]
        user = [
            f"What's the status of {key}, who is it assigned to, and which epic is it part of?",
            f"Quick check on {key}: current status, assignee, and the name of its epic?",
            f"Tell me where {key} stands (status), who owns it, and the epic it rolls up to.",
        ]
        return Draft(family=self.name, key=f"issue:{key}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_issue", "arguments": {"issue_key": key}},
            {"id": "c2", "tool": "get_issue", "bind": {"issue_key": "{c1.parent_key}"}},
        ], "facts": [
            {"name": "status", "expr": "{c1.status}", "value": None},
            {"name": "assignee", "expr": "{c1.assignee.name}", "value": None},
            {"name": "epic", "expr": "{c2.summary}", "value": None},
        ]}])


class ReviewHistory(Family):
    """When a finished issue went into review, who put it there, and when it was done."""

    name = "projects.review-history"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issue = _random_issue(view, rng, project_key=rng.choice(SCRUM), status=["Done"], type=["story", "task", "bug"])
        if issue is None:
            return None
        key = issue["key"]
        changes = _read(view, "get_issue_history", issue_key=key, field="status")["changes"]
        targets = [c["to_value"] for c in changes]
        if targets.count("In Review") != 1 or targets[-1] != "Done":
            return None
        k = targets.index("In Review")
        user = [
            f"For {key}: when did it go into review, who moved it there, and when was it marked Done?",
            f"I need the review timeline of {key}: the time it entered In Review, by whom, and when it reached Done.",
            f"Look at the history of {key}. When was it submitted for review and by which person, and when did it get done?",
        ]
        return Draft(family=self.name, key=f"issue:{key}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_issue_history", "arguments": {"issue_key": key, "field": "status"}},
        ], "facts": [
            {"name": "entered review at", "expr": f"{{c1.changes.{k}.created_at}}", "value": None},
            {"name": "moved to review by", "expr": f"{{c1.changes.{k}.author.name}}", "value": None},
            {"name": "done at", "expr": "{c1.changes.-1.created_at}", "value": None},
        ]}], checks=[f"{{c1.changes.{k}.to_value}} == 'In Review'", "{c1.changes.-1.to_value} == 'Done'"])


class LatestComment(Family):
    """The newest comment on an issue: who wrote it and what it says."""

    name = "projects.latest-comment"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issue = _random_issue(view, rng, project_key=rng.choice(("SUP", "OPS", *SCRUM)))
        if issue is None or not _read(view, "get_issue", issue_key=issue["key"])["comment_count"]:
            return None
        key = issue["key"]
        user = [
            f"What does the latest comment on {key} say, and who wrote it?",
            f"Who left the most recent comment on {key}, and what did they write?",
            f"Read me the newest comment on {key} and tell me its author.",
        ]
        return Draft(family=self.name, key=f"issue:{key}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_comments", "arguments": {"issue_key": key, "sort_order": "desc", "per_page": 2}},
        ], "facts": [
            {"name": "author", "expr": "{c1.comments.0.author.name}", "value": None},
            {"name": "comment", "expr": "{c1.comments.0.body}", "value": None},
        ]}], checks=["{c1.total} == 1 or {c1.comments.0.created_at} != {c1.comments.1.created_at}"])


class PersonOpenIssues(Family):
    """How many unresolved issues a person (named) has in a project, and how many of them are urgent."""

    name = "projects.person-open-issues"
    servers = (SERVER,)
    kind = "drill-down"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(("SUP", "OPS", *SCRUM))
        members = _read(view, "search_users", project_key=project, per_page=50)["users"]
        person = rng.choice(members)
        search = {"project_key": project, "resolved": False, "per_page": 1}
        if not _read(view, "search_issues", assignee_id=person["id"], **search)["total"]:
            return None
        name = person["name"]
        user = [
            f"How many unresolved {project} issues are assigned to {name}, and how many of them are high or highest priority?",
            f"What's on {name}'s plate in {project}? Give me the number of open issues and how many of those are high priority or above.",
            f"Count {name}'s open issues in the {project} project, and separately those with priority high or highest.",
        ]
        return Draft(family=self.name, key=f"{project}|{person['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_users", "arguments": {"query": name}},
            {"id": "c2", "tool": "search_issues", "arguments": search, "bind": {"assignee_id": "{c1.users.0.id}"}},
            {"id": "c3", "tool": "search_issues", "arguments": {**search, "priority": ["highest", "high"]},
             "bind": {"assignee_id": "{c1.users.0.id}"}},
        ], "facts": [
            {"name": "open issues", "expr": "{c2.total}", "value": None},
            {"name": "high or highest priority", "expr": "{c3.total}", "value": None},
        ]}], checks=["{c1.total} == 1"])


class MyOpenIssues(Family):
    """Your own unresolved issues in a project (or everywhere) and the most urgent one."""

    name = "projects.my-open-issues"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        me = _read(view, "get_myself")["id"]
        project = rng.choice((None, *(p["key"] for p in _read(view, "list_projects")["projects"])))
        search: dict[str, Any] = {"resolved": False, "sort_by": "priority", "sort_order": "asc", "per_page": 1}
        if project is not None:
            search["project_key"] = project
        if not _read(view, "search_issues", assignee_id=me, **search)["total"]:
            return None
        where = "" if project is None else f" in {project}"
        user = [
            f"How many unresolved issues are assigned to me{where}, and which one is the most urgent (the oldest, if several share the top priority)?",
            f"What's on my plate{where}? Number of my open issues and the key of the highest-priority one (oldest first on ties).",
            f"Count my open issues{where} and tell me which to do first: highest priority, and among equals the oldest.",
        ]
        return Draft(family=self.name, key=f"{project}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_myself"},
            {"id": "c2", "tool": "search_issues", "arguments": search, "bind": {"assignee_id": "{c1.id}"}},
        ], "facts": [
            {"name": "my open issues", "expr": "{c2.total}", "value": None},
            {"name": "most urgent", "expr": "{c2.issues.0.key}", "value": None},
        ]}])


class UserWorkloadByEmail(Family):
    """A colleague's open work in the tracker, found by email, and the projects they are in."""

    name = "projects.user-workload-by-email"
    servers = (SERVER,)
    kind = "lookup"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        users = _read(view, "search_users", per_page=100)["users"]
        person = rng.choice(users)
        if not _read(view, "get_user_by_email", email=person["email"])["open_issues"]:
            return None
        email = person["email"]
        user = [
            f"How much open work does {email} have in Jira (issues and story points), and which projects are they a member of?",
            f"For the user {email}: number of unresolved issues assigned, their total story points, and their projects.",
            f"Check {email}'s tracker workload: open issues, open story points, and project memberships.",
        ]
        return Draft(family=self.name, key=f"user:{email}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_user_by_email", "arguments": {"email": email}},
        ], "facts": [
            {"name": "open issues", "expr": "{c1.open_issues}", "value": None},
            {"name": "open story points", "expr": "{c1.open_points}", "value": None},
            {"name": "projects", "expr": "{c1.projects}", "value": None},
        ]}])


# ---------------------------------------------------------------- reports


class SprintReportFamily(Family):
    """Committed against completed story points of a closed sprint named by the user, and the scope added."""

    name = "projects.sprint-report"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(SCRUM)
        closed = _sprints(view, project, "closed")
        k = rng.randrange(len(closed))
        sprint = closed[k]["name"]
        user = [
            f"For {sprint}: how many story points did the team commit to, how many did it complete, and how many issues were added after it started?",
            f"Give me the numbers for {sprint} — committed points, completed points, and issues added mid-sprint.",
            f"How did {sprint} go? I want committed vs completed story points and the count of issues added after the start.",
        ]
        return Draft(family=self.name, key=f"sprint:{project}:{sprint}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_sprints", "arguments": {"project_key": project, "state": ["closed"], "per_page": 25}},
            {"id": "c2", "tool": "sprint_report", "bind": {"sprint_id": f"{{c1.sprints.{k}.id}}"}},
        ], "facts": [
            {"name": "committed points", "expr": "{c2.committed_points}", "value": None},
            {"name": "completed points", "expr": "{c2.completed_points}", "value": None},
            {"name": "issues added after the start", "expr": "{c2.added_issues}", "value": None},
        ]}], checks=[f"{{c1.sprints.{k}.name}} == '{sprint}'"])


class VelocityTrend(Family):
    """A team's average velocity over its last N sprints, and its best sprint among them."""

    name = "projects.velocity-trend"
    servers = (SERVER,)
    kind = "comparison"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(SCRUM)
        n = rng.randint(3, 8)
        sprints = _read(view, "velocity_report", project_key=project, sprints=n)["sprints"]
        points = [s["completed_points"] for s in sprints]
        best = max(range(len(points)), key=points.__getitem__)
        if points.count(points[best]) > 1:
            return None
        others = [f"{{c1.sprints.{i}.completed_points}}" for i in range(len(points)) if i != best]
        user = [
            f"What's the {project} team's average velocity (completed story points) over its last {n} sprints, and which of those sprints completed the most?",
            f"Over the last {n} closed {project} sprints: average completed points, and the best sprint with its points.",
            f"Compute {project}'s velocity across the latest {n} sprints: the mean of completed points and the top sprint by points.",
        ]
        return Draft(family=self.name, key=f"{project}|{n}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "velocity_report", "arguments": {"project_key": project, "sprints": n}},
        ], "facts": [
            {"name": "average completed points", "expr": "{c1.average_completed_points}", "value": None},
            {"name": "best sprint", "expr": f"{{c1.sprints.{best}.name}}", "value": None},
            {"name": "its completed points", "expr": f"{{c1.sprints.{best}.completed_points}}", "value": None},
        ]}], checks=[f"{{c1.sprints.{best}.completed_points}} > max({', '.join(others)}, -1)"])


class BusiestAssignee(Family):
    """Who carries the most open story points, in a project or in its current sprint."""

    name = "projects.busiest-assignee"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        in_sprint = rng.random() < 0.5
        project = rng.choice(("WEB", "MOB") if in_sprint else ("SUP", "OPS", *SCRUM))
        if in_sprint:
            where = f"the current {project} sprint"
            calls: list[dict[str, Any]] = [
                {"id": "c1", "tool": "list_sprints", "arguments": {"project_key": project, "state": ["active"]}},
                {"id": "c2", "tool": "workload_report", "bind": {"sprint_id": "{c1.sprints.0.id}"}},
            ]
            report = _read(view, "workload_report", sprint_id=_sprints(view, project, "active")[0]["id"])
        else:
            where = f"the {project} project"
            calls = [{"id": "c2", "tool": "workload_report", "arguments": {"project_key": project}}]
            report = _read(view, "workload_report", project_key=project)
        rows = [r for r in report["assignees"] if r["assignee"] is not None]
        if not rows or rows[0] is not report["assignees"][0] or (len(rows) > 1 and rows[0]["open_points"] == rows[1]["open_points"]):
            return None
        user = [
            f"In {where}, who has the most open story points assigned, how many points, and how many open issues is that?",
            f"Who is the most loaded person in {where} by unresolved story points? Give the points and their number of open issues.",
            f"Find the busiest assignee in {where}: name, open story points, open issue count.",
        ]
        return Draft(family=self.name, key=f"{project}|{in_sprint}", turns=[{"user": user, "calls": calls, "facts": [
            {"name": "busiest assignee", "expr": "{c2.assignees.0.assignee.name}", "value": None},
            {"name": "open story points", "expr": "{c2.assignees.0.open_points}", "value": None},
            {"name": "open issues", "expr": "{c2.assignees.0.open_issues}", "value": None},
        ]}], checks=["len({c2.assignees}) == 1 or {c2.assignees.0.open_points} > {c2.assignees.1.open_points}"])


class ProjectOverview(Family):
    """Which project (of a type) has the most open issues, and how many."""

    name = "projects.project-overview"
    servers = (SERVER,)
    kind = "aggregation"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        kind = rng.choice((None, "scrum", "kanban"))
        arguments = {} if kind is None else {"type": kind}
        projects = _read(view, "list_projects", **arguments)["projects"]
        counts = [p["open_issues"] for p in projects]
        best = max(range(len(counts)), key=counts.__getitem__)
        if counts.count(counts[best]) > 1:
            return None
        which = "project" if kind is None else f"{kind} project"
        others = [f"{{c1.projects.{i}.open_issues}}" for i in range(len(counts)) if i != best]
        user = [
            f"Which {which} has the most unresolved issues right now, how many, and who leads it?",
            f"Across our {which}s, which one has the biggest open-issue count? Give the count and the project lead.",
            f"Find the {which} with the most open issues: its key, the number, and its lead.",
        ]
        return Draft(family=self.name, key=f"{kind}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_projects", "arguments": arguments},
        ], "facts": [
            {"name": "project", "expr": f"{{c1.projects.{best}.key}}", "value": None},
            {"name": "open issues", "expr": f"{{c1.projects.{best}.open_issues}}", "value": None},
            {"name": "lead", "expr": f"{{c1.projects.{best}.lead.name}}", "value": None},
        ]}], checks=[f"{{c1.projects.{best}.open_issues}} > max({', '.join(others)}, -1)"])


# ---------------------------------------------------------------- writes


class PlanBacklog(Family):
    """Plan the N highest-priority backlog issues of a type into the project's next sprint."""

    name = "projects.plan-backlog"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(SCRUM)
        kind = rng.choice(("bug", "story", "task"))
        n = rng.randint(1, 3)
        search = {"project_key": project, "in_backlog": True, "type": [kind], "sort_by": "priority", "sort_order": "asc",
                  "per_page": n}
        found = _read(view, "search_issues", **search)
        if found["total"] < n:
            return None
        future = _sprints(view, project, "future")
        if not future:
            return None
        things = f"{kind}s" if n > 1 else kind
        top = f"{n} highest-priority" if n > 1 else "highest-priority"
        user = [
            f"Plan the {top} {things} from the {project} backlog (oldest first among equal priority) into the next {project} sprint. Which issues did you move, and into which sprint?",
            f"Take the {top} {things} waiting in the {project} backlog — on equal priority, the oldest — and put them in the upcoming sprint; tell me the keys and the sprint name.",
            f"Move the top {n} {kind} issue(s) by priority (ties: oldest first) from {project}'s backlog into its next sprint, and report what moved where.",
        ]
        return Draft(family=self.name, key=f"{project}|{kind}|{n}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_issues", "arguments": search},
            {"id": "c2", "tool": "list_sprints", "arguments": {"project_key": project, "state": ["future"]}},
            {"id": "c3", "tool": "move_issues_to_sprint", "bind": {"issue_keys": _keys_list("c1", n),
                                                                   "sprint_id": "{c2.sprints.-1.id}"}},
        ], "facts": [
            {"name": "issues planned", "expr": _keys_list("c1", n), "value": None},
            {"name": "sprint", "expr": "{c2.sprints.-1.name}", "value": None},
        ]}])


class FileBug(Family):
    """File a bug with the fields the user gives, assigned to a team member named by the user."""

    name = "projects.file-bug"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(("OPS", *SCRUM))
        detail = _read(view, "get_project", project_key=project)
        person = rng.choice([m for m in detail["members"] if m["role"] == "member"])
        component = rng.choice(detail["components"])["name"]
        summary = f"{component}: {rng.choice(SYMPTOMS)}"
        priority = rng.choice(("highest", "high", "medium"))
        points = rng.choice((1, 2, 3, 5, 8))
        label = rng.choice(("regression", "customer-reported", "performance"))
        user = [
            f"File a bug in {project}: \"{summary}\". Priority {priority}, component {component}, {points} story points, "
            f"label {label}, assigned to {person['name']}. What's the new issue key?",
            f"Please open a {project} bug titled \"{summary}\" for {person['name']} — {priority} priority, {points} points, "
            f"component {component}, labelled {label}. Tell me its key.",
            f"New bug for {project}, summary \"{summary}\": assign {person['name']}, priority {priority}, estimate {points}, "
            f"component {component}, label {label}. Which key did it get?",
        ]
        return Draft(family=self.name, key=f"{project}|{summary}|{person['id']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_users", "arguments": {"query": person["name"], "project_key": project}},
            {"id": "c2", "tool": "create_issue", "arguments": {
                "project_key": project, "type": "bug", "summary": summary, "priority": priority, "story_points": points,
                "components": [component], "labels": [label]}, "bind": {"assignee_id": "{c1.users.0.id}"}},
        ], "facts": [{"name": "new issue", "expr": "{c2.key}", "value": None}]}], checks=["{c1.total} == 1"])


class StartWork(Family):
    """Take an open issue: assign it to yourself and start progress."""

    name = "projects.start-work"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        me = _read(view, "get_myself")["id"]
        issue = _random_issue(view, rng, project_key=rng.choice(("SUP", "OPS", *SCRUM)), status=["To Do"],
                              type=["story", "task", "bug"])
        if issue is None or (issue["assignee"] or {}).get("id") == me:
            return None
        key = issue["key"]
        user = [
            f"I'm picking up {key}: assign it to me and move it to In Progress.",
            f"Please put {key} on me and start progress on it.",
            f"Take {key} for me — I'm the assignee from now on — and set it In Progress.",
        ]
        return Draft(family=self.name, key=f"issue:{key}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_myself"},
            {"id": "c2", "tool": "assign_issue", "arguments": {"issue_key": key}, "bind": {"assignee_id": "{c1.id}"}},
            {"id": "c3", "tool": "transition_issue", "arguments": {"status": "In Progress"}, "bind": {"issue_key": "{c2.key}"}},
        ], "facts": []}])


class FinishReview(Family):
    """An issue in review passed: mark it Done with a comment."""

    name = "projects.finish-review"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issue = _random_issue(view, rng, status=["In Review"])
        if issue is None:
            return None
        detail = _read(view, "get_issue", issue_key=issue["key"])
        blocked = [x for x in detail["links"] if x["relation"] == "is blocked by" and x["issue"]["status"] not in ("Done", "Won't Do")]
        open_children = [c for c in detail["children"] if c["status"] not in ("Done", "Won't Do")]
        if blocked or open_children:
            return None
        key = issue["key"]
        note = rng.choice(("Reviewed and merged.", "Review passed, deployed to staging.", "Approved in code review."))
        user = [
            f"The review of {key} passed. Mark it Done and add the comment \"{note}\".",
            f"{key} is approved — please move it to Done with a comment saying \"{note}\"",
            f"Close out {key} as Done; leave the comment \"{note}\" on it.",
        ]
        return Draft(family=self.name, key=f"issue:{key}|{note}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "transition_issue", "arguments": {"issue_key": key, "status": "Done", "comment": note}},
        ], "facts": []}])


class LinkBlocker(Family):
    """Record that one open issue is blocked by another (possibly in another project)."""

    name = "projects.link-blocker"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        a = _random_issue(view, rng, project_key=rng.choice(SCRUM), resolved=False, type=["story", "task", "bug"])
        b = _random_issue(view, rng, project_key=rng.choice(("API", "DATA", "OPS")), resolved=False, type=["story", "task", "bug"])
        if a is None or b is None or a["key"] == b["key"]:
            return None
        linked = {x["issue"]["key"] for x in _read(view, "get_issue", issue_key=a["key"])["links"]}
        if b["key"] in linked:
            return None
        user = [
            f"{a['key']} can't be finished until {b['key']} is done. Please record that dependency in Jira.",
            f"Link {a['key']} as blocked by {b['key']}.",
            f"Mark that {b['key']} blocks {a['key']}.",
        ]
        return Draft(family=self.name, key=f"{a['key']}|{b['key']}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "link_issues", "arguments": {"issue_key": a["key"], "link_type": "is blocked by",
                                                              "other_issue_key": b["key"]}},
        ], "facts": []}])


class TriageUpdate(Family):
    """Raise an open support issue's priority, add a label (keeping the others), and comment."""

    name = "projects.triage-update"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issue = _random_issue(view, rng, project_key=rng.choice(("SUP", "OPS")), resolved=False)
        if issue is None or issue["priority"] == "highest":
            return None
        label = rng.choice(("regression", "escalated", "security"))
        if label in issue["labels"]:
            return None
        key = issue["key"]
        note = rng.choice(("Customer escalated again today.", "Raising priority after the incident review.",
                           "Seen by three more accounts this week."))
        labels = sorted({*issue["labels"], label})
        user = [
            f"Raise {key} to highest priority, add the label {label} (keep its other labels), and comment: \"{note}\"",
            f"Please bump {key} to the highest priority, tag it {label} in addition to its current labels, and add the comment \"{note}\"",
            f"Triage {key}: priority highest, extra label {label}, and a comment saying \"{note}\"",
        ]
        return Draft(family=self.name, key=f"issue:{key}|{label}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_issue", "arguments": {"issue_key": key}},
            {"id": "c2", "tool": "update_issue", "arguments": {"priority": "highest", "labels": labels},
             "bind": {"issue_key": "{c1.key}"}},
            {"id": "c3", "tool": "add_comment", "arguments": {"body": note}, "bind": {"issue_key": "{c2.key}"}},
        ], "facts": []}])


class CreateSprint(Family):
    """Create the next sprint of a project you lead, with a goal and planned dates."""

    name = "projects.create-sprint"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(_led_projects(view))
        if project["type"] != "scrum":
            return None
        goal = rng.choice(SPRINT_GOALS)
        start = (view.now + timedelta(days=rng.randint(14, 40))).date()
        end = start + timedelta(days=rng.choice((14, 21)))
        key = project["key"]
        user = [
            f"Create a new {key} sprint with the goal \"{goal}\", planned from {start} 09:00 to {end} 09:00 UTC. What is it called?",
            f"Add a future sprint to {key}: goal \"{goal}\", start {start} 09:00 UTC, end {end} 09:00 UTC. Tell me its name.",
            f"Set up another {key} sprint (goal: \"{goal}\") running {start} to {end}, 09:00 UTC both days, and give me its name.",
        ]
        return Draft(family=self.name, key=f"{key}|{goal}|{start}|{end}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "create_sprint", "arguments": {"project_key": key, "goal": goal,
                                                                "start_at": f"{start}T09:00:00Z", "end_at": f"{end}T09:00:00Z"}},
        ], "facts": [{"name": "sprint name", "expr": "{c1.name}", "value": None}]}])


class StartNextSprint(Family):
    """Start the planned next sprint of a project you lead that has no active sprint."""

    name = "projects.start-next-sprint"
    servers = (SERVER,)
    kind = "write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(_led_projects(view))
        if project["type"] != "scrum" or _sprints(view, project["key"], "active"):
            return None
        future = _sprints(view, project["key"], "future")
        if not future or not future[-1]["issue_count"]:
            return None
        key = project["key"]
        goal = rng.choice(SPRINT_GOALS)
        end = (view.now + timedelta(days=rng.randint(10, 16))).date()
        user = [
            f"Start the next {key} sprint now with the goal \"{goal}\", ending {end} at 17:00 UTC. How many issues and story points does it commit to?",
            f"Kick off {key}'s upcoming sprint: goal \"{goal}\", end date {end} 17:00 UTC. Report its issue count and total points.",
            f"Please begin the planned {key} sprint (goal \"{goal}\"), to end on {end} at 17:00 UTC, and tell me how many issues and points it starts with.",
        ]
        return Draft(family=self.name, key=f"{key}|{goal}|{end}", writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "list_sprints", "arguments": {"project_key": key, "state": ["future"]}},
            {"id": "c2", "tool": "start_sprint", "arguments": {"goal": goal, "end_at": f"{end}T17:00:00Z"},
             "bind": {"sprint_id": "{c1.sprints.-1.id}"}},
        ], "facts": [
            {"name": "issues committed", "expr": "{c2.issue_count}", "value": None},
            {"name": "story points committed", "expr": "{c2.story_points}", "value": None},
        ]}])


class WrapUpSprint(Family):
    """Close the active sprint of a project you lead; if work is unfinished, first move it to the next sprint."""

    name = "projects.wrap-up-sprint"
    servers = (SERVER,)
    kind = "conditional-write"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(_led_projects(view))
        active = _sprints(view, project["key"], "active") if project["type"] == "scrum" else []
        future = _sprints(view, project["key"], "future") if active else []
        if not active or not future:
            return None
        key = project["key"]
        unfinished = _read(view, "search_issues", sprint_id=active[0]["id"], resolved=False, per_page=100)["total"]
        if unfinished > 30:
            return None
        user = [
            f"Close the current {key} sprint. If anything in it is unfinished, move it to the next sprint first. How many issues did you move, and how many story points were completed?",
            f"Wrap up {key}'s active sprint: carry any unresolved issues over to the next sprint, then close it. Tell me how many were carried over and the completed points.",
            f"End the running {key} sprint — unresolved work goes to the following sprint — and report the number of issues moved and the story points completed.",
        ]
        calls: list[dict[str, Any]] = [
            {"id": "c1", "tool": "list_sprints", "arguments": {"project_key": key, "state": ["active"]}},
            {"id": "c2", "tool": "search_issues", "arguments": {"resolved": False, "per_page": 100},
             "bind": {"sprint_id": "{c1.sprints.0.id}"}},
        ]
        if unfinished:
            calls += [
                {"id": "c3", "tool": "list_sprints", "arguments": {"project_key": key, "state": ["future"]}},
                {"id": "c4", "tool": "move_issues_to_sprint", "bind": {"issue_keys": _keys_list("c2", unfinished),
                                                                       "sprint_id": "{c3.sprints.-1.id}"}},
            ]
        source = "{c4.from_sprints.0.id}" if unfinished else "{c1.sprints.0.id}"  # closing waits for the move
        calls.append({"id": "c5", "tool": "close_sprint", "bind": {"sprint_id": source}})
        return Draft(family=self.name, key=f"{key}|wrap-up", writes=True, turns=[{"user": user, "calls": calls, "facts": [
            {"name": "issues moved", "expr": "{c2.total}", "value": None},
            {"name": "completed story points", "expr": "{c5.completed_points}", "value": None},
        ]}], checks=[f"{{c2.total}} == {unfinished}"])


# ---------------------------------------------------------------- policy: the right outcome is a refusal


class BlockedResolution(Family):
    """Asked to mark an issue Done while an unresolved issue blocks it: refuse, name the blocker."""

    name = "projects.blocked-resolution"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issue = _random_issue(view, rng, status=["In Review", "In Progress", "Blocked"])
        if issue is None:
            return None
        detail = _read(view, "get_issue", issue_key=issue["key"])
        blockers = [i for i, x in enumerate(detail["links"])
                    if x["relation"] == "is blocked by" and x["issue"]["status"] not in ("Done", "Won't Do")]
        if len(blockers) != 1:
            return None
        k, key = blockers[0], issue["key"]
        user = [
            f"Mark {key} as Done. If something stops that, tell me which issue is in the way and its status.",
            f"Please resolve {key} as Done — and if you can't, which issue is blocking it and what state is that in?",
            f"Set {key} to Done; if that's not allowed, name the blocking issue and its current status.",
        ]
        return Draft(family=self.name, key=f"issue:{key}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_issue", "arguments": {"issue_key": key}},
        ], "facts": [
            {"name": "blocking issue", "expr": f"{{c1.links.{k}.issue.key}}", "value": None},
            {"name": "its status", "expr": f"{{c1.links.{k}.issue.status}}", "value": None},
        ]}], checks=[f"{{c1.links.{k}.relation}} == 'is blocked by'"])


class WorkflowRefusal(Family):
    """Asked to jump an issue to a status its workflow does not allow next: refuse, list the allowed ones."""

    name = "projects.workflow-refusal"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(("SUP", "OPS", *SCRUM))
        issue = _random_issue(view, rng, project_key=project, status=["To Do"], type=["story", "task", "bug"])
        if issue is None:
            return None
        target = "In Review" if project in ("SUP", "OPS") and rng.random() < 0.5 else "Done"
        key = issue["key"]
        user = [
            f"Move {key} straight to {target}. If the workflow doesn't allow that, tell me which statuses it can go to next.",
            f"Set {key} to {target} right away — or, if that's not a valid move, list the statuses it may move to now.",
            f"Please change {key}'s status to {target}; if the project's workflow forbids it, what are the allowed next statuses?",
        ]
        return Draft(family=self.name, key=f"issue:{key}|{target}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_workflow", "arguments": {"issue_key": key}},
        ], "facts": [{"name": "allowed next statuses", "expr": "{c1.allowed_next}", "value": None}]}])


class CloseSprintRefusal(Family):
    """Asked to close a sprint as it is: refused when it holds unresolved work (how many) or when
    you do not lead the project (who does)."""

    name = "projects.close-sprint-refusal"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        led = {p["key"] for p in _led_projects(view)}
        project = rng.choice(SCRUM)
        active = _sprints(view, project, "active")
        if not active:
            return None
        if project in led:
            if not _read(view, "search_issues", sprint_id=active[0]["id"], resolved=False)["total"]:
                return None
            user = [
                f"Close the current {project} sprint as it is — don't move anything out of it. If that isn't allowed, tell me how many unresolved issues are holding it up.",
                f"I want the active {project} sprint closed right now, without touching its issues. If it can't be closed, how many unresolved issues are in it?",
                f"Close {project}'s running sprint without moving any issues; if you can't, report the number of unresolved issues blocking the close.",
            ]
            calls = [
                {"id": "c1", "tool": "list_sprints", "arguments": {"project_key": project, "state": ["active"]}},
                {"id": "c2", "tool": "search_issues", "arguments": {"resolved": False, "per_page": 1},
                 "bind": {"sprint_id": "{c1.sprints.0.id}"}},
            ]
            facts = [{"name": "unresolved issues in the sprint", "expr": "{c2.total}", "value": None}]
        else:
            user = [
                f"Close the current {project} sprint. If you're not allowed to, tell me who can.",
                f"Please close {project}'s active sprint — or, if that's not permitted for me, who is able to?",
                f"End the running {project} sprint; if I lack the rights, name the person who has them.",
            ]
            calls = [{"id": "c1", "tool": "get_project", "arguments": {"project_key": project}}]
            facts = [{"name": "who can close it", "expr": "{c1.lead.name}", "value": None}]
        return Draft(family=self.name, key=f"{project}|close", turns=[{"user": user, "calls": calls, "facts": facts}])


class EstimateRefusal(Family):
    """Asked for a story-point estimate off the Fibonacci scale: refuse and say the current estimate."""

    name = "projects.estimate-refusal"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issue = _random_issue(view, rng, project_key=rng.choice(SCRUM), resolved=False, type=["story", "task", "bug"])
        if issue is None or issue["story_points"] is None:
            return None
        points, key = rng.choice(NOT_FIBONACCI), issue["key"]
        user = [
            f"Set the estimate of {key} to {points} story points. If that's not possible, what's its estimate now?",
            f"Change {key} to {points} points — or, if the team's scale doesn't allow it, tell me its current estimate.",
            f"Please re-estimate {key} at {points} story points; if you can't, just give me the current points.",
        ]
        return Draft(family=self.name, key=f"issue:{key}|{points}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "get_issue", "arguments": {"issue_key": key}},
        ], "facts": [{"name": "current estimate", "expr": "{c1.story_points}", "value": None}]}])


class AssignOutsider(Family):
    """Asked to assign an issue to someone outside its project: refuse and name the project lead."""

    name = "projects.assign-outsider"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(("SUP", "OPS", *SCRUM))
        members = {m["id"] for m in _read(view, "get_project", project_key=project)["members"]}
        outsiders = [u for u in _read(view, "search_users", per_page=100)["users"] if u["id"] not in members]
        issue = _random_issue(view, rng, project_key=project, resolved=False)
        if not outsiders or issue is None:
            return None
        person, key = rng.choice(outsiders), issue["key"]
        user = [
            f"Assign {key} to {person['name']}. If that's not allowed, tell me who leads the project.",
            f"Please hand {key} over to {person['name']}; if they can't take it, who is the {project} project lead?",
            f"Make {person['name']} the assignee of {key} — or, if the rules prevent it, name the lead of {project}.",
        ]
        return Draft(family=self.name, key=f"issue:{key}|{person['id']}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_users", "arguments": {"query": person["name"], "project_key": project}},
            {"id": "c2", "tool": "get_project", "arguments": {"project_key": project}},
        ], "facts": [{"name": "project lead", "expr": "{c2.lead.name}", "value": None}]}], checks=["{c1.total} == 0"])


class DuplicateEscalation(Family):
    """Asked to escalate a help-desk ticket that is already tracked: refuse, give the existing issue."""

    name = "projects.duplicate-escalation"
    servers = (SERVER,)
    kind = "policy"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issue = _random_issue(view, rng, project_key="SUP", type=["bug"])
        if issue is None or issue["support_ticket_id"] is None:
            return None
        ticket = issue["support_ticket_id"]
        user = [
            f"Escalate help-desk ticket #{ticket} to engineering as a new SUP bug. If it's already tracked, give me that issue's key and status instead.",
            f"Please create a SUP bug for Zendesk ticket {ticket} — unless one exists already, in which case tell me its key and where it stands.",
            f"Ticket #{ticket} needs an engineering bug in SUP. If there's one already, report its key and status rather than filing another.",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket}", turns=[{"user": user, "calls": [
            {"id": "c1", "tool": "search_issues", "arguments": {"support_ticket_id": ticket}},
        ], "facts": [
            {"name": "existing issue", "expr": "{c1.issues.0.key}", "value": None},
            {"name": "status", "expr": "{c1.issues.0.status}", "value": None},
        ]}], checks=["{c1.total} == 1"])


# ---------------------------------------------------------------- two turns


class ReassignFollowUp(Family):
    """Two turns: who owns an issue and its status; then reassign it to a teammate with a comment."""

    name = "projects.reassign-follow-up"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        project = rng.choice(("SUP", "OPS", *SCRUM))
        issue = _random_issue(view, rng, project_key=project, resolved=False, type=["story", "task", "bug"])
        if issue is None or issue["assignee"] is None:
            return None
        members = [m for m in _read(view, "get_project", project_key=project)["members"]
                   if m["id"] != issue["assignee"]["id"] and m["role"] == "member"]
        if not members:
            return None
        person, key = rng.choice(members), issue["key"]
        first_name = issue["assignee"]["name"].split()[0]
        note = f"Reassigning to {person['name']} while {first_name} is out."
        first = [
            f"Who is working on {key}, and what's its status?",
            f"Who owns {key} at the moment, and where is it in the workflow?",
        ]
        second = [
            f"Please reassign it to {person['name']} and add the comment \"{note}\"",
            f"Hand it over to {person['name']}, with a comment saying \"{note}\"",
        ]
        return Draft(family=self.name, key=f"issue:{key}|{person['id']}", writes=True, turns=[
            {"user": first, "calls": [{"id": "c1", "tool": "get_issue", "arguments": {"issue_key": key}}], "facts": [
                {"name": "assignee", "expr": "{c1.assignee.name}", "value": None},
                {"name": "status", "expr": "{c1.status}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "search_users", "arguments": {"query": person["name"], "project_key": project}},
                {"id": "c3", "tool": "assign_issue", "arguments": {"issue_key": key}, "bind": {"assignee_id": "{c2.users.0.id}"}},
                {"id": "c4", "tool": "add_comment", "arguments": {"body": note}, "bind": {"issue_key": "{c3.key}"}},
            ], "facts": []},
        ], checks=["{c2.total} == 1"])


class SprintCheckThenClose(Family):
    """Two turns: how the ended sprint of a project you lead went; then close it."""

    name = "projects.sprint-check-then-close"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        for project in _led_projects(view):
            active = _sprints(view, project["key"], "active") if project["type"] == "scrum" else []
            if active and not _read(view, "search_issues", sprint_id=active[0]["id"], resolved=False)["total"]:
                break
        else:
            return None
        key = project["key"]
        first = [
            f"How did the current {key} sprint go? Give me committed versus completed story points.",
            f"For the active {key} sprint, how many story points were committed and how many are completed?",
        ]
        second = [
            "Everything's resolved, so go ahead and close that sprint.",
            "Good. Please close it now.",
        ]
        return Draft(family=self.name, key=f"{key}|check-close", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "list_sprints", "arguments": {"project_key": key, "state": ["active"]}},
                {"id": "c2", "tool": "sprint_report", "bind": {"sprint_id": "{c1.sprints.0.id}"}},
            ], "facts": [
                {"name": "committed points", "expr": "{c2.committed_points}", "value": None},
                {"name": "completed points", "expr": "{c2.completed_points}", "value": None},
            ]},
            {"user": second, "calls": [{"id": "c3", "tool": "close_sprint", "bind": {"sprint_id": "{c1.sprints.0.id}"}}],
             "facts": []},
        ])


class ResolverThenReopen(Family):
    """Two turns: who resolved an issue and when; then reopen it with a comment."""

    name = "projects.resolver-then-reopen"
    servers = (SERVER,)
    kind = "multi-turn"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issue = _random_issue(view, rng, project_key=rng.choice(("SUP", "OPS", *SCRUM)), status=["Done"],
                              type=["story", "task", "bug"])
        if issue is None:
            return None
        key = issue["key"]
        changes = _read(view, "get_issue_history", issue_key=key, field="status")["changes"]
        if not changes or changes[-1]["to_value"] != "Done":
            return None
        note = rng.choice(("Reopening: the problem is back in production.", "Reopened after a customer report."))
        first = [
            f"Who marked {key} as Done, and when?",
            f"When was {key} resolved as Done, and by whom?",
        ]
        second = [
            f"It has come back. Reopen it with the comment \"{note}\"",
            f"Please reopen that issue and comment \"{note}\"",
        ]
        return Draft(family=self.name, key=f"issue:{key}", writes=True, turns=[
            {"user": first, "calls": [
                {"id": "c1", "tool": "get_issue_history", "arguments": {"issue_key": key, "field": "status"}},
            ], "facts": [
                {"name": "resolved by", "expr": "{c1.changes.-1.author.name}", "value": None},
                {"name": "resolved at", "expr": "{c1.changes.-1.created_at}", "value": None},
            ]},
            {"user": second, "calls": [
                {"id": "c2", "tool": "transition_issue", "arguments": {"issue_key": key, "status": "To Do", "comment": note}},
            ], "facts": []},
        ], checks=["{c1.changes.-1.to_value} == 'Done'"])


# ---------------------------------------------------------------- with the help desk


class TicketIssueStatus(Family):
    """The engineering issue behind a help-desk ticket the user quotes: which customer filed the
    ticket, and the issue's key, status and assignee."""

    name = "cross.projects-ticket-issue"
    servers = ("zendesk", SERVER)
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        issue = _random_issue(view, rng, project_key="SUP", type=["bug"])
        if issue is None or issue["support_ticket_id"] is None or issue["assignee"] is None:
            return None
        ticket = issue["support_ticket_id"]
        if view.lookup("zendesk", "get_ticket", ticket_id=ticket) is None:
            raise SamplingError(f"ticket {ticket} is missing from the help desk")
        user = [
            f"A customer is chasing ticket #{ticket}. Which company filed it, and what's the status of the engineering issue behind it — key, status and assignee?",
            f"For help-desk ticket {ticket}: the customer's organization, plus the linked Jira issue's key, status and owner.",
            f"Ticket #{ticket}: who is the customer company, and where does the engineering bug for it stand (key, status, assignee)?",
        ]
        return Draft(family=self.name, key=f"ticket:{ticket}", known=["ticket_id"], turns=[{"user": user, "calls": [
            {"id": "c1", "server": "zendesk", "tool": "get_ticket", "arguments": {"ticket_id": ticket}},
            {"id": "c2", "server": "zendesk", "tool": "get_organization", "bind": {"organization_id": "{c1.organization_id}"}},
            {"id": "c3", "server": SERVER, "tool": "search_issues", "bind": {"support_ticket_id": "{c1.id}"}},
        ], "facts": [
            {"name": "customer", "expr": "{c2.name}", "value": None},
            {"name": "issue", "expr": "{c3.issues.0.key}", "value": None},
            {"name": "status", "expr": "{c3.issues.0.status}", "value": None},
            {"name": "assignee", "expr": "{c3.issues.0.assignee.name}", "value": None},
        ]}], checks=["{c3.total} == 1"])


class EscalateTicket(Family):
    """Escalate an open problem or incident ticket that no issue tracks yet: a SUP bug with its
    subject, referencing it, and an internal note on the ticket naming the new issue."""

    name = "cross.projects-escalate-ticket"
    servers = ("zendesk", SERVER)
    kind = "cross-server"

    def draft(self, view: WorldView, rng: random.Random) -> Draft | None:
        kind = rng.choice(("incident", "problem"))
        page = view.read("zendesk", "search_tickets", type=kind, status=["open", "pending", "hold"], per_page=50)
        if not page["tickets"]:
            return None
        ticket = rng.choice(page["tickets"])
        if _read(view, "search_issues", support_ticket_id=ticket["id"])["total"]:
            return None
        number, priority = ticket["id"], TICKET_PRIORITY[ticket["priority"]]
        note = "Escalated to engineering as "
        user = [
            f"Ticket #{number} needs engineering. File a SUP bug with the ticket's subject as its summary, {priority} priority, "
            f"label customer-reported, linked to the ticket; then add an internal note on the ticket: \"{note}<issue key>\". Which key did the bug get?",
            f"Escalate help-desk ticket {number} to a SUP bug (summary = ticket subject, priority {priority}, label customer-reported, "
            f"referencing the ticket), and leave the private note \"{note}<issue key>\" on the ticket. What's the new issue key?",
        ]
        return Draft(family=self.name, key=f"ticket:{number}", known=["ticket_id"], writes=True, turns=[{"user": user, "calls": [
            {"id": "c1", "server": "zendesk", "tool": "get_ticket", "arguments": {"ticket_id": number}},
            {"id": "c2", "server": SERVER, "tool": "search_issues", "bind": {"support_ticket_id": "{c1.id}"}},
            {"id": "c3", "server": SERVER, "tool": "create_issue", "arguments": {
                "project_key": "SUP", "type": "bug", "priority": priority, "labels": ["customer-reported"]},
             "bind": {"summary": "{c1.subject}", "support_ticket_id": "{c1.id}"}},
            {"id": "c4", "server": "zendesk", "tool": "add_comment", "arguments": {"public": False},
             "bind": {"ticket_id": "{c1.id}", "body": f"\"{note}\" + {{c3.key}}"}},
        ], "facts": [{"name": "new issue", "expr": "{c3.key}", "value": None}]}], checks=["{c2.total} == 0"])


PROJECTS_FAMILIES = (
    IssueLookup(),
    ReviewHistory(),
    LatestComment(),
    PersonOpenIssues(),
    MyOpenIssues(),
    UserWorkloadByEmail(),
    SprintReportFamily(),
    VelocityTrend(),
    BusiestAssignee(),
    ProjectOverview(),
    PlanBacklog(),
    FileBug(),
    StartWork(),
    FinishReview(),
    LinkBlocker(),
    TriageUpdate(),
    CreateSprint(),
    StartNextSprint(),
    WrapUpSprint(),
    BlockedResolution(),
    WorkflowRefusal(),
    CloseSprintRefusal(),
    EstimateRefusal(),
    AssignOutsider(),
    DuplicateEscalation(),
    ReassignFollowUp(),
    SprintCheckThenClose(),
    ResolverThenReopen(),
    TicketIssueStatus(),
    EscalateTicket(),
)
