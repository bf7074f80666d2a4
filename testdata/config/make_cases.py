#!/usr/bin/env python3
"""Writes cases.json: configuration strings and environments with the normalised configuration (or the error) that
the Java, C++ and Python clients must all reach (README.md says what each field means). Edit the cases here and run
it again; the tests read only cases.json."""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

DEFAULTS = {
    "servers": [],
    "proxies": [],
    "backup_proxies": [],
    "proxy_config_urls": [],
    "failover_to_server": True,
    "load_balance": "none",
    "retries": 1,
    "connect_timeout_ms": 5000,
    "read_timeout_ms": 10000,
    "write_timeout_ms": 5000,
    "attempt_timeout_ms": 30000,
    "backoff_ms": 200,
    "max_backoff_ms": 5000,
    "cache_window_secs": 600,
    "cache_align": 1,
    "cache_max_bytes": 64 << 20,
    "client_id": None,
    "force_reload": "none",
    "max_age_secs": -1,
    "fresh_key": "",
    "logical_server": "",
    "prefer_ip_family": 4,
    "security": "none",
    "verify_keys": [],
    "accept_sig1": False,
    "max_answer_bytes": 256 << 20,
    "warnings": [],
}

# What every client's message for an error of each kind contains (besides the key, when the case names one).
ERROR_KINDS = {
    "syntax": "(key=value)",
    "bad-value": "",
    "too-many": "at most",
    "no-server": "no server",
    "no-route": "failovertoserver=no",
    "needs-key": "security=sig",
    "conflict": "twice",
}

A = "http://a.example:8000"
B = "http://b.example:8000"
P = "http://p.example:3128"
Q = "http://q.example:3128"

cases = []


def ok(name, note, *, config=None, env=None, warnings=(), **expect):
    c = {"name": name, "note": note}
    c.update({"config": config} if env is None else {"env": env})
    expect["warnings"] = list(warnings)
    c["expect"] = expect
    cases.append(c)


def error(name, note, kind, key=None, *, config=None, env=None):
    assert kind in ERROR_KINDS
    c = {"name": name, "note": note}
    c.update({"config": config} if env is None else {"env": env})
    c["error"] = {"kind": kind, "key": key}
    cases.append(c)


def unknown(key):
    return f"unknown configuration key '{key}' ignored"


def twice(key, value):
    return f"{key} {value} given twice; used once"


# --- the grammar ---------------------------------------------------------------------------------------------------
ok("one-server", "the smallest configuration: everything else is the default",
   config=f"(serverurl={A})", servers=[A])
ok("every-key", "every key set away from its default",
   config=f"(serverurl={A})(serverurl={B})(proxyurl={P})(backupproxyurl={Q})(proxyconfigurl=http://wpad.example/p.pac)"
          "(failovertoserver=no)(loadbalance=servers)(retries=3)(connecttimeout=2.5)(readtimeout=20)"
          "(writetimeout=7)(attempttimeout=60)(backoff=0.5)(cachewindow=300)(cachealign=4)"
          "(clientcachemaxbytes=1048576)(clientid=calib/2.1)(forcereload=softlong)(maxagesecs=3600)(freshkey=run42)"
          "(logicalserverurl=http://logical.example:8000/outpost)(preferipfamily=6)(security=sig)"
          "(verifykey=site-2026:keys/site-2026.pem)(acceptsig1=yes)(maxanswerbytes=1048576)",
   servers=[A, B], proxies=[P], backup_proxies=[Q], proxy_config_urls=["http://wpad.example/p.pac"],
   failover_to_server=False, load_balance="servers", retries=3, connect_timeout_ms=2500, read_timeout_ms=20000,
   write_timeout_ms=7000, attempt_timeout_ms=60000, backoff_ms=500, cache_window_secs=300, cache_align=4,
   cache_max_bytes=1048576, client_id="calib/2.1", force_reload="softlong", max_age_secs=3600, fresh_key="run42",
   logical_server="http://logical.example:8000/outpost", prefer_ip_family=6, security="sig",
   verify_keys=[["site-2026", "keys/site-2026.pem"]], accept_sig1=True, max_answer_bytes=1048576)
