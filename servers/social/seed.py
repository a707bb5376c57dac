"""The seeded network: fifteen months of posts, replies, quotes, likes, reposts and follows
among the world's people and companies, around Northwind Systems' brand account.

Most of the world's people have an account (their name, email and company unchanged), and so
do most companies (a brand account). Customers complain to and praise @NorthwindSys, which
answers many of them; its inbox holds direct messages with customers; a few accounts have
blocked it or been blocked by it. The last days carry event hashtags that trend.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from mcpgym.servers.kernel.world import Organization, Person, World
from mcpgym.servers.social import data
from mcpgym.servers.social.models import (
    ACTING_USER_ID,
    Base,
    Block,
    DirectMessage,
    Follow,
    Hashtag,
    Like,
    Mention,
    Mute,
    Notification,
    Post,
    Repost,
    User,
)
from mcpgym.servers.social.text import handle_stem, hashtags, mentioned_handles

HISTORY_DAYS = 450
PERSON_SHARE = 0.8
"""Share of the world's people with an account."""
BRAND_SHARE = 0.7
"""Share of the other companies with a brand account."""
ME = ACTING_USER_ID
NOTIFICATION_DAYS = 60
"""Notifications reach this many days back."""


@dataclass
class Account:
    row: dict[str, Any]
    activity: float
    org_id: str
    person: Person | None = None
    followers: list[int] = field(default_factory=list)


@dataclass
class Draft:
    author: int
    text: str
    created_at: datetime
    parent: Draft | None = None
    quoted: Draft | None = None
    kind: str = "post"
    deleted: bool = False
    edited_at: datetime | None = None
    id: int = 0


def _second(t: datetime) -> datetime:
    return t.replace(microsecond=0)


def _insert(db: Session, model: type[Base], rows: list[dict[str, Any]]) -> None:
    """Insert `rows` into `model`'s table in one executemany on the raw connection, each value
    stored as the ORM stores it (`kernel.sql.bind`)."""
    if not rows:
        return
    columns = [column.name for column in model.__table__.columns]  # type: ignore[attr-defined]
    sql = f"INSERT INTO {model.__tablename__} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    raw = db.connection().connection.driver_connection
    raw.executemany(sql, [[_stored(row.get(column)) for column in columns] for row in rows])  # type: ignore[union-attr]


def _stored(value: Any) -> Any:
    """A value as the ORM stores it: a datetime as `YYYY-MM-DD HH:MM:SS.ffffff` (the SQLite
    dialect's format, checked against `kernel.sql.bind` by the tests)."""
    return value.isoformat(" ", "microseconds") if type(value) is datetime else value


def populate(db: Session, world: World, rng: random.Random) -> None:
    """Fill an empty social database from the shared world."""
    now = world.now
    accounts = _accounts(world, rng)
    by_id = {a.row["id"]: a for a in accounts}
    follows = _follows(world, rng, accounts, now)
    for follower, followee, _ in follows:
        by_id[followee].followers.append(follower)
    blocks, mutes = _blocks_and_mutes(rng, accounts, follows, now)
    handles = {a.row["handle"].lower(): a.row["id"] for a in accounts}
    drafts = _posts(world, rng, accounts, now)
    drafts.sort(key=lambda d: (d.created_at, d.parent is not None, d.author, d.text))
    for index, draft in enumerate(drafts, start=1):
        draft.id = index
    likes, reposts = _engagement(rng, drafts, by_id, now)

    _insert(db, User, [a.row for a in accounts])
    _insert(db, Follow, [{"follower_id": a, "followee_id": b, "created_at": t} for a, b, t in follows])
    _insert(db, Block, blocks)
    _insert(db, Mute, mutes)
    _insert(db, Post, [{
        "id": d.id, "author_id": d.author, "text": "" if d.deleted else d.text, "created_at": d.created_at,
        "edited_at": d.edited_at, "in_reply_to_post_id": d.parent.id if d.parent else None,
        "quoted_post_id": d.quoted.id if d.quoted else None,
        "deleted_at": _second(d.created_at + timedelta(hours=3)) if d.deleted else None} for d in drafts])
    live = [d for d in drafts if not d.deleted]
    mentions = [{"post_id": d.id, "user_id": handles[h]} for d in live for h in mentioned_handles(d.text) if h in handles]
    _insert(db, Mention, mentions)
    _insert(db, Hashtag, [{"post_id": d.id, "tag": tag} for d in live for tag in hashtags(d.text)])
    _insert(db, Like, likes)
    _insert(db, Repost, reposts)
    _insert(db, DirectMessage, _direct_messages(rng, accounts, follows, blocks, now))
    _insert(db, Notification, _notifications(rng, live, follows, likes, reposts, mentions, now))


