// outpost::Client: routes, failover, refresh escalation, in-process cache and the cache-aligned at-time queries.
// The failover policy is described once, for the Java and C++ clients, in docs/client-failover.md; the
// function fetch() below is that description in code, one early-return guard per rule.
#include <netdb.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <atomic>
#include <list>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>

#include "http.h"
#include "outpost/client.h"
#include "pac.h"

namespace outpost {

using Clock = std::chrono::steady_clock;
using internal::AttemptResult;
using internal::Outcome;

namespace {

std::size_t estimateBytes(const Table& t) {
    std::size_t n = sizeof(Table) + t.rows.size() * (sizeof(Row) + t.header.columns.size() * sizeof(Value));
    for (const auto& r : t.rows) {
        for (const auto& v : r.values) {
            if (auto* s = std::get_if<std::string>(&v)) n += s->capacity();
            else if (auto* b = std::get_if<Blob>(&v)) n += b->bytes.capacity();
        }
    }
    return n;
}

/// Decoded answers by canonical path, kept while their max-age lasts; least recently used go first.
class AnswerCache {
public:
    explicit AnswerCache(std::size_t maxBytes) : maxBytes_(maxBytes) {}

    std::shared_ptr<const Table> get(const std::string& key, Clock::time_point now) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = map_.find(key);
        if (it == map_.end()) return nullptr;
        if (now >= it->second.expires) {
            drop(it);
            return nullptr;
        }
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        return it->second.table;
    }

    void put(const std::string& key, std::shared_ptr<const Table> table, Clock::time_point expires) {
        std::size_t bytes = estimateBytes(*table);
        if (maxBytes_ == 0 || bytes > maxBytes_ / 4) return;  // one answer never takes over the cache
        std::lock_guard<std::mutex> lock(mu_);
        auto old = map_.find(key);
        if (old != map_.end()) drop(old);
        lru_.push_front(key);
        map_.emplace(key, Entry{std::move(table), expires, bytes, lru_.begin()});
        bytes_ += bytes;
        while (bytes_ > maxBytes_ && !lru_.empty()) drop(map_.find(lru_.back()));
    }

    void clear() {
        std::lock_guard<std::mutex> lock(mu_);
        map_.clear();
        lru_.clear();
        bytes_ = 0;
    }

private:
    struct Entry {
        std::shared_ptr<const Table> table;
        Clock::time_point expires;
        std::size_t bytes;
        std::list<std::string>::iterator lru;
    };
    void drop(std::unordered_map<std::string, Entry>::iterator it) {
        bytes_ -= it->second.bytes;
        lru_.erase(it->second.lru);
        map_.erase(it);
    }

    std::mutex mu_;
    std::unordered_map<std::string, Entry> map_;
    std::list<std::string> lru_;
    std::size_t bytes_ = 0;
    std::size_t maxBytes_;
};

std::string userName() {
    struct passwd pw;
    struct passwd* res = nullptr;
    char buf[1024];
    if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) == 0 && res) return res->pw_name;
    const char* u = std::getenv("USER");
    return u ? u : "unknown";
}

}  // namespace

/// Under security=sig: why a row of an IOV answer is not what was asked for ("" when it is): another folder, a
/// channel not selected, or an IOV not valid anywhere in [t1, t2] (t1 = t2 for a read at one key). A signed
/// answer of another query, served in this one's place, is refused like a bad signature.
using Asked = std::function<std::string(const AnswerHeader&, const Row&)>;

static Asked askedFor(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2) {
    return [folder = std::string(folder), sel, t1, t2](const AnswerHeader& h, const Row& r) -> std::string {
        if (h.kind != AnswerKind::Iovs) return "";
        if (!h.folder.empty() && h.folder != folder) return "an answer for folder " + h.folder + ", asked " + folder;
        if (r.since > t2 || r.until <= t1) {
            return "an IOV valid [" + std::to_string(r.since) + ", " + std::to_string(r.until) + "), not at " +
                   (t1 == t2 ? "key " + std::to_string(t1) : "[" + std::to_string(t1) + ", " + std::to_string(t2) + "]");
        }
        if (!sel.contains(r.channel)) return "channel " + std::to_string(r.channel) + " was not asked for";
        return "";
    };
}