ok("plain-list", "a string without '(' is a list of server URLs separated by ';', ',' or white space",
   config="http://a.example:8000; http://b.example:8000,c.example:8000  d.example:8000",
   servers=[A, B, "http://c.example:8000", "http://d.example:8000"])
ok("text-outside-groups", "text outside the parentheses is ignored, as in frontier://(…)/db",
   config=f"frontier://(serverurl={A})(proxyurl={P})/conditions", servers=[A], proxies=[P])
ok("key-case-and-spaces", "keys are case-insensitive; white space around keys and values is not part of them",
   config=f"( ServerURL = {A} )( RETRIES = 3 )\n(ProxyUrl={P})", servers=[A], proxies=[P], retries=3)
ok("nested-parentheses", "a value may hold balanced parentheses",
   config=f"(serverurl={A})(freshkey=run(42))", servers=[A], fresh_key="run(42)")
ok("closing-parenthesis-outside", "a ')' outside any group is text outside the groups",
   config=f"(serverurl={A}))", servers=[A])
ok("last-value-wins", "a single-valued key given twice: the later one counts",
   config=f"(serverurl={A})(retries=2)(retries=4)", servers=[A], retries=4)
error("unbalanced", "a group that is never closed", "syntax", config=f"(serverurl={A}")
error("group-without-equals", "a group is (key=value)", "syntax", config="(serverurl)")
error("group-without-key", "a group with an empty key", "syntax", config=f"(={A})")
error("empty-string", "no server named: refused, not a guessed localhost", "no-server", config="")
error("options-without-server", "options but no server", "no-server", config="(retries=2)")
ok("unknown-keys", "unknown keys are ignored as frontier_client does, but each is named, once, in lower case",
   config=f"(serverurl={A})(frobnicate=1)(Colour=red)(frobnicate=2)", servers=[A],
   warnings=[unknown("frobnicate"), unknown("colour")])
ok("app-is-not-a-key", "the client id is set with clientid; app is not a key of the grammar",
   config=f"(serverurl={A})(app=calib)", servers=[A], warnings=[unknown("app")])
error("quoted-value", "the grammar has no quoting: quotes are part of the value, which is then no URL", "bad-value",
      "serverurl", config=f'(serverurl="{A}")')

# --- server and proxy URLs -----------------------------------------------------------------------------------------
ok("scheme-and-port-added", "http:// is added when missing, and the scheme's port when none is given",
   config="(serverurl=a.example)(serverurl=https://b.example)",
   servers=["http://a.example:80", "https://b.example:443"])
ok("base-path-kept", "a path prefix is kept, without its trailing '/'",
   config="(serverurl=http://a.example:8000/outpost///)", servers=["http://a.example:8000/outpost"])
ok("scheme-case", "the scheme is case-insensitive and written in lower case; the host is kept as written",
   config="(serverurl=HTTP://A.example:8000)", servers=["http://A.example:8000"])
ok("percent-encoded-path", "percent-encoding in the path is kept as written, never decoded",
   config="(serverurl=http://a.example:8000/out%2Fpost%20db)", servers=["http://a.example:8000/out%2Fpost%20db"])
ok("ipv6-literal", "an IPv6 address in brackets", config="(serverurl=http://[::1]:8000)(proxyurl=[fd00::3]:3128)",
   servers=["http://[::1]:8000"], proxies=["http://[fd00::3]:3128"])
error("bad-percent-encoding", "'%' not followed by two hex digits", "bad-value", "serverurl",
      config="(serverurl=http://a.example:8000/out%zzpost)")
error("space-in-url", "white space inside a URL", "bad-value", "serverurl",
      config="(serverurl=http://a.example:8000/out post)")
error("query-in-url", "a server URL with a query: the API paths are appended to it", "bad-value", "serverurl",
      config="(serverurl=http://a.example:8000/outpost?db=x)")
error("fragment-in-url", "a server URL with a fragment", "bad-value", "serverurl",
      config="(serverurl=http://a.example:8000/outpost#x)")
error("user-info-in-url", "credentials in a URL are not supported (never silently dropped)", "bad-value", "serverurl",
      config="(serverurl=http://user:secret@a.example:8000)")
