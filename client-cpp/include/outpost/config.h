// Client configuration: from code, from a Frontier-style string, or from environment variables.
// Every key, unit, default and limit is listed in client-cpp/README.md and docs/client-failover.md.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "outpost/error.h"
#include "outpost/event.h"
#include "outpost/query.h"

namespace outpost {

struct Config {
    static constexpr std::size_t kMaxServers = 16;   // as frontier_client
    static constexpr std::size_t kMaxProxies = 24;
    static constexpr int kMaxRetries = 10;
    static constexpr std::size_t kMaxProxyConfigs = 16;

    /// Base URLs. From a configuration string or the environment they are written scheme://host:port[/path]
    /// (http:// and the scheme's port added when missing, no trailing '/'); a path prefix is kept as written.
    std::vector<std::string> servers;
    std::vector<std::string> proxies;   ///< HTTP proxies (Squid), http://host:port, tried in order
    /// backupproxyurl: proxies tried after every proxy; as in frontier_client one turns failoverToServer off.
    std::vector<std::string> backupProxies;
    /// Proxy auto-config URLs (http://, https://, file://, or "auto" = http://wpad/wpad.dat), tried in order; the
    /// first readable one chooses each server's proxies, ahead of `proxies` (docs/client-failover.md).
    std::vector<std::string> proxyConfigUrls;
    /// libcurl CURLOPT_CONNECT_TO entries "host:port:to-host:to-port" used when reading PAC files. For tests:
    /// they send WPAD's http://wpad/wpad.dat to a local test server without touching the machine's DNS.
    std::vector<std::string> pacConnectTo;
    /// frontier_client's reload controls (docs/client-failover.md, "Reload controls"): forcereload is none, short,
    /// long or forever, each also with a "soft" prefix; maxAgeSecs -1 = unset, 0 = softlong, N = copies at most N s
    /// old; freshKey "" = none ("long" prefix: also long-lived answers).
    std::string forceReload = "none";
    long maxAgeSecs = -1;
    std::string freshKey;
    /// frontier_client's logicalserverurl ("" = none): the server URL that requests through a proxy name, whatever
    /// the route's physical server, so that all physical servers share one cache entry per query.
    std::string logicalServer;
    /// frontier_client's preferipfamily: 4, 6 or 0 (none). A proxy's or server's name with addresses of both
    /// families is connected to the preferred family first (the other only when those cannot be reached).
    int preferIpFamily = 4;
    /// Test hook: the addresses (numeric) of these host names, in place of the resolver's; preferipfamily still
    /// orders them. The tests use it for a name with an IPv4 and an IPv6 address without touching the machine's DNS.
    std::map<std::string, std::vector<std::string>> hostAddresses;
    std::chrono::milliseconds writeTimeout{5000};    ///< frontier_client's writetimeoutsecs
    /// frontier_client's security=sig: only answers signed by one of verifyKeys are accepted (docs/client-failover.md,
    /// "Signed answers"); verifyKeys are (key id, PEM public key file) pairs from verifykey=KEYID:FILE.
    bool signedAnswers = false;
    std::vector<std::pair<std::string, std::string>> verifyKeys;
    /// acceptsig1=yes: outpost-sig-1 signatures (no expiry, no generation) verify too; by default only outpost-sig-2.
    bool acceptSig1 = false;
    /// maxanswerbytes: the largest answer body accepted, as sent (Content-Length and counted) and decompressed.
    std::uint64_t maxAnswerBytes = 256ull << 20;
    /// attempttimeout(secs): one whole attempt (connect, send, status, headers, body) ends after this long, even
    /// when bytes keep dripping in within the read timeout.
    std::chrono::milliseconds attemptTimeout{30000};
    /// Test hook: the wall clock signatures' expiry is checked against (Unix seconds; default: the system clock).
    std::function<std::int64_t()> wallClock;
    bool failoverToServer = true;       ///< after the proxies, go direct to the servers
    int retries = 1;                    ///< extra passes over all routes after the first one failed
    std::chrono::milliseconds connectTimeout{5000};
    std::chrono::milliseconds readTimeout{10000};   ///< no byte for this long = the transfer failed
    std::chrono::milliseconds backoff{200};         ///< first backoff; doubles per pass, full jitter
    std::chrono::milliseconds maxBackoff{5000};
    std::chrono::seconds routeMemory{300};          ///< failed routes are postponed (tried last) this long

