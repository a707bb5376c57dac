"""Task families per server; `families_for(servers)` lists those a server set can run."""

from __future__ import annotations

from collections.abc import Sequence

from mcpgym.synth.families.calendar import CALENDAR_FAMILIES
from mcpgym.synth.families.crm import CRM_FAMILIES
from mcpgym.synth.families.cross import CROSS_FAMILIES
from mcpgym.synth.families.email import EMAIL_FAMILIES
from mcpgym.synth.families.finance import FINANCE_FAMILIES
from mcpgym.synth.families.flights import FLIGHTS_FAMILIES
from mcpgym.synth.families.walk import walk_families
from mcpgym.synth.families.zendesk import ZENDESK_FAMILIES
from mcpgym.synth.family import Family

ALL_FAMILIES: tuple[Family, ...] = (
    *ZENDESK_FAMILIES,
    *CRM_FAMILIES,
    *CALENDAR_FAMILIES,
    *EMAIL_FAMILIES,
    *FINANCE_FAMILIES,
    *FLIGHTS_FAMILIES,
    *CROSS_FAMILIES,
)


def families_for(servers: Sequence[str]) -> list[Family]:
    """Hand-written families whose servers are all mounted, then the graph walks over the
    mounted servers (synth/families/walk.py)."""
    mounted = tuple(sorted(set(servers)))
    return [*(f for f in ALL_FAMILIES if set(f.servers) <= set(mounted)), *walk_families(mounted)]
