"""Client configuration: in code, from a Frontier-style string, or from the environment, with the keys, defaults
and limits of docs/client-failover.md (the same as the Java and C++ clients)."""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .errors import ErrorKind, OutpostError
from .locks import ForkSafeLock
from .query import RUN_LUMI_WINDOW, TIME_WINDOW, Window
from .reload import FORCE_RELOAD, ReloadPolicy
from .signature import key_spec

MAX_SERVERS = 16
MAX_PROXIES = 24
MAX_RETRIES = 10
MAX_PROXY_CONFIGS = 16
DEFAULT_MAX_ANSWER_BYTES = 256 << 20  # 256 MiB

_logger = logging.getLogger("outpost")
_logged: set[str] = set()
_logged_lock = ForkSafeLock()


def _config_error(message: str) -> OutpostError:
    return OutpostError(ErrorKind.CONFIG, message)


@dataclass
class Config:
    servers: list[str] = field(default_factory=list)
    proxies: list[str] = field(default_factory=list)
    proxy_configs: list[str] = field(default_factory=list)  # PAC URLs ("auto" = WPAD), tried in order
    backup_proxies: list[str] = field(default_factory=list)
    failover_to_server: bool = True
    retries: int = 1
    connect_timeout: float = 5.0  # seconds
    read_timeout: float = 10.0  # seconds without a byte
    backoff: float = 0.2  # first wait between passes; doubles per pass, full jitter
    max_backoff: float = 5.0
    route_memory: float = 300.0  # failed endpoints are postponed this long
    load_balance: str = "none"  # "none", "proxies" or "servers"
    cache_max_bytes: int = 64 << 20
    time_window: Window = TIME_WINDOW
    run_lumi_window: Window = RUN_LUMI_WINDOW
    # windows of some folders: an exact folder path, or a node path ending in "/" for every folder under it (the
    # longest match wins); before the key type's window. Window(0) = direct /at/ queries.
    folder_windows: dict[str, Window] = field(default_factory=dict)
    client_id: str = ""  # app/version of X-Outpost-Client; default: outpost-python/<version>
    force_reload: str = "none"  # none, short, long, forever, or soft… (docs/client-failover.md, "Reload controls")
    max_age_secs: int = -1  # -1 unset; 0 = forcereload=softlong; N > 0: caches answer with copies at most N s old
    fresh_key: str = ""  # frontier_client's freshkey; "" = none
    logical_server: str = ""  # the server URL requests through a proxy name; "" = the route's server
    prefer_ip_family: int = 4  # 4 or 6: a name's addresses of that family are tried first; 0: resolver order
    write_timeout: float = 5.0  # seconds to send a request (a socket timeout; see docs/client-failover.md)
    signed_answers: bool = False  # security=sig: only answers signed with one of verify_keys are accepted
    verify_keys: list[str] = field(default_factory=list)  # verifykey values: FILE or KEYID:FILE (PEM, Ed25519)
    accept_sig1: bool = False  # acceptsig1=yes: outpost-sig-1 signatures (no expiry, no generation) verify too
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES  # the largest answer body, as sent and decompressed
    attempt_timeout: float = 30.0  # seconds for one whole attempt: connect, send, status, headers and body
    warnings: list[str] = field(default_factory=list)  # each one once, logged once per process (log_warnings)

    @staticmethod
    def parse(spec: str) -> Config:
        """A ``(serverurl=…)(proxyurl=…)…`` string, or a list of server URLs separated by ``;``, ``,`` or spaces."""
        c = Config()
        c.apply(spec)
        return c

    @staticmethod
    def from_environment(env: Mapping[str, str] | None = None) -> Config:
        """OUTPOST_SERVER (a URL, a list or a full string), OUTPOST_SERVER1..16, OUTPOST_PROXY(1..24) and the
        OUTPOST_* settings; without an OUTPOST_SERVER*, the FRONTIER_* variables."""
        c = Config()
        c.apply_environment(os.environ if env is None else env)
        return c

    def copy(self) -> Config:
        return dataclasses.replace(self, servers=list(self.servers), proxies=list(self.proxies),
                                   proxy_configs=list(self.proxy_configs),
                                   backup_proxies=list(self.backup_proxies), verify_keys=list(self.verify_keys),
                                   folder_windows=dict(self.folder_windows),
                                   warnings=list(self.warnings))

    def apply(self, spec: str) -> None:
        """Applies a string on top of this configuration (a list of server URLs when it has no ``(``)."""
        if "(" not in spec:
            for url in _split_list(spec):
                self.set("serverurl", url)
            return
        for key, value in _pairs(spec):
            self.set(key, value)

    def apply_environment(self, env: Mapping[str, str]) -> None:
        servers = _list_vars(env, "OUTPOST_SERVER", MAX_SERVERS)
        proxies = _list_vars(env, "OUTPOST_PROXY", MAX_PROXIES)
        frontier = not servers
        if frontier:
            servers = _list_vars(env, "FRONTIER_SERVER", MAX_SERVERS)
            proxies = proxies or _list_vars(env, "FRONTIER_PROXY", MAX_PROXIES)
        if servers:
            self.servers.clear()
        if proxies:
            self.proxies.clear()  # before the servers' strings, which may name proxies of their own
        if servers:
            for v in servers:
                try:
                    self.apply(v)
                except OutpostError as e:
                    raise _config_error(f"OUTPOST_SERVER/FRONTIER_SERVER: {e.message}") from None
        if proxies and self.proxies:  # add to the string's proxies or replace them? Either could be meant.
            raise _config_error("proxyurl given twice: in the configuration string of the server variable and in "
                                "OUTPOST_PROXY/FRONTIER_PROXY; name the proxies in one place")
        if proxies:
            for v in proxies:
                for p in _split_list(v):
                    try:
                        self.set("proxyurl", p)
                    except OutpostError as e:
                        raise _config_error(f"OUTPOST_PROXY/FRONTIER_PROXY: {e.message}") from None
        for url in env.get("FRONTIER_PROXYCONFIGS", "").split(";"):
            if url.strip():
                try:
                    self.set("proxyconfigurl", url)
                except OutpostError as e:
                    raise _config_error(f"FRONTIER_PROXYCONFIGS: {e.message}") from None
        for var, key in (("FRONTIER_FORCERELOAD", "forcereload"), ("FRONTIER_FRESHKEY", "freshkey")):
            if env.get(var, "").strip():  # always read, as frontier_client does
                try:
                    self.set(key, env[var])
                except OutpostError as e:
                    raise _config_error(f"{var}: {e.message}") from None
        for var, key in (("OUTPOST_CONNECTTIMEOUTSECS", "connecttimeout"), ("OUTPOST_READTIMEOUTSECS", "readtimeout"),
                         ("OUTPOST_RETRIES", "retries"), ("OUTPOST_LOADBALANCE", "loadbalance"),
                         ("OUTPOST_FAILOVERTOSERVER", "failovertoserver"), ("OUTPOST_ID", "clientid")):
            v = env.get(var, "").strip()
            if not v and frontier and var.endswith("TIMEOUTSECS"):
                v = env.get(var.replace("OUTPOST_", "FRONTIER_"), "").strip()
            if v:
                try:
                    self.set(key, v)
                except OutpostError as e:
                    raise _config_error(f"{var}: {e.message}") from None

    def set(self, key: str, value: str) -> None:
        """One key of the string; unknown keys are ignored with a warning (a string may be shared with
        frontier_client)."""
        key = key.strip().lower()
        value = value.strip()
        if key == "serverurl":
            # sqlite:FILE is the Java client's offline snapshot: kept as written, refused by validate()
            url = value if value.lower().startswith("sqlite:") else _url(value, key)
            self._add(key, self.servers, url, MAX_SERVERS)
        elif key == "proxyurl":
            self._add(key, self.proxies, _url(value, key, proxy=True), MAX_PROXIES)
        elif key == "proxyconfigurl":
            self.add_proxy_config(value)
        elif key == "backupproxyurl":
            self._add(key, self.backup_proxies, _url(value, key, proxy=True), MAX_PROXIES)
            self.failover_to_server = False  # as in Frontier
        elif key == "retries":
            self.retries = _int(key, value, 0, MAX_RETRIES)
        elif key in ("connecttimeout", "connecttimeoutsecs"):
            self.connect_timeout = _seconds(key, value, positive=True)
        elif key in ("readtimeout", "readtimeoutsecs"):
            self.read_timeout = _seconds(key, value, positive=True)
        elif key in ("backoff", "backoffsecs"):
            self.backoff = _seconds(key, value, positive=False)
            self.max_backoff = max(self.max_backoff, self.backoff)  # the first wait asked for is kept
        elif key == "failovertoserver":
            self.failover_to_server = _yes_no(key, value)
        elif key == "cachewindow":
            self.time_window = Window(_int(key, value, 0, 9223372036) * 1_000_000_000, self.time_window.divisions)
        elif key == "cachealign":
            n = _int(key, value, 1, 1000)
            self.time_window = Window(self.time_window.length, n)
            self.run_lumi_window = Window(self.run_lumi_window.length, n)
        elif key in ("clientcachemaxbytes", "clientcache"):
            self.cache_max_bytes = _int(key, value, 0, 1 << 62)
        elif key == "loadbalance":
            v = value.lower()
            modes = {"proxies": "proxies", "proxy": "proxies", "servers": "servers", "server": "servers",
                     "none": "none", "no": "none", "": "none"}
            if v not in modes:
                raise _config_error(f"(loadbalance={value}): expected proxies or servers")
            self.load_balance = modes[v]
        elif key == "clientid":
            if not value or not all(0x21 <= ord(ch) < 0x7F for ch in value):
                raise _config_error(f"(clientid={value}): expected printable ASCII without spaces")
            self.client_id = value
        elif key == "forcereload":
            if not FORCE_RELOAD.fullmatch(value.strip().lower()):
                raise _config_error(f"(forcereload={value}): expected none, short, long, forever or shortforever, "
                                    f"each also with the prefix soft")
            self.force_reload = value.strip().lower()
        elif key == "maxagesecs":
            self.max_age_secs = _int(key, value, 0, 1 << 31)
        elif key == "freshkey":
            self.fresh_key = value.strip()
        elif key == "logicalserverurl":
            self.logical_server = _url(value, "logicalserverurl") if value.strip() else ""
        elif key == "preferipfamily":
            family = _int(key, value, 0, 6)
            if family not in (0, 4, 6):
                raise _config_error(f"(preferipfamily={value}): expected 4, 6 or 0")
            self.prefer_ip_family = family
        elif key in ("writetimeout", "writetimeoutsecs"):
            self.write_timeout = _seconds(key, value, positive=True)
        elif key == "security":
            if value.strip().lower() not in ("sig", "none", ""):
                raise _config_error(f"(security={value}): expected sig or none")
            self.signed_answers = value.strip().lower() == "sig"
        elif key == "acceptsig1":
            self.accept_sig1 = _yes_no(key, value)
        elif key == "maxanswerbytes":
            self.max_answer_bytes = _int(key, value, 1024, 1 << 62)
        elif key in ("attempttimeout", "attempttimeoutsecs"):
            self.attempt_timeout = _seconds(key, value, positive=True)
        elif key == "verifykey":
            key_id, file = key_spec(value)  # a malformed value is refused now; the file is read when a client is made
            spec = f"{key_id}:{file}"
            if spec in self.verify_keys:
                self.warn(f"verifykey {spec} given twice; used once")
            elif any(k.split(":", 1)[0] == key_id for k in self.verify_keys):
                raise _config_error(f"(verifykey={value}): key id '{key_id}' given twice, with different files")
            else:
                self.verify_keys.append(spec)
        else:
            self.warn(f"unknown configuration key '{key}' ignored")

    def add_proxy_config(self, url: str) -> None:
        """A proxy auto-config URL: http://…, https://…, file://… (any case) or auto (WPAD); the same URL once."""
        v = url.strip()
        if v.lower() == "auto":
            v = "auto"
        elif not v.lower().startswith(("http://", "https://", "file:/")):
            raise _config_error(f"proxyconfigurl must be http://…, file://… or auto, not '{url}'")
        self._add("proxyconfigurl", self.proxy_configs, v, MAX_PROXY_CONFIGS)

    def _add(self, key: str, values: list[str], value: str, limit: int) -> None:
        """Adds a value of a repeatable key: the same one again is used once, with a warning."""
        if value in values:
            self.warn(f"{key} {value} given twice; used once")
            return
        if len(values) >= limit:
            raise _config_error(f"({key}={value}): at most {limit} {key} values")
        values.append(value)

    def reload_policy(self) -> ReloadPolicy:
        return ReloadPolicy.of(self.force_reload, self.max_age_secs, self.fresh_key)

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def validate(self) -> None:
        """Refuses a configuration with no route or values out of their limits."""
        if not self.servers:
            raise _config_error("no server configured: set OUTPOST_SERVER (e.g. http://host:8000) or FRONTIER_SERVER")
        for s in self.servers:
            if s.lower().startswith("sqlite:"):
                raise _config_error(f"(serverurl={s}): an offline snapshot file is read by the Java client only")
        if len(self.servers) > MAX_SERVERS:
            raise _config_error(f"at most {MAX_SERVERS} servers")
        if len(self.proxies) > MAX_PROXIES or len(self.backup_proxies) > MAX_PROXIES:
            raise _config_error(f"at most {MAX_PROXIES} proxies")
        if not self.failover_to_server and not (self.proxies or self.backup_proxies or self.proxy_configs):
            raise _config_error("failovertoserver=no needs at least one proxy or proxy auto-config")
        if len(self.proxy_configs) > MAX_PROXY_CONFIGS:
            raise _config_error(f"at most {MAX_PROXY_CONFIGS} proxy auto-config URLs")
        if not 0 <= self.retries <= MAX_RETRIES:
            raise _config_error(f"retries must be 0 ... {MAX_RETRIES}")
        if self.connect_timeout <= 0 or self.read_timeout <= 0:
            raise _config_error("timeouts must be positive")
        for folder, w in self.folder_windows.items():
            if not folder.startswith("/") or w.length < 0 or w.divisions < 1:
                raise _config_error(f"bad cache window for folder '{folder}'")
        if self.signed_answers and not self.verify_keys:
            raise _config_error("security=sig needs at least one verifykey=FILE (or KEYID:FILE) to verify with")
        if self.verify_keys and not self.signed_answers:
            self.warn("verifykey is ignored without security=sig: answers are not verified")
        if self.load_balance == "proxies" and self.proxy_configs:
            # as frontier_client: the PAC file's order is the site's choice, so no random start over it
            self.warn("loadbalance=proxies is turned off: the proxy auto-config decides the order of the proxies")
            self.load_balance = "none"

    def to_string(self) -> str:
        parts = [f"(serverurl={s})" for s in self.servers] + [f"(proxyurl={p})" for p in self.proxies]
        parts += [f"(proxyconfigurl={p})" for p in self.proxy_configs]
        parts += [f"(backupproxyurl={p})" for p in self.backup_proxies]
        parts += [f"(retries={self.retries})", f"(connecttimeout={self.connect_timeout:g})",
                  f"(readtimeout={self.read_timeout:g})", f"(backoff={self.backoff:g})",
                  f"(failovertoserver={'yes' if self.failover_to_server else 'no'})",
                  f"(cachewindow={self.time_window.length // 1_000_000_000})",
                  f"(cachealign={self.time_window.divisions})", f"(clientcachemaxbytes={self.cache_max_bytes})"]
        if self.load_balance != "none":
            parts.append(f"(loadbalance={self.load_balance})")
        if self.client_id:
            parts.append(f"(clientid={self.client_id})")
        if self.force_reload != "none":
            parts.append(f"(forcereload={self.force_reload})")
        if self.max_age_secs >= 0:
            parts.append(f"(maxagesecs={self.max_age_secs})")
        if self.fresh_key:
            parts.append(f"(freshkey={self.fresh_key})")
        if self.logical_server:
            parts.append(f"(logicalserverurl={self.logical_server})")
        parts += [f"(preferipfamily={self.prefer_ip_family})", f"(writetimeoutsecs={self.write_timeout:g})"]
        if self.signed_answers:
            parts.append("(security=sig)")
        parts += [f"(verifykey={k})" for k in self.verify_keys]
        if self.accept_sig1:
            parts.append("(acceptsig1=yes)")
        parts += [f"(maxanswerbytes={self.max_answer_bytes})", f"(attempttimeoutsecs={self.attempt_timeout:g})"]
        return "".join(parts)