# ---------------------------------------------------------------- accounts


def _person_handle(person: Person, rng: random.Random, taken: set[str]) -> str:
    first, last = person.first_name, person.last_name
    options = (handle_stem(first, last), handle_stem(first, "_", last), handle_stem(first[:1], last),
               handle_stem(last, first[:1]), handle_stem(first, last[:1]))
    base = rng.choice(options)
    if len(base) > 13:
        base = base[:13]
    handle = base
    while handle.lower() in taken:
        handle = f"{base}{rng.randrange(10, 99)}"
    taken.add(handle.lower())
    return handle


def _brand_handle(org: Organization, taken: set[str]) -> str:
    words = [w for w in org.name.replace(",", " ").replace("-", " ").split() if w.lower() not in ("and", "llc", "inc", "plc", "ltd", "group")]
    base = handle_stem(*words, camel=True)
    handle, n = base, 2
    while handle.lower() in taken:
        handle = f"{base[:13]}{n}"
        n += 1
    taken.add(handle.lower())
    return handle


def _accounts(world: World, rng: random.Random) -> list[Account]:
    """Northwind's brand account first, then people and brands interleaved as they joined."""
    now = world.now
    orgs = {o.id: o for o in world.organizations}
    taken = {"northwindsys"}
    home = world.home
    me = Account(row={
        "id": ME, "external_id": home.id, "handle": "NorthwindSys", "name": home.name, "email": f"social@{home.domain}",
        "organization_name": home.name, "kind": "brand", "bio": data.NORTHWIND_BIO, "location": home.city,
        "website": f"https://{home.domain}", "verified": True, "dm_policy": "everyone",
        "created_at": _second(now - timedelta(days=2900))}, activity=6.0, org_id=home.id)
    pending: list[Account] = []
    for person in world.people:
        if rng.random() >= PERSON_SHARE:
            continue
        org = orgs[person.organization_id]
        topics = rng.sample(data.TOPICS, 2)
        bio = rng.choice(data.BIOS).format(title=person.job_title, org=org.name, city=person.city, t1=topics[0], t2=topics[1])
        pending.append(Account(row={
            "external_id": person.id, "handle": _person_handle(person, rng, taken), "name": person.name,
            "email": person.email, "organization_name": org.name, "kind": "person", "bio": bio[:160],
            "location": person.city if rng.random() < 0.7 else "", "website": "",
            "verified": rng.random() < 0.05, "dm_policy": "everyone" if rng.random() < 0.35 else "followers",
            "created_at": _second(now - timedelta(days=rng.uniform(60, 3200)))},
            activity=rng.lognormvariate(0, 1.0), org_id=org.id, person=person))
    for org in world.organizations[1:]:
        if rng.random() >= BRAND_SHARE:
            continue
        bio = rng.choice(data.BRAND_BIOS).format(org=org.name, industry=org.industry.capitalize(), city=org.city,
                                                 domain=org.domain)
        pending.append(Account(row={
            "external_id": org.id, "handle": _brand_handle(org, taken), "name": org.name, "email": f"social@{org.domain}",
            "organization_name": org.name, "kind": "brand", "bio": bio[:160], "location": org.city,
            "website": f"https://{org.domain}", "verified": rng.random() < 0.6,
            "dm_policy": "everyone" if rng.random() < 0.7 else "followers",
            "created_at": _second(now - timedelta(days=rng.uniform(300, 3000)))},
            activity=rng.uniform(0.6, 1.6), org_id=org.id))
    pending.sort(key=lambda a: (a.row["created_at"], a.row["external_id"]))
    for index, account in enumerate(pending, start=2):
        account.row["id"] = index
    return [me, *pending]


