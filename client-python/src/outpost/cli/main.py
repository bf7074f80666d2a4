"""outpost-cli: command-line access to an Outpost service, following docs/cli.md exactly (the same command line
gives the same standard output and exit code as the Java and C++ tools)."""

from __future__ import annotations

import os
import sys
from typing import NoReturn, TextIO

from .. import __version__
from ..client import Client
from ..failover import Event
from ..config import MAX_RETRIES, Config, log_warnings
from ..errors import ErrorKind, OutpostError
from ..query import MAX_KEY, Channels, Order, Window, check_path, check_tag
from ..wire import Answer, Value
from .output import Printer, json_string
from .times import CliKey, KeyForm, parse_key

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_REJECTED, EXIT_UNAVAILABLE, EXIT_CORRUPT = range(7)

USAGE = """usage: outpost-cli [options] COMMAND [ARGS]      (options may also follow the command)

commands:
  nodes | folders                 every folder and folderset
  channels FOLDER                 the channels of a folder
  tags NODE                       the tags of a folder or folderset
  tag FOLDER TAG                  the tag of FOLDER that TAG (its own or a parent's) resolves to
  find FOLDER TIME                the objects valid at TIME in the selected channels
  browse FOLDER [T1 [T2]]         every IOV with since <= T2 and until > T1 (default min max; streamed for csv/json)
  count FOLDER [T1 [T2]]          how many IOVs browse would print
  snapshot GLOBALTAG TIME [RUNLUMI]
                                  every folder of GLOBALTAG (or HEAD) at TIME, all at one state; a global tag
                                  holding time and run-lumi folders needs both keys (e.g. 2026-01-01 305/50)
  globaltags                      every global tag

times: min, max; for time folders nanoseconds (1767229200000000000) or an ISO date or date-time (2026-01-01,
       2026-01-01T10:00:00.5Z, 2026-01-01T12:00+02:00; UTC unless an offset is given); for run-lumi folders
       RUN/LUMI or RUN:LUMI (358031/12), never a bare number; raw:N is the raw key N in either.
       Table and csv print run-lumi keys as RUN/LUMI.

options:
  --server URL          server base URL (repeatable); default: OUTPOST_SERVER or FRONTIER_SERVER
  --proxy URL           HTTP proxy (repeatable); default: OUTPOST_PROXY or FRONTIER_PROXY
  --proxy-config URL    proxy auto-config file (http://..., file://... or auto for WPAD; repeatable, tried in
                        order); its proxies come before --proxy ones; default: FRONTIER_PROXYCONFIGS
  --config STRING       Frontier-style "(serverurl=...)(proxyurl=...)(retries=2)..." instead of the environment
  --direct              ask the servers directly: no proxy, whatever the environment or --config says
  --no-align            find asks the exact at-time URL instead of the folder's cache-aligned window
  --retries N           extra passes over all routes after the first failed (0-10, default 1)
  --connect-timeout S   connect timeout in seconds (default 5)
  --read-timeout S      read timeout in seconds (default 10)
  --tag TAG             HEAD (default) or a tag name (find, browse, count)
  -c, --channels SEL    all (default), N, N-M, 1-4,7 or name:X
  --order ORDER         browse order: cs (default), sc, csd, sdc
  --format FMT          table (default), csv or json
  -v, --verbose         print every attempt and failover decision to stderr
  -h, --help            this text
  --version             the version

exit codes: 0 ok, 1 other failure, 2 usage, 3 not found (404), 4 rejected (other 4xx), 5 no server reachable,
            6 corrupt answers
One contract for the C++, Java and Python command-line tools: docs/cli.md
"""

NOT_FOUND_HINT = ("outpost-cli: hint: 'nodes' lists the folders, 'tags NODE' the tags of a folder or folderset,"
                  " 'channels FOLDER' its channels")

_VALUE_OPTIONS = {"--server": "server", "--proxy": "proxy", "--proxy-config": "proxy_config", "--config": "config", "--retries": "retries",
                  "--connect-timeout": "connect_timeout", "--read-timeout": "read_timeout", "--tag": "tag",
                  "-c": "channels", "--channels": "channels", "--order": "order", "--format": "format"}
_ARITY = {"nodes": (0, 0, "nodes"), "folders": (0, 0, "nodes"), "channels": (1, 1, "channels FOLDER"),
          "tags": (1, 1, "tags NODE"), "tag": (2, 2, "tag FOLDER TAG"), "find": (2, 2, "find FOLDER TIME"),
          "snapshot": (2, 3, "snapshot GLOBALTAG TIME [RUNLUMI]"), "browse": (1, 3, "browse FOLDER [T1 [T2]]"),
          "count": (1, 3, "count FOLDER [T1 [T2]]"), "globaltags": (0, 0, "globaltags")}

