"""Progress of a long command on stderr: a live bar on a terminal, plain lines in a log.

On a terminal, `progress_bar` is a tqdm bar. When stderr is a file or a pipe (a CI log, a job
scheduler's output), redrawn bar frames would fill the log with carriage returns, so it prints
a plain line now and then instead: every tenth of the work or every `PLAIN_EVERY_S` seconds,
whichever comes first, and a last line when the work ends.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Protocol

PLAIN_EVERY_S = 30.0
"""Longest wait between two plain progress lines while work goes on."""
PLAIN_STEPS = 10
"""Plain lines per run of the work at most from progress alone (one per tenth)."""


class ProgressBar(Protocol):
    """What the commands use of a progress bar."""

    def update(self, n: int = 1) -> object: ...

    def write(self, text: str, file: IO[str] | None = None) -> None: ...

    def close(self) -> None: ...


class PlainProgress:
    """Progress as plain lines (`desc: 40/120 (33%), 2.1 unit/s, 38 s left`), no control characters."""

    def __init__(
        self,
        total: int,
        initial: int = 0,
        desc: str = "",
        unit: str = "it",
        stream: IO[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.n, self.desc, self.unit = max(total, 0), initial, desc, unit
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.start = self.last_time = clock()
        self.initial = initial
        self.last_step = self._step()
        self.closed = False

    def _step(self) -> int:
        return self.n * PLAIN_STEPS // self.total if self.total else 0

    def update(self, n: int = 1) -> None:
        """Count `n` more done; print a line if a tenth was crossed or the last line is old
        (the line for the end of the work is `close`'s)."""
        self.n += n
        now = self.clock()
        if self.n >= self.total:
            return
        if self._step() > self.last_step or now - self.last_time >= PLAIN_EVERY_S:
            self._print(now)

    def write(self, text: str, file: IO[str] | None = None) -> None:
        """Print a message line (between progress lines)."""
        print(text, file=file if file is not None else self.stream, flush=True)

    def close(self) -> None:
        """Print the last line (when anything was done)."""
        if not self.closed:
            self.closed = True
            if self.n != self.initial:
                self._print(self.clock(), final=True)

    def _print(self, now: float, final: bool = False) -> None:
        done = self.n - self.initial
        elapsed = max(now - self.start, 1e-9)
        rate = done / elapsed
        parts = [f"{self.n}/{self.total}" + (f" ({100 * self.n // self.total}%)" if self.total else "")]
        parts.append(f"{rate:.1f} {self.unit}/s")
        if final:
            parts.append(f"done in {elapsed:.0f} s")
        elif rate > 0 and self.total > self.n:
            parts.append(f"{(self.total - self.n) / rate:.0f} s left")
        self.stream.write(f"{self.desc}: {', '.join(parts)}\n" if self.desc else f"{', '.join(parts)}\n")
        self.stream.flush()
        self.last_time, self.last_step = now, self._step()


class SilentProgress:
    """No progress output; messages still go to stderr."""

    def update(self, n: int = 1) -> None:
        return None

    def write(self, text: str, file: IO[str] | None = None) -> None:
        print(text, file=file if file is not None else sys.stderr, flush=True)

    def close(self) -> None:
        return None


def progress_bar(
    total: int, initial: int = 0, desc: str = "", unit: str = "it", enabled: bool = True, stream: IO[str] | None = None
) -> ProgressBar:
    """A tqdm bar when `stream` (default stderr) is a terminal and tqdm is installed, plain
    progress lines otherwise, nothing but messages when not `enabled`."""
    stream = stream if stream is not None else sys.stderr
    if not enabled:
        return SilentProgress()
    if _is_terminal(stream):
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            return tqdm(total=total, initial=initial, desc=desc, unit=unit, file=stream)  # type: ignore[no-any-return]
    return PlainProgress(total, initial=initial, desc=desc, unit=unit, stream=stream)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


__all__ = ["PLAIN_EVERY_S", "PLAIN_STEPS", "PlainProgress", "ProgressBar", "SilentProgress", "progress_bar"]