struct Client::Impl {
    explicit Impl(Config c)
        : cfg(std::move(c)), pool(cfg.maxIdleConnections), cache(cfg.cacheMaxBytes), user(userName()) {
        if (!cfg.clock) cfg.clock = [] { return Clock::now(); };
        if (cfg.appVersion.empty()) cfg.appVersion = OUTPOST_CLIENT_VERSION;
    }

    Config cfg;
    std::shared_ptr<const internal::AnswerVerifier> verifier;  ///< set with security=sig
    std::unique_ptr<internal::ProxyDiscovery> discovery;  ///< set when proxyconfigurl is configured
    internal::HandlePool pool;
    AnswerCache cache;
    std::string user;

    std::mutex routeMu;
    std::map<std::string, Clock::time_point> postponed;  // endpoint URL -> when it failed

    std::mutex resolvedMu;
    std::map<std::string, std::pair<Clock::time_point, std::vector<std::string>>> resolved;  // host -> addresses

    std::mutex keyTypeMu;
    std::map<std::string, std::string> keyTypes;  // folder -> "time" / "run-lumi"
    bool keyTypesLoaded = false;

    std::atomic<std::uint64_t> requests{0}, cacheHits{0}, failovers{0}, refreshes{0};

    std::string clientId() const {
        return cfg.app + "/" + cfg.appVersion + " " + std::to_string(::getpid()) + " " + user;
    }

    void emit(Event::Kind kind, const std::string& proxy, const std::string& server, const std::string& url,
              const std::string& refresh = "", int status = 0, const std::string& detail = "") const {
        if (cfg.onEvent) cfg.onEvent(Event{kind, proxy, server, url, refresh, status, detail});
    }

    /// Endpoints that failed less than routeMemory ago go last (postponed, not dropped).
    std::vector<std::string> ordered(const std::vector<std::string>& list) {
        std::lock_guard<std::mutex> lock(routeMu);
        auto now = cfg.clock();
        std::vector<std::string> out(list);
        std::stable_partition(out.begin(), out.end(), [&](const std::string& e) {
            auto it = postponed.find(e);
            return it == postponed.end() || now - it->second >= cfg.routeMemory;
        });
        return out;
    }
    void postpone(const std::string& endpoint) {
        std::lock_guard<std::mutex> lock(routeMu);
        postponed[endpoint] = cfg.clock();
    }
    void forgive(const std::string& proxy, const std::string& server) {
        std::lock_guard<std::mutex> lock(routeMu);
        if (!proxy.empty()) postponed.erase(proxy);
        postponed.erase(server);
    }

    AttemptResult attempt(const std::string& proxy, const std::string& server, const std::string& path,
                          const std::string& refresh, RowSink& sink, const Asked* asked) {
        internal::AttemptSpec spec;
        // Through a proxy the logical server (if any) is named, so every physical server shares one cache entry.
        spec.url = (proxy.empty() || cfg.logicalServer.empty() ? server : cfg.logicalServer) + path;
        spec.proxy = proxy;
        spec.refresh = refresh;
        spec.clientId = clientId();
        spec.connectTimeout = cfg.connectTimeout;
        spec.readTimeout = cfg.readTimeout;
        spec.verifier = verifier.get();
        if (asked) spec.asked = *asked;
        spec.attemptTimeout = cfg.attemptTimeout;
        spec.maxAnswerBytes = cfg.maxAnswerBytes;
        spec.resolve = addressOrder(proxy.empty() ? spec.url : proxy);
        internal::CurlEasy h = pool.acquire();
        if (!h) {
            AttemptResult r;
            r.outcome = Outcome::Protocol;
            r.error = Error(ErrorCode::Protocol, "curl_easy_init failed");
            return r;
        }
        emit(Event::Kind::Attempt, proxy, server, spec.url, refresh);
        ++requests;
        AttemptResult r = internal::performAttempt(h.get(), spec, sink);
        // A keep-alive connection the other side had closed: one immediate retry on a fresh connection.
        if (r.outcome == Outcome::TransferFailed && r.reusedConnection && r.bytes == 0) {
            spec.freshConnect = true;
            ++requests;
            r = internal::performAttempt(h.get(), spec, sink);
        }
        pool.release(std::move(h));
        return r;
    }