# A snapshot file is not a service: the same advice and exit code as the Java and C++ tools.
SNAPSHOT_FILE_ADVICE = ("the command-line tool asks a service over HTTP; to query a snapshot file, serve it (./outpost"
                        " start --snapshot FILE --server.port=8001) and use --server http://localhost:8001 (the Java"
                        " client library reads sqlite:FILE directly)")


class _Usage(Exception):
    pass


def _usage(message: str) -> NoReturn:
    raise _Usage(message)


def exit_code(e: OutpostError) -> int:
    if e.kind == ErrorKind.NOT_FOUND:
        return EXIT_NOT_FOUND
    if e.kind == ErrorKind.REJECTED:
        return EXIT_REJECTED
    if e.kind in (ErrorKind.INVALID_ARGUMENT, ErrorKind.CONFIG):
        return EXIT_USAGE
    bad_answer = (ErrorKind.CORRUPT, ErrorKind.STALE, ErrorKind.UNSIGNED)  # an answer came, but not a usable one
    if e.kind in bad_answer or e.kind == ErrorKind.PROTOCOL:
        return EXIT_CORRUPT
    if e.kind == ErrorKind.UNAVAILABLE:
        corrupt = bool(e.attempts) and all(a.kind in bad_answer for a in e.attempts)
        return EXIT_CORRUPT if corrupt else EXIT_UNAVAILABLE
    if e.kind in (ErrorKind.CONNECT, ErrorKind.TIMEOUT, ErrorKind.TRANSFER, ErrorKind.SERVER):
        return EXIT_UNAVAILABLE
    return EXIT_FAILED


def _whole(text: str, option: str, lo: int, hi: int) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 6:
        _usage(f"{option} needs a whole number, not '{text}'")
    n = int(text)
    if not lo <= n <= hi:
        _usage(f"{option} is {lo} to {hi}")
    return n


def _time(text: str) -> CliKey:
    try:
        return parse_key(text)
    except ValueError as e:
        _usage(f"bad time '{text}': {e}")


def _in_folder(key: CliKey, run_lumi: bool) -> int:
    """The key read in a folder of that key type; a form that does not fit it is a usage error."""
    try:
        return key.in_folder(run_lumi)
    except ValueError as e:
        _usage(str(e))


def folder_key_type(client: Client, folder: str) -> str | None:
    """The key type of FOLDER ("time" or "run-lumi"), None for an unknown folder (its query gets the 404)."""
    nodes = client.nodes()
    for path, is_folder, key_type in zip(nodes.values("path"), nodes.values("folder"), nodes.values("keyType")):
        if is_folder and path == folder:
            return str(key_type)
    return None


def _parse_args(argv: list[str]) -> tuple[dict[str, list[str]], set[str], list[str]]:
    values: dict[str, list[str]] = {}
    flags: set[str] = set()
    args: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, inline = a.partition("=")
        if a in ("-h", "--help", "--version", "-v", "--verbose", "--direct", "--no-align"):
            flags.add({"-h": "--help", "-v": "--verbose"}.get(a, a))
        elif name in _VALUE_OPTIONS:
            if not eq:
                if i + 1 >= len(argv):
                    _usage(f"{name} needs a value")
                i += 1
                inline = argv[i]
            values.setdefault(_VALUE_OPTIONS[name], []).append(inline)
        elif len(a) > 1 and a.startswith("-"):
            _usage(f"unknown option {a}")
        else:
            args.append(a)
        i += 1
    return values, flags, args


def _config(values: dict[str, list[str]], flags: set[str], env: dict[str, str]) -> Config:
    """--config if given, else the environment; --server/--proxy/--proxy-config replace its servers/proxies/proxy
    auto-config URLs; --direct drops every proxy and proxy auto-config; with no server anywhere,
    http://localhost:8000."""
    if "config" in values:
        cfg = Config.parse(values["config"][-1])
    else:
        cfg = Config.from_environment(env)
    if "server" in values:
        cfg.servers = []
        for s in values["server"]:
            cfg.set("serverurl", s)
    if "proxy" in values:
        cfg.proxies = []
        for p in values["proxy"]:
            cfg.set("proxyurl", p)
    if "proxy_config" in values:
        cfg.proxy_configs = []
        for u in values["proxy_config"]:
            cfg.set("proxyconfigurl", u)
    if "--direct" in flags:
        cfg.proxies, cfg.backup_proxies, cfg.proxy_configs, cfg.failover_to_server = [], [], [], True
    if not cfg.servers:
        cfg.set("serverurl", "http://localhost:8000")
    if "retries" in values:
        cfg.retries = _whole(values["retries"][-1], "--retries", 0, MAX_RETRIES)
    if "connect_timeout" in values:
        cfg.connect_timeout = _whole(values["connect_timeout"][-1], "--connect-timeout", 1, 86400)
    if "read_timeout" in values:
        cfg.read_timeout = _whole(values["read_timeout"][-1], "--read-timeout", 1, 86400)
    if "--no-align" in flags:
        cfg.time_window = cfg.run_lumi_window = Window(0)
    return cfg


