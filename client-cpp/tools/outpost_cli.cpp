// outpost-cli: command-line access to an Outpost service. `outpost-cli --help` lists commands and options.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "outpost/client.h"
#include "outpost/snapshot.h"
#include "cli_time.h"
#include "output.h"

using namespace outpost;
using outpost::cli::Format;

namespace {

// Exit codes: docs/cli.md, the contract this tool and the Java tool follow.
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;       // anything else
constexpr int kExitUsage = 2;        // bad command line, option value, time, channels, path or tag spelling, config
constexpr int kExitNotFound = 3;     // HTTP 404: unknown folder, node, channel or tag
constexpr int kExitRejected = 4;     // any other HTTP 4xx
constexpr int kExitUnavailable = 5;  // no route answered (connect errors, 5xx, timeouts)
constexpr int kExitCorrupt = 6;      // corrupt answers on every route, or a protocol error

const char* kUsage = R"(usage: outpost-cli [options] COMMAND [ARGS]      (options may also follow the command)

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
       Table and csv print run-lumi keys as RUN/LUMI

options:
  --server URL          server base URL (repeatable); default: OUTPOST_SERVER or FRONTIER_SERVER
  --proxy URL           HTTP proxy (repeatable); default: OUTPOST_PROXY or FRONTIER_PROXY
  --proxy-config URL    proxy auto-config file (http://, file:// or auto for WPAD); repeatable, tried in order
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
)";

[[noreturn]] void usage(const std::string& msg) {
    std::cerr << "outpost-cli: " << msg << "\n(outpost-cli --help for usage)\n";
    std::exit(kExitUsage);
}

cli::CliKey parseTimeArg(const std::string& s) {
    std::string why;
    auto k = cli::parseKey(s, why);
    if (!k) usage("bad time '" + s + "': " + why);
    return *k;
}

/// The key read in a folder of the given key type; a form that does not fit it is a usage error.
Key keyIn(const cli::CliKey& k, bool runLumi) {
    std::string why;
    auto v = cli::keyIn(k, runLumi, why);
    if (!v) usage(why);
    return *v;
}

// A snapshot file is not a service: the same advice and exit code as the Java and Python tools.
const char* kSnapshotFileAdvice =
    "the command-line tool asks a service over HTTP; to query a snapshot file, serve it (./outpost start --snapshot"
    " FILE --server.port=8001) and use --server http://localhost:8001 (the Java client library reads sqlite:FILE"
    " directly)";

int parseCount(const std::string& option, const std::string& text, int lo, int hi) {
    if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) {
        usage(option + " needs a whole number, not '" + text + "'");
    }
    int n = std::stoi(text);
    if (n < lo || n > hi) usage(option + " is " + std::to_string(lo) + " to " + std::to_string(hi));
    return n;
}

