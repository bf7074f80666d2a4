// outpost-cli: command-line access to an Outpost service. `outpost-cli --help` lists commands and options.
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "outpost/client.h"
#include "output.h"

using namespace outpost;
using outpost::cli::Format;

namespace {

// Exit codes (also in client-cpp/README.md).
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;      // anything else
constexpr int kExitUsage = 2;       // bad command line
constexpr int kExitRequest = 3;     // the server rejected the query (4xx: unknown folder, tag, ...)
constexpr int kExitUnavailable = 4; // no route answered (connect errors, 5xx, timeouts)
constexpr int kExitCorrupt = 5;     // corrupt answers on every route, or a protocol error

const char* kUsage = R"(usage: outpost-cli [options] COMMAND [ARGS]

commands:
  nodes | folders                 list every node (folder and folderset)
  channels FOLDER                 list the channels of a folder
  tags NODE                       list the tags of a folder or folderset
  tag FOLDER TAG                  resolve TAG (possibly a parent's tag) for FOLDER
  find FOLDER TIME                objects valid at TIME (one channel with --channel, else --channels)
  browse FOLDER T1 T2             every IOV with since <= T2 and until > T1 (streamed for csv/json)
  count FOLDER T1 T2              number of IOVs browse would return

times: nanoseconds (1767229200000000000), an ISO date in UTC (2026-01-01, 2026-01-01T10:00:00Z,
       2026-01-01T10:00:00.5Z), RUN/LUMI or RUN:LUMI (358031/12) for run-lumi folders, min, max

options:
  --server URL        server base URL (repeatable); default: OUTPOST_SERVER or FRONTIER_SERVER
  --proxy URL         HTTP proxy (repeatable); default: OUTPOST_PROXY or FRONTIER_PROXY
  --config STRING     Frontier-style "(serverurl=...)(proxyurl=...)(retries=2)..." string
  --tag TAG           HEAD (default) or a tag name
  --channel N         one channel
  --channels SEL      all (default), 1-4,7,9-12 or name:X
  --order ORDER       browse order: cs (default), sc, csd, sdc
  --format FMT        table (default), csv or json
  --direct            find: ask /at/ directly instead of the cache-aligned window
  -v, --verbose       print every attempt and failover decision to stderr
  -h, --help

exit codes: 0 ok, 1 other failure, 2 usage, 3 query rejected (4xx), 4 no server reachable, 5 corrupt answers
)";

[[noreturn]] void usage(const std::string& msg) {
    std::cerr << "outpost-cli: " << msg << "\n(outpost-cli --help for usage)\n";
    std::exit(kExitUsage);
}

bool allDigits(const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

/// ns, ISO date (UTC), RUN/LUMI, min/max.
Key parseTime(const std::string& s) {
    if (s == "min") return kMinKey;
    if (s == "max" || s == "inf") return kMaxKey;
    if (allDigits(s)) {
        if (s.size() > 19 || (s.size() == 19 && s > "9223372036854775807")) usage("time " + s + " is over 2^63-1");
        return static_cast<Key>(std::stoull(s));
    }
    std::size_t sep = s.find_first_of("/:");
    if (sep != std::string::npos && s.find('-') == std::string::npos && allDigits(s.substr(0, sep)) &&
        allDigits(s.substr(sep + 1))) {
        try {
            return runLumiKey(std::stoull(s.substr(0, sep)), std::stoull(s.substr(sep + 1)));
        } catch (const std::exception& e) {
            usage(e.what());
        }
    }
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, n = 0;
    if (std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10) {
        usage("cannot read time '" + s + "': use nanoseconds, an ISO date (UTC) or RUN/LUMI");
    }
    std::size_t pos = 10;
    long long frac = 0;
    if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
        int m = 0;
        if (std::sscanf(s.c_str() + pos + 1, "%2d:%2d%n", &h, &mi, &m) != 2) usage("cannot read the time of day in '" + s + "'");
        pos += 1 + m;
        if (pos < s.size() && s[pos] == ':') {
            if (std::sscanf(s.c_str() + pos + 1, "%2d%n", &sec, &m) != 1) usage("cannot read seconds in '" + s + "'");
            pos += 1 + m;
            if (pos < s.size() && s[pos] == '.') {
                std::size_t digits = 0;
                ++pos;
                while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])) && digits < 9) {
                    frac = frac * 10 + (s[pos++] - '0');
                    ++digits;
                }
                for (; digits < 9; ++digits) frac *= 10;
            }
        }
    }
    if (pos < s.size() && (s.substr(pos) == "Z" || s.substr(pos) == "+00:00")) pos = s.size();
    if (pos != s.size()) usage("cannot read time '" + s + "' (only UTC: end with Z or nothing)");
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || y < 1970) usage("bad date '" + s + "'");
    std::tm tm{};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    long long secs = static_cast<long long>(timegm(&tm));
    if (secs > 9223372035LL) usage("date '" + s + "' is after 2262");
    return static_cast<Key>(secs * 1000000000LL + frac);
}

int exitCodeFor(const Error& e) {
    switch (e.code) {
        case ErrorCode::Request:
        case ErrorCode::InvalidArgument: return kExitRequest;
        case ErrorCode::Config: return kExitUsage;
        case ErrorCode::Corrupt:
        case ErrorCode::Protocol: return kExitCorrupt;
        case ErrorCode::Unavailable: {
            bool allCorrupt = !e.attempts.empty();
            for (const auto& a : e.attempts) allCorrupt = allCorrupt && a.code == ErrorCode::Corrupt;
            return allCorrupt ? kExitCorrupt : kExitUnavailable;
        }
        case ErrorCode::Connect:
        case ErrorCode::Timeout:
        case ErrorCode::Network:
        case ErrorCode::Server: return kExitUnavailable;
        default: return kExitFailed;
    }
}

