// Internal: the failover policy of docs/client-failover.md, as the Java client's Failover: which routes a request
// takes in which order, what a failed attempt leads to (decide()), the postponing of endpoints that failed, the
// refresh escalation on one route and the jittered backoff between passes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "http.h"
#include "outpost/config.h"
#include "outpost/decoder.h"
#include "outpost/error.h"
#include "outpost/event.h"
#include "pac.h"
#include "signature.h"

namespace outpost::internal {

/// Under security=sig: why a row of an IOV answer is not what was asked for ("" when it is).
using Asked = std::function<std::string(const AnswerHeader&, const Row&)>;

/// The refresh an attempt is sent with: plain, soft (Cache-Control: max-age=0), hard (no-cache).
enum class Refresh { Plain = 0, Soft = 1, Hard = 2 };

/// What follows `outcome` of an attempt sent with `refresh` through a proxy (`viaProxy`) or directly: one guard
/// per row of docs/client-failover.md's table.
Decision decide(Outcome outcome, bool viaProxy, Refresh refresh);

class Failover {
public:
    /// `cfg` must outlive the Failover; `clientId` gives the X-Outpost-Client value (asked per attempt: its pid
    /// changes after fork()); `verifier` is set with security=sig, `discovery` with proxyconfigurl.
    Failover(const Config& cfg, std::function<std::string()> clientId, std::shared_ptr<const AnswerVerifier> verifier,
             std::unique_ptr<ProxyDiscovery> discovery);

    /// GET `path` over the routes until an answer is whole (and verified); rows are decoded into `sink` (whose
    /// begin() is called again when an attempt after a failed one starts). `freshFor` gets the seconds the answer
    /// may be kept (-1: not cacheable), `state` its X-Outpost-State.
    Result<std::uint64_t> fetch(const std::string& path, RowSink& sink, long* freshFor, std::string* state = nullptr,
                                const Asked* asked = nullptr);

    /// The refresh the reload controls (docs/client-failover.md, "Reload controls") start `path` with.
    Refresh initialRefresh(const std::string& path) const;

    void emit(Event event) const {
        if (cfg_.onEvent) cfg_.onEvent(event);
    }

    std::atomic<std::uint64_t> requests{0}, failovers{0}, refreshes{0};

private:
    using Clock = std::chrono::steady_clock;
    using RouteGroups = std::vector<std::pair<std::string, std::vector<std::string>>>;

    AttemptResult attempt(const std::string& proxy, const std::string& server, const std::string& path,
                          Refresh refresh, RowSink& sink, const Asked* asked);
    RouteGroups routeGroups();
    std::vector<std::string> ordered(const std::vector<std::string>& list);
    void postpone(const std::string& endpoint);
    void forgive(const std::string& proxy, const std::string& server);
    void sleepBackoff(int pass, const std::string& path);
    std::string addressOrder(const std::string& url);
    std::vector<std::string> resolveHost(const std::string& host);

    const Config& cfg_;
    const std::function<std::string()> clientId_;
    std::shared_ptr<const AnswerVerifier> verifier_;
    std::unique_ptr<ProxyDiscovery> discovery_;
    HandlePool pool_;

    std::mutex routeMu_;
    std::map<std::string, Clock::time_point> postponed_;  // endpoint URL -> when it failed

    std::mutex resolvedMu_;
    std::map<std::string, std::pair<Clock::time_point, std::vector<std::string>>> resolved_;  // host -> addresses
};

}  // namespace outpost::internal
