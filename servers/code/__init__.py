"""Code: a GitHub-like code host of Northwind Systems: repositories, branches, commits, pull
requests with reviews and checks, issues, releases and collaborators. Pull requests resolve
the issue tracker's (projects server's) issues."""

from mcpgym.servers.code.models import Base
from mcpgym.servers.code.seed import populate
from mcpgym.servers.code.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="code",
    title="GitHub-like code host",
    instructions=(
        "You work on the code host (like GitHub) of Northwind Systems as user 1, the head of engineering; "
        "list_repositories names you as its viewer and shows your permission on each repository. Repositories have "
        "names (web-app); pull requests and issues share one number series per repository (#42); commits have shas "
        "(the first 7 hex digits are enough); users have integer ids and logins (list_collaborators finds them by "
        "name, get_user_by_email by email). A pull request resolving an issue-tracker issue carries its key "
        "(WEB-42) in issue_key and at the start of its title. Writes act as you. Times are UTC, ISO 8601.\n"
        "Policy (the tools refuse anything else, and change nothing):\n"
        "- Permissions rise read < triage < write < maintain < admin. Read lets you file issues, comment and review; "
        "triage also labels and assigns issues, requests reviews, and closes or reopens issues and pull requests; "
        "write also pushes, creates and deletes branches, opens and merges pull requests and publishes releases; "
        "only admins change anyone's permission, and a repository keeps at least one admin.\n"
        "- A pull request merges only when it is open and not a draft, has the repository's required approvals "
        "from reviewers other than its author (each reviewer's latest approval or change request counts; one "
        "requesting changes blocks the merge), and every required check succeeded on its head commit; it merges "
        "only by a method the repository allows (get_repository lists the rules).\n"
        "- Protected branches take no direct pushes (change them through a pull request) and cannot be deleted; "
        "neither can the default branch, nor a branch an open pull request comes from or merges into.\n"
        "- Authors cannot approve or request changes on their own pull requests; drafts are only commented on. "
        "Reviewers asked for need write permission.\n"
        "- A merged pull request can be neither closed nor reopened; a closed one reopens only while its branches "
        "exist.\n"
        "- Issues are assigned only to collaborators; labels must exist in the repository; release tags are never "
        "reused."
    ),
    base=Base,
    populate=populate,
    tools=tools,
    links=("projects",),
)

__all__ = ["SERVER"]