def _follows(world: World, rng: random.Random, accounts: list[Account], now: datetime) -> list[tuple[int, int, datetime]]:
    """Who follows whom: colleagues, one's company, Northwind, popular and random accounts."""
    by_org: dict[str, list[int]] = {}
    brand_of: dict[str, int] = {}
    for a in accounts:
        if a.row["kind"] == "brand":
            brand_of[a.org_id] = a.row["id"]
        else:
            by_org.setdefault(a.org_id, []).append(a.row["id"])
    ids = [a.row["id"] for a in accounts]
    weights = [a.activity for a in accounts]
    created = {a.row["id"]: a.row["created_at"] for a in accounts}
    pairs: dict[tuple[int, int], None] = {}
    home = world.home.id
    for a in accounts:
        me_id = a.row["id"]
        wanted: list[int] = []
        if a.row["kind"] == "person":
            wanted += [c for c in by_org.get(a.org_id, []) if rng.random() < 0.45]
            if a.org_id in brand_of and rng.random() < 0.8:
                wanted.append(brand_of[a.org_id])
            if rng.random() < (0.95 if a.org_id == home else 0.55):
                wanted.append(ME)
            wanted += rng.choices(ids, weights, k=rng.randint(4, 35))
        elif me_id == ME:
            wanted += [c for c in by_org.get(home, []) if rng.random() < 0.7]
            wanted += [b for b in brand_of.values() if b != ME]
            wanted += rng.sample(ids, 40)
        else:
            wanted += [c for c in by_org.get(a.org_id, []) if rng.random() < 0.3]
            wanted += rng.sample(ids, rng.randint(3, 15))
        for other in wanted:
            if other != me_id:
                pairs.setdefault((me_id, other), None)
    out = []
    for follower, followee in pairs:
        start = max(created[follower], created[followee])
        out.append((follower, followee, _second(start + (now - start) * rng.random() ** 1.5)))
    out.sort(key=lambda f: (f[2], f[0], f[1]))
    return out