    /// The CURLOPT_RESOLVE entry that makes libcurl try the first hop's addresses in preferipfamily's order: ""
    /// when there is nothing to order (no preference and no test addresses, an IP literal, one family only).
    std::string addressOrder(const std::string& url) {
        std::size_t b = url.find("://");
        b = b == std::string::npos ? 0 : b + 3;
        std::size_t e = url.find_first_of("/?#", b);
        std::string hostPort = url.substr(b, e == std::string::npos ? std::string::npos : e - b);
        std::size_t at = hostPort.rfind('@');
        if (at != std::string::npos) hostPort = hostPort.substr(at + 1);
        if (hostPort.empty() || hostPort[0] == '[') return "";  // an IPv6 literal: nothing to choose
        std::size_t colon = hostPort.rfind(':');
        std::string host = hostPort.substr(0, colon);
        std::string port = colon == std::string::npos ? (url.rfind("https", 0) == 0 ? "443" : "80")
                                                      : hostPort.substr(colon + 1);
        auto given = cfg.hostAddresses.find(host);
        if (given == cfg.hostAddresses.end() && cfg.preferIpFamily == 0) return "";
        std::vector<std::string> addrs = given != cfg.hostAddresses.end() ? given->second : resolveHost(host);
        auto isV6 = [](const std::string& a) { return a.find(':') != std::string::npos; };
        if (cfg.preferIpFamily != 0) {
            bool v6First = cfg.preferIpFamily == 6;
            std::stable_partition(addrs.begin(), addrs.end(), [&](const std::string& a) { return isV6(a) == v6First; });
        }
        bool both = std::any_of(addrs.begin(), addrs.end(), isV6) && !std::all_of(addrs.begin(), addrs.end(), isV6);
        if (addrs.empty() || (!both && given == cfg.hostAddresses.end())) return "";
        std::string entry = host + ":" + port + ":";
        for (std::size_t i = 0; i < addrs.size(); ++i) {
            entry += (i ? "," : "") + (isV6(addrs[i]) ? "[" + addrs[i] + "]" : addrs[i]);
        }
        return entry;
    }

