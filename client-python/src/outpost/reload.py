"""frontier_client's reload controls mapped onto native API requests (docs/client-failover.md, "Reload controls"),
as the Java and C++ clients map them: ``forcereload`` and ``freshkey`` make requests of the chosen lifetime classes
start with a soft (``max-age=0``) or hard (``no-cache``) refresh and skip the in-process cache; ``maxagesecs=N``
asks every cache for copies at most N seconds old."""

from __future__ import annotations

import re
from dataclasses import dataclass

SHORT, LONG, FOREVER = 1, 2, 3  # lifetime classes, in frontier_client's order
# shortforever refreshes what short does, as in frontier_client
_CLASSES = {"short": SHORT, "long": LONG, "forever": FOREVER, "shortforever": SHORT}
SOFT, HARD = "max-age=0", "no-cache"  # the Cache-Control of a soft and of a hard refresh
FORCE_RELOAD = re.compile(r"none|(soft)?(short|long|forever|shortforever)")


def lifetime_class(path: str) -> int:
    """Pinned URLs never change (forever); IOV queries through a named tag are long (tags are mostly locked); HEAD
    queries, lists, tag resolution and states are short."""
    if "/pin/" in path:
        return FOREVER
    p = path.split("/")  # "", v1, bin, at|browse|count, tag, ...
    if len(p) > 4 and p[3] in ("at", "browse", "count") and p[4] != "HEAD":
        return LONG
    return SHORT


@dataclass(frozen=True)
class ReloadPolicy:
    up_to: int = 0  # requests of this lifetime class and the shorter ones are refreshed; 0 = none
    refresh: str = ""  # how: SOFT or HARD
    max_age_secs: int = -1  # -1 = unset

    @staticmethod
    def of(force_reload: str, max_age_secs: int, fresh_key: str) -> ReloadPolicy:
        """From the configuration; when several are set the widest class and the harder refresh win."""
        up_to, refresh = 0, ""
        f = force_reload.lower()
        if f != "none":
            soft = f.startswith("soft")
            up_to, refresh = _CLASSES[f[4:] if soft else f], SOFT if soft else HARD
        if max_age_secs == 0:  # = forcereload=softlong
            up_to, refresh = max(up_to, LONG), refresh or SOFT
        if fresh_key:  # the nearest meaning a native URL allows: revalidate (softshort, or softlong for long…)
            up_to, refresh = max(up_to, LONG if fresh_key.startswith("long") else SHORT), refresh or SOFT
        return ReloadPolicy(up_to, refresh, max_age_secs)

    def forces(self, path: str) -> bool:
        """Whether a request for ``path`` is refreshed (and so skips the in-process cache)."""
        return lifetime_class(path) <= self.up_to

    def initial_refresh(self, path: str) -> str:
        """The Cache-Control refresh of a request's first attempt: "", SOFT or HARD."""
        return self.refresh if self.forces(path) else ""

    def plain_cache_control(self) -> str:
        """The Cache-Control of an attempt that is not a refresh: ``max-age=N`` with maxagesecs N > 0."""
        return f"max-age={self.max_age_secs}" if self.max_age_secs > 0 else ""

    def cap_fresh(self, fresh_for: int) -> int:
        """How long an answer may stay in process: its own freshness, at most maxagesecs."""
        return min(fresh_for, self.max_age_secs) if self.max_age_secs > 0 else fresh_for