def _show(out: TextIO, fmt: str, a: Answer, folder: str | None = None, tag: str | None = None,
          valid: tuple[int, int] | None = None, run_lumi: bool = False) -> None:
    since, until = valid or (a.valid_since, a.valid_until)
    p = Printer(out, fmt, a.kind.json_name, a.folder if folder is None else folder, a.tag if tag is None else tag,
                since, until, a.columns)
    p.write_rows(map(run_lumi_keys, a.rows) if run_lumi else a.rows)
    p.end()


def run_lumi_keys(row: tuple[Value, ...]) -> tuple[Value, ...]:
    """An iovs row with since and until (columns 1 and 2) written RUN/LUMI."""
    since, until = row[1], row[2]
    assert isinstance(since, int) and isinstance(until, int)
    return (row[0], f"{since >> 32}/{since & 0xFFFFFFFF}", f"{until >> 32}/{until & 0xFFFFFFFF}") + row[3:]




def check_channel(client: Client, selection: str, folder: str) -> None:
    """``-c N`` naming a channel the folder does not have is "not found" (exit 3), as ``-c name:X`` is; ranges and
    lists select whatever channels exist."""
    if not (selection.isascii() and selection.isdigit() and len(selection) <= 10):
        return
    wanted = int(selection)
    if wanted not in client.channels(folder).values("channel"):
        raise OutpostError(ErrorKind.NOT_FOUND, f"no channel {wanted} in {folder} (the channels command lists them)")