error("port-too-large", "a port over 65535", "bad-value", "serverurl", config="(serverurl=http://a.example:99999)")
error("port-zero", "port 0", "bad-value", "serverurl", config="(serverurl=http://a.example:0)")
error("port-not-a-number", "a port that is not a number", "bad-value", "serverurl",
      config="(serverurl=http://a.example:http)")
error("no-host", "a URL without a host", "bad-value", "serverurl", config="(serverurl=http://:8000)")
error("empty-server", "an empty serverurl", "bad-value", "serverurl", config="(serverurl=)")
error("other-scheme", "only http:// and https://", "bad-value", "serverurl", config="(serverurl=ftp://a.example)")
error("underscore-in-host", "a host name is letters, digits, '-' and '.'", "bad-value", "serverurl",
      config="(serverurl=http://my_host:8000)")
error("percent-in-host", "percent-encoding in a host name", "bad-value", "serverurl",
      config="(serverurl=http://a%2eexample:8000)")
ok("duplicate-server", "the same server twice (spelt differently) is used once, with a warning",
   config=f"(serverurl={A})(serverurl=a.example:8000/)(serverurl={B})", servers=[A, B],
   warnings=[twice("serverurl", A)])
ok("sixteen-servers", "frontier_client's limit: 16 servers",
   config="".join(f"(serverurl=http://s{i}.example:8000)" for i in range(16)),
   servers=[f"http://s{i}.example:8000" for i in range(16)])
error("seventeen-servers", "one server over the limit", "too-many", "serverurl",
      config="".join(f"(serverurl=http://s{i}.example:8000)" for i in range(17)))
ok("proxy-default-port", "a proxy without a port: port 80", config=f"(serverurl={A})(proxyurl=p.example)",
   servers=[A], proxies=["http://p.example:80"])
error("https-proxy", "a proxy is http://host:port", "bad-value", "proxyurl",
      config=f"(serverurl={A})(proxyurl=https://p.example:3128)")
error("proxy-with-path", "a proxy has no path", "bad-value", "proxyurl",
      config=f"(serverurl={A})(proxyurl=http://p.example:3128/squid)")
ok("duplicate-proxy", "the same proxy twice is used once, with a warning",
   config=f"(serverurl={A})(proxyurl={P})(proxyurl=p.example:3128)", servers=[A], proxies=[P],
   warnings=[twice("proxyurl", P)])
ok("twenty-four-proxies", "frontier_client's limit: 24 proxies",
   config=f"(serverurl={A})" + "".join(f"(proxyurl=http://p{i}.example:3128)" for i in range(24)),
   servers=[A], proxies=[f"http://p{i}.example:3128" for i in range(24)])
error("twenty-five-proxies", "one proxy over the limit", "too-many", "proxyurl",
      config=f"(serverurl={A})" + "".join(f"(proxyurl=http://p{i}.example:3128)" for i in range(25)))
ok("backup-proxy", "a backup proxy implies failovertoserver=no, as in frontier_client",
   config=f"(serverurl={A})(proxyurl={P})(backupproxyurl={Q})", servers=[A], proxies=[P], backup_proxies=[Q],
   failover_to_server=False)
ok("backup-proxy-then-failover", "a later failovertoserver=yes counts (the later setting wins)",
   config=f"(serverurl={A})(backupproxyurl={Q})(failovertoserver=yes)", servers=[A], backup_proxies=[Q])
ok("failover-then-backup-proxy", "a later backupproxyurl turns failover to the servers off again",
   config=f"(serverurl={A})(failovertoserver=yes)(backupproxyurl={Q})", servers=[A], backup_proxies=[Q],
   failover_to_server=False)
ok("logical-server", "logicalserverurl is normalised like a server URL",
   config=f"(serverurl={A})(logicalserverurl=logical.example/outpost/)", servers=[A],
   logical_server="http://logical.example:80/outpost")
ok("logical-server-empty", "an empty logicalserverurl is none", config=f"(serverurl={A})(logicalserverurl=)",
   servers=[A])
error("logical-server-bad", "logicalserverurl is checked like a server URL", "bad-value", "logicalserverurl",
      config=f"(serverurl={A})(logicalserverurl=ftp://x.example)")

