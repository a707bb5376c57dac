"""Task families per server; `families_for(servers)` lists those a server set can run.

Families come from this package (`ALL_FAMILIES`) and from every installed distribution's
`mcpgym.families` entry points, each naming a sequence of `Family` (how a server added as a
plugin brings its tasks: docs/adding-a-server.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from mcpgym.servers.catalog import declarations
from mcpgym.synth.families.calendar import CALENDAR_FAMILIES
from mcpgym.synth.families.chat import CHAT_FAMILIES
from mcpgym.synth.families.code import CODE_FAMILIES
from mcpgym.synth.families.commerce import COMMERCE_FAMILIES
from mcpgym.synth.families.crm import CRM_FAMILIES
from mcpgym.synth.families.cross import CROSS_FAMILIES
from mcpgym.synth.families.docs import DOCS_FAMILIES
from mcpgym.synth.families.email import EMAIL_FAMILIES
from mcpgym.synth.families.files import FILES_FAMILIES
from mcpgym.synth.families.finance import FINANCE_FAMILIES
from mcpgym.synth.families.flights import FLIGHTS_FAMILIES
from mcpgym.synth.families.projects import PROJECTS_FAMILIES
from mcpgym.synth.families.walk import walk_families
from mcpgym.synth.families.zendesk import ZENDESK_FAMILIES
from mcpgym.synth.families.retail import RETAIL_FAMILIES
from mcpgym.synth.families.payments import PAYMENTS_FAMILIES
from mcpgym.synth.families.shipping import SHIPPING_FAMILIES
from mcpgym.synth.families.hr import HR_FAMILIES
from mcpgym.synth.families.expenses import EXPENSES_FAMILIES
from mcpgym.synth.families.hotels import HOTELS_FAMILIES
from mcpgym.synth.families.todo import TODO_FAMILIES
from mcpgym.synth.families.social import SOCIAL_FAMILIES
from mcpgym.synth.families.telecom import TELECOM_FAMILIES
from mcpgym.synth.family import Family

ALL_FAMILIES: tuple[Family, ...] = (
    *ZENDESK_FAMILIES,
    *CRM_FAMILIES,
    *CALENDAR_FAMILIES,
    *EMAIL_FAMILIES,
    *FINANCE_FAMILIES,
    *FLIGHTS_FAMILIES,
    *CROSS_FAMILIES,
    *DOCS_FAMILIES,
    *CHAT_FAMILIES,
    *CODE_FAMILIES,
    *PROJECTS_FAMILIES,
    *FILES_FAMILIES,
    *RETAIL_FAMILIES,
    *PAYMENTS_FAMILIES,
    *SHIPPING_FAMILIES,
    *HR_FAMILIES,
    *EXPENSES_FAMILIES,
    *HOTELS_FAMILIES,
    *TODO_FAMILIES,
    *SOCIAL_FAMILIES,
    *TELECOM_FAMILIES,
    *COMMERCE_FAMILIES,
)


FAMILY_ENTRY_POINT_GROUP = "mcpgym.families"
"""The entry-point group a distribution declares its task families in."""


@cache
def installed_families() -> tuple[Family, ...]:
    """This package's families, then those of the entry points (by entry-point name); a
    family whose name is already taken is left out, so a name means one family."""
    families = list(ALL_FAMILIES)
    for point in sorted(declarations(FAMILY_ENTRY_POINT_GROUP), key=lambda p: (p.name, p.target)):
        loaded = point.load()
        if isinstance(loaded, Family) or not all(isinstance(f, Family) for f in loaded):
            raise TypeError(f"entry point {point.name} = {point.target!r} of {point.distribution} "
                            f"({FAMILY_ENTRY_POINT_GROUP}) must name a sequence of Family instances")
        families += loaded
    by_name: dict[str, Family] = {}
    for family in families:
        by_name.setdefault(family.name, family)
    return tuple(by_name.values())


def families_for(servers: Sequence[str]) -> list[Family]:
    """Hand-written families whose servers are all mounted, then the graph walks over the
    mounted servers (synth/families/walk.py)."""
    mounted = tuple(sorted(set(servers)))
    return [*(f for f in installed_families() if set(f.servers) <= set(mounted)), *walk_families(mounted)]