def log_warnings(config: Config, write: Callable[[str], None] | None = None) -> None:
    """Each of the configuration's warnings once per process: to ``write`` (the command line's standard error) or
    the ``outpost`` logger."""
    for message in config.warnings:
        with _logged_lock:
            if message in _logged:
                continue
            _logged.add(message)
        if write is None:
            _logger.warning("%s", message)
        else:
            write(message)


def _split_list(s: str) -> list[str]:
    return [p for p in re.split(r"[;,\s]+", s) if p]


def _list_vars(env: Mapping[str, str], name: str, n: int) -> list[str]:
    values = [env.get(name, "")] + [env.get(f"{name}{i}", "") for i in range(1, n + 1)]
    return [v.strip() for v in values if v.strip()]


def _pairs(spec: str) -> list[tuple[str, str]]:
    """``(k=v)(k=v(x))`` as pairs; text outside the parentheses is ignored, nested parentheses are kept."""
    out = []
    i = 0
    while i < len(spec):
        if spec[i] != "(":
            i += 1
            continue
        depth, j = 1, i + 1
        while j < len(spec) and depth:
            depth += {"(": 1, ")": -1}.get(spec[j], 0)
            j += 1
        if depth:
            raise _config_error(f"unbalanced parentheses in the configuration string, expected (key=value): '{spec}'")
        item = spec[i + 1:j - 1]
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise _config_error(f"'({item})' is not (key=value)")
        out.append((key.strip().lower(), value.strip()))
        i = j
    return out


