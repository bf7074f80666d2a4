// Internal: one HTTP GET over libcurl, decoded on the fly. RAII owners for curl handles and header lists,
// and a pool of easy handles so that keep-alive connections are reused across requests and threads.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "outpost/decoder.h"
#include "outpost/error.h"
#include "signature.h"

namespace outpost::internal {

struct CurlEasyDeleter { void operator()(CURL* h) const noexcept { if (h) curl_easy_cleanup(h); } };
struct CurlSlistDeleter { void operator()(curl_slist* l) const noexcept { if (l) curl_slist_free_all(l); } };
using CurlEasy = std::unique_ptr<CURL, CurlEasyDeleter>;
using CurlSlist = std::unique_ptr<curl_slist, CurlSlistDeleter>;

/// Calls curl_global_init once per process (thread-safe).
void ensureCurlGlobalInit();

/// Idle easy handles (each keeps its own connection cache). Acquire/release are mutex-guarded; a handle is used
/// by one thread at a time. After fork() (pid change) the inherited handles are dropped, not reused.
class HandlePool {
public:
    explicit HandlePool(std::size_t maxIdle) : maxIdle_(maxIdle) {}
    CurlEasy acquire();
    void release(CurlEasy h);

private:
    std::mutex mu_;
    std::vector<CurlEasy> idle_;
    std::size_t maxIdle_;
    long pid_ = 0;
};

/// What one attempt on one route came to.
enum class Outcome {
    Ok, ConnectFailed, TransferFailed, ServerError, RequestError, Corrupt, Stale, Cancelled, Protocol, Untrusted
};

struct AttemptResult {
    Outcome outcome = Outcome::Ok;
    Error error;                 ///< set unless Ok
    int status = 0;
    long maxAge = -1;            ///< from Cache-Control (-1: none); 0 when no-store/no-cache/private
    long age = 0;                ///< Age header
    std::uint64_t rows = 0;
    bool reusedConnection = false;
    std::uint64_t bytes = 0;
    std::string outpostState;    ///< X-Outpost-State (state and snapshot answers), else ""
};

struct AttemptSpec {
    std::string url;
    std::string proxy;           ///< "" = direct
    std::string refresh;         ///< "" / "max-age=0" / "no-cache"
    std::string clientId;
    std::chrono::milliseconds connectTimeout{5000};
    std::chrono::milliseconds readTimeout{10000};
    bool freshConnect = false;
    /// CURLOPT_RESOLVE entry "host:port:addr,addr" for the first hop, in the order to try them ("" = curl resolves)
    std::string resolve;
    /// security=sig: the body is kept whole and reaches the sink only once its signature verifies (null: streamed);
    /// a redirect is followed only when its own signature verifies for the target asked at that hop.
    const AnswerVerifier* verifier = nullptr;
    /// With a verifier: why a verified answer is not the one asked for ("" when it is), checked on every row
    /// before any reaches the sink (null: not checked).
    std::function<std::string(const AnswerHeader&, const Row&)> asked;
    std::chrono::milliseconds attemptTimeout{30000};  ///< the whole attempt, every hop included
    std::uint64_t maxAnswerBytes = 256ull << 20;      ///< body bytes as sent, and content bytes decompressed
};

/// Sends one GET and decodes the answer into `sink`. Never throws for network or data problems.
AttemptResult performAttempt(CURL* handle, const AttemptSpec& spec, RowSink& sink);

}  // namespace outpost::internal