    /// The addresses of `host` (numeric, resolver order), kept for a minute as libcurl keeps its own lookups.
    std::vector<std::string> resolveHost(const std::string& host) {
        auto now = cfg.clock();
        {
            std::lock_guard<std::mutex> lock(resolvedMu);
            auto it = resolved.find(host);
            if (it != resolved.end() && now - it->second.first < std::chrono::seconds(60)) return it->second.second;
        }
        std::vector<std::string> out;
        addrinfo hints{};
        hints.ai_socktype = SOCK_STREAM;
        addrinfo* res = nullptr;
        if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) == 0) {
            for (addrinfo* a = res; a; a = a->ai_next) {
                char buf[NI_MAXHOST];
                if (::getnameinfo(a->ai_addr, a->ai_addrlen, buf, sizeof buf, nullptr, 0, NI_NUMERICHOST) == 0 &&
                    std::find(out.begin(), out.end(), buf) == out.end()) {
                    out.push_back(buf);
                }
            }
            ::freeaddrinfo(res);
        }
        std::lock_guard<std::mutex> lock(resolvedMu);
        resolved[host] = {now, out};
        return out;
    }

    /// Lifetime class of a native path, in frontier_client's order: 0 short (HEAD queries, lists, states), 1 long
    /// (IOV queries through a named tag), 2 forever (pinned URLs).
    static int ttlOf(const std::string& path) {
        if (path.find("/pin/") != std::string::npos) return 2;
        for (const char* kind : {"/v1/bin/at/", "/v1/bin/browse/", "/v1/bin/count/"}) {
            if (path.rfind(kind, 0) == 0) return path.compare(std::strlen(kind), 5, "HEAD/") == 0 ? 0 : 1;
        }
        return 0;
    }

    /// The reload controls (docs/client-failover.md, "Reload controls"): the refresh a request for `path` starts
    /// with, 0 plain, 1 soft (max-age=0), 2 hard (no-cache); the strongest of forcereload, maxagesecs=0, freshkey.
    int initialRefresh(const std::string& path) const {
        int upTo = -1, refresh = 0;
        const std::string& f = cfg.forceReload;
        if (f != "none" && !f.empty()) {
            bool soft = f.rfind("soft", 0) == 0;
            std::string level = soft ? f.substr(4) : f;
            // as frontier_client: the first of short, long, forever the value contains (shortforever = short)
            upTo = level.find("short") != std::string::npos ? 0 : level == "long" ? 1 : 2;
            refresh = soft ? 1 : 2;
        }
        if (cfg.maxAgeSecs == 0 && upTo < 1) {
            upTo = 1;
            if (!refresh) refresh = 1;
        }
        if (!cfg.freshKey.empty()) {
            upTo = std::max(upTo, cfg.freshKey.rfind("long", 0) == 0 ? 1 : 0);
            if (!refresh) refresh = 1;
        }
        return ttlOf(path) <= upTo ? refresh : 0;
    }

    /// One route: plain (or as the reload controls say), then on a corrupt answer a soft refresh (max-age=0), then
    /// a hard one (no-cache).
    AttemptResult attemptWithRefresh(const std::string& proxy, const std::string& server, const std::string& path,
                                     RowSink& sink, std::vector<Error>& failures, const Asked* asked) {
        static const char* const kRefresh[] = {"", "max-age=0", "no-cache"};
        const std::string plain = cfg.maxAgeSecs > 0 ? "max-age=" + std::to_string(cfg.maxAgeSecs) : "";
        AttemptResult r;
        for (int i = initialRefresh(path); i < 3; ++i) {
            const std::string refresh = i == 0 ? plain : kRefresh[i];
            if (i > 0) ++refreshes;
            r = attempt(proxy, server, path, refresh, sink, asked);
            if (r.outcome != Outcome::Corrupt) return r;
            failures.push_back(r.error);
            emit(Event::Kind::Corrupt, proxy, server, server + path, refresh, r.status, r.error.message);
        }
        return r;
    }

    void sleepBackoff(int pass, const std::string& path) {
        static thread_local std::mt19937_64 rng{std::random_device{}()};
        std::chrono::milliseconds cap = std::min(cfg.maxBackoff, std::chrono::milliseconds(cfg.backoff.count() << std::min(pass - 1, 20)));
        // Full jitter: uniform in [0, cap], so that many clients do not come back in step.
        std::uniform_int_distribution<long long> dist(0, cap.count());
        std::chrono::milliseconds wait(dist(rng));
        emit(Event::Kind::Backoff, "", "", path, "", 0, std::to_string(wait.count()) + " ms");
        if (wait.count() > 0) std::this_thread::sleep_for(wait);
    }

    /// The routes of one pass, as (proxy, its servers) groups; proxy "" = direct. Without PAC: every server
    /// through each proxy, then (unless disabled) every server directly. With PAC each server has its own proxies
    /// (its PAC answer's, then the configured ones): a proxy's group holds the servers whose list has it, in order
    /// of first appearance; a PAC answer with DIRECT keeps the server's direct route even with failovertoserver=no.
    std::vector<std::pair<std::string, std::vector<std::string>>> routeGroups() {
        std::vector<std::string> servers = ordered(cfg.servers);
        std::vector<std::pair<std::string, std::vector<std::string>>> groups;
        if (!discovery) {
            for (const auto& p : ordered(cfg.proxies)) groups.emplace_back(p, servers);
            for (const auto& p : ordered(cfg.backupProxies)) groups.emplace_back(p, servers);  // after every proxy
            if (cfg.failoverToServer || groups.empty()) groups.emplace_back("", servers);
            return groups;
        }
        std::vector<std::string> order;
        std::map<std::string, std::vector<std::string>> byProxy;
        std::vector<std::string> direct;
        for (const auto& server : servers) {
            internal::PacAnswer a = discovery->answerFor(server);
            std::vector<std::string> own = a.proxies;
            for (const auto& p : cfg.proxies) {
                if (std::find(own.begin(), own.end(), p) == own.end()) own.push_back(p);
            }
            for (const auto& p : own) {
                if (byProxy.find(p) == byProxy.end()) order.push_back(p);
                byProxy[p].push_back(server);
            }
            if (cfg.failoverToServer || a.direct) direct.push_back(server);
        }
        for (const auto& p : ordered(order)) groups.emplace_back(p, byProxy[p]);
        for (const auto& p : ordered(cfg.backupProxies)) groups.emplace_back(p, servers);  // after every proxy
        if (!direct.empty()) groups.emplace_back("", direct);
        return groups;
    }

    /// The failover policy (docs/client-failover.md). Returns rows decoded into `sink`; `freshFor` gets the
    /// seconds the answer may be cached (-1: not cacheable).
    Result<std::uint64_t> fetch(const std::string& path, RowSink& sink, long* freshFor, std::string* state = nullptr,
                                const Asked* asked = nullptr) {
        std::vector<Error> failures;
        for (int pass = 0; pass <= cfg.retries; ++pass) {
            if (pass > 0) sleepBackoff(pass, path);
            for (const auto& [proxy, servers] : routeGroups()) {
                for (const std::string& server : servers) {
                    AttemptResult r = attemptWithRefresh(proxy, server, path, sink, failures, asked);
                    const std::string url = server + path;
                    // Success: forget earlier failures of this route.
                    if (r.outcome == Outcome::Ok) {
                        forgive(proxy, server);
                        emit(Event::Kind::Success, proxy, server, url, "", r.status, std::to_string(r.rows) + " rows");
                        if (freshFor) *freshFor = r.maxAge < 0 ? -1 : std::max(0L, r.maxAge - r.age);
                        if (state) *state = r.outpostState;
                        return r.rows;
                    }
                    // 4xx: the query itself is wrong; another route would say the same. Never retried.
                    if (r.outcome == Outcome::RequestError) {
                        emit(Event::Kind::RequestError, proxy, server, url, "", r.status, r.error.message);
                        return r.error;
                    }
                    // The sink stopped the transfer: not a failure of the route.
                    if (r.outcome == Outcome::Cancelled) return r.error;
                    ++failovers;
                    if (r.outcome != Outcome::Corrupt) failures.push_back(r.error);  // corrupt ones already are
                    // Not signed as it must be: this route cannot be trusted for it; the next server may be.
                    if (r.outcome == Outcome::Untrusted) {
                        emit(Event::Kind::Untrusted, proxy, server, url, "", r.status, r.error.message);
                        continue;
                    }
                    // Cannot connect through a proxy: the proxy is down; skip its other servers.
                    if (r.outcome == Outcome::ConnectFailed && !proxy.empty()) {
                        emit(Event::Kind::ConnectFailed, proxy, server, url, "", 0, r.error.message);
                        postpone(proxy);
                        break;
                    }
                    // Direct connect failure, 5xx, broken transfer, corrupt after refreshes: next server.
                    emit(r.outcome == Outcome::ConnectFailed  ? Event::Kind::ConnectFailed
                         : r.outcome == Outcome::ServerError  ? Event::Kind::ServerError
                         : r.outcome == Outcome::Corrupt      ? Event::Kind::Corrupt
                                                              : Event::Kind::TransferFailed,
                         proxy, server, url, "", r.status, r.error.message);
                    if (proxy.empty() || r.outcome != Outcome::Corrupt) postpone(server);
                }
            }
        }
        emit(Event::Kind::GiveUp, "", "", path, "", 0, std::to_string(failures.size()) + " failed attempts");
        Error e(ErrorCode::Unavailable,
                "GET " + path + " failed on every route (" + std::to_string(cfg.servers.size()) + " servers, " +
                    std::to_string(cfg.proxies.size()) + " proxies, " + std::to_string(cfg.retries + 1) +
                    " passes, " + std::to_string(failures.size()) + " attempts); last: " +
                    (failures.empty() ? std::string("none") : failures.back().message));
        e.httpStatus = failures.empty() ? 0 : failures.back().httpStatus;
        e.attempts = std::move(failures);
        return e;
    }

    Result<std::shared_ptr<const Table>> getShared(const std::string& path, const Asked* asked = nullptr) {
        auto now = cfg.clock();
        if (auto hit = initialRefresh(path) ? nullptr : cache.get(path, now)) {
            ++cacheHits;
            emit(Event::Kind::CacheHit, "", "", path);
            return hit;
        }
        TableSink sink;
        long freshFor = -1;
        auto r = fetch(path, sink, &freshFor, nullptr, asked);
        if (!r) return r.error();
        auto table = std::make_shared<const Table>(sink.take());
        if (cfg.maxAgeSecs > 0) freshFor = std::min(freshFor, cfg.maxAgeSecs);
        if (freshFor > 0) cache.put(path, table, now + std::chrono::seconds(freshFor));
        return table;
    }

    Result<Table> get(const std::string& path, const Asked* asked = nullptr) {
        auto r = getShared(path, asked);
        if (!r) return r.error();
        return Table(**r);
    }

    /// The window for at-time queries on `folder`: per-folder setting, else by key type (from the node list).
    Window windowFor(const std::string& folder) {
        auto best = cfg.folderWindows.end();
        for (auto it = cfg.folderWindows.begin(); it != cfg.folderWindows.end(); ++it) {
            const std::string& k = it->first;
            bool match = k == folder || (k.back() == '/' && folder.compare(0, k.size(), k) == 0);
            if (match && (best == cfg.folderWindows.end() || k.size() > best->first.size())) best = it;
        }
        if (best != cfg.folderWindows.end()) return best->second;
        if (cfg.timeWindow.length <= 0 && cfg.runLumiWindow.length <= 0) return Window{0, 1};  // no lookup needed
        std::string keyType = keyTypeOf(folder);
        if (keyType == "time") return cfg.timeWindow;
        if (keyType == "run-lumi") return cfg.runLumiWindow;
        return Window{0, 1};  // unknown folder or node list unavailable: ask the server directly
    }

    std::string keyTypeOf(const std::string& folder) {
        {
            std::lock_guard<std::mutex> lock(keyTypeMu);
            auto it = keyTypes.find(folder);
            if (it != keyTypes.end()) return it->second;
            if (keyTypesLoaded) return "";
        }
        auto nodes = getShared(paths::nodes());
        if (!nodes) return "";
        const Table& t = **nodes;
        int pathCol = t.header.columnIndex("path"), keyCol = t.header.columnIndex("keyType");
        std::lock_guard<std::mutex> lock(keyTypeMu);
        keyTypesLoaded = true;
        if (pathCol < 0 || keyCol < 0) return "";
        for (const auto& r : t.rows) {
            auto* p = std::get_if<std::string>(&r.values[pathCol]);
            auto* k = std::get_if<std::string>(&r.values[keyCol]);
            if (p && k) keyTypes[*p] = *k;
        }
        auto it = keyTypes.find(folder);
        return it == keyTypes.end() ? "" : it->second;
    }
};

