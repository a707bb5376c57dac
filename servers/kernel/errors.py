"""The error model shared by every tool: each error is something a model can act on."""

from __future__ import annotations


class ToolError(Exception):
    """A tool call that could not be carried out; the session's state is unchanged.

    `code` names the kind of failure; the message says what was wrong and what to do instead.
    """

    code = "tool_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def render(self) -> str:
        """The text a model sees: `<code>: <message>`."""
        return f"{self.code}: {self.message}"


class NotFoundError(ToolError):
    """An id or name that names nothing in this world."""

    code = "not_found"


class InvalidArgumentError(ToolError):
    """Arguments that do not fit the tool's schema or its rules."""

    code = "invalid_arguments"


class ForbiddenError(ToolError):
    """A well-formed request that the domain's rules do not allow."""

    code = "forbidden"


class UnknownToolError(ToolError):
    """A tool name the server does not have."""

    code = "unknown_tool"


class InternalToolError(ToolError):
    """A fault inside the server; never carries a stack trace to the model."""

    code = "internal_error"


SQLITE_FULL = 13
SQLITE_TOOBIG = 18
_SIZE_LIMIT_MESSAGES = (
    "expression tree is too large",
    "too many sql variables",
    "like or glob pattern too complex",
    "too many terms in compound select",
    "too many arguments on function",
)


def database_refusal(tool: str, error: BaseException | None) -> ToolError | None:
    """The tool error for a database that refused a request because of its size (a storage
    quota used up, a value or a query too large), or None when `error` is a fault."""
    code = getattr(error, "sqlite_errorcode", None)
    text = str(error).splitlines()[0] if error is not None else ""
    if code == SQLITE_FULL:
        return ForbiddenError(
            f"{tool}: this session's storage quota is used up, so the change was not made; "
            "delete or shorten stored data first"
        )
    if code == SQLITE_TOOBIG:
        return InvalidArgumentError(f"{tool}: a value is too large to store; send shorter text")
    if any(limit in text.lower() for limit in _SIZE_LIMIT_MESSAGES):
        return InvalidArgumentError(f"{tool}: the request is too large ({text}); send fewer values or shorter text")
    return None