# --- numbers, durations, flags -------------------------------------------------------------------------------------
ok("retries-bounds", "retries 0 … 10", config=f"(serverurl={A})(retries=0)", servers=[A], retries=0)
ok("retries-ten", "retries 0 … 10", config=f"(serverurl={A})(retries= 10 )", servers=[A], retries=10)
for bad in ("11", "-1", "2.5", "", "two", "0x3"):
    error(f"retries-{bad or 'empty'}", "retries is a whole number 0 … 10", "bad-value", "retries",
          config=f"(serverurl={A})(retries={bad})")
ok("timeouts-fractional", "seconds with up to millisecond precision, and the …secs spellings",
   config=f"(serverurl={A})(connecttimeoutsecs=2.5)(readtimeoutsecs=.25)(writetimeoutsecs=3.)"
          "(attempttimeoutsecs=86400)", servers=[A], connect_timeout_ms=2500, read_timeout_ms=250,
   write_timeout_ms=3000, attempt_timeout_ms=86400000)
ok("timeout-one-millisecond", "the smallest timeout", config=f"(serverurl={A})(connecttimeout=0.001)",
   servers=[A], connect_timeout_ms=1)
for key, bad, why in (("connecttimeout", "0", "a timeout must be positive"),
                      ("readtimeout", "-1", "negative"),
                      ("writetimeout", "0.0005", "finer than a millisecond: it would be rounded one way or another"),
                      ("attempttimeout", "1.0005", "finer than a millisecond"),
                      ("connecttimeout", "86401", "over a day"),
                      ("readtimeout", "1e3", "no exponents: plain decimal seconds"),
                      ("connecttimeout", "nan", "not a number"),
                      ("readtimeout", "inf", "not a number"),
                      ("attempttimeout", "5s", "no unit: the unit is the second"),
                      ("writetimeout", "", "empty")):
    error(f"{key}-{bad or 'empty'}", why, "bad-value", key, config=f"(serverurl={A})({key}={bad})")
ok("backoff-zero", "no wait between passes", config=f"(serverurl={A})(backoff=0)", servers=[A], backoff_ms=0)
ok("backoff-over-cap", "a first backoff over the 5 s cap raises the cap to it: the wait asked for is kept",
   config=f"(serverurl={A})(backoffsecs=8)", servers=[A], backoff_ms=8000, max_backoff_ms=8000)
error("backoff-negative", "backoff is ≥ 0", "bad-value", "backoff", config=f"(serverurl={A})(backoff=-0.5)")
ok("failover-spellings", "yes/no, true/false, on/off, 1/0, any case",
   config=f"(serverurl={A})(proxyurl={P})(failovertoserver=No)(acceptsig1=ON)", servers=[A], proxies=[P],
   failover_to_server=False, accept_sig1=True)
error("failover-without-proxy", "failovertoserver=no and no proxy leaves no route", "no-route",
      config=f"(serverurl={A})(failovertoserver=no)")
ok("failover-with-pac-only", "a proxy auto-config is a route to proxies",
   config=f"(serverurl={A})(failovertoserver=no)(proxyconfigurl=auto)", servers=[A], failover_to_server=False,
   proxy_config_urls=["auto"])
error("failover-maybe", "not a yes or no", "bad-value", "failovertoserver",
      config=f"(serverurl={A})(proxyurl={P})(failovertoserver=maybe)")
ok("cache-window-off", "cachewindow=0: exact /at/ queries", config=f"(serverurl={A})(cachewindow=0)(cachealign=1000)",
   servers=[A], cache_window_secs=0, cache_align=1000)
for key, bad in (("cachealign", "0"), ("cachealign", "1001"), ("cachewindow", "-60"), ("cachewindow", "1.5")):
    error(f"{key}-{bad}", "out of its limits", "bad-value", key, config=f"(serverurl={A})({key}={bad})")
ok("client-cache", "clientcachemaxbytes (0 turns the cache off), also spelt clientcache",
   config=f"(serverurl={A})(clientcache=0)", servers=[A], cache_max_bytes=0)
error("client-cache-negative", "a negative size", "bad-value", "clientcachemaxbytes",
      config=f"(serverurl={A})(clientcachemaxbytes=-5)")
