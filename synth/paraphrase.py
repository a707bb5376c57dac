"""Optional paraphrasing of user turns through any OpenAI-compatible endpoint.

The ground truth never changes: only the wording of requests does, and a rewrite is kept
only if it still contains every protected span of the original (numbers and dates, quoted
text, multi-word capitalised names); otherwise the template wording stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mcpgym.tasks.model import Task

PROTECTED = re.compile(r"\"[^\"]+\"|'[^']+'|\d[\w\-:.,/]*\d|\d|(?:[A-Z][\w&.'-]*(?: (?:and |of |& )?[A-Z][\w&.'-]*)+)")
INSTRUCTIONS = (
    "Rewrite the user's request to a support or operations assistant in different words, as a real "
    "person would write it. Keep every name, number, date, time and quoted text exactly as written. "
    "Reply with the rewritten request only."
)


def protected_spans(text: str) -> list[str]:
    """The parts of a request a rewrite must keep verbatim."""
    return [m.group(0).strip("\"'") for m in PROTECTED.finditer(text)]


def keeps_meaning(original: str, rewrite: str) -> bool:
    return bool(rewrite.strip()) and all(span in rewrite for span in protected_spans(original))


def paraphrase_tasks(tasks: Sequence[Task], base_url: str, model: str, api_key: str | None = None,
                     timeout: float = 60.0) -> tuple[list[Task], int]:
    """Tasks with reworded user turns, and how many turns kept their template wording."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key=api_key or "none", timeout=timeout, max_retries=2)
    kept = 0
    out = []
    for task in tasks:
        turns = []
        for turn in task.turns:
            try:
                reply = client.chat.completions.create(
                    model=model, temperature=0.7,
                    messages=[{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": turn.user}],
                )
                text = (reply.choices[0].message.content or "").strip()
            except openai.OpenAIError:
                text = ""
            if keeps_meaning(turn.user, text):
                turns.append(turn.model_copy(update={"user": text}))
            else:
                kept += 1
                turns.append(turn)
        out.append(task.model_copy(update={"turns": turns}))
    return out, kept
