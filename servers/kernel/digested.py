"""A frozen pydantic value named by the digest of its canonical JSON and bounded in size.

Task states (a database server's `RowPatch`, an object server's `ObjectState`) key caches by
their digest, so equal states share a checked, built world.
"""

from __future__ import annotations

import hashlib
import json
from functools import cached_property
from typing import Any, ClassVar


class Digested:
    """Mixin for a pydantic model: `canonical` (compact JSON, sorted keys), its `digest`, and
    `check_size`, for an `after` validator, against `max_bytes`."""

    max_bytes: ClassVar[int]
    what: ClassVar[str]
    """Names the value in the size error ("the patch")."""

    @cached_property
    def canonical(self) -> bytes:
        """The value as compact JSON with sorted keys: what its digest is taken of."""
        dumped = self.model_dump(mode="json")  # type: ignore[attr-defined]
        return json.dumps(dumped, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

    @cached_property
    def digest(self) -> str:
        """Names the value in caches: equal values give equal digests."""
        return hashlib.sha256(self.canonical).hexdigest()[:32]

    def check_size(self) -> Any:
        """`self`, or a ValueError when its canonical JSON is over `max_bytes`."""
        if len(self.canonical) > self.max_bytes:
            raise ValueError(f"{self.what} is {len(self.canonical):,} bytes as JSON, over the limit of {self.max_bytes:,}")
        return self


__all__ = ["Digested"]
