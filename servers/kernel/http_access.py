"""Who may talk to the HTTP server: the Host and Origin rules against DNS rebinding, and an
optional bearer token, checked on every request before any route runs.

- Host: a loopback name (`localhost`, `127.0.0.1`, `[::1]`), the bound address, any IP
  literal when bound to all interfaces (a rebinding attack needs a host name the attacker
  controls), or a name in `allowed_hosts`; any port; anything else is 421.
- Origin: absent (clients that are not browsers send none), a loopback origin
  (`http(s)://localhost|127.0.0.1|[::1]`, any port), or one in `allowed_origins`
  (exact, scheme://host[:port]); anything else, `null` included, is 403.
- Token: when set, every request but `GET /healthz` must carry `Authorization: Bearer
  <token>` (compared in constant time); otherwise 401 with `WWW-Authenticate: Bearer`.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from urllib.parse import urlsplit

from pydantic import BaseModel, Field
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

MAX_LIST = 256
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
OPEN_ROUTES = frozenset({("GET", "/healthz")})


class AccessPolicy(BaseModel):
    """The access rules of one HTTP server."""

    bind_host: str = "127.0.0.1"
    """The address the server listens on."""
    token: str | None = Field(default=None, min_length=16, max_length=4096)
    """Bearer token every request must present (all routes but `GET /healthz`); None: no token."""
    allowed_hosts: list[str] = Field(default_factory=list, max_length=MAX_LIST)
    """Host names accepted in `Host` besides IP literals and localhost (no port)."""
    allowed_origins: list[str] = Field(default_factory=list, max_length=MAX_LIST)
    """Origins accepted besides loopback ones, as scheme://host[:port]; `*` accepts any."""


def host_name(host: str) -> str | None:
    """The name part of a `Host` header value (brackets and port removed), lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        if end < 0 or (host[end + 1 :] and not host[end + 1 :].startswith(":")):
            return None
        return host[1:end]
    name, _, port = host.partition(":")
    if port and not port.isdigit():
        return None
    return name or None


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the server to this machine."""
    name = host.strip().lower().strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class AccessGuard:
    """ASGI middleware enforcing an `AccessPolicy` on every HTTP request."""

    def __init__(self, app: ASGIApp, policy: AccessPolicy) -> None:
        self.app = app
        self.policy = policy
        self._hosts = {h.strip().lower().strip("[]") for h in policy.allowed_hosts}
        self._origins = {o.strip().lower().rstrip("/") for o in policy.allowed_origins}
        self._token = policy.token.encode() if policy.token else None
        bound = policy.bind_host.strip().lower().strip("[]")
        self._any_ip = bound in ("0.0.0.0", "::", "")
        self._hosts.add(bound)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self.refusal(scope, headers)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message, extra = refusal
        body = json.dumps({"error": message}).encode()
        start_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]
        await send({"type": "http.response.start", "status": status, "headers": start_headers})
        await send({"type": "http.response.body", "body": body})

    def refusal(self, scope: Scope, headers: Headers) -> tuple[int, str, list[tuple[bytes, bytes]]] | None:
        """Why a request is refused (status, message, extra headers), or None to let it through."""
        if not self.host_allowed(headers.get("host")):
            return 421, "Host not allowed: this server answers only to its own address", []
        origin = headers.getlist("origin")
        if len(origin) > 1 or (origin and not self.origin_allowed(origin[0])):
            return 403, "Origin not allowed", []
        if self._token is None or (scope["method"], scope["path"]) in OPEN_ROUTES:
            return None
        given = headers.get("authorization", "")
        scheme, _, credential = given.partition(" ")
        if scheme.lower() != "bearer" or not credential:
            return 401, "a bearer token is required (Authorization: Bearer <token>)", [(b"www-authenticate", b'Bearer realm="mcpgym"')]
        if not hmac.compare_digest(credential.strip().encode(), self._token):
            return 401, "invalid bearer token", [(b"www-authenticate", b'Bearer realm="mcpgym", error="invalid_token"')]
        return None

    def host_allowed(self, host: str | None) -> bool:
        name = host_name(host) if host else None
        if name is None:
            return False
        return name in LOOPBACK_NAMES or name in self._hosts or (self._any_ip and is_ip(name))

    def origin_allowed(self, origin: str) -> bool:
        origin = origin.strip().lower().rstrip("/")
        if "*" in self._origins or origin in self._origins:
            return True
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and (parts.hostname or "") in LOOPBACK_NAMES