# scheme://host[:port][/path]: a host name (letters, digits, '-', '.') or an IP literal in brackets; the path in
# RFC 3986 characters with '%' only before two hex digits. Anything else (spaces, a query, user info) is refused.
_URL = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)"
                  r"(?::(?P<port>[0-9]*))?(?P<path>(?:/(?:[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})*)?)")


def _url(url: str, what: str, proxy: bool = False) -> str:
    """The URL as ``scheme://host:port[/path]``: http:// is added when missing, the scheme's port when none is
    given, a trailing '/' is dropped, a path prefix is kept as written. A proxy is ``http://host:port``."""
    v = url.strip()
    if "://" not in v:
        v = "http://" + v
    m = _URL.fullmatch(v)
    scheme = m.group("scheme").lower() if m else ""
    if not m or scheme not in ("http", "https"):
        raise _config_error(f"({what}={url}): expected http://host:port/path, without user, query or fragment")
    port = int(m.group("port") or (443 if scheme == "https" else 80))
    path = m.group("path").rstrip("/")
    if not 0 < port < 65536:
        raise _config_error(f"({what}={url}): bad port {port}")
    if proxy and (scheme != "http" or path):
        raise _config_error(f"({what}={url}): a proxy is http://host:port")
    return f"{scheme}://{m.group('host')}:{port}{path}"


