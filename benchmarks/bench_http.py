"""Streamable HTTP server throughput, latency and memory, against the in-process call rate.

For each number of server worker processes and each number of concurrent sessions, the
benchmark starts `mcpgym serve SERVER --transport http [--workers N]`, creates one session
per client (`POST /sessions`, each with its own world), and lets every client loop on a read
tool (`tools/call` of the 2026-07-28 protocol over its own keep-alive connection) for a few
seconds. It prints, per row:

- calls/s over all clients, and that rate as a ratio of the in-process `ToolSession.call`
  rate of the same call (one thread, no HTTP), measured just before the row;
- p50 and p99 latency of one call as a client sees it;
- server CPU milliseconds per call (all of the server's processes together), and the
  router's share of it when there are workers;
- server RSS per session: the growth of the server's resident memory (all processes) from
  before the sessions were created to after each had made a call, divided by the sessions.

The load generator is a minimal HTTP/1.1 client on raw asyncio streams, so the client's own
cost stays small next to the server's. Keep runs short; figures are noisy on a shared
machine: compare the ratios, and the CPU per call.

Usage: python benchmarks/bench_http.py [--server zendesk|calendar] [--sessions 16 64 256]
       [--workers 1 2] [--seconds 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass

import psutil

from mcpgym.servers.catalog import load_server
from mcpgym.servers.kernel.session import ToolSession

READ_CALLS: dict[str, tuple[str, dict[str, object]]] = {
    "zendesk": ("get_ticket", {"ticket_id": 1380}),
    "calendar": ("list_calendars", {}),
}


@dataclass
class Cell:
    workers: int
    sessions: int
    calls: int
    seconds: float
    p50_ms: float
    p99_ms: float
    cpu_ms_per_call: float
    front_cpu_ms_per_call: float
    rss_kb_per_session: float
    errors: int


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tree_rss_and_cpu(pid: int) -> tuple[int, float, float]:
    """Resident bytes and CPU seconds of a process and all its descendants, and the CPU
    seconds of the process alone (the router, when there are workers)."""
    root = psutil.Process(pid)
    rss, cpu, own = 0, 0.0, 0.0
    for proc in [root, *root.children(recursive=True)]:
        try:
            rss += proc.memory_info().rss
            times = proc.cpu_times()
            cpu += times.user + times.system
            own = own or times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return rss, cpu, own


def in_process_rate(server: str, tool: str, arguments: dict[str, object], seconds: float) -> float:
    """Calls/s of `ToolSession.call` in this process, one thread."""
    with ToolSession(load_server(server), 0) as session:
        session.call(tool, arguments)
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            session.call(tool, arguments)
            calls += 1
        return calls / (time.perf_counter() - start)


async def http_request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, method: str, path: str, body: bytes, headers: dict[str, str]
) -> tuple[int, bytes]:
    """One request on a keep-alive HTTP/1.1 connection; the server answers with Content-Length."""
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(body)}"]
    lines += [f"{key}: {value}" for key, value in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return status, await reader.readexactly(length)


MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "Mcp-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
}


def call_body(tool: str, arguments: dict[str, object], request_id: int) -> bytes:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": tool, "arguments": arguments, "_meta": meta}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}).encode()


async def load(port: int, endpoints: list[str], tool: str, arguments: dict[str, object], seconds: float, token: str | None) -> tuple[list[float], int]:
    """Every endpoint's client loops on `tool` for `seconds`; the latencies and the error count."""
    headers = dict(MCP_HEADERS, **{"Mcp-Name": tool})
    if token:
        headers["Authorization"] = f"Bearer {token}"
    latencies: list[float] = []
    errors = 0
    start = asyncio.Event()

    async def client(endpoint: str) -> None:
        nonlocal errors
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await start.wait()
        deadline = time.perf_counter() + seconds
        n = 0
        while time.perf_counter() < deadline:
            n += 1
            sent = time.perf_counter()
            exchange = http_request(reader, writer, "POST", endpoint, call_body(tool, arguments, n), headers)
            status, body = await asyncio.wait_for(exchange, timeout=60)
            latencies.append(time.perf_counter() - sent)
            if status != 200 or b'"isError":true' in body:
                errors += 1
        writer.close()

    tasks = [asyncio.create_task(client(e)) for e in endpoints]
    await asyncio.sleep(0.2)
    start.set()
    await asyncio.gather(*tasks)
    return latencies, errors


def post(url: str, token: str | None) -> dict[str, object]:
    request = urllib.request.Request(url, method="POST")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def run_cell(server: str, workers: int, sessions: int, seconds: float) -> Cell:
    port = free_port()
    token = None
    command = [sys.executable, "-m", "mcpgym", "serve", server, "--transport", "http", "--port", str(port)]
    command += ["--max-sessions", str(max(512, sessions))]
    if workers > 1:
        command += ["--workers", str(workers)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                request = urllib.request.Request(base + "/healthz")
                urllib.request.urlopen(request, timeout=1)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("server did not start") from None
                time.sleep(0.1)
        time.sleep(0.5)
        rss_before, _, _ = tree_rss_and_cpu(process.pid)
        endpoints = [str(post(base + "/sessions", token)["endpoint"]) for _ in range(sessions)]
        tool, arguments = READ_CALLS[server]
        asyncio.run(load(port, endpoints, tool, arguments, 0.3, token))
        rss_after, cpu_before, front_before = tree_rss_and_cpu(process.pid)
        began = time.perf_counter()
        latencies, errors = asyncio.run(load(port, endpoints, tool, arguments, seconds, token))
        elapsed = time.perf_counter() - began - 0.2
        _, cpu_after, front_after = tree_rss_and_cpu(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=20)
    ordered = sorted(latencies)
    return Cell(
        workers=workers,
        sessions=sessions,
        calls=len(latencies),
        seconds=elapsed,
        p50_ms=1000 * statistics.median(ordered),
        p99_ms=1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
        cpu_ms_per_call=1000 * (cpu_after - cpu_before) / max(1, len(latencies)),
        front_cpu_ms_per_call=1000 * (front_after - front_before) / max(1, len(latencies)) if workers > 1 else 0.0,
        rss_kb_per_session=(rss_after - rss_before) / 1024 / sessions,
        errors=errors,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="zendesk", choices=sorted(READ_CALLS))
    parser.add_argument("--sessions", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=4.0)
    args = parser.parse_args()

    tool, arguments = READ_CALLS[args.server]
    print(f"{args.server}: {tool} on {os.cpu_count()} cores; baseline: in-process ToolSession.call, one thread, measured before each row")
    header = (
        "workers", "sessions", "calls/s", "in-process calls/s", "x in-process", "p50 ms", "p99 ms",
        "server CPU ms/call", "router CPU ms/call", "RSS KB/session", "errors",
    )
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for workers in args.workers:
        for sessions in args.sessions:
            baseline = in_process_rate(args.server, tool, arguments, 1.0)
            cell = run_cell(args.server, workers, sessions, args.seconds)
            rate = cell.calls / cell.seconds
            row = (
                str(cell.workers), str(cell.sessions), f"{rate:,.0f}", f"{baseline:,.0f}", f"{rate / baseline:.2f}",
                f"{cell.p50_ms:.1f}", f"{cell.p99_ms:.1f}", f"{cell.cpu_ms_per_call:.2f}",
                f"{cell.front_cpu_ms_per_call:.2f}" if workers > 1 else "-",
                f"{cell.rss_kb_per_session:,.0f}", str(cell.errors),
            )
            print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