    std::string app = "outpost-cpp";    ///< first part of X-Outpost-Client / User-Agent (clientid=APP/VERSION)
    std::string appVersion;             ///< default: the library version

    std::size_t cacheMaxBytes = 64u << 20;  ///< in-process answer cache (honours max-age); 0 disables it
    std::size_t maxIdleConnections = 8;     ///< pooled curl handles kept for keep-alive reuse

    /// At-time queries ask for an aligned window containing t (see Window). Per folder (exact path, or a
    /// node path prefix ending in '/'), else by the folder's key type. Window{0} = direct /at/ queries.
    Window timeWindow{600'000'000'000LL, 1};     ///< 600 s of nanoseconds
    Window runLumiWindow{Key(1) << 32, 1};       ///< one run
    std::map<std::string, Window> folderWindows;

    /// What was ignored or overridden while parsing (unknown keys, loadbalance with PAC); each is also written to
    /// stderr once per process.
    std::vector<std::string> warnings;
    /// loadbalance: "none", "proxies" or "servers". Only to warn: the C++ client does not balance load.
    std::string loadBalance = "none";


    std::function<void(const Event&)> onEvent;   ///< called from the querying thread; must be thread-safe
    std::function<std::chrono::steady_clock::time_point()> clock;  ///< default steady_clock::now

    /// Parses "(serverurl=http://a:8000)(proxyurl=http://p:3128)(retries=2)..." or a plain server URL list
    /// separated by ';' or spaces. Unknown keys are ignored, as in frontier_client, with a warning naming each.
    static Result<Config> fromString(std::string_view spec);
    /// Reads OUTPOST_SERVER[1..16] (a URL, a list, or a "(key=value)" string) and OUTPOST_PROXY[1..24], else
    /// FRONTIER_SERVER[1..16] and (unless an OUTPOST_PROXY is set) FRONTIER_PROXY[1..24]; then OUTPOST_RETRIES,
    /// OUTPOST_{CONNECT,READ}TIMEOUTSECS (else, with FRONTIER_SERVER, the FRONTIER_ ones), OUTPOST_LOADBALANCE,
    /// OUTPOST_FAILOVERTOSERVER, OUTPOST_ID; FRONTIER_PROXYCONFIGS (';'-separated), FRONTIER_FORCERELOAD and
    /// FRONTIER_FRESHKEY always. A variable of white space only is not set. Refused when no server is named.
    static Result<Config> fromEnvironment();
    /// The same from these variables instead of the process's.
    static Result<Config> fromEnvironment(const std::map<std::string, std::string>& env);
    /// Applies one "(key=value)..." string (or URL list) on top of this config.
    Result<void> apply(std::string_view spec);

    /// Fails on impossible settings (no server, bad URL, too many servers, negative timeouts, ...).
    Result<void> validate() const;
    /// Adds a proxyconfigurl value (checked: http://, https://, file:// or auto).
    Result<void> addProxyConfig(const std::string& url);
    /// Records a warning (once per config) and writes it to stderr (once per process).
    void warn(const std::string& message);
    std::string toString() const;

private:
    static Result<Config> fromLookup(const std::function<std::string(const std::string&)>& env);
    Result<void> set(const std::string& key, const std::string& value);
    Result<void> add(const std::string& key, std::vector<std::string>& values, const std::string& value,
                     std::size_t limit);
    void settle();
};

}  // namespace outpost