namespace {
template <typename F>
auto guarded(F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const std::invalid_argument& e) {
        return Error(ErrorCode::InvalidArgument, e.what());
    }
}
}  // namespace

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;
Client::~Client() = default;

Result<Client> Client::create(Config config) {
    auto v = config.validate();
    if (!v) return v.error();
    internal::ensureCurlGlobalInit();
    auto impl = std::make_unique<Impl>(std::move(config));
    if (impl->cfg.signedAnswers) {
        auto v = internal::AnswerVerifier::load(impl->cfg.verifyKeys, impl->cfg.acceptSig1, impl->cfg.wallClock);
        if (!v) return v.error();
        impl->verifier = std::move(*v);
    }
    if (!impl->cfg.proxyConfigUrls.empty()) {
        // Read and evaluated now, so that a bad PAC file is an error of create(), not of a later query.
        auto d = internal::ProxyDiscovery::start(impl->cfg.proxyConfigUrls, impl->cfg.servers,
                                                 impl->cfg.connectTimeout, impl->cfg.readTimeout,
                                                 impl->cfg.pacConnectTo, impl->cfg.clock);
        if (!d) return d.error();
        impl->discovery = std::move(*d);
    }
    return Client(std::move(impl));
}

Result<Client> Client::fromEnvironment() {
    auto c = Config::fromEnvironment();
    if (!c) return c.error();
    return create(std::move(*c));
}