int fail(const Error& e) {
    std::cerr << "outpost-cli: " << e.describe() << "\n";
    return exitCodeFor(e);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> servers, proxies, args;
    std::string configString, tag = "HEAD", format = "table", orderText = "cs";
    std::optional<std::string> channels, channel;
    bool verbose = false, direct = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](const char* name) -> std::string {
            std::size_t eq = a.find('=');
            if (a.rfind("--", 0) == 0 && eq != std::string::npos) return a.substr(eq + 1);
            if (i + 1 >= argc) usage(std::string(name) + " needs a value");
            return argv[++i];
        };
        auto is = [&](const char* name) { return a == name || a.rfind(std::string(name) + "=", 0) == 0; };
        if (a == "-h" || a == "--help") { std::cout << kUsage; return kExitOk; }
        else if (a == "-v" || a == "--verbose") verbose = true;
        else if (a == "--direct") direct = true;
        else if (is("--server")) servers.push_back(value("--server"));
        else if (is("--proxy")) proxies.push_back(value("--proxy"));
        else if (is("--config")) configString = value("--config");
        else if (is("--tag")) tag = value("--tag");
        else if (is("--channels")) channels = value("--channels");
        else if (is("--channel")) channel = value("--channel");
        else if (is("--order")) orderText = value("--order");
        else if (is("--format")) format = value("--format");
        else if (a.size() > 1 && a[0] == '-' && !allDigits(a.substr(1))) usage("unknown option " + a);
        else args.push_back(a);
    }
    if (args.empty()) usage("no command");
    Format fmt;
    if (format == "table") fmt = Format::Table;
    else if (format == "csv") fmt = Format::Csv;
    else if (format == "json") fmt = Format::Json;
    else usage("--format is table, csv or json");
    Order order;
    if (!parseOrder(orderText, order)) usage("--order is cs, sc, csd or sdc");

    // Configuration: --config / --server / --proxy, else the environment.
    Config cfg;
    if (configString.empty() && servers.empty()) {
        auto env = Config::fromEnvironment();
        if (!env) return fail(env.error());
        cfg = *env;
    } else if (!configString.empty()) {
        auto r = cfg.apply(configString);
        if (!r) return fail(r.error());
    }
    for (auto& s : servers) { auto r = cfg.apply("(serverurl=" + s + ")"); if (!r) return fail(r.error()); }
    for (auto& p : proxies) { auto r = cfg.apply("(proxyurl=" + p + ")"); if (!r) return fail(r.error()); }
    cfg.app = "outpost-cli";
    if (verbose) {
        std::cerr << "outpost-cli: config " << cfg.toString() << "\n";
        cfg.onEvent = [](const Event& e) {
            std::cerr << "outpost-cli: " << toString(e.kind);
            if (!e.url.empty()) std::cerr << " " << e.url;
            if (!e.proxy.empty()) std::cerr << " via " << e.proxy;
            if (!e.refresh.empty()) std::cerr << " [Cache-Control: " << e.refresh << "]";
            if (!e.detail.empty()) std::cerr << ": " << e.detail;
            std::cerr << "\n";
        };
    }
    if (direct) cfg.timeWindow = cfg.runLumiWindow = Window{0, 1};
    auto client = Client::create(cfg);
    if (!client) return fail(client.error());

    ChannelSelection sel = ChannelSelection::all();
    try {
        if (channel && channels) usage("use --channel or --channels, not both");
        if (channel) sel = ChannelSelection::parse(*channel);
        if (channels) sel = ChannelSelection::parse(*channels);
    } catch (const std::invalid_argument& e) {
        usage(std::string("--channels: ") + e.what());
    }

    const std::string& cmd = args[0];
    auto need = [&](std::size_t n, const char* synopsis) {
        if (args.size() != n + 1) usage(std::string("usage: outpost-cli ") + synopsis);
    };
    auto show = [&](Result<Table> r) {
        if (!r) return fail(r.error());
        cli::printTable(std::cout, *r, fmt);
        return kExitOk;
    };
    if (cmd == "nodes" || cmd == "folders") { need(0, "nodes"); return show(client->nodes()); }
    if (cmd == "channels") { need(1, "channels FOLDER"); return show(client->channels(args[1])); }
    if (cmd == "tags") { need(1, "tags NODE"); return show(client->tags(args[1])); }
    if (cmd == "tag") { need(2, "tag FOLDER TAG"); return show(client->resolveTag(args[1], args[2])); }
    if (cmd == "find") {
        need(2, "find FOLDER TIME");
        return show(client->objectsAt(args[1], sel, parseTime(args[2]), tag));
    }
    if (cmd == "count") {
        need(3, "count FOLDER T1 T2");
        auto n = client->count(args[1], sel, parseTime(args[2]), parseTime(args[3]), tag);
        if (!n) return fail(n.error());
        if (fmt == Format::Json) std::cout << "{\"count\":" << *n << "}\n";
        else if (fmt == Format::Csv) std::cout << "count\n" << *n << "\n";
        else std::cout << *n << "\n";
        return kExitOk;
    }
    if (cmd == "browse") {
        need(3, "browse FOLDER T1 T2");
        Key t1 = parseTime(args[2]), t2 = parseTime(args[3]);
        if (t1 > t2) usage("browse: T1 is after T2");
        if (fmt == Format::Table) return show(client->browse(args[1], sel, t1, t2, tag, order));
        cli::StreamingPrinter printer(std::cout, fmt);
        auto n = client->browse(args[1], sel, t1, t2, tag, order, printer);
        if (!n) return fail(n.error());
        return kExitOk;
    }
    usage("unknown command '" + cmd + "'");
}
