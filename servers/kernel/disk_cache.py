"""Seeded worlds kept on disk, so a new process loads them instead of rebuilding them.

Entries live in `$MCPGYM_CACHE_DIR`, else `$XDG_CACHE_HOME/mcpgym`, else `~/.cache/mcpgym`;
`MCPGYM_CACHE_DIR=off` turns the cache off. Each entry is named by its key, which the caller
derives from everything that shapes the content (server, seed, a digest of the code that
builds it, library versions), so changed code never reads a stale entry.

An entry is written to a temporary file and renamed into place, so concurrent processes
never see half a file; it carries a SHA-256 of its key and payload, checked on every read,
so a truncated, corrupt or misplaced file is dropped and rebuilt, never trusted. The folder
is kept under `MCPGYM_CACHE_MAX_MB` (default 2048) by removing the least recently used
entries. Any error of the file system turns into a cache miss: the caller builds the value.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

CACHE_DIR_ENV = "MCPGYM_CACHE_DIR"
MAX_MB_ENV = "MCPGYM_CACHE_MAX_MB"
DEFAULT_MAX_MB = 2048
OFF = frozenset({"off", "none", "0", "false", "no"})

MAGIC = b"mcpgym-cache\x01"
DIGEST_BYTES = 32
LENGTH_BYTES = 8
HEADER_BYTES = len(MAGIC) + DIGEST_BYTES + LENGTH_BYTES
SUFFIX = ".bin"
TEMP_PREFIX = ".tmp-"
STALE_TEMP_SECONDS = 3600
VALID_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")


def cache_folder() -> Path | None:
    """Where entries are kept, or None when the cache is off."""
    chosen = os.environ.get(CACHE_DIR_ENV)
    if chosen is not None:
        if chosen.strip().lower() in OFF or not chosen.strip():
            return None
        return Path(chosen).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "mcpgym"
    try:
        return Path.home() / ".cache" / "mcpgym"
    except RuntimeError:
        return None


def max_bytes() -> int:
    """The size the folder is kept under."""
    try:
        return max(int(os.environ.get(MAX_MB_ENV, DEFAULT_MAX_MB)), 1) << 20
    except ValueError:
        return DEFAULT_MAX_MB << 20


def digest_of(parts: Iterable[str | bytes]) -> str:
    """A short hex digest of `parts` (each length-prefixed, so boundaries count)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()[:20]


def source_digest(files: Iterable[Path]) -> str:
    """A digest of the names and contents of `files` (in sorted order)."""
    parts: list[str | bytes] = []
    for path in sorted(set(files)):
        parts += [path.name, path.read_bytes()]
    return digest_of(parts)


def _entry(folder: Path, key: str) -> Path | None:
    return folder / f"{key}{SUFFIX}" if VALID_KEY.fullmatch(key) else None


def _checksum(key: str, payload: bytes) -> bytes:
    return hashlib.sha256(key.encode() + b"\0" + payload).digest()


def load(key: str) -> bytes | None:
    """The payload stored under `key`, or None (absent, unreadable, corrupt or cache off)."""
    folder = cache_folder()
    path = None if folder is None else _entry(folder, key)
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    payload = data[HEADER_BYTES:]
    length = int.from_bytes(data[len(MAGIC) + DIGEST_BYTES : HEADER_BYTES], "big")
    intact = (
        data[: len(MAGIC)] == MAGIC
        and length == len(payload)
        and data[len(MAGIC) : len(MAGIC) + DIGEST_BYTES] == _checksum(key, payload)
    )
    if not intact:
        log.warning("dropping a corrupt cache entry %s", path)
        _remove(path)
        return None
    try:
        os.utime(path)
    except OSError:
        pass
    return payload


def store(key: str, payload: bytes) -> None:
    """Keep `payload` under `key` (atomically; a failure only logs)."""
    folder = cache_folder()
    path = None if folder is None else _entry(folder, key)
    if folder is None or path is None:
        return
    header = MAGIC + _checksum(key, payload) + len(payload).to_bytes(LENGTH_BYTES, "big")
    temporary = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=TEMP_PREFIX, delete=False) as handle:
            temporary = Path(handle.name)
            handle.write(header)
            handle.write(payload)
        os.replace(temporary, path)
        temporary = None
        _prune(folder, max_bytes())
    except OSError as err:
        log.warning("could not write cache entry %s: %s", path, err)
    finally:
        if temporary is not None:
            _remove(temporary)


def _prune(folder: Path, limit: int) -> None:
    """Remove the least recently used entries until the folder holds at most `limit` bytes,
    and temporary files that writers left behind."""
    entries = []
    now = time.time()
    for path in folder.iterdir():
        try:
            stat = path.stat()
        except OSError:
            continue
        if path.name.startswith(TEMP_PREFIX):
            if now - stat.st_mtime > STALE_TEMP_SECONDS:
                _remove(path)
        elif path.suffix == SUFFIX:
            entries.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        _remove(path)
        total -= size


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