ok("load-balance-proxies", "loadbalance=proxies", config=f"(serverurl={A})(proxyurl={P})(loadbalance=Proxies)",
   servers=[A], proxies=[P], load_balance="proxies")
ok("load-balance-with-pac", "the proxy auto-config decides the order of the proxies: loadbalance=proxies is off",
   config=f"(serverurl={A})(loadbalance=proxies)(proxyconfigurl=http://wpad.example/p.pac)", servers=[A],
   proxy_config_urls=["http://wpad.example/p.pac"],
   warnings=["loadbalance=proxies is turned off: the proxy auto-config decides the order of the proxies"])
error("load-balance-bogus", "proxies, servers or none", "bad-value", "loadbalance",
      config=f"(serverurl={A})(loadbalance=random)")
ok("client-id", "clientid: the app/version of X-Outpost-Client", config=f"(serverurl={A})(clientid= calib/2.1 )",
   servers=[A], client_id="calib/2.1")
error("client-id-space", "a space would split the header's fields", "bad-value", "clientid",
      config=f"(serverurl={A})(clientid=my job/1)")
error("client-id-empty", "an empty client id", "bad-value", "clientid", config=f"(serverurl={A})(clientid=)")
for v, want in (("short", "short"), ("LONG", "long"), ("softforever", "softforever"),
                ("shortforever", "shortforever"), ("softshortforever", "softshortforever"), ("none", "none")):
    ok(f"force-reload-{v}", "forcereload's values, any case", config=f"(serverurl={A})(forcereload={v})",
       servers=[A], force_reload=want)
error("force-reload-bogus", "not a lifetime class", "bad-value", "forcereload",
      config=f"(serverurl={A})(forcereload=sometimes)")
ok("max-age", "maxagesecs ≥ 0", config=f"(serverurl={A})(maxagesecs=0)", servers=[A], max_age_secs=0)
error("max-age-negative", "maxagesecs ≥ 0", "bad-value", "maxagesecs", config=f"(serverurl={A})(maxagesecs=-1)")
ok("fresh-key-empty", "an empty freshkey is none", config=f"(serverurl={A})(freshkey=  )", servers=[A])
ok("prefer-ip-family", "4, 6 or 0", config=f"(serverurl={A})(preferipfamily=0)", servers=[A], prefer_ip_family=0)
error("prefer-ip-family-5", "4, 6 or 0", "bad-value", "preferipfamily", config=f"(serverurl={A})(preferipfamily=5)")
ok("max-answer-bytes-least", "maxanswerbytes ≥ 1024", config=f"(serverurl={A})(maxanswerbytes=1024)", servers=[A],
   max_answer_bytes=1024)
for bad in ("1023", "0", "1k"):
    error(f"max-answer-bytes-{bad}", "maxanswerbytes is a whole number ≥ 1024", "bad-value", "maxanswerbytes",
          config=f"(serverurl={A})(maxanswerbytes={bad})")

# --- signatures ----------------------------------------------------------------------------------------------------
ok("security-sig", "security=sig with two keys (rotation), any case",
   config=f"(serverurl={A})(security=SIG)(verifykey=old-2025:keys/old.pem)(verifykey= new-2026 : keys/new.pem )",
   servers=[A], security="sig", verify_keys=[["old-2025", "keys/old.pem"], ["new-2026", "keys/new.pem"]])
error("security-sig-without-key", "nothing to verify with", "needs-key", config=f"(serverurl={A})(security=sig)")
error("security-bogus", "sig or none", "bad-value", "security", config=f"(serverurl={A})(security=tls)")
ok("verify-key-without-security", "a key without security=sig verifies nothing: said so",
   config=f"(serverurl={A})(verifykey=k1:keys/k1.pem)", servers=[A], verify_keys=[["k1", "keys/k1.pem"]],
   warnings=["verifykey is ignored without security=sig: answers are not verified"])
error("verify-key-without-id", "the key id is never guessed from the file name", "bad-value", "verifykey",
      config=f"(serverurl={A})(security=sig)(verifykey=keys/site-2026.pem)")
error("verify-key-bad-id", "a key id is letters, digits, '.', '_' and '-'", "bad-value", "verifykey",
      config=f"(serverurl={A})(security=sig)(verifykey=site 2026:keys/k.pem)")
