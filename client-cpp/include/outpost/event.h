// What the failover logic did and decided, one Event per step (docs/client-failover.md; the shared vectors in
// testdata/failover name the same steps).
#pragma once

#include <string>

namespace outpost {

/// What the client does after a failed attempt (Event::decision).
enum class Decision {
    None,         ///< not a failed attempt
    RefreshSoft,  ///< the same route again, caches revalidating (max-age=0)
    RefreshHard,  ///< the same route again, caches reloading (no-cache)
    NextServer,   ///< the next server through the same proxy (or directly)
    NextProxy,    ///< the proxy cannot be reached: skip its other servers
    GiveUp,       ///< the failure is final (4xx, a stopped transfer): no other route is tried
};
/// "refresh-soft", "refresh-hard", "next-server", "next-proxy", "give-up" ("" for None).
const char* toString(Decision d) noexcept;

/// One step of the failover logic, in the order they happen (for logs and tests). A failed attempt is reported
/// once, by the kind of its failure, with the decision taken.
struct Event {
    enum class Kind {
        Attempt,         ///< a request is about to be sent on a route
        Success,         ///< a whole, verified answer arrived
        ConnectFailed,   ///< could not connect: next proxy (or next server when direct)
        ServerError,     ///< HTTP 5xx: next server through the same proxy
        TransferFailed,  ///< connected, then the transfer broke or timed out: next server
        Corrupt,         ///< corrupt or truncated answer: refresh on the same route, then the next server
        Untrusted,       ///< security=sig and the signature is missing, bad or by an unknown key: next server
        RequestError,    ///< HTTP 4xx: no retry
        Backoff,         ///< every route failed: waiting before the next pass
        GiveUp,          ///< every pass failed
        CacheHit,        ///< answered from the in-process cache
        Stale,           ///< an answer older than the server allows (Age over its max-age): as Corrupt
    };
    Kind kind;
    std::string proxy;   ///< "" = direct
    std::string server;  ///< server base URL
    std::string url;     ///< full request URL
    std::string refresh; ///< Cache-Control sent: "", "max-age=0" or "no-cache" (or maxagesecs' "max-age=N")
    int httpStatus = 0;
    std::string detail;
    Decision decision = Decision::None;  ///< for a failed attempt: what follows
    int pass = 0;                        ///< for Backoff: the pass about to start (1, 2, ...)
};
const char* toString(Event::Kind k) noexcept;

}  // namespace outpost
