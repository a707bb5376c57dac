"""Running the HTTP server: one process, or a router in front of worker processes."""

from __future__ import annotations

from mcpgym.servers.kernel.http_app import HttpSettings, http_app
from mcpgym.servers.kernel.spec import ServerSpec


def serve_http(
    spec: ServerSpec,
    host: str = "127.0.0.1",
    port: int = 8000,
    settings: HttpSettings | None = None,
    workers: int = 1,
) -> None:
    """Run the streamable HTTP server until interrupted: the app in this process, or with
    `workers` > 1, that many worker processes behind a router (`http_workers`)."""
    import uvicorn

    settings = settings or HttpSettings()
    if workers > 1:
        from mcpgym.servers.kernel.http_workers import serve_workers

        serve_workers(spec, host, port, settings, workers)
        return
    uvicorn.run(http_app(spec, settings), host=host, port=port, log_level="warning")
