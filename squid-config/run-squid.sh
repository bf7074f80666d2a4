#!/usr/bin/env bash
# Runs a local Squid site cache in front of Outpost, as an ordinary process (no system service), for development,
# tests and containers. Squid 5 (Debian package `squid`) must be installed.
#
#   run-squid.sh start  [options]   fill squid.conf into DIR, create the cache, start Squid in the background,
#                                   return once it accepts connections (bounded wait)
#   run-squid.sh stop   [--dir DIR] stop the Squid started with this DIR and wait until it has exited
#   run-squid.sh run    [options]   fill squid.conf and run Squid in the foreground (containers)
#   run-squid.sh render [options]   print the filled squid.conf
#   run-squid.sh parse  [options]   fill squid.conf and check it with `squid -k parse`
#
# Options (environment variable in brackets):
#   --dir DIR             state directory: squid.conf, cache/, logs/, squid.pid   [SQUID_DIR, ./target/squid]
#   --port N              listen port                                             [SQUID_PORT, 3128]
#   --listen ADDR         listen address ("" = every address)                     [SQUID_LISTEN, 127.0.0.1]
#   --outpost URL         the Outpost URL clients use; repeatable; clients may only reach these host:ports
#                                                                                 [SQUID_OUTPOST, http://127.0.0.1:8000]
#   --origin HOST:PORT    an Outpost replica to forward to; repeatable: round-robin with failover
#                                                                                 [SQUID_ORIGINS, space-separated]
#   --parent-proxy HOST:PORT  an upstream Squid (hierarchy); repeatable, first is preferred
#                                                                                 [SQUID_PARENT_PROXIES]
#   (with neither --origin nor --parent-proxy Squid goes straight to the --outpost URL)
#
# Trust: this Squid sends X-Forwarded-For (forwarded_for on) and Via. The Outpost origins it talks to must list
# its address in outpost.trusted-proxies (and a parent Squid's origins must list both layers), or they count
# every job behind it as one client (docs/operations.md, "Client addresses and trusted proxies").
#   --site-nets "CIDR ..."    client networks admitted                            [SQUID_SITE_NETS, 127.0.0.1/32 ::1]
#   --cache-mem MB        memory cache                                            [SQUID_CACHE_MEM, 256]
#   --cache-disk MB       disk cache                                              [SQUID_CACHE_DISK, 10000]
#   --name NAME           visible_hostname (Via, X-Cache)                         [SQUID_NAME, hostname]
#   --user USER           user to run as when started by root                     [SQUID_USER, proxy]
#   --timeout SECONDS     longest wait for start/stop                             [SQUID_TIMEOUT, 60]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
template=${SQUID_TEMPLATE:-$here/squid.conf}
die() { echo "run-squid: $*" >&2; exit 1; }

cmd=${1:-}
[ $# -gt 0 ] && shift
dir=${SQUID_DIR:-./target/squid}
port=${SQUID_PORT:-3128}
listen=${SQUID_LISTEN-127.0.0.1}
outposts=()
origins=()
parents=()
[ -n "${SQUID_OUTPOST:-}" ] && read -r -a outposts <<<"$SQUID_OUTPOST"
[ -n "${SQUID_ORIGINS:-}" ] && read -r -a origins <<<"$SQUID_ORIGINS"
[ -n "${SQUID_PARENT_PROXIES:-}" ] && read -r -a parents <<<"$SQUID_PARENT_PROXIES"
site_nets=${SQUID_SITE_NETS:-127.0.0.1/32 ::1}
cache_mem=${SQUID_CACHE_MEM:-256}
cache_disk=${SQUID_CACHE_DISK:-10000}
name=${SQUID_NAME:-$(hostname 2>/dev/null || echo squid)}
user=${SQUID_USER:-proxy}
timeout=${SQUID_TIMEOUT:-60}

while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --listen) listen=$2; shift 2 ;;
    --outpost) outposts+=("$2"); shift 2 ;;
    --origin) origins+=("$2"); shift 2 ;;
    --parent-proxy) parents+=("$2"); shift 2 ;;
    --site-nets) site_nets=$2; shift 2 ;;
    --cache-mem) cache_mem=$2; shift 2 ;;
    --cache-disk) cache_disk=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --user) user=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    *) die "unknown option $1 (see the comment at the top of $0)" ;;
  esac