def run(argv: list[str], out: TextIO, err: TextIO, env: dict[str, str]) -> int:
    values, flags, args = _parse_args(argv)
    if "--help" in flags:
        out.write(USAGE)
        return EXIT_OK
    if "--version" in flags:
        out.write(f"outpost-cli {__version__}\n")
        return EXIT_OK
    if not args:
        err.write("outpost-cli: no command\n" + USAGE)
        return EXIT_USAGE
    fmt = values.get("format", ["table"])[-1]
    if fmt not in ("table", "csv", "json"):
        _usage(f"--format is table, csv or json, not '{fmt}'")
    order_text = values.get("order", ["cs"])[-1]
    try:
        order = Order(order_text)
    except ValueError:
        _usage(f"--order is cs, sc, csd or sdc, not '{order_text}'")
    try:
        channels = Channels.parse(values.get("channels", ["all"])[-1])
    except OutpostError as e:
        _usage(f"--channels: {e.message}")
    selection = values.get("channels", ["all"])[-1]
    tag = values.get("tag", ["HEAD"])[-1]
    cmd = args[0]
    if cmd not in _ARITY:
        _usage(f"unknown command '{cmd}'")
    lo, hi, synopsis = _ARITY[cmd]
    if not lo <= len(args) - 1 <= hi:
        _usage(f"usage: outpost-cli {synopsis}")
    keys: list[CliKey] = []
    if cmd in ("find", "snapshot"):
        keys = [_time(args[2])]
    run_lumi_key = _time(args[3]) if cmd == "snapshot" and len(args) > 3 else None
    if run_lumi_key is not None:  # the pair form: each key in the folders of its type
        _in_folder(keys[0], False)
        _in_folder(run_lumi_key, True)
    if cmd in ("browse", "count"):
        keys = [_time(args[2]) if len(args) > 2 else CliKey("min", 0, KeyForm.ANY),
                _time(args[3]) if len(args) > 3 else CliKey("max", MAX_KEY, KeyForm.ANY)]
        if keys[0].value > keys[1].value:
            _usage(f"T1 ({args[2]}) is after T2 ({args[3]})")
    try:  # spelling of paths and tags is checked before any request
        if cmd == "snapshot":
            check_tag(args[1])
        elif cmd not in ("nodes", "folders", "globaltags"):
            check_path(args[1])
            check_tag(args[2] if cmd == "tag" else tag)
    except OutpostError as e:
        _usage(e.message)
    cfg = _config(values, flags, env)
    if any(s.startswith(("sqlite:", "http://sqlite:")) for s in cfg.servers):
        _usage(SNAPSHOT_FILE_ADVICE)
    cfg.validate()

    def warn(message: str) -> None:
        err.write(f"outpost-cli: warning: {message}\n")

    log_warnings(cfg, warn)
    verbose = "--verbose" in flags
    if verbose:
        err.write(f"outpost-cli: config {cfg.to_string()}\n")

    def log(e: Event) -> None:
        err.write(f"outpost-cli: {e.kind}" + (f" {e.url}" if e.url else "") + (f" via {e.proxy}" if e.proxy else "")
                  + (f" [Cache-Control: {e.refresh}]" if e.refresh else "") + (f": {e.detail}" if e.detail else "")
                  + (f" ({e.decision})" if e.decision else "") + "\n")

    with Client(config=cfg, on_event=log if verbose else None) as client:
        run_lumi = False
        values_ = [k.value for k in keys]
        if cmd in ("find", "browse", "count"):
            # the folder's key type, asked only when a key or the output depends on it: keys are read as it takes
            # them (docs/cli.md, "Times"), table and csv print a run-lumi folder's keys as RUN/LUMI ("Output")
            if (fmt != "json" and cmd != "count") or any(k.form != KeyForm.ANY for k in keys):
                key_type = folder_key_type(client, args[1])
                if key_type is not None:
                    values_ = [_in_folder(k, key_type == "run-lumi") for k in keys]
                    run_lumi = key_type == "run-lumi" and fmt != "json" and cmd != "count"
            check_channel(client, selection, args[1])
        t = values_[0] if cmd == "find" else 0
        t1, t2 = (values_[0], values_[1]) if cmd in ("browse", "count") else (0, MAX_KEY)
        if cmd in ("nodes", "folders"):
            _show(out, fmt, client.nodes())
        elif cmd == "globaltags":
            _show(out, fmt, client.global_tags())
        elif cmd == "channels":
            _show(out, fmt, client.channels(args[1]))
        elif cmd == "tags":
            _show(out, fmt, client.tags(args[1]))
        elif cmd == "tag":
            _show(out, fmt, client.resolve_tag(args[1], args[2]))
        elif cmd == "find":
            _show(out, fmt, client.find(args[1], t, channels, tag), run_lumi=run_lumi)
        elif cmd == "count":
            _show(out, fmt, client.count_answer(args[1], t1, t2, channels, tag))
        elif cmd == "snapshot":
            snap = client.snapshot_session(args[1]).at(keys[0].value,
                                                       None if run_lumi_key is None else run_lumi_key.value)
            if run_lumi_key is None:  # one key, read in every folder: it must fit the folders' key type
                _in_folder(keys[0], snap.run_lumi is not None)
            # every folder's iovs answer in path order (docs/cli.md): in table and csv each block labelled with its
            # folder and tag and separated by an empty line; in json one document holding them all
            as_json = fmt == "json"
            if as_json:
                validity = [f'{{"keyType":"{k}","validSince":{v.since},"validUntil":{v.until}}}'
                            for k, v in (("time", snap.time), ("run-lumi", snap.run_lumi)) if v is not None]
                out.write(f'{{"kind":"snapshot","globalTag":{json_string(snap.global_tag)},"state":'
                          f'{json_string(snap.state)},"validity":[{",".join(validity)}],\n "folders":[\n')
            for i, f in enumerate(snap.folders.values()):
                if i:
                    out.write(",\n" if as_json else "\n")
                if not as_json:
                    out.write(f"# folder {f.folder} tag {f.tag}\n")
                _show(out, fmt, f.answer, f.folder, f.tag, run_lumi=f.key_type == "run-lumi" and not as_json)
            if as_json:
                out.write("]}\n")
        elif fmt == "table":
            _show(out, fmt, client.browse(args[1], t1, t2, channels, tag, order), run_lumi=run_lumi)
        else:  # csv and json rows are written as they arrive
            with client.browse_stream(args[1], t1, t2, channels, tag, order) as stream:
                h = stream.header
                p = Printer(out, fmt, h.kind.json_name, h.folder, h.tag, h.valid_since, h.valid_until, h.columns)
                p.write_rows(map(run_lumi_keys, stream) if run_lumi else stream)
                p.end()
    out.flush()
    return EXIT_OK


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None,
         env: dict[str, str] | None = None) -> int:
    """The tool's exit code for a command line (by default the process's arguments, streams and environment)."""
    err = err or sys.stderr
    try:
        return run(sys.argv[1:] if argv is None else argv, out or sys.stdout, err,
                   dict(os.environ) if env is None else env)
    except _Usage as e:
        err.write(f"outpost-cli: {e}\n(outpost-cli --help for usage)\n")
        return EXIT_USAGE
    except OutpostError as e:
        err.write(f"outpost-cli: {e.describe()}\n")
        if e.kind == ErrorKind.NOT_FOUND:
            err.write(NOT_FOUND_HINT + "\n")
        return exit_code(e)
    except BrokenPipeError:
        return EXIT_FAILED
    except OSError as e:
        err.write(f"outpost-cli: {e}\n")
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