int exitCodeFor(const Error& e) {
    switch (e.code) {
        case ErrorCode::Request: return e.httpStatus == 404 ? kExitNotFound : kExitRejected;
        case ErrorCode::InvalidArgument:
        case ErrorCode::Config: return kExitUsage;
        case ErrorCode::Corrupt:
        case ErrorCode::Untrusted:
        case ErrorCode::Protocol: return kExitCorrupt;
        case ErrorCode::Unavailable: {
            bool allCorrupt = !e.attempts.empty();
            for (const auto& a : e.attempts) {  // a bad signature is a bad answer, as in the Java and Python tools
                allCorrupt = allCorrupt && (a.code == ErrorCode::Corrupt || a.code == ErrorCode::Untrusted);
            }
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
    int code = exitCodeFor(e);
    if (code == kExitNotFound) {
        std::cerr << "outpost-cli: hint: 'nodes' lists the folders, 'tags NODE' the tags of a folder or folderset,"
                     " 'channels FOLDER' its channels\n";
    }
    return code;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> servers, proxies, proxyConfigs, args;
    std::optional<std::string> configString, retries, connectTimeout, readTimeout;
    std::string tag = "HEAD", format = "table", orderText = "cs", channels = "all";
    bool verbose = false, direct = false, noAlign = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](const char* name) -> std::string {
            std::size_t eq = a.find('=');
            if (eq != std::string::npos) return a.substr(eq + 1);
            if (i + 1 >= argc) usage(std::string(name) + " needs a value");
            return argv[++i];
        };
        auto is = [&](const char* name) { return a == name || a.rfind(std::string(name) + "=", 0) == 0; };
        if (a == "-h" || a == "--help") { std::cout << kUsage; return kExitOk; }
        else if (a == "--version") { std::cout << "outpost-cli " << OUTPOST_CLIENT_VERSION << "\n"; return kExitOk; }
        else if (a == "-v" || a == "--verbose") verbose = true;
        else if (a == "--direct") direct = true;
        else if (a == "--no-align") noAlign = true;
        else if (is("--server")) servers.push_back(value("--server"));
        else if (is("--proxy-config")) proxyConfigs.push_back(value("--proxy-config"));
        else if (is("--proxy")) proxies.push_back(value("--proxy"));
        else if (is("--config")) configString = value("--config");
        else if (is("--retries")) retries = value("--retries");
        else if (is("--connect-timeout")) connectTimeout = value("--connect-timeout");
        else if (is("--read-timeout")) readTimeout = value("--read-timeout");
        else if (is("--tag")) tag = value("--tag");
        else if (is("-c") || is("--channels")) channels = value("--channels");
        else if (is("--order")) orderText = value("--order");
        else if (is("--format")) format = value("--format");
        else if (a.size() > 1 && a[0] == '-') usage("unknown option " + a);
        else args.push_back(a);
    }
    if (args.empty()) {
        std::cerr << "outpost-cli: no command\n" << kUsage;
        return kExitUsage;
    }
    Format fmt;
    if (format == "table") fmt = Format::Table;
    else if (format == "csv") fmt = Format::Csv;
    else if (format == "json") fmt = Format::Json;
    else usage("--format is table, csv or json, not '" + format + "'");
    Order order;
    if (!parseOrder(orderText, order)) usage("--order is cs, sc, csd or sdc, not '" + orderText + "'");
    ChannelSelection sel = ChannelSelection::all();
    try {
        sel = ChannelSelection::parse(channels);
    } catch (const std::invalid_argument& e) {
        usage(std::string("--channels: ") + e.what());
    }

    // The configuration is --config if given, else the environment; --server and --proxy replace its servers and
    // proxies; --direct drops every proxy; with no server anywhere, http://localhost:8000 (as the Java tool).
    Config cfg;
    if (configString) {
        auto r = cfg.apply(*configString);
        if (!r) return fail(r.error());
    } else {
        // An environment without any server still configures proxies and the rest; its servers are replaced
        // below, or default to http://localhost:8000.
        bool envServer = false;
        for (const char* v : {"OUTPOST_SERVER", "FRONTIER_SERVER", "FRONTIER_SERVER1"}) envServer |= std::getenv(v) != nullptr;
        if (!envServer) ::setenv("OUTPOST_SERVER", servers.empty() ? "http://localhost:8000" : servers[0].c_str(), 1);
        auto env = Config::fromEnvironment();
        if (!env) return fail(env.error());
        cfg = *env;
    }
    if (!servers.empty()) cfg.servers.clear();
    for (auto& s : servers) { auto r = cfg.apply("(serverurl=" + s + ")"); if (!r) return fail(r.error()); }
    if (!proxies.empty()) cfg.proxies.clear();
    for (auto& p : proxies) { auto r = cfg.apply("(proxyurl=" + p + ")"); if (!r) return fail(r.error()); }
    if (!proxyConfigs.empty()) cfg.proxyConfigUrls.clear();
    for (auto& p : proxyConfigs) { auto r = cfg.addProxyConfig(p); if (!r) return fail(r.error()); }
    if (direct) {
        cfg.proxies.clear();
        cfg.proxyConfigUrls.clear();
    }
    if (cfg.servers.empty()) cfg.servers.push_back("http://localhost:8000");
    for (const auto& server : cfg.servers) {
        // "sqlite:FILE", also as the configuration completes it to a URL (http://sqlite:FILE)
        if (server.rfind("sqlite:", 0) == 0 || server.rfind("http://sqlite:", 0) == 0) usage(kSnapshotFileAdvice);
    }
    if (retries) cfg.retries = parseCount("--retries", *retries, 0, Config::kMaxRetries);
    if (connectTimeout) cfg.connectTimeout = std::chrono::seconds(parseCount("--connect-timeout", *connectTimeout, 1, 86400));
    if (readTimeout) cfg.readTimeout = std::chrono::seconds(parseCount("--read-timeout", *readTimeout, 1, 86400));
    if (noAlign) {
        cfg.timeWindow = cfg.runLumiWindow = Window{0, 1};
        cfg.folderWindows.clear();
    }
    cfg.app = "outpost-cli";
    if (verbose) {
        std::cerr << "outpost-cli: config " << cfg.toString() << "\n";
        cfg.onEvent = [](const Event& e) {
            std::cerr << "outpost-cli: " << toString(e.kind);
            if (!e.url.empty()) std::cerr << " " << e.url;
            if (!e.proxy.empty()) std::cerr << " via " << e.proxy;
            if (!e.refresh.empty()) std::cerr << " [Cache-Control: " << e.refresh << "]";
            if (!e.detail.empty()) std::cerr << ": " << e.detail;
            if (e.decision != Decision::None) std::cerr << " (" << toString(e.decision) << ")";
            std::cerr << "\n";
        };
    }

    const std::string& cmd = args[0];
    auto need = [&](std::size_t min, std::size_t max, const char* synopsis) {
        if (args.size() < min + 1 || args.size() > max + 1) usage(std::string("usage: outpost-cli ") + synopsis);
    };
    bool known = cmd == "nodes" || cmd == "folders" || cmd == "channels" || cmd == "tags" || cmd == "tag" ||
                 cmd == "find" || cmd == "browse" || cmd == "count" || cmd == "snapshot" || cmd == "globaltags";
    if (!known) usage("unknown command '" + cmd + "'");
    if (cmd == "nodes" || cmd == "folders") need(0, 0, "nodes");
    if (cmd == "globaltags") need(0, 0, "globaltags");
    if (cmd == "channels") need(1, 1, "channels FOLDER");
    if (cmd == "tags") need(1, 1, "tags NODE");
    if (cmd == "tag") need(2, 2, "tag FOLDER TAG");
    if (cmd == "find") need(2, 2, "find FOLDER TIME");
    if (cmd == "snapshot") need(2, 3, "snapshot GLOBALTAG TIME [RUNLUMI]");
    if (cmd == "browse" || cmd == "count") need(1, 3, "browse|count FOLDER [T1 [T2]]");
    cli::CliKey t1{"min", kMinKey}, t2{"max", kMaxKey}, t;
    if (cmd == "find" || cmd == "snapshot") t = parseTimeArg(args[2]);
    std::optional<cli::CliKey> snapshotRunLumi;
    if (cmd == "snapshot" && args.size() > 3) snapshotRunLumi = parseTimeArg(args[3]);
    if (cmd == "browse" || cmd == "count") {
        if (args.size() > 2) t1 = parseTimeArg(args[2]);
        if (args.size() > 3) t2 = parseTimeArg(args[3]);
        if (t1.value > t2.value) usage("T1 (" + args[2] + ") is after T2 (" + args[3] + ")");
    }
    if (snapshotRunLumi) {  // the pair form: each key in the folders of its type
        keyIn(t, false);
        keyIn(*snapshotRunLumi, true);
    }

    auto client = Client::create(cfg);
    if (!client) return fail(client.error());
    auto show = [&](Result<Table> r) {
        if (!r) return fail(r.error());
        cli::printTable(std::cout, *r, fmt);
        std::cout.flush();
        return std::cout ? kExitOk : kExitFailed;
    };
    // Spelling of paths and tags is checked before any request (a usage error, as in the Java tool).
    auto spelled = [&](const std::string& path, const std::string* tagName) {
        try {
            checkPath(path);
            if (tagName) checkTag(*tagName);
        } catch (const std::invalid_argument& e) {
            usage(e.what());
        }
    };
    if (cmd == "nodes" || cmd == "folders") return show(client->nodes());
    if (cmd == "globaltags") return show(client->get(paths::globalTags()));
    if (cmd == "snapshot") {
        std::optional<SnapshotSession> session;
        try {
            session.emplace(*client, args[1]);
        } catch (const std::invalid_argument& e) {
            usage(e.what());
        }
        auto snap = snapshotRunLumi ? session->at(t.value, snapshotRunLumi->value) : session->at(t.value);
        if (!snap) return fail(snap.error());
        if (!snapshotRunLumi) keyIn(t, snap->runLumi.has_value());  // one key, read in every folder
        // Every folder's iovs answer in path order (docs/cli.md): in table and csv each block labelled with its
        // folder and tag and separated by an empty line; in json one document holding them all.
        const bool json = fmt == cli::Format::Json;
        if (json) {
            auto validity = [](const char* keyType, const std::optional<Validity>& v) {
                if (!v) return std::string();
                return std::string("{\"keyType\":\"") + keyType + "\",\"validSince\":" + std::to_string(v->since) +
                       ",\"validUntil\":" + std::to_string(v->until) + "}";
            };
            std::cout << "{\"kind\":\"snapshot\",\"globalTag\":" << cli::jsonString(snap->globalTag)
                      << ",\"state\":" << cli::jsonString(snap->state) << ",\"validity\":["
                      << validity("time", snap->time) << (snap->time && snap->runLumi ? "," : "")
                      << validity("run-lumi", snap->runLumi) << "],\n \"folders\":[\n";
        }
        bool first = true;
        for (FolderSnapshot& f : snap->folders) {
            if (!first) std::cout << (json ? ",\n" : "\n");
            first = false;
            if (!json) std::cout << "# folder " << f.folder << " tag " << f.tag << "\n";
            f.answer.header.folder = f.folder;
            f.answer.header.tag = f.tag;
            if (!json && f.keyType == "run-lumi") {
                for (auto& row : f.answer.rows) cli::runLumiKeys(row);
            }
            cli::printTable(std::cout, f.answer, fmt);
        }
        if (json) std::cout << "]}\n";
        std::cout.flush();
        return std::cout ? kExitOk : kExitFailed;
    }
    spelled(args[1], cmd == "tag" ? &args[2] : (cmd == "find" || cmd == "browse" || cmd == "count") ? &tag : nullptr);
    if (cmd == "channels") return show(client->channels(args[1]));
    if (cmd == "tags") return show(client->tags(args[1]));
    if (cmd == "tag") return show(client->resolveTag(args[1], args[2]));
    // The folder's key type, asked only when a key or the output depends on it: keys are read as it takes them
    // (docs/cli.md, "Times"), and table and csv print the keys of run-lumi folders as RUN/LUMI ("Output"). An
    // unknown folder is left to the query, which gets the server's 404.
    std::vector<cli::CliKey*> keys = cmd == "find" ? std::vector<cli::CliKey*>{&t} : std::vector<cli::CliKey*>{&t1, &t2};
    bool needKeyType = fmt != Format::Json && cmd != "count";
    for (auto* k : keys) needKeyType = needKeyType || k->form != cli::KeyForm::Any;
    bool runLumi = false;
    if (needKeyType) {
        auto nodes = client->nodes();
        if (!nodes) return fail(nodes.error());
        for (const auto& r : nodes->rows) {
            const auto* path = r.values.size() > 3 ? std::get_if<std::string>(&r.values[0]) : nullptr;
            const auto* keyType = r.values.size() > 3 ? std::get_if<std::string>(&r.values[3]) : nullptr;
            if (path && keyType && *path == args[1] && !keyType->empty()) {
                runLumi = *keyType == "run-lumi";
                for (auto* k : keys) k->value = keyIn(*k, runLumi);
            }
        }
    }
    // -c N naming a channel the folder does not have is "not found", as -c name:X is (docs/cli.md)
    if (!channels.empty() && channels.size() <= 10 && channels.find_first_not_of("0123456789") == std::string::npos) {
        auto known = client->channels(args[1]);
        if (!known) return fail(known.error());
        bool found = false;
        for (const auto& r : known->rows) {
            const auto* id = r.values.empty() ? nullptr : std::get_if<std::int64_t>(&r.values[0]);
            found = found || (id && *id == std::stoll(channels));
        }
        if (!found) {
            std::cerr << "outpost-cli: no channel " << std::stoll(channels) << " in " << args[1]
                      << " (the channels command lists them)\n";
            return kExitNotFound;   // the message names the command that helps
        }
    }
    if (cmd == "count") return show(client->get(paths::count(args[1], tag, t1.value, t2.value, sel)));
    runLumi = runLumi && fmt != Format::Json;
    auto showKeys = [&](Result<Table> r) {
        if (r && runLumi) for (auto& row : r->rows) cli::runLumiKeys(row);
        return show(std::move(r));
    };
    if (cmd == "find") return showKeys(client->objectsAt(args[1], sel, t.value, tag));
    // browse
    if (fmt == Format::Table) return showKeys(client->browse(args[1], sel, t1.value, t2.value, tag, order));
    cli::StreamingPrinter printer(std::cout, fmt, runLumi);
    auto n = client->browse(args[1], sel, t1.value, t2.value, tag, order, printer);
    if (!n) return fail(n.error());
    std::cout.flush();
    return std::cout ? kExitOk : kExitFailed;
}