def _int(key: str, value: str, lo: int, hi: int) -> int:
    try:
        n = int(value.strip())
    except ValueError:
        raise _config_error(f"({key}={value}): expected a whole number") from None
    if not lo <= n <= hi:
        raise _config_error(f"({key}={value}): expected {lo} ... {hi}")
    return n


def _yes_no(key: str, value: str) -> bool:
    v = value.strip().lower()
    if v in ("yes", "true", "1", "on"):
        return True
    if v in ("no", "false", "0", "off"):
        return False
    raise _config_error(f"({key}={value}): expected yes or no")


_SECONDS = re.compile(r"([0-9]+)(?:\.([0-9]*))?|\.([0-9]+)")


def _seconds(key: str, value: str, positive: bool) -> float:
    """Plain decimal seconds, at most a day, to the millisecond (finer would be rounded one way or another)."""
    m = _SECONDS.fullmatch(value.strip())
    fraction = (m.group(2) or m.group(3) or "") if m else ""
    if not m or fraction[3:].strip("0"):
        raise _config_error(f"({key}={value}): expected seconds, to the millisecond")
    ms = int(m.group(1) or 0) * 1000 + int((fraction[:3] + "000")[:3])
    if ms < (1 if positive else 0) or ms > 86_400_000:
        raise _config_error(f"({key}={value}): expected seconds {'> 0' if positive else '>= 0'}, at most a day")
    return ms / 1000
