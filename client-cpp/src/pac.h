// Internal: proxy auto-config (docs/client-failover.md, "Proxy auto-config"). A PAC file is read from http://,
// https:// or file:// with libcurl and its FindProxyForURL(url, host) evaluated by Debian's libpacparser, the
// library frontier_client uses; the answer per server host is cached and renewed every 5 minutes.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "outpost/error.h"

namespace outpost::internal {

/// What FindProxyForURL answered for one server: its PROXY entries in order ("http://host:port") and whether it
/// named DIRECT (the server may also be asked without a proxy, after the proxies).
struct PacAnswer {
    std::vector<std::string> proxies;
    bool direct = false;
    /// "PROXY a:3128; DIRECT", the normalised form of testdata/pac/cases.txt.
    std::string toString() const;
};

/// Parses "PROXY a:3128; HTTP b:3128; DIRECT"; nothing, or an entry of another type, is an error naming pacUrl.
Result<PacAnswer> parsePacAnswer(const std::string& answer, const std::string& pacUrl);

/// Evaluates FindProxyForURL(url, host) of a PAC script; errors (the script does not parse, the call fails) name
/// pacUrl. libpacparser keeps one JavaScript context per process, so evaluations are serialised.
Result<std::string> evaluatePac(const std::string& script, const std::string& pacUrl, const std::string& url,
                                const std::string& host);

/// The error of a configuration with proxyconfigurl in a build without proxy auto-config (OUTPOST_WITH_PAC=OFF).
extern const char* const kPacMissing;

/// "auto" -> http://wpad/wpad.dat (Web Proxy Auto-Discovery); other values unchanged.
std::string expandPacUrl(const std::string& configured);

/// The host of an http(s) URL ("http://[::1]:80/x" -> "::1").
std::string hostOf(const std::string& url);

class ProxyDiscovery {
public:
    using ClockFn = std::function<std::chrono::steady_clock::time_point()>;
    static constexpr std::chrono::minutes kRefresh{5};

    /// Reads the first readable PAC file of `urls` and evaluates it for every server, so a bad file is an error
    /// of Client::create. `connectTo` are libcurl CURLOPT_CONNECT_TO entries "host:port:to-host:to-port" (tests only).
    static Result<std::unique_ptr<ProxyDiscovery>> start(const std::vector<std::string>& urls,
                                                         const std::vector<std::string>& servers,
                                                         std::chrono::milliseconds connectTimeout,
                                                         std::chrono::milliseconds readTimeout,
                                                         std::vector<std::string> connectTo, ClockFn clock);

    /// The answer for this server's host, cached for kRefresh; a renewal that fails keeps the previous answer.
    PacAnswer answerFor(const std::string& server);
    std::string source() const;

private:
    struct Script { std::string url, text; };
    struct Cached { PacAnswer answer; std::chrono::steady_clock::time_point at; };
    Result<Script> read() const;
    Result<PacAnswer> evaluate(const std::string& server) const;

    std::vector<std::string> urls_;
    std::chrono::milliseconds connectTimeout_{5000}, readTimeout_{10000};
    std::vector<std::string> connectTo_;
    ClockFn clock_;
    mutable std::mutex mu_;
    Script script_;
    std::chrono::steady_clock::time_point scriptRead_;
    std::map<std::string, Cached> byHost_;
};

}  // namespace outpost::internal