const Config& Client::config() const { return impl_->cfg; }
void Client::clearCache() { impl_->cache.clear(); }
std::string Client::clientId() const { return impl_->clientId(); }

Client::Stats Client::stats() const {
    return Stats{impl_->requests.load(), impl_->cacheHits.load(), impl_->failovers.load(), impl_->refreshes.load()};
}

Result<Table> Client::get(const std::string& path) { return impl_->get(path); }

Result<Table> Client::getWithState(const std::string& path, std::string& state, long& freshSeconds) {
    TableSink sink;
    freshSeconds = -1;
    auto r = impl_->fetch(path, sink, &freshSeconds, &state);
    if (!r) return r.error();
    return sink.take();
}

Result<std::uint64_t> Client::get(const std::string& path, RowSink& sink) {
    return impl_->fetch(path, sink, nullptr);
}

Result<Table> Client::nodes() { return impl_->get(paths::nodes()); }
Result<Table> Client::channels(std::string_view folder) {
    return guarded([&]() -> Result<Table> { return impl_->get(paths::channels(folder)); });
}
Result<Table> Client::tags(std::string_view node) {
    return guarded([&]() -> Result<Table> { return impl_->get(paths::tags(node)); });
}
Result<Table> Client::resolveTag(std::string_view folder, std::string_view tag) {
    return guarded([&]() -> Result<Table> { return impl_->get(paths::tag(folder, tag)); });
}