done
[ ${#outposts[@]} -eq 0 ] && outposts=(http://127.0.0.1:8000)
case "$port" in ''|*[!0-9]*) die "--port must be a number, not '$port'" ;; esac
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/squid.conf
pidfile=$dir/squid.pid

squid_bin() {
  local s
  s=$(command -v squid 2>/dev/null || true)
  [ -z "$s" ] && [ -x /usr/sbin/squid ] && s=/usr/sbin/squid
  [ -n "$s" ] || die "squid is not installed (Debian: apt-get install squid)"
  echo "$s"
}

# host and port of http://host:port[/path]
split_url() {
  local u=${1#http://}
  u=${u%%/*}
  case "$u" in
    *:*) echo "${u%:*} ${u##*:}" ;;
    *) echo "$u 80" ;;
  esac
}

peer_lines() {
  local i=0 p h pt
  if [ ${#parents[@]} -gt 0 ]; then
    echo "# Hierarchy: every miss goes to the upstream Squid(s), the first one preferred, the others as fail-over."
    for p in "${parents[@]}"; do
      i=$((i + 1)); h=${p%:*}; pt=${p##*:}
      echo "cache_peer $h parent $pt 0 no-query no-digest connect-fail-limit=2 name=upstream$i"
    done
    echo "never_direct allow all"
  elif [ ${#origins[@]} -gt 0 ]; then
    echo "# Outpost replicas: misses are spread round-robin; a replica that refuses connections is skipped."
    for p in "${origins[@]}"; do
      i=$((i + 1)); h=${p%:*}; pt=${p##*:}
      echo "cache_peer $h parent $pt 0 no-query no-digest originserver round-robin connect-fail-limit=2 name=outpost$i"
    done
    echo "never_direct allow all"
  else
    echo "# No cache_peer: misses go straight to the Outpost server named in the request URL."
    echo "always_direct allow all"
  fi
}

render() {
  local hosts=() ports=() o hp h pt http_port
  for o in "${outposts[@]}"; do
    read -r h pt <<<"$(split_url "$o")"
    hosts+=("$h"); ports+=("$pt")
  done
  if [ -n "$listen" ]; then http_port="$listen:$port"; else http_port="$port"; fi
  local peers
  peers=$(peer_lines)
  local hostlist portlist line
  hostlist=$(printf '%s\n' "${hosts[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//')
  portlist=$(printf '%s\n' "${ports[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//')
  # Tokens are replaced on directive lines only; comments are kept as written.
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      '#'*) ;;
      *)
        line=${line//@HTTP_PORT@/$http_port}
        line=${line//@VISIBLE_HOSTNAME@/$name}
        line=${line//@SITE_NETS@/$site_nets}
        line=${line//@OUTPOST_HOSTS@/$hostlist}
        line=${line//@OUTPOST_PORTS@/$portlist}
        line=${line//@PEERS@/$peers}
        line=${line//@CACHE_MEM@/$cache_mem}
        line=${line//@CACHE_DISK@/$cache_disk}
        line=${line//@CACHE_DIR@/$dir/cache}
        line=${line//@LOG_DIR@/$dir/logs}
        line=${line//@STATE_DIR@/$dir}
        line=${line//@CACHE_USER@/$user}
        case "$line" in *@[A-Z_]*@*) die "unknown token left in: $line" ;; esac
        ;;
    esac
    printf '%s\n' "$line"
  done <"$template"
}

prepare() {
  mkdir -p "$dir/cache" "$dir/logs"
  render >"$conf"
  if [ "$(id -u)" -eq 0 ]; then
    # Squid started by root switches to cache_effective_user: it must own its cache and logs, and reach them.
    id "$user" >/dev/null 2>&1 || die "user '$user' does not exist (set --user)"
    chown -R "$user" "$dir/cache" "$dir/logs"
    local d=$dir
    while [ "$d" != / ]; do
      [ -x "$d" ] || die "$user cannot reach $dir ($d is not searchable)"
      d=$(dirname "$d")
    done
  fi
  local squid
  squid=$(squid_bin)
  "$squid" -k parse -f "$conf" 2>"$dir/logs/parse.log" || { cat "$dir/logs/parse.log" >&2; die "squid.conf does not parse"; }
  if [ ! -d "$dir/cache/00" ]; then
    "$squid" -z -N -f "$conf" >>"$dir/logs/cache.log" 2>&1 || die "squid -z failed, see $dir/logs/cache.log"
  fi
}

running_pid() {
  [ -s "$pidfile" ] || return 1
  local pid
  pid=$(tr -d ' \n' <"$pidfile")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

accepts() { (exec 3<>"/dev/tcp/${listen:-127.0.0.1}/$port") 2>/dev/null; }

case "$cmd" in
  render) render ;;
  parse)
    mkdir -p "$dir"
    render >"$conf"
    "$(squid_bin)" -k parse -f "$conf"
    ;;
  run)
    prepare
    exec "$(squid_bin)" -N -f "$conf"
    ;;
  start)
    if pid=$(running_pid); then die "a Squid (pid $pid) already runs with $dir; stop it first"; fi
    prepare
    "$(squid_bin)" -f "$conf" || die "squid did not start, see $dir/logs/cache.log"
    deadline=$((SECONDS + timeout))
    until running_pid >/dev/null && accepts; do
      [ $SECONDS -lt $deadline ] || { tail -20 "$dir/logs/cache.log" >&2; die "Squid not ready on port $port after ${timeout}s"; }
      sleep 0.1
    done
    echo "run-squid: Squid $(running_pid) listens on ${listen:-*}:$port (state in $dir)"
    echo "run-squid: it sends X-Forwarded-For: list this host's address in the origins' outpost.trusted-proxies"
    ;;
  stop)
    pid=$(running_pid) || { echo "run-squid: no Squid running with $dir"; exit 0; }
    # interrupt = shut down now, without shutdown_lifetime's grace period for open client connections.
    "$(squid_bin)" -k interrupt -f "$conf" 2>/dev/null || kill -INT "$pid"
    deadline=$((SECONDS + timeout))
    while kill -0 "$pid" 2>/dev/null; do
      [ $SECONDS -lt $deadline ] || { kill -KILL "$pid" 2>/dev/null || true; die "Squid $pid did not stop within ${timeout}s; killed"; }
      sleep 0.1
    done
    rm -f "$pidfile"
    echo "run-squid: stopped Squid $pid"
    ;;
  *)
    sed -n '2,27p' "$0" >&2
    exit 2
    ;;
esac
