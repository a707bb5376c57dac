"""The live episodes of an MCP episode host: the kernel's `Pool` (admission by count and
memory, idle expiry, one episode's work serialised, closes that wait for the work in flight,
ids never reused) holding `HostedEpisode`s.

An episode is set aside the bytes its servers' worlds held when last measured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Unpack

from mcpgym.envs.hosted_episode import HostedEpisode
from mcpgym.servers.kernel.session_pool import Limits, Pool, Wording

EPISODE_WORDS = Wording(
    noun="episode",
    taken="episode id {key} is taken; choose another, or POST /episodes without one",
    client="episode_closed: episode {key} was deleted; POST /episodes to start another",
    idle="episode_expired: episode {key} was closed after {idle:.0f} s idle; POST /episodes to start another",
    shutdown="episode_closed: episode {key} was closed because the server is shutting down",
    unknown="no_episode: there is no episode {key} on this server; POST /episodes to start one",
)


class EpisodePool(Pool[HostedEpisode]):
    """Hosted episodes keyed by id, bounded by `max_episodes` and `max_memory_mb`."""

    def __init__(self, max_episodes: int = 512, **limits: Unpack[Limits]) -> None:
        super().__init__(EPISODE_WORDS, max_episodes, **limits)
        self._server_bytes: dict[str, int] = {}
        """Last measured size of each server's world, to set room aside before a build."""

    async def create(self, key: str | None, servers: Sequence[str], build: Callable[[str], HostedEpisode]) -> HostedEpisode:
        """Admit and build an episode over `servers` under `key` (default: a new id).

        Raises `SessionExists` for a taken key, then `PoolFull` when no room is left; any
        error of `build` (run in a worker thread) leaves nothing behind."""
        need = sum(self._server_bytes.get(server, 0) for server in servers)
        async with self.reserve(build, key, need) as admission:
            _, episode = await admission.open()
        return episode

    def _measure(self, item: HostedEpisode) -> int:
        """Bytes the episode's worlds hold; remembers each server's size for later admissions."""
        total = 0
        for server, session in item.env.toolbox.sessions.items():
            size = session.size_bytes()
            self._server_bytes.setdefault(server, size)
            total += size
        return total


__all__ = ["EPISODE_WORDS", "EpisodePool"]