Result<Table> Client::find(std::string_view folder, std::uint32_t channel, Key t, std::string_view tag) {
    return objectsAt(folder, ChannelSelection::channel(channel), t, tag);
}

Result<Table> Client::objectsAt(std::string_view folder, const ChannelSelection& sel, Key t, std::string_view tag) {
    return guarded([&]() -> Result<Table> {
        checkPath(folder);
        checkTag(tag);
        checkKey("t", t);
        Window w = impl_->windowFor(std::string(folder));
        if (w.length <= 0) {
            Asked asked = askedFor(folder, sel, t, t);
            return impl_->get(paths::at(folder, tag, t, sel), &asked);
        }
        auto [lo, hi] = alignedWindow(t, w);
        Asked asked = askedFor(folder, sel, lo, hi);
        auto window = impl_->getShared(paths::browse(folder, tag, lo, hi, sel, Order::ChannelSince), &asked);
        if (!window) return window.error();
        const Table& all = **window;
        if (all.header.kind != AnswerKind::Iovs) {
            return Error(ErrorCode::Protocol, "expected an iovs answer for " + std::string(folder) + ", got " +
                                                  toString(all.header.kind));
        }
        // Pick the rows valid at t; the answer is the same for every key between the nearest IOV edges
        // around t (clamped to the window).
        Table out;
        out.header = all.header;
        Key validSince = lo;
        Key validUntil = hi == kMaxKey ? kMaxKey : hi + 1;
        for (const Row& r : all.rows) {
            if (r.since <= t && t < r.until) out.rows.push_back(r);
            for (Key edge : {r.since, r.until}) {
                if (edge <= t) validSince = std::max(validSince, edge);
                else validUntil = std::min(validUntil, edge);
            }
        }
        out.header.validSince = validSince;
        out.header.validUntil = validUntil;
        return out;
    });
}

Result<Table> Client::browse(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2,
                             std::string_view tag, Order order) {
    return guarded([&]() -> Result<Table> {
        Asked asked = askedFor(folder, sel, t1, t2);
        return impl_->get(paths::browse(folder, tag, t1, t2, sel, order), &asked);
    });
}

Result<std::uint64_t> Client::browse(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2,
                                     std::string_view tag, Order order, RowSink& sink) {
    return guarded([&]() -> Result<std::uint64_t> {
        Asked asked = askedFor(folder, sel, t1, t2);
        return impl_->fetch(paths::browse(folder, tag, t1, t2, sel, order), sink, nullptr, nullptr, &asked);
    });
}

Result<std::uint64_t> Client::count(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2,
                                    std::string_view tag) {
    return guarded([&]() -> Result<std::uint64_t> {
        auto t = impl_->getShared(paths::count(folder, tag, t1, t2, sel));
        if (!t) return t.error();
        const Table& table = **t;
        if (table.header.kind != AnswerKind::Count || table.rows.size() != 1 || table.header.columns.empty()) {
            return Error(ErrorCode::Protocol, "a count answer has one row with one column");
        }
        auto* n = std::get_if<std::int64_t>(&table.rows[0].values[0]);
        if (!n) return Error(ErrorCode::Protocol, "the count is NULL");
        return static_cast<std::uint64_t>(*n);
    });
}

}  // namespace outpost