def _blocks_and_mutes(rng: random.Random, accounts: list[Account], follows: list[tuple[int, int, datetime]],
                      now: datetime) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Northwind blocks four people and mutes five; four people block Northwind; a few
    blocks among others. A block ends any follow between the two (dropped from `follows`)."""
    people = [a.row["id"] for a in accounts if a.row["kind"] == "person"]
    chosen = rng.sample(people, 13)
    blocks = [(ME, other) for other in chosen[:4]] + [(other, ME) for other in chosen[4:8]]
    blocks += [tuple(rng.sample(people, 2)) for _ in range(20)]
    seen: dict[tuple[int, int], None] = {}
    for pair in blocks:
        if (pair[1], pair[0]) not in seen:
            seen.setdefault(pair, None)  # type: ignore[arg-type]
    blocked = set(seen)
    follows[:] = [f for f in follows if (f[0], f[1]) not in blocked and (f[1], f[0]) not in blocked]
    block_rows = [{"blocker_id": a, "blocked_id": b, "created_at": _second(now - timedelta(days=rng.uniform(2, 300)))}
                  for a, b in seen]
    mute_rows = [{"muter_id": ME, "muted_id": other, "created_at": _second(now - timedelta(days=rng.uniform(2, 200)))}
                 for other in sorted(chosen[8:])]
    return block_rows, mute_rows


# ---------------------------------------------------------------- posts


def _when(rng: random.Random, now: datetime, days: float = HISTORY_DAYS) -> datetime:
    """A time in the last `days`, more often recent, in daytime hours."""
    back = days * rng.random() ** 1.3
    t = now - timedelta(days=back)
    t = t.replace(hour=rng.randrange(12, 24) if t.date() < now.date() else min(t.hour, now.hour),
                  minute=rng.randrange(60), second=rng.randrange(60), microsecond=0)
    return min(t, now - timedelta(minutes=90))


def _posts(world: World, rng: random.Random, accounts: list[Account], now: datetime) -> list[Draft]:
    by_id = {a.row["id"]: a for a in accounts}
    orgs = {o.id: o for o in world.organizations}
    people = [a for a in accounts if a.row["kind"] == "person"]
    customers = [a for a in people if a.org_id != world.home.id]
    brands = [a for a in accounts if a.row["kind"] == "brand" and a.row["id"] != ME]
    me_handle = by_id[ME].row["handle"]
    events = rng.sample(data.EVENTS, 3)
    drafts: list[Draft] = []

    def fill(template: str, account: Account, **extra: str) -> str:
        t1, t2 = rng.sample(data.TOPICS, 2)
        org = orgs[account.org_id]
        return template.format(t1=t1, t2=t2, city=org.city, org=org.name, industry=org.industry, me=me_handle, **extra)

    weights = [a.activity for a in people]
    for author in rng.choices(people, weights, k=2300):
        created = _when(rng, now)
        if created < author.row["created_at"]:
            continue
        text = fill(rng.choice(data.PERSON_POSTS), author)
        if created > now - timedelta(days=3) and rng.random() < 0.6:
            text = f"{text} #{rng.choice(events[:2])}"
        elif rng.random() < 0.04:
            text = f"{text} #{events[2]}"
        drafts.append(Draft(author.row["id"], text[:280], created))
    for brand in brands:
        for _ in range(rng.randint(3, 14)):
            drafts.append(Draft(brand.row["id"], fill(rng.choice(data.BRAND_POSTS), brand)[:280], _when(rng, now)))
    me = by_id[ME]
    for _ in range(170):
        text = fill(rng.choice(data.NORTHWIND_POSTS), me)
        created = _when(rng, now)
        if created > now - timedelta(days=4) and rng.random() < 0.7:
            text = f"{text} #{events[0]}"
        drafts.append(Draft(ME, text[:280], created))
    # Northwind's latest posts: one from earlier today, one still within the edit window.
    drafts.append(Draft(ME, f"Live from #{events[0]}: come see the new reporting features at our booth today!",
                        _second(now - timedelta(hours=5, minutes=rng.randrange(60)))))
    drafts.append(Draft(ME, "Our team is answering questions about the new release in the replies. Ask away! #NorthwindCloud",
                        _second(now - timedelta(minutes=rng.randrange(10, 40)))))
    complaints, praise = [], []
    for author in rng.sample(customers, 70):
        kind, pool = ("complaint", data.COMPLAINTS) if rng.random() < 0.55 else ("praise", data.PRAISE)
        draft = Draft(author.row["id"], fill(rng.choice(pool), author), _when(rng, now, 300), kind=kind)
        (complaints if kind == "complaint" else praise).append(draft)
        drafts.append(draft)
    for draft in complaints + praise:
        if rng.random() < 0.65:
            first = by_id[draft.author].person.first_name  # type: ignore[union-attr]
            pool = data.NORTHWIND_REPLIES_TO_COMPLAINTS if draft.kind == "complaint" else data.NORTHWIND_REPLIES_TO_PRAISE
            drafts.append(Draft(ME, rng.choice(pool).format(first=first),
                                min(now - timedelta(minutes=5), _second(draft.created_at + timedelta(minutes=rng.randrange(20, 600)))),
                                parent=draft, kind="reply"))
    roots = [d for d in drafts if d.parent is None]
    for _ in range(900):
        parent = rng.choice(roots)
        author = rng.choice(people)
        if author.row["id"] == parent.author:
            continue
        created = min(now - timedelta(minutes=1), _second(parent.created_at + timedelta(hours=rng.expovariate(1 / 6))))
        draft = Draft(author.row["id"], rng.choice(data.REPLIES), created, parent=parent, kind="reply")
        drafts.append(draft)
        if rng.random() < 0.15 and author.person is not None:
            drafts.append(Draft(parent.author, f"Thanks, {author.person.first_name}!",
                                min(now, _second(created + timedelta(minutes=rng.randrange(5, 300)))),
                                parent=draft, kind="reply"))
    for _ in range(160):
        quoted = rng.choice(roots)
        author = rng.choice(people + [me])
        if author.row["id"] == quoted.author:
            continue
        created = min(now - timedelta(minutes=2), _second(quoted.created_at + timedelta(hours=rng.expovariate(1 / 20))))
        drafts.append(Draft(author.row["id"], fill(rng.choice(data.QUOTES), author), created, quoted=quoted, kind="quote"))
    for draft in rng.sample([d for d in drafts if d.kind == "post" and d.author != ME], 30):
        draft.deleted = True
    for draft in drafts:
        if not draft.deleted and rng.random() < 0.03:
            draft.edited_at = min(now, _second(draft.created_at + timedelta(minutes=rng.randrange(1, 55))))
    return drafts


def _engagement(rng: random.Random, drafts: list[Draft], by_id: dict[int, Account],
                now: datetime) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Likes and reposts, mostly by the author's followers, after the post."""
    likes, reposts = [], []
    everyone = sorted(by_id)
    for draft in drafts:
        if draft.deleted:
            continue
        followers = by_id[draft.author].followers
        pool = followers if len(followers) >= 3 else everyone
        scale = 1.0 if draft.parent is None else 0.3
        count = min(len(pool), int(rng.expovariate(1 / (1.5 + 0.05 * len(followers))) * scale))
        if draft.kind == "praise" and rng.random() < 0.8:
            count = max(count, 1)
        likers = rng.sample(pool, count)
        if draft.kind == "praise" and ME not in likers and rng.random() < 0.8:
            likers.append(ME)
        for user in likers:
            if user == draft.author:
                continue
            likes.append({"post_id": draft.id, "user_id": user, "created_at": _after(rng, draft.created_at, 8, now)})
        if draft.parent is None and rng.random() < 0.35:
            for user in rng.sample(pool, min(len(pool), rng.randint(1, 4))):
                if user != draft.author:
                    reposts.append({"post_id": draft.id, "user_id": user, "created_at": _after(rng, draft.created_at, 10, now)})
    return likes, reposts


