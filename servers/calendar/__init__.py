"""Calendar: Google Calendar-style calendars, events, recurring series, attendees and rooms."""

from mcpgym.servers.calendar.models import Base
from mcpgym.servers.calendar.seed import populate
from mcpgym.servers.calendar.tools import tools
from mcpgym.servers.kernel.spec import ServerSpec

SERVER = ServerSpec(
    name="calendar",
    title="Google Calendar-style calendar",
    instructions=(
        "You are the scheduling assistant of Northwind Systems, with delegated access to every "
        "employee's primary calendar and the shared team calendars; act for whoever the request "
        "names. People are identified by email (employees @northwindsystems.com, customers at their "
        "company's domain). Events have integer ids; one occurrence of a recurring event has the id "
        "'<event_id>_<YYYYMMDD>' (its original date in the event's time zone). Times are returned in "
        "UTC (ISO 8601, ending in Z) and as start_local/end_local in the requested time_zone (IANA "
        "name such as 'Europe/Berlin'), default each event's own zone. Input times with an offset "
        "or Z are exact; without one they are read in the tool's time_zone argument (default UTC)."
    ),
    base=Base,
    populate=populate,
    tools=tools,
)

__all__ = ["SERVER"]
