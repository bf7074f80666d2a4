"""Proxy auto-config (docs/client-failover.md, "Proxy auto-config"): the first PAC file of the configured URLs that
can be read, asked ``FindProxyForURL(serverURL, serverHost)`` once per server host, again after five minutes (as
frontier_client resets its proxy list). The JavaScript runs in pypac's evaluator (Duktape, embedded in the dukpy
wheel) with the standard helper functions: the extra ``outpost-client[pac]``."""

from __future__ import annotations

import http.client
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit
from typing import TYPE_CHECKING
from urllib.request import url2pathname

from ._extras import require
from .errors import ErrorKind, OutpostError
from .locks import ForkSafeLock

if TYPE_CHECKING:
    from pypac.parser import PACFile  # the [pac] extra; imported when a PAC file is read

WPAD = "http://wpad/wpad.dat"
MAX_BYTES = 1 << 20
REFRESH_SECONDS = 300.0


@dataclass(frozen=True)
class PacAnswer:
    """What a PAC file said for one server: its proxies (``http://host:port``, in order, once each) and whether it
    named DIRECT."""

    proxies: tuple[str, ...]
    direct: bool


def _config_error(message: str) -> OutpostError:
    return OutpostError(ErrorKind.CONFIG, message)


def parse_answer(answer: object, url: str) -> PacAnswer:
    """``PROXY host:port`` (``HTTP host:port`` is the same) and ``DIRECT`` entries; anything else, or nothing, is a
    configuration error naming the PAC file."""
    if not isinstance(answer, str) or not answer.strip() or answer.strip() == "undefined":
        raise _config_error(f"proxy auto-config {url}: FindProxyForURL gave no answer")
    proxies: list[str] = []
    direct = False
    for entry in answer.split(";"):
        words = entry.split()
        if not words:
            continue
        if len(words) == 1 and words[0].upper() == "DIRECT":
            direct = True
        elif len(words) == 2 and words[0].upper() in ("PROXY", "HTTP") and ":" in words[1]:
            proxy = "http://" + words[1]
            if proxy not in proxies:
                proxies.append(proxy)
        else:
            raise _config_error(f"proxy auto-config {url}: '{entry.strip()}' is neither PROXY host:port nor DIRECT")
    return PacAnswer(tuple(proxies), direct)


def fetch(url: str, connect_timeout: float, read_timeout: float) -> str:
    """A PAC file's text: file://, or http(s):// asked directly (never through a proxy); at most 1 MiB."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        with open(url2pathname(parts.path), "rb") as f:
            data = f.read(MAX_BYTES + 1)
    else:
        cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = cls(parts.hostname or "", parts.port, timeout=connect_timeout)
        try:
            conn.connect()
            assert conn.sock is not None
            conn.sock.settimeout(read_timeout)
            conn.request("GET", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
            response = conn.getresponse()
            if response.status != 200:
                raise OSError(f"HTTP {response.status}")
            data = response.read(MAX_BYTES + 1)
        finally:
            conn.close()
    if len(data) > MAX_BYTES:
        raise OSError("larger than 1 MiB")
    return data.decode("utf-8", errors="replace")


class ProxyAutoConfig:
    """The PAC answers of one client, cached per server host; a failed re-read keeps the previous answers."""

    def __init__(self, urls: list[str], connect_timeout: float, read_timeout: float,
                 clock: Callable[[], float] = time.monotonic,
                 warn: Callable[[str], None] = logging.getLogger("outpost").warning) -> None:
        require("pypac", "pac", "proxy auto-config (proxyconfigurl, --proxy-config)")
        self._urls = [WPAD if u == "auto" else u for u in urls]
        self._timeouts = (connect_timeout, read_timeout)
        self._clock = clock
        self._warn = warn
        self._lock = ForkSafeLock()
        self._cache: dict[str, tuple[PacAnswer, float]] = {}
        self.source, self._script = self._read()

    def for_server(self, server: str) -> PacAnswer:
        host = urlsplit(server).hostname or ""
        now = self._clock()
        with self._lock:
            cached = self._cache.get(host)
            if cached is not None and now - cached[1] < REFRESH_SECONDS:
                return cached[0]
            if cached is not None:  # five minutes on: read the file again
                try:
                    self.source, self._script = self._read()
                    answer = self._evaluate(server, host)
                except OutpostError as e:
                    self._warn(f"proxy auto-config kept from before: {e.message}")
                    answer = cached[0]
            else:
                answer = self._evaluate(server, host)
            self._cache[host] = (answer, now)
            return answer

    def _evaluate(self, server: str, host: str) -> PacAnswer:
        try:
            result = self._script.find_proxy_for_url(server, host)
        except Exception as e:  # the script's own error, whatever the evaluator calls it
            raise _config_error(f"proxy auto-config {self.source}: {e}") from None
        return parse_answer(result, self.source)

    def _read(self) -> tuple[str, PACFile]:
        from pypac.parser import PACFile

        failures = []
        for url in self._urls:
            try:
                text = fetch(url, *self._timeouts)
            except (OSError, http.client.HTTPException, ValueError) as e:
                failures.append(f"{url} ({e.strerror if isinstance(e, OSError) and e.strerror else e})")
                continue
            try:
                return url, PACFile(text)
            except Exception as e:  # pypac's MalformedPacError, or the evaluator's own
                raise _config_error(f"proxy auto-config {url} does not parse: {e}") from None
        raise _config_error("no proxy auto-config file could be read: " + "; ".join(failures))
