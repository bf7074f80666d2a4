// The failover policy (docs/client-failover.md), as the Java client's Failover: fetch() runs one GET over the
// routes, decide() says what follows a failed attempt, one early-return guard per row of the documented table.
#include "failover.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>

namespace outpost {

const char* toString(Event::Kind k) noexcept {
    switch (k) {
        case Event::Kind::Attempt: return "attempt";
        case Event::Kind::Success: return "success";
        case Event::Kind::ConnectFailed: return "connect-failed";
        case Event::Kind::ServerError: return "server-error";
        case Event::Kind::TransferFailed: return "transfer-failed";
        case Event::Kind::Corrupt: return "corrupt";
        case Event::Kind::Untrusted: return "untrusted";
        case Event::Kind::RequestError: return "request-error";
        case Event::Kind::Backoff: return "backoff";
        case Event::Kind::GiveUp: return "give-up";
        case Event::Kind::CacheHit: return "cache-hit";
        case Event::Kind::Stale: return "stale";
    }
    return "?";
}

const char* toString(Decision d) noexcept {
    switch (d) {
        case Decision::None: return "";
        case Decision::RefreshSoft: return "refresh-soft";
        case Decision::RefreshHard: return "refresh-hard";
        case Decision::NextServer: return "next-server";
        case Decision::NextProxy: return "next-proxy";
        case Decision::GiveUp: return "give-up";
    }
    return "?";
}

namespace internal {

namespace {

const char* cacheControl(Refresh r) {
    switch (r) {
        case Refresh::Soft: return "max-age=0";
        case Refresh::Hard: return "no-cache";
        default: return "";
    }
}

/// The event reporting a failed attempt of this outcome.
Event::Kind failureKind(Outcome o) {
    switch (o) {
        case Outcome::ConnectFailed: return Event::Kind::ConnectFailed;
        case Outcome::ServerError: return Event::Kind::ServerError;
        case Outcome::RequestError: return Event::Kind::RequestError;
        case Outcome::Corrupt: return Event::Kind::Corrupt;
        case Outcome::Stale: return Event::Kind::Stale;
        case Outcome::Untrusted: return Event::Kind::Untrusted;
        default: return Event::Kind::TransferFailed;  // a broken or timed-out transfer, an odd answer
    }
}

/// Lifetime class of a native path, in frontier_client's order: 0 short (HEAD queries, lists, states), 1 long
/// (IOV queries through a named tag), 2 forever (pinned URLs).
int ttlOf(const std::string& path) {
    if (path.find("/pin/") != std::string::npos) return 2;
    for (const char* kind : {"/v1/bin/at/", "/v1/bin/browse/", "/v1/bin/count/"}) {
        if (path.rfind(kind, 0) == 0) return path.compare(std::strlen(kind), 5, "HEAD/") == 0 ? 0 : 1;
    }
    return 0;
}

}  // namespace

Decision decide(Outcome outcome, bool viaProxy, Refresh refresh) {
    // 4xx: the query itself is wrong, any route would say the same; a sink that stopped is not the route's fault.
    if (outcome == Outcome::RequestError || outcome == Outcome::Cancelled) return Decision::GiveUp;
    // Not signed as it must be: this route cannot be trusted for it; the next server may be.
    if (outcome == Outcome::Untrusted) return Decision::NextServer;
    // A corrupt, truncated or too old answer may sit in a cache on the way: revalidate it, then reload it.
    if (outcome == Outcome::Corrupt || outcome == Outcome::Stale) {
        if (refresh == Refresh::Plain) return Decision::RefreshSoft;
        if (refresh == Refresh::Soft) return Decision::RefreshHard;
        return Decision::NextServer;
    }
    // Cannot connect to the proxy: no server behind it can be reached either.
    if (outcome == Outcome::ConnectFailed && viaProxy) return Decision::NextProxy;
    // Direct connect failure, 5xx, broken or timed-out transfer: the next server on the same path.
    return Decision::NextServer;
}

Failover::Failover(const Config& cfg, std::function<std::string()> clientId,
                   std::shared_ptr<const AnswerVerifier> verifier,
                   std::unique_ptr<ProxyDiscovery> discovery)
    : cfg_(cfg), clientId_(std::move(clientId)), verifier_(std::move(verifier)), discovery_(std::move(discovery)),
      pool_(cfg.maxIdleConnections) {}

Result<std::uint64_t> Failover::fetch(const std::string& path, RowSink& sink, long* freshFor, std::string* state,
                                      const Asked* asked) {
    std::vector<Error> failures;
    for (int pass = 0; pass <= cfg_.retries; ++pass) {
        if (pass > 0) sleepBackoff(pass, path);
        for (const auto& [proxy, servers] : routeGroups()) {
            bool nextProxy = false;
            for (const std::string& server : servers) {
                const std::string url = server + path;
                for (Refresh refresh = initialRefresh(path);;) {
                    AttemptResult r = attempt(proxy, server, path, refresh, sink, asked);
                    if (r.outcome == Outcome::Ok) {
                        forgive(proxy, server);
                        emit(Event{Event::Kind::Success, proxy, server, url, cacheControl(refresh), r.status,
                                   std::to_string(r.rows) + " rows"});
                        if (freshFor) *freshFor = r.maxAge < 0 ? -1 : std::max(0L, r.maxAge - r.age);
                        if (state) *state = r.outpostState;
                        return r.rows;
                    }
                    Decision d = decide(r.outcome, !proxy.empty(), refresh);
                    if (r.outcome != Outcome::Cancelled) {
                        emit(Event{failureKind(r.outcome), proxy, server, url, cacheControl(refresh), r.status,
                                   r.error.message, d});
                    }
                    if (d == Decision::GiveUp) return r.error;
                    failures.push_back(r.error);
                    ++failovers;
                    if (d == Decision::RefreshSoft || d == Decision::RefreshHard) {
                        refresh = d == Decision::RefreshSoft ? Refresh::Soft : Refresh::Hard;
                        continue;
                    }
                    if (d == Decision::NextProxy) {
                        postpone(proxy);
                        nextProxy = true;
                    } else if (r.outcome != Outcome::Corrupt && r.outcome != Outcome::Stale &&
                               r.outcome != Outcome::Untrusted) {
                        postpone(server);  // a bad answer may be one cached copy: its route is not postponed
                    }
                    break;
                }
                if (nextProxy) break;
            }
        }
    }
    emit(Event{Event::Kind::GiveUp, "", "", path, "", 0, std::to_string(failures.size()) + " failed attempts"});
    Error e(ErrorCode::Unavailable,
            "GET " + path + " failed on every route (" + std::to_string(cfg_.servers.size()) + " servers, " +
                std::to_string(cfg_.proxies.size()) + " proxies, " + std::to_string(cfg_.retries + 1) + " passes, " +
                std::to_string(failures.size()) + " attempts); last: " +
                (failures.empty() ? std::string("none") : failures.back().message));
    e.httpStatus = failures.empty() ? 0 : failures.back().httpStatus;
    e.attempts = std::move(failures);
    return e;
}

AttemptResult Failover::attempt(const std::string& proxy, const std::string& server, const std::string& path,
                                Refresh refresh, RowSink& sink, const Asked* asked) {
    AttemptSpec spec;
    // Through a proxy the logical server (if any) is named, so every physical server shares one cache entry.
    spec.url = (proxy.empty() || cfg_.logicalServer.empty() ? server : cfg_.logicalServer) + path;
    spec.proxy = proxy;
    spec.refresh = refresh != Refresh::Plain ? cacheControl(refresh)
                   : cfg_.maxAgeSecs > 0     ? "max-age=" + std::to_string(cfg_.maxAgeSecs)
                                             : "";
    spec.clientId = clientId_();
    spec.connectTimeout = cfg_.connectTimeout;
    spec.readTimeout = cfg_.readTimeout;
    spec.verifier = verifier_.get();
    if (asked) spec.asked = *asked;
    spec.attemptTimeout = cfg_.attemptTimeout;
    spec.maxAnswerBytes = cfg_.maxAnswerBytes;
    spec.resolve = addressOrder(proxy.empty() ? spec.url : proxy);
    CurlEasy h = pool_.acquire();
    if (!h) {
        AttemptResult r;
        r.outcome = Outcome::Protocol;
        r.error = Error(ErrorCode::Protocol, "curl_easy_init failed");
        return r;
    }
    emit(Event{Event::Kind::Attempt, proxy, server, spec.url, spec.refresh, 0, ""});
    ++requests;
    if (refresh != Refresh::Plain) ++refreshes;
    AttemptResult r = performAttempt(h.get(), spec, sink);
    // A keep-alive connection the other side had closed: one immediate retry on a fresh connection.
    if (r.outcome == Outcome::TransferFailed && r.reusedConnection && r.bytes == 0) {
        spec.freshConnect = true;
        ++requests;
        r = performAttempt(h.get(), spec, sink);
    }
    pool_.release(std::move(h));
    return r;
}

Refresh Failover::initialRefresh(const std::string& path) const {
    // the strongest of forcereload, maxagesecs=0 and freshkey, for the lifetime classes they reach
    int upTo = -1;
    Refresh refresh = Refresh::Plain;
    const std::string& f = cfg_.forceReload;
    if (f != "none" && !f.empty()) {
        bool soft = f.rfind("soft", 0) == 0;
        std::string level = soft ? f.substr(4) : f;
        // as frontier_client: the first of short, long, forever the value contains (shortforever = short)
        upTo = level.find("short") != std::string::npos ? 0 : level == "long" ? 1 : 2;
        refresh = soft ? Refresh::Soft : Refresh::Hard;
    }
    if (cfg_.maxAgeSecs == 0 && upTo < 1) {
        upTo = 1;
        if (refresh == Refresh::Plain) refresh = Refresh::Soft;
    }
    if (!cfg_.freshKey.empty()) {
        upTo = std::max(upTo, cfg_.freshKey.rfind("long", 0) == 0 ? 1 : 0);
        if (refresh == Refresh::Plain) refresh = Refresh::Soft;
    }
    return ttlOf(path) <= upTo ? refresh : Refresh::Plain;
}

void Failover::sleepBackoff(int pass, const std::string& path) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    std::chrono::milliseconds cap =
        std::min(cfg_.maxBackoff, std::chrono::milliseconds(cfg_.backoff.count() << std::min(pass - 1, 20)));
    // Full jitter: uniform in [0, cap], so that many clients do not come back in step.
    std::uniform_int_distribution<long long> dist(0, cap.count());
    std::chrono::milliseconds wait(dist(rng));
    emit(Event{Event::Kind::Backoff, "", "", path, "", 0, std::to_string(wait.count()) + " ms", Decision::None, pass});
    if (wait.count() > 0) std::this_thread::sleep_for(wait);
}

/// The routes of one pass, as (proxy, its servers) groups; proxy "" = direct. Without PAC: every server through each
/// proxy, then (unless disabled) every server directly. With PAC each server has its own proxies (its PAC answer's,
/// then the configured ones): a proxy's group holds the servers whose list has it, in order of first appearance; a
/// PAC answer with DIRECT keeps the server's direct route even with failovertoserver=no.
Failover::RouteGroups Failover::routeGroups() {
    std::vector<std::string> servers = ordered(cfg_.servers);
    RouteGroups groups;
    if (!discovery_) {
        for (const auto& p : ordered(cfg_.proxies)) groups.emplace_back(p, servers);
        for (const auto& p : ordered(cfg_.backupProxies)) groups.emplace_back(p, servers);  // after every proxy
        if (cfg_.failoverToServer || groups.empty()) groups.emplace_back("", servers);
        return groups;
    }
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::string>> byProxy;
    std::vector<std::string> direct;
    for (const auto& server : servers) {
        PacAnswer a = discovery_->answerFor(server);
        std::vector<std::string> own = a.proxies;
        for (const auto& p : cfg_.proxies) {
            if (std::find(own.begin(), own.end(), p) == own.end()) own.push_back(p);
        }
        for (const auto& p : own) {
            if (byProxy.find(p) == byProxy.end()) order.push_back(p);
            byProxy[p].push_back(server);
        }
        if (cfg_.failoverToServer || a.direct) direct.push_back(server);
    }
    for (const auto& p : ordered(order)) groups.emplace_back(p, byProxy[p]);
    for (const auto& p : ordered(cfg_.backupProxies)) groups.emplace_back(p, servers);  // after every proxy
    if (!direct.empty()) groups.emplace_back("", direct);
    return groups;
}

/// Endpoints that failed less than routeMemory ago go last (postponed, not dropped).
std::vector<std::string> Failover::ordered(const std::vector<std::string>& list) {
    std::lock_guard<std::mutex> lock(routeMu_);
    auto now = cfg_.clock();
    std::vector<std::string> out(list);
    std::stable_partition(out.begin(), out.end(), [&](const std::string& e) {
        auto it = postponed_.find(e);
        return it == postponed_.end() || now - it->second >= cfg_.routeMemory;
    });
    return out;
}

void Failover::postpone(const std::string& endpoint) {
    std::lock_guard<std::mutex> lock(routeMu_);
    postponed_[endpoint] = cfg_.clock();
}

void Failover::forgive(const std::string& proxy, const std::string& server) {
    std::lock_guard<std::mutex> lock(routeMu_);
    if (!proxy.empty()) postponed_.erase(proxy);
    postponed_.erase(server);
}

/// The CURLOPT_RESOLVE entry that makes libcurl try the first hop's addresses in preferipfamily's order: "" when
/// there is nothing to order (no preference and no test addresses, an IP literal, one family only).
std::string Failover::addressOrder(const std::string& url) {
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
    auto given = cfg_.hostAddresses.find(host);
    if (given == cfg_.hostAddresses.end() && cfg_.preferIpFamily == 0) return "";
    std::vector<std::string> addrs = given != cfg_.hostAddresses.end() ? given->second : resolveHost(host);
    auto isV6 = [](const std::string& a) { return a.find(':') != std::string::npos; };
    if (cfg_.preferIpFamily != 0) {
        bool v6First = cfg_.preferIpFamily == 6;
        std::stable_partition(addrs.begin(), addrs.end(), [&](const std::string& a) { return isV6(a) == v6First; });
    }
    bool both = std::any_of(addrs.begin(), addrs.end(), isV6) && !std::all_of(addrs.begin(), addrs.end(), isV6);
    if (addrs.empty() || (!both && given == cfg_.hostAddresses.end())) return "";
    std::string entry = host + ":" + port + ":";
    for (std::size_t i = 0; i < addrs.size(); ++i) {
        entry += (i ? "," : "") + (isV6(addrs[i]) ? "[" + addrs[i] + "]" : addrs[i]);
    }
    return entry;
}

/// The addresses of `host` (numeric, resolver order), kept for a minute as libcurl keeps its own lookups.
std::vector<std::string> Failover::resolveHost(const std::string& host) {
    auto now = cfg_.clock();
    {
        std::lock_guard<std::mutex> lock(resolvedMu_);
        auto it = resolved_.find(host);
        if (it != resolved_.end() && now - it->second.first < std::chrono::seconds(60)) return it->second.second;
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
    std::lock_guard<std::mutex> lock(resolvedMu_);
    resolved_[host] = {now, out};
    return out;
}

}  // namespace internal
}  // namespace outpost
