"""The seeded notebooks: the world's employees write notes over the past year."""

from __future__ import annotations

import random
from datetime import timedelta

from sqlalchemy.orm import Session

from mcpgym.servers.kernel.world import World
from mcpgym_notes.models import Note, Notebook, Person

NOTEBOOKS = ("Standups", "Runbooks", "Ideas", "Onboarding")
TOPICS = ("release checklist", "database failover", "pricing page", "team offsite", "hiring plan",
          "incident review", "API limits", "quarterly goals", "customer feedback", "on-call handover")


def populate(db: Session, world: World, rng: random.Random) -> None:
    people = [Person(id=i + 1, name=p.name, email=p.email) for i, p in enumerate(world.employees)]
    notebooks = [Notebook(id=i + 1, name=name) for i, name in enumerate(NOTEBOOKS)]
    notes = []
    for notebook in notebooks:
        for n, topic in enumerate(rng.sample(TOPICS, 8)):
            notes.append(Note(
                notebook_id=notebook.id, author_id=rng.choice(people).id, title=f"{topic.capitalize()} ({notebook.name.lower()})",
                body=f"Notes on the {topic}: owners, open questions and next steps.", pinned=n == 0,
                updated_at=world.now - timedelta(days=rng.randrange(365), minutes=rng.randrange(1440)),
            ))
    db.add_all([*people, *notebooks, *notes])
