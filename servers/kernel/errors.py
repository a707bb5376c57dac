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
