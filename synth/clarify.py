"""Clarification variants: a task whose first request leaves out one value the user must give.

`withhold` takes a completed task and removes from its first request one grounded value: a
literal argument of a first-turn ground-truth call (an order number, an issue key, an email,
a person's or company's name) written verbatim, once, in the request. The request names the
thing vaguely instead ("order #1897" -> "an order", "WEB-214" -> "one of our issues") and is
marked `missing`; a new second turn gives the value ("It's order #1897.") and holds the first
turn's calls and facts. The ground truth is unchanged, so the variant completes and verifies
as the original does.

Which arguments qualify, how the thing is named and what the user is asked for come from
`kind_of` (argument name and tool: ids, numbers and keys, emails, handles, names of people,
companies, channels, repositories, pages, projects, tasks). Values written more than once,
given as a name (`called "..."`), or beside another way to tell the thing (`our contact Ann
Lee (ann@x.com)`, `ticket 97 (login fails)`) never qualify; a person's own email beside
their name when they introduce themselves (`I'm Ann Lee (ann@x.com).`) does, as their
account is found by email. Over the shipped synthesized tasks about two in three yield a
variant; the others ask for aggregates and name nothing to withhold.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcpgym.tasks.model import Task

MAX_VALUE_CHARS = 120
"""Longer values (messages, descriptions) are never withheld."""
MAX_REQUEST_CHARS = 8000
"""Longer requests are left as they are (the rewriting scans the text before the value)."""

DETERMINERS = ("the", "this", "that", "a", "an", "my", "our", "your", "their", "his", "her")
POSSESSIVES = ("my", "our", "your", "their", "his", "her")
MODIFIERS = frozenset({"help-desk", "travel", "known-issue", "shared", "draft", "open", "approved", "hotel",
                       "expense", "airline", "flight", "support", "wiki", "pending", "unpaid", "paid"})
HYPHENATED = re.compile(r"[a-z]+(?:-[a-z]+)+")
LEADING_WORDS = re.compile(
    r"(?:^|(?<=\s))(?:(?P<det>" + "|".join(DETERMINERS) + r")\s+)?(?P<mods>(?:(?:"
    + "|".join(sorted(MODIFIERS)) + r"|own|[a-z]+(?:-[a-z]+)+)\s+)*)$", re.IGNORECASE)
EMAIL_LABEL = re.compile(r"(?:[,;]\s*(?:my\s+)?|\bmy\s+)e-?mail(?:\s+address)?(?:\s+is)?\s+$", re.IGNORECASE)
FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|(?i:my|mine))\b")
QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}
SENTENCE_END = re.compile(r"(?:^|[.!?:]\s+|\n\s*)$")
SELF_INTRODUCTION = re.compile(
    r"\b(?:I'm|I am|[Tt]his is)\s+(?:[A-Z][\w'.-]*\s+){0,3}[A-Z][\w'.-]*\s+\($"
    r"|(?:^|[.!?]\s+)(?:[A-Z][\w'.-]*\s+){0,3}[A-Z][\w'.-]*\s+here\s+\($")
NAMING = re.compile(r"\b(?:called|named|titled|entitled)\s*$", re.IGNORECASE)
OPENERS = ("It's {}.", "Sorry, it's {}.", "Oh, right: {}.")


@dataclass(frozen=True)
class Kind:
    """How a withheld argument is spoken of.

    `noun`/`plural`: the thing it identifies ("order", "orders"); `nouns`: words that may
    stand next to the value in a request ("order", "booking"); `missing`: what the user is
    asked for ("order number"); `person`: the value names a person, spoken of as `someone`
    (`noun` is then the whole phrase, e.g. "a customer"); `reply`: how the user gives it,
    `{value}` being the value as written in the request (default: "order #1897", or "the
    'Q4 Planning' project" for a name)."""

    noun: str
    plural: str
    missing: str
    nouns: tuple[str, ...] = ()
    person: bool = False
    reply: str = ""


def _thing(noun: str, missing: str, *nouns: str, plural: str | None = None, reply: str = "") -> Kind:
    return Kind(noun, plural or noun + "s", missing, (noun, *nouns), reply=reply)


def _someone(phrase: str, missing: str, *nouns: str, reply: str = "{value}") -> Kind:
    return Kind(phrase, phrase, missing, nouns, person=True, reply=reply)


PERSON_NOUNS = ("colleague", "contact", "customer", "lead", "guest", "user", "employee", "passenger", "agent")
EMAIL_HOLDERS = {
    "customer": "a customer", "passenger": "a passenger", "guest": "a guest", "recipient": "a customer",
    "contact": "a contact", "investor": "someone",
}
NAME_SEARCHES = {
    "search_people": "someone", "search_users": "someone", "list_users": "someone",
    "search_employees": "someone", "list_employees": "someone", "list_collaborators": "someone",
    "search_contacts": "a contact", "list_contacts": "a contact", "search_leads": "a lead",
    "search_guests": "a guest",
}
COMPANY_SEARCHES = frozenset({"search_accounts", "search_organizations", "search_subscriptions"})
COMPANY_ARGUMENTS = frozenset({("meeting_stats", "organization"), ("list_events", "organization"),
                               ("list_contacts", "organization")})
TITLE_SEARCHES = {
    "search_tickets": _thing("ticket", "ticket subject"),
    "list_projects": _thing("project", "project name"),
    "search_tasks": _thing("task", "task name", "to-do"),
    "search_reports": _thing("expense report", "report title", "report"),
    "list_calendars": _thing("calendar", "calendar name"),
    "search_pages": _thing("page", "page title", "wiki page", "article", "wiki article", "guide"),
    "search_opportunities": _thing("deal", "deal name", "opportunity"),
}
FIXED = {
    "ticket_id": _thing("ticket", "ticket number", "Zendesk ticket", "support ticket"),
    "support_ticket_id": _thing("ticket", "ticket number", "Zendesk ticket", "support ticket"),
    "order_number": _thing("order", "order number"),
    "return_number": _thing("return", "return number", "exchange"),
    "confirmation_number": _thing("booking", "booking confirmation number", "reservation"),
    "pnr": _thing("booking", "booking reference", "reservation"),
    "flight_pnr": _thing("booking", "booking reference", "reservation"),
    "tracking_number": _thing("package", "tracking number", "parcel", "tracking number"),
    "phone_number": _thing("line", "phone number", "phone line", "number", "phone", reply="{value}"),
    "issue_key": _thing("issue", "issue key", "Jira issue", "bug", "story"),
    "jira_issue_key": _thing("issue", "issue key", "Jira issue"),
    "other_issue_key": _thing("issue", "issue key", "Jira issue"),
    "sha": _thing("commit", "commit hash"),
    "sku": _thing("SKU", "SKU"),
    "repo": _thing("repository", "repository name", "repo", plural="repositories", reply="{value}"),
    "handle": _someone("someone", "account handle", "account", "handle"),
}


def kind_of(tool: str, argument: str, value: str = "") -> Kind | None:
    """How `value` of `argument` of `tool` is spoken of, or None if it is never withheld."""
    if argument in FIXED:
        return FIXED[argument]
    if argument == "reference" and "shipment" in tool:  # an order's shipment carries "#1879"
        return _thing("order", "order number", "shipment") if value.startswith("#") else _thing(
            "shipment", "shipment reference")
    if argument == "number":
        for word, noun in (("pull_request", "pull request"), ("review", "pull request"), ("report", "expense report"),
                           ("invoice", "invoice"), ("issue", "issue")):
            if word in tool:
                return _thing(noun, f"{noun} number", *(("report",) if noun == "expense report" else ()))
        return None
    if argument == "email" and not tool.startswith(("create_", "add_", "update_")) or argument.endswith("_email"):
        holder = next((phrase for word, phrase in EMAIL_HOLDERS.items() if word in tool or argument.startswith(word)),
                      "someone")
        return _someone(holder, "email address", *PERSON_NOUNS)
    if argument == "query" and tool in NAME_SEARCHES and "@" in value:
        return _someone(NAME_SEARCHES[tool], "email address", *PERSON_NOUNS)
    if argument == "query" and tool in NAME_SEARCHES:
        return _someone(NAME_SEARCHES[tool], "person's name", *PERSON_NOUNS)
    if argument == "query" and tool in COMPANY_SEARCHES or (tool, argument) in COMPANY_ARGUMENTS:
        if any(character.isdigit() for character in value):
            return _thing("account", "account number")
        return _thing("customer", "company name", "company", "organization", reply="{value}")
    if argument in ("query", "title") and tool in TITLE_SEARCHES:
        return TITLE_SEARCHES[tool]
    if argument == "name" and tool == "find_channel":
        return _thing("channel", "channel name", reply="{value}")
    if argument.endswith("_id") and argument != "id":
        noun = argument.removesuffix("_id").replace("_", " ")
        return _thing(noun, f"{noun} ID")
    return None


@dataclass(frozen=True)
class Withheld:
    """A rewritten request: its new text, what it lacks, and the user's reply giving it."""

    text: str
    missing: str
    reply: str


def candidates(task: Task) -> list[tuple[str, Kind]]:
    """The (value, kind) pairs of the first turn that could be withheld, in call order."""
    out: list[tuple[str, Kind]] = []
    seen: set[str] = set()
    for call in task.turns[0].calls:
        for argument, value in call.arguments.items():
            if argument in call.bind or isinstance(value, bool) or not isinstance(value, int | str):
                continue
            text = str(value)
            kind = kind_of(call.tool, argument, text)
            if kind is None or text in seen or not 2 <= len(text) <= MAX_VALUE_CHARS:
                continue
            seen.add(text)
            out.append((text, kind))
    return out


def rewrite(request: str, value: str, kind: Kind) -> Withheld | None:
    """`request` without `value`, the thing named vaguely; None when it cannot read well."""
    if len(request) > MAX_REQUEST_CHARS or request.count(value) != 1:
        return None
    start = request.index(value)
    end = start + len(value)
    if _glued(request, start, end):
        return None
    if start and end < len(request) and QUOTES.get(request[start - 1]) == request[end]:
        start, end = start - 1, end + 1
    elif start and request[start - 1] in "#@":
        start -= 1
        if start and (request[start - 1].isalnum() or request[start - 1] in "-_/"):
            return None
    shown = request[start:end]
    before, after = request[:start], request[end:]
    named = shown[:1] in QUOTES or " " in shown
    reply = kind.reply.format(noun=kind.noun, value=shown) if kind.reply else (
        f"the {shown} {kind.noun}" if named else f"{kind.noun} {shown}")
    if kind.missing == "email address" and SELF_INTRODUCTION.search(before) and after[:1] == ")":
        # "I'm Ann Lee (ann@x.com). ..." -> "I'm Ann Lee. ...": her account is found by email
        return _checked(before.rstrip()[:-1].rstrip() + after[1:], value, kind.missing, reply)
    if before.rstrip().endswith("(") or after.lstrip().startswith("(") or NAMING.search(before):
        return None  # an aside ("Ann Lee (ann@x.com)"), described ("ticket 97 (login fails)") or named
    if re.match(r",\s+(?:the|our|my|their|who|which)\b", after):
        return None  # described right after: "Ann Lee, the billing contact at ..."
    ours = "my" if FIRST_PERSON.search(request) else "our"
    if kind.missing == "email address":
        introduced = re.search(r"\b(?:I'm|I am|this is|It's)\s+$", before, re.IGNORECASE)
        if introduced:  # "I'm x@y.com. How many ..."
            if after[:1] not in ".,":
                return None
            return _checked(before[: introduced.start()] + after[1:].lstrip(), value, kind.missing, reply)
        labelled = EMAIL_LABEL.search(before)
        if labelled:  # "my portfolio, email x@y.com: ..." or "...; my email is x@y.com."
            rest = after[1:] if labelled.group(0).startswith(",") and after.startswith(",") else after
            return _checked(before[: labelled.start()] + rest, value, kind.missing, reply)
        if re.search(r"\b(?:e-?mail|address)\s+$", before, re.IGNORECASE):
            return None  # "the customer with the email x@y.com"
        if re.search(r"\w,\s+$", before) and after[:1] in ".,;:":  # "This is Ann Lee, ann@x.com."
            return _checked(before.rstrip()[:-1] + after, value, kind.missing, reply)
    if kind.person and re.search(r":\s+$", before) and after[:1] == ".":  # "at a conference: ann@x.com."
        return _checked(before.rstrip()[:-1] + after, value, kind.missing, reply)
    if re.search(r"\bending\s+$", before) or re.match(r"\s+(?:post|message|thread|conversation)s?\b", after):
        return None  # part of a value ("the card ending 7682") or qualifying a noun ("the final #general post")
    phrase_start = _noun_phrase_before(before, kind)
    if phrase_start is not None:
        written = _written_noun(before, kind)
        if not kind.reply and not named and not kind.person:
            reply = f"{written} {shown}"  # "It's reservation 3122876912."
        if before[:phrase_start].rstrip().endswith(","):  # an aside: "I'm Ann Lee (ann@x.com), booking ABC123."
            if after[:1] not in ".:;":
                return None
            return _checked(before[:phrase_start].rstrip()[:-1] + after, value, kind.missing, reply)
        return _checked(_name_before(before, phrase_start, kind, ours) + after, value, kind.missing, reply)
    following = re.match(rf"\s+(?:{_alternatives(kind)})\b", after, re.IGNORECASE)
    head, determiner = _split_determiner(before)
    if following and not kind.person:
        return _checked(_name_after(before, after, following.end(), kind, ours), value, kind.missing, reply)
    if determiner:
        return None
    return _checked(_join(head, _vague(kind, ours, after), after), value, kind.missing, reply)


def _glued(text: str, start: int, end: int) -> bool:
    """Whether the value is part of a longer word or number."""
    left = text[start - 1] if start else " "
    right = text[end] if end < len(text) else " "
    return bool(re.match(r"[\w\-/.]", left)) or bool(re.match(r"[\w\-/@#]", right)) or (
        right == "." and end + 1 < len(text) and text[end + 1].isalnum())


def _alternatives(kind: Kind) -> str:
    nouns = sorted(set(kind.nouns) | (set() if kind.person else {kind.noun}), key=len, reverse=True)
    return "|".join(re.escape(n) for n in nouns) or "(?!)"


def _written_noun(before: str, kind: Kind) -> str:
    """The noun of the kind written just before the value, as a reply repeats it."""
    found = re.search(rf"({_alternatives(kind)})\s+$", before, re.IGNORECASE)
    noun = found.group(1) if found else kind.noun
    return noun if noun in kind.nouns or noun == kind.noun else noun.lower()


def _noun_phrase_before(before: str, kind: Kind) -> int | None:
    """Where the noun phrase that the value ends starts ("the Meridian Air booking", "Jira
    issue", "my expense report"), determiner included; None when no noun of the kind is
    written just before the value."""
    found = re.search(rf"(?:^|(?<=\s))({_alternatives(kind)})\s+$", before, re.IGNORECASE)
    if found is None:
        return None
    start = found.start(1)
    while True:
        word = re.search(r"(\S+)\s+$", before[:start])
        if word is None:
            break
        text = word.group(1)
        sentence_start = bool(SENTENCE_END.search(before[: word.start(1)]))
        qualifier = (text[:1].isupper() and not sentence_start and not re.search(r"['\u2019]s$", text)
                     and text.lower() not in DETERMINERS) or text.lower() in MODIFIERS or bool(HYPHENATED.fullmatch(text))
        if qualifier or (text.lower() in {*MODIFIERS, *(n.lower() for n in kind.nouns)} and sentence_start):
            start = word.start(1)
            continue
        if text.lower() in DETERMINERS or re.search(r"['\u2019]s$", text):
            start = word.start(1)
        break
    return start


def _name_before(before: str, start: int, kind: Kind, ours: str) -> str:
    """The text before the value with its noun phrase made vague: "order #1897" -> "one of
    our orders", "Jira issue API-13" -> "a Jira issue", "my report" stays."""
    head, words = before[:start], before[start:].split()
    sentence_start = bool(SENTENCE_END.search(head))
    first = words[0].lower()
    if sentence_start and first in {*MODIFIERS, *(n.lower().split()[0] for n in kind.nouns), kind.noun.lower()}:
        words[0] = words[0][0].lower() + words[0][1:]
    if first in POSSESSIVES or re.search(r"['\u2019]s$", words[0]):
        phrase = " ".join(words)
    else:
        if first in DETERMINERS:
            words = words[1:]
        noun = " ".join(words)
        if len(words) == 1 or noun in kind.nouns and noun.islower():
            plural = kind.plural if noun.lower() == kind.noun.lower() else noun + "s"
            phrase = f"one of {ours} {plural}"
        else:
            phrase = f"{_article(noun)} {noun}"
    if sentence_start:
        phrase = phrase[0].upper() + phrase[1:]
    return head + phrase


def _name_after(before: str, after: str, noun_end: int, kind: Kind, ours: str) -> str:
    """The request with the value that stands before its noun made vague: 'my approved
    "X" expense report' -> "my approved expense report", 'the open "X" deal' -> "an open
    deal", "the api-server repository" -> "one of our repositories"."""
    found = LEADING_WORDS.search(before)
    assert found is not None  # the pattern matches the empty string at the end
    determiner, modifiers = (found.group("det") or "").lower(), found.group("mods").split()
    head, rest = before[: found.start()], after[noun_end:]
    if determiner in POSSESSIVES and modifiers:
        return before + after.lstrip()
    if determiner in POSSESSIVES:
        return _join(head, _vague(kind, determiner, rest), rest)
    if modifiers:
        phrase = " ".join([*modifiers, after[:noun_end].strip()])
        return _join(head, f"{_article(phrase)} {phrase}", rest)
    return _join(head, _vague(kind, ours, rest), rest)


def _split_determiner(before: str) -> tuple[str, str | None]:
    """(`before` without a trailing determiner, that determiner in lower case or None)."""
    found = re.search(r"(?:^|(?<=\s))(" + "|".join(DETERMINERS) + r")\s+$", before, re.IGNORECASE)
    if found is None:
        return before, None
    return before[: found.start(1)], found.group(1).lower()


def _vague(kind: Kind, ours: str, after: str) -> str:
    """The vague name of the thing: `someone`, `a customer`, `one of our orders`, or `an
    order` before a possessive."""
    if kind.person:
        return kind.noun
    if re.match(r"['\u2019]s\b", after):
        return f"{_article(kind.noun)} {kind.noun}"
    return f"one of {ours} {kind.plural}"


def _article(phrase: str) -> str:
    return "an" if phrase[:1].lower() in "aeio" else "a"


def _join(head: str, phrase: str, after: str) -> str:
    if SENTENCE_END.search(head):
        phrase = phrase[0].upper() + phrase[1:]
    return head + phrase + after


def _checked(text: str, value: str, missing: str, reply: str) -> Withheld | None:
    text = re.sub(r" {2,}", " ", re.sub(r"\s*\(\s*\)", "", text)).strip()
    if not text or value in text or value not in reply:
        return None
    return Withheld(text, missing, reply)


def withhold(task: Task, rng: random.Random) -> Task | None:
    """A clarification variant of a completed task (see the module docstring): one grounded
    value of its first request withheld, asked for in a new second turn; None when no value
    qualifies (or the first turn already lacks something or has no calls)."""
    first = task.turns[0]
    if first.missing or not first.calls:
        return None
    options = [found for value, kind in candidates(task) if (found := rewrite(first.user, value, kind)) is not None]
    if not options:
        return None
    found = rng.choice(options)
    data: dict[str, Any] = task.model_dump()
    opening = data["turns"][0]
    asked = {"user": found.text, "missing": [found.missing], "reveals": opening.pop("reveals", [])}
    opening["user"] = rng.choice(OPENERS).format(found.reply)
    data["turns"] = [asked, opening, *data["turns"][1:]]
    data["id"] = f"{task.id}-ask"
    data["tags"] = [*task.tags, "clarify"]
    return Task.model_validate(data)


def clarification_tasks(tasks: Sequence[Task], rng: random.Random, fraction: float,
                        keep_originals: bool = False) -> list[Task]:
    """`tasks` with a share `fraction` (0 to 1) of them replaced by their clarification
    variants (added after them with `keep_originals`), drawn by `rng` among the tasks that
    yield one; order is kept. Fewer are made when fewer tasks qualify."""
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be between 0 and 1, got {fraction}")
    wanted = round(fraction * len(tasks))
    order = list(range(len(tasks)))
    rng.shuffle(order)
    variants: dict[int, Task] = {}
    for index in order:
        if len(variants) >= wanted:
            break
        variant = withhold(tasks[index], rng)
        if variant is not None:
            variants[index] = variant
    out: list[Task] = []
    for index, task in enumerate(tasks):
        if index in variants:
            out.extend([task, variants[index]] if keep_originals else [variants[index]])
        else:
            out.append(task)
    return out