error("verify-key-no-file", "KEYID: without a file", "bad-value", "verifykey",
      config=f"(serverurl={A})(security=sig)(verifykey=k1:)")
error("verify-key-two-files", "one key id with two different files: which key is meant?", "conflict", "verifykey",
      config=f"(serverurl={A})(security=sig)(verifykey=k1:keys/a.pem)(verifykey=k1:keys/b.pem)")
ok("verify-key-twice", "the same key twice is used once, with a warning",
   config=f"(serverurl={A})(security=sig)(verifykey=k1:keys/a.pem)(verifykey=k1:keys/a.pem)", servers=[A],
   security="sig", verify_keys=[["k1", "keys/a.pem"]], warnings=[twice("verifykey", "k1:keys/a.pem")])
error("accept-sig1-bogus", "yes or no", "bad-value", "acceptsig1", config=f"(serverurl={A})(acceptsig1=sometimes)")

# --- proxy auto-config ---------------------------------------------------------------------------------------------
ok("proxy-config-urls", "http://, https://, file:// (any case) and auto (WPAD, any case), in order",
   config=f"(serverurl={A})(proxyconfigurl=AUTO)(proxyconfigurl=https://wpad.example/p.pac)"
          "(proxyconfigurl=file:///etc/outpost/site.pac)(proxyconfigurl=HTTP://wpad.example/q.pac)",
   servers=[A], proxy_config_urls=["auto", "https://wpad.example/p.pac", "file:///etc/outpost/site.pac",
                                   "HTTP://wpad.example/q.pac"])
ok("proxy-config-twice", "the same proxy auto-config URL twice is read once, with a warning",
   config=f"(serverurl={A})(proxyconfigurl=auto)(proxyconfigurl=Auto)", servers=[A], proxy_config_urls=["auto"],
   warnings=[twice("proxyconfigurl", "auto")])
error("proxy-config-ftp", "http://, https://, file:// or auto", "bad-value", "proxyconfigurl",
      config=f"(serverurl={A})(proxyconfigurl=ftp://wpad.example/p.pac)")
error("seventeen-proxy-configs", "frontier_client's limit: 16 proxy auto-config URLs", "too-many",
      "proxyconfigurl",
      config=f"(serverurl={A})" + "".join(f"(proxyconfigurl=http://wpad{i}.example/p.pac)" for i in range(17)))

# --- the environment -----------------------------------------------------------------------------------------------
ok("env-outpost-list", "OUTPOST_SERVER as a list and OUTPOST_PROXY as a list",
   env={"OUTPOST_SERVER": f"{A};{B}", "OUTPOST_PROXY": f"{P} {Q}"}, servers=[A, B], proxies=[P, Q])
ok("env-outpost-string", "OUTPOST_SERVER as a full configuration string",
   env={"OUTPOST_SERVER": f"(serverurl={A})(proxyurl={P})(retries=0)"}, servers=[A], proxies=[P], retries=0)
ok("env-outpost-numbered", "OUTPOST_SERVER1..16 and OUTPOST_PROXY1..24 after the unnumbered ones",
   env={"OUTPOST_SERVER": A, "OUTPOST_SERVER2": B, "OUTPOST_PROXY1": P}, servers=[A, B], proxies=[P])
ok("env-outpost-wins", "with OUTPOST_SERVER set, no FRONTIER_SERVER*, FRONTIER_PROXY* or FRONTIER_*TIMEOUTSECS",
   env={"OUTPOST_SERVER": A, "FRONTIER_SERVER": B, "FRONTIER_PROXY": P, "FRONTIER_CONNECTTIMEOUTSECS": "2"},
   servers=[A])
ok("env-frontier", "without OUTPOST_SERVER: the Frontier variables",
   env={"FRONTIER_SERVER": A, "FRONTIER_SERVER1": B, "FRONTIER_PROXY": P, "FRONTIER_PROXY3": Q,
        "FRONTIER_CONNECTTIMEOUTSECS": "2", "FRONTIER_READTIMEOUTSECS": "30"},
   servers=[A, B], proxies=[P, Q], connect_timeout_ms=2000, read_timeout_ms=30000)