def _after(rng: random.Random, start: datetime, mean_hours: float, now: datetime) -> datetime:
    """A time some hours after `start` (`mean_hours` on average), before `now`."""
    t = start + timedelta(hours=rng.expovariate(1 / mean_hours))
    if t >= now:
        t = start + (now - start) * rng.random()
    return _second(t)


# ---------------------------------------------------------------- inbox


def _direct_messages(rng: random.Random, accounts: list[Account], follows: list[tuple[int, int, datetime]],
                     blocks: list[dict[str, Any]], now: datetime) -> list[dict[str, Any]]:
    """Conversations of Northwind with people who follow it or have open DMs."""
    followers = {a for a, b, _ in follows if b == ME}
    blocked = {b["blocked_id"] for b in blocks if b["blocker_id"] == ME} | {b["blocker_id"] for b in blocks if b["blocked_id"] == ME}
    open_to = [a.row["id"] for a in accounts if a.row["kind"] == "person" and a.row["id"] not in blocked
               and (a.row["id"] in followers or a.row["dm_policy"] == "everyone")]
    rows = []
    for other in sorted(rng.sample(open_to, 30)):
        t = now - timedelta(days=0.2 + 200 * rng.random() ** 2)
        sender = other
        for _ in range(rng.randint(1, 8)):
            text = rng.choice(data.DM_INBOUND if sender == other else data.DM_OUTBOUND)
            t = min(now - timedelta(minutes=1), t + timedelta(minutes=rng.randrange(5, 2000)))
            recent = now - t < timedelta(days=10)
            read = None if (sender == other and recent and rng.random() < 0.7) else _second(t + timedelta(minutes=rng.randrange(1, 30)))
            rows.append({"sender_id": sender, "recipient_id": ME if sender == other else other, "text": text,
                         "created_at": _second(t), "read_at": min(now, read) if read else None})
            sender = ME if sender == other else other
    rows.sort(key=lambda r: (r["created_at"], r["sender_id"], r["recipient_id"]))
    for index, row in enumerate(rows, start=1):
        row["id"] = index
    return rows


def _notifications(rng: random.Random, live: list[Draft], follows: list[tuple[int, int, datetime]],
                   likes: list[dict[str, Any]], reposts: list[dict[str, Any]], mentions: list[dict[str, Any]],
                   now: datetime) -> list[dict[str, Any]]:
    """Northwind's notifications of the last `NOTIFICATION_DAYS`: read unless very recent."""
    since = now - timedelta(days=NOTIFICATION_DAYS)
    mine = {d.id for d in live if d.author == ME}
    by_post = {d.id: d for d in live}
    events: list[tuple[datetime, str, int, int | None]] = []
    events += [(t, "follow", a, None) for a, b, t in follows if b == ME]
    events += [(r["created_at"], "like", r["user_id"], r["post_id"]) for r in likes if r["post_id"] in mine]
    events += [(r["created_at"], "repost", r["user_id"], r["post_id"]) for r in reposts if r["post_id"] in mine]
    for d in live:
        if d.author == ME:
            continue
        if d.parent is not None and d.parent.author == ME:
            events.append((d.created_at, "reply", d.author, d.id))
        elif d.quoted is not None and d.quoted.author == ME:
            events.append((d.created_at, "quote", d.author, d.id))
    events += [(by_post[m["post_id"]].created_at, "mention", by_post[m["post_id"]].author, m["post_id"])
               for m in mentions if m["user_id"] == ME and by_post[m["post_id"]].author != ME
               and by_post[m["post_id"]].parent is None]
    events = sorted((e for e in events if e[0] >= since and e[2] != ME), key=lambda e: (e[0], e[1], e[2], e[3] or 0))
    return [{"id": i, "user_id": ME, "kind": kind, "actor_id": actor, "post_id": post, "created_at": t,
             "read": t < now - timedelta(days=2) or rng.random() < 0.3}
            for i, (t, kind, actor, post) in enumerate(events, start=1)]