error("env-proxies-twice", "a server string naming proxies and a proxy variable: add to them or replace them? "
      "Refused", "conflict", "proxyurl", env={"FRONTIER_SERVER": f"(serverurl={A})(proxyurl={P})", "FRONTIER_PROXY": Q})
error("env-outpost-proxies-twice", "the same with the OUTPOST_ variables", "conflict", "proxyurl",
      env={"OUTPOST_SERVER": f"(serverurl={A})(proxyurl={P})", "OUTPOST_PROXY": Q})
ok("env-string-proxies", "a server string naming proxies, without a proxy variable",
   env={"FRONTIER_SERVER": f"(serverurl={A})(proxyurl={P})"}, servers=[A], proxies=[P])
ok("env-outpost-proxy-over-frontier", "OUTPOST_PROXY is used in place of FRONTIER_PROXY",
   env={"FRONTIER_SERVER": A, "FRONTIER_PROXY": P, "OUTPOST_PROXY": Q}, servers=[A], proxies=[Q])
ok("env-outpost-timeout-over-frontier", "OUTPOST_CONNECTTIMEOUTSECS is used in place of FRONTIER_CONNECTTIMEOUTSECS",
   env={"FRONTIER_SERVER": A, "FRONTIER_CONNECTTIMEOUTSECS": "2", "OUTPOST_CONNECTTIMEOUTSECS": "3"},
   servers=[A], connect_timeout_ms=3000)
ok("env-blank-is-unset", "a variable of white space only is not set",
   env={"OUTPOST_SERVER": "  ", "FRONTIER_SERVER": A, "OUTPOST_PROXY": " "}, servers=[A])
ok("env-always-read", "FRONTIER_PROXYCONFIGS, FRONTIER_FORCERELOAD and FRONTIER_FRESHKEY are read with either",
   env={"OUTPOST_SERVER": A, "FRONTIER_PROXYCONFIGS": "auto; http://wpad.example/p.pac;",
        "FRONTIER_FORCERELOAD": "softlong", "FRONTIER_FRESHKEY": "run7"}, servers=[A],
   proxy_config_urls=["auto", "http://wpad.example/p.pac"], force_reload="softlong", fresh_key="run7")
ok("env-outpost-settings", "OUTPOST_RETRIES, OUTPOST_READTIMEOUTSECS, OUTPOST_LOADBALANCE, OUTPOST_FAILOVERTOSERVER, "
   "OUTPOST_ID", env={"OUTPOST_SERVER": A, "OUTPOST_PROXY": P, "OUTPOST_RETRIES": "4", "OUTPOST_READTIMEOUTSECS": "1.5",
                      "OUTPOST_LOADBALANCE": "proxies", "OUTPOST_FAILOVERTOSERVER": "no", "OUTPOST_ID": "calib/3"},
   servers=[A], proxies=[P], retries=4, read_timeout_ms=1500, load_balance="proxies", failover_to_server=False,
   client_id="calib/3")
ok("env-settings-after-string", "the OUTPOST_* settings override the same key in OUTPOST_SERVER's string",
   env={"OUTPOST_SERVER": f"(serverurl={A})(retries=0)", "OUTPOST_RETRIES": "2"}, servers=[A], retries=2)
error("env-none", "no server in the environment: refused, not a guessed localhost", "no-server", env={})
error("env-bad-retries", "the variable's value is checked like the key's", "bad-value", "retries",
      env={"OUTPOST_SERVER": A, "OUTPOST_RETRIES": "many"})
error("env-bad-proxy", "a proxy from the environment is checked like proxyurl", "bad-value", "proxyurl",
      env={"OUTPOST_SERVER": A, "OUTPOST_PROXY": "https://p.example:3128"})
error("env-bad-proxy-config", "FRONTIER_PROXYCONFIGS' URLs are checked like proxyconfigurl", "bad-value",
      "proxyconfigurl", env={"OUTPOST_SERVER": A, "FRONTIER_PROXYCONFIGS": "ftp://wpad.example/p.pac"})

names = [c["name"] for c in cases]
assert len(names) == len(set(names)), "case names must be unique"
doc = {"defaults": DEFAULTS, "error_kinds": ERROR_KINDS, "cases": cases}
(HERE / "cases.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
print(f"{len(cases)} cases")
