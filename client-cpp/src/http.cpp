#include "http.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace outpost::internal {

void ensureCurlGlobalInit() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

CurlEasy HandlePool::acquire() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        long pid = static_cast<long>(::getpid());
        if (pid_ != pid) {  // forked: the parent's sockets must not be shared
            for (auto& h : idle_) h.release();  // leak on purpose: cleanup could talk on the parent's connection
            idle_.clear();
            pid_ = pid;
        }
        if (!idle_.empty()) {
            CurlEasy h = std::move(idle_.back());
            idle_.pop_back();
            return h;
        }
    }
    return CurlEasy(curl_easy_init());
}

void HandlePool::release(CurlEasy h) {
    if (!h) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < maxIdle_ && pid_ == static_cast<long>(::getpid())) idle_.push_back(std::move(h));
}

namespace {

constexpr std::size_t kMaxErrorBody = 4096;
constexpr std::size_t kMaxRedirectBody = 64 * 1024;
constexpr std::size_t kMaxHeaderBytes = 256 * 1024;  // status line and header lines of one attempt
constexpr int kMaxHops = 5;                           // the first request and at most four redirects
constexpr std::size_t kBlock = 1 << 20;               // a kept body grows by blocks of this size

/// State shared with curl's callbacks during one transfer.
struct Transfer {
    CURL* handle;
    StreamDecoder decoder;
    int status = 0;
    long maxAge = -1;
    long age = 0;
    bool noStore = false;
    std::string contentType;
    std::string outpostState;
    std::string signature;   // X-Outpost-Signature
    std::string etag;        // ETag, as sent
    std::string location;    // Location, as sent
    bool keepWhole = false;  // security=sig: collect the body in `whole` instead of decoding it as it arrives
    std::vector<std::string> whole;  // in blocks: growing never copies what arrived
    Sha256 wholeSha256;              // of `whole`, as it arrives
    std::string errorBody;   // the body of a non-200 answer (problem+json), capped; a redirect's whole under sig
    std::uint64_t bytes = 0;
    std::uint64_t maxBytes = 0;
    std::size_t headerBytes = 0;
    bool tooLarge = false;         // the body went over maxBytes (or a redirect's over kMaxRedirectBody)
    bool stale = false;            // a 200 older than the server allows: Age over its own max-age
    bool headersTooLarge = false;

    Transfer(CURL* h, RowSink& sink) : handle(h), decoder(sink) {}
};

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string trim(const std::string& s) {
    std::size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    std::size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

bool isRedirect(int status) { return status == 301 || status == 302 || status == 307 || status == 308; }

std::size_t onHeader(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    t->headerBytes += size * n;
    if (t->headerBytes > kMaxHeaderBytes) {  // header lines without end: stop, in bounded memory
        t->headersTooLarge = true;
        return 0;
    }
    std::string line(data, size * n);
    if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect or 100-continue): reset
        t->maxAge = -1;
        t->age = 0;
        t->noStore = false;
        t->contentType.clear();
        t->outpostState.clear();
        t->signature.clear();
        t->etag.clear();
        t->location.clear();
        std::size_t sp = line.find(' ');
        t->status = sp == std::string::npos ? 0 : std::atoi(line.c_str() + sp + 1);
        return size * n;
    }
    std::size_t colon = line.find(':');
    if (colon == std::string::npos) return size * n;
    std::string name = lower(trim(line.substr(0, colon)));
    std::string value = trim(line.substr(colon + 1));
    if (name == "cache-control") {
        std::string v = lower(value);
        std::size_t p = v.find("max-age=");
        if (p != std::string::npos) t->maxAge = std::atol(v.c_str() + p + 8);
        if (v.find("no-store") != std::string::npos || v.find("no-cache") != std::string::npos ||
            v.find("private") != std::string::npos) {
            t->noStore = true;
        }
    } else if (name == "age") {
        t->age = std::atol(value.c_str());
    } else if (name == "content-type") {
        t->contentType = lower(value);
    } else if (name == "x-outpost-state") {
        t->outpostState = value;
    } else if (name == "x-outpost-signature") {
        t->signature = value;
    } else if (name == "etag") {
        t->etag = value;
    } else if (name == "location") {
        t->location = value;
    }
    return size * n;
}

/// An answer older than the server allows (its Age over the max-age of its own Cache-Control): most likely an old
/// copy in a cache, refreshed like a corrupt one.
bool isStale(const Transfer& t) { return t.maxAge >= 0 && t.age > t.maxAge; }

std::size_t onBody(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    std::size_t len = size * n;
    t->bytes += len;
    if (t->bytes > t->maxBytes) {  // also answers of unknown length (chunked, or ended by the connection)
        t->tooLarge = true;
        return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
    if (t->status == 200 && isStale(*t)) {  // refused before any row reaches the sink
        t->stale = true;
        return 0;
    }
    if (t->status == 200 && t->keepWhole) {
        t->wholeSha256.update(data, len);
        while (len > 0) {
            if (t->whole.empty() || t->whole.back().size() == t->whole.back().capacity()) {
                std::size_t block = kBlock;
                curl_off_t length = -1;  // a small answer gets a small block
                if (t->whole.empty() && curl_easy_getinfo(t->handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) ==
                                            CURLE_OK && length > 0 && static_cast<std::uint64_t>(length) < kBlock) {
                    block = static_cast<std::size_t>(length);
                }
                t->whole.emplace_back();
                t->whole.back().reserve(std::max(block, len));
            }
            std::string& block = t->whole.back();
            std::size_t take = std::min(len, block.capacity() - block.size());
            block.append(data, take);
            data += take;
            len -= take;
        }
        return size * n;
    }
    if (t->status == 200) {
        return t->decoder.feed(data, len) ? len : 0;  // 0 aborts the transfer (CURLE_WRITE_ERROR)
    }
    if (t->keepWhole && isRedirect(t->status)) {  // signed with its body: kept whole, and small
        if (t->errorBody.size() + len > kMaxRedirectBody) {
            t->tooLarge = true;
            return 0;
        }
        t->errorBody.append(data, len);
        return len;
    }
    if (t->errorBody.size() < kMaxErrorBody) t->errorBody.append(data, std::min(len, kMaxErrorBody - t->errorBody.size()));
    return len;
}

/// The "detail" (else "title") of an RFC 9457 problem body, without a JSON library.
std::string problemDetail(const std::string& body) {
    for (const char* key : {"\"detail\"", "\"title\""}) {
        std::size_t p = body.find(key);
        if (p == std::string::npos) continue;
        p = body.find(':', p);
        if (p == std::string::npos) continue;
        p = body.find('"', p);
        if (p == std::string::npos) continue;
        std::string out;
        for (std::size_t i = p + 1; i < body.size() && body[i] != '"'; ++i) {
            if (body[i] == '\\' && i + 1 < body.size()) ++i;
            out += body[i];
        }
        return out;
    }
    std::string s = body.substr(0, 200);
    for (char& c : s) if (c == '\n' || c == '\r') c = ' ';
    return s;
}

/// Passes rows on only while `asked` finds nothing wrong with them; remembers the first problem.
class AskedSink : public RowSink {
public:
    AskedSink(const std::function<std::string(const AnswerHeader&, const Row&)>& asked) : asked_(asked) {}
    void begin(const AnswerHeader&) override {}
    bool row(const AnswerHeader& header, const Row& row) override {
        problem_ = asked_(header, row);
        return problem_.empty();
    }
    const std::string& problem() const { return problem_; }

private:
    const std::function<std::string(const AnswerHeader&, const Row&)>& asked_;
    std::string problem_;
};

}  // namespace

AttemptResult performAttempt(CURL* h, const AttemptSpec& spec, RowSink& sink) {
    AttemptResult res;
    const std::string where = "GET " + spec.url + (spec.proxy.empty() ? " (direct)" : " via proxy " + spec.proxy) +
                              (spec.refresh.empty() ? "" : " [Cache-Control: " + spec.refresh + "]");
    const auto deadline = std::chrono::steady_clock::now() + spec.attemptTimeout;
    const bool signedOnly = spec.verifier != nullptr;

    CurlSlist headers;
    auto add = [&headers](const std::string& hdr) {
        curl_slist* n = curl_slist_append(headers.get(), hdr.c_str());
        if (n) { headers.release(); headers.reset(n); }
    };
    add("X-Outpost-Client: " + spec.clientId);
    add("Accept: application/vnd.outpost.v1+binary, */*");
    add("Expect:");
    if (!spec.refresh.empty()) add("Cache-Control: " + spec.refresh);
    if (spec.refresh == "no-cache") add("Pragma: no-cache");

    CurlSlist resolve;
    if (!spec.resolve.empty()) resolve.reset(curl_slist_append(nullptr, spec.resolve.c_str()));

    std::string url = spec.url;
    long connects = 0;
    for (int hop = 0; hop < kMaxHops; ++hop) {
        Transfer t(h, sink);
        t.keepWhole = signedOnly;
        t.maxBytes = spec.maxAnswerBytes;
        t.decoder.setMaxContentBytes(spec.maxAnswerBytes);
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            res.outcome = Outcome::TransferFailed;
            res.error = Error(ErrorCode::Timeout, "transfer failed: the attempt took longer than attempttimeout=" +
                                                      std::to_string(spec.attemptTimeout.count() / 1000.0) + " s (" +
                                                      where + ")");
            return res;
        }

        char errbuf[CURL_ERROR_SIZE] = {0};
        curl_easy_reset(h);  // keeps the connection cache: keep-alive connections are reused
        // The first address's family is tried first (libcurl's happy eyeballs start with it), the other after it fails.
        if (resolve) curl_easy_setopt(h, CURLOPT_RESOLVE, resolve.get());
        curl_easy_setopt(h, CURLOPT_URL, url.c_str());
        curl_easy_setopt(h, CURLOPT_PROXY, spec.proxy.c_str());  // "" disables proxies, even from the environment
        curl_easy_setopt(h, CURLOPT_NOPROXY, "");                // and no_proxy never bypasses the configured proxy
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
        curl_easy_setopt(h, CURLOPT_USERAGENT, spec.clientId.c_str());
        curl_easy_setopt(h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        // 301 to the canonical URL. Under security=sig each redirect is verified here before it is followed.
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, signedOnly ? 0L : 1L);
        curl_easy_setopt(h, CURLOPT_MAXREDIRS, static_cast<long>(kMaxHops - 1));
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(spec.connectTimeout.count()));
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(left.count()));
        long readSecs = static_cast<long>((spec.readTimeout.count() + 999) / 1000);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, readSecs < 1 ? 1L : readSecs);
        // A Content-Length over the limit is refused before any body byte is read; the write callback counts
        // the rest (chunked answers, or ended by the connection).
        curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(spec.maxAnswerBytes));
        curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, spec.freshConnect ? 1L : 0L);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, onHeader);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, onBody);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);

        CURLcode rc = curl_easy_perform(h);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
        curl_easy_setopt(h, CURLOPT_RESOLVE, nullptr);

        long hopConnects = 0;
        curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &hopConnects);
        connects += hopConnects;
        res.reusedConnection = connects == 0;
        res.status = t.status;
        res.bytes = t.bytes;
        res.maxAge = t.noStore ? 0 : t.maxAge;
        res.age = t.age;
        res.outpostState = t.outpostState;
        std::string curlMsg = errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc));

        if (rc == CURLE_FILESIZE_EXCEEDED || (rc == CURLE_WRITE_ERROR && t.tooLarge)) {
            res.outcome = Outcome::Corrupt;
            res.error = Error(ErrorCode::Corrupt, "answer too large: over maxanswerbytes=" +
                                                      std::to_string(spec.maxAnswerBytes) + " bytes (" + where + ")",
                              t.status);
            return res;
        }
        if ((rc == CURLE_WRITE_ERROR && t.stale) || (rc == CURLE_OK && t.status == 200 && isStale(t))) {
            res.outcome = Outcome::Stale;
            res.error = Error(ErrorCode::Corrupt, "answer older than the server allows: Age " + std::to_string(t.age) +
                                                      " over max-age=" + std::to_string(t.maxAge) + " (" + where + ")",
                              200);
            return res;
        }
        if (rc == CURLE_WRITE_ERROR && t.headersTooLarge) {
            res.outcome = Outcome::Corrupt;
            res.error = Error(ErrorCode::Corrupt, "corrupt answer: its headers are over " +
                                                      std::to_string(kMaxHeaderBytes) + " bytes (" + where + ")",
                              t.status);
            return res;
        }
        if (rc == CURLE_WRITE_ERROR && t.decoder.failed()) {
            const Error& e = t.decoder.error();
            res.outcome = e.code == ErrorCode::Cancelled ? Outcome::Cancelled : Outcome::Corrupt;
            res.error = Error(e.code, e.message + " (" + where + ", after " + std::to_string(t.bytes) + " bytes)", 200);
            return res;
        }
        if (rc != CURLE_OK) {
            curl_off_t connectTime = 0;
            curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connectTime);
            // curl's CURLOPT_TIMEOUT_MS, not the read timeout (the low-speed limit): it ends at the deadline, give
            // or take its timer's granularity
            bool overall = rc == CURLE_OPERATION_TIMEDOUT &&
                           std::chrono::steady_clock::now() + std::chrono::milliseconds(200) >= deadline;
            bool neverConnected = rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                                  rc == CURLE_COULDNT_RESOLVE_PROXY ||
                                  (rc == CURLE_OPERATION_TIMEDOUT && connectTime == 0 && t.status == 0 && !overall);
            if (neverConnected) {
                res.outcome = Outcome::ConnectFailed;
                res.error = Error(ErrorCode::Connect, "could not connect: " + curlMsg + " (" + where + ")");
            } else if (rc == CURLE_PARTIAL_FILE && t.status == 200) {
                res.outcome = Outcome::Corrupt;
                res.error = Error(ErrorCode::Corrupt, "truncated answer: connection closed after " +
                                                          std::to_string(t.bytes) + " bytes (" + where + ")", 200);
            } else {
                res.outcome = Outcome::TransferFailed;
                std::string what = overall ? "the attempt took longer than attempttimeout=" +
                                                 std::to_string(spec.attemptTimeout.count() / 1000.0) + " s"
                                           : curlMsg;
                res.error = Error(rc == CURLE_OPERATION_TIMEDOUT ? ErrorCode::Timeout : ErrorCode::Network,
                                  "transfer failed: " + what + " after " + std::to_string(t.bytes) + " bytes (" +
                                      where + ")", t.status);
            }
            return res;
        }
        if (signedOnly && isRedirect(t.status) && !t.location.empty()) {
            // Followed only when signed for the target asked at this hop: an unsigned or altered redirect (a man
            // in the middle sending the client to another key) is refused like a bad answer.
            Hop signedHop{requestTarget(url), t.status, t.location, t.etag,
                          sha256Hex(t.errorBody.data(), t.errorBody.size())};
            std::string why = spec.verifier->problem(signedHop, t.signature);
            if (!why.empty()) {
                res.outcome = Outcome::Untrusted;
                res.error = Error(ErrorCode::Untrusted, "redirect to " + t.location.substr(0, 200) + " refused: " +
                                                            why + " (" + where + ")", t.status);
                return res;
            }
            char* next = nullptr;
            curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &next);
            if (!next) {
                res.outcome = Outcome::Protocol;
                res.error = Error(ErrorCode::Protocol, "redirect to an unusable Location (" + where + ")", t.status);
                return res;
            }
            url = next;
            continue;
        }
        if (t.status >= 500) {
            res.outcome = Outcome::ServerError;
            res.error = Error(ErrorCode::Server, "HTTP " + std::to_string(t.status) + " " + problemDetail(t.errorBody) +
                                                     " (" + where + ")", t.status);
            return res;
        }
        if (t.status >= 400) {
            res.outcome = Outcome::RequestError;
            res.error = Error(ErrorCode::Request, "HTTP " + std::to_string(t.status) + ": " +
                                                      problemDetail(t.errorBody) + " (" + where + ")", t.status);
            return res;
        }
        if (t.status != 200) {
            res.outcome = Outcome::Protocol;
            res.error = Error(ErrorCode::Protocol, "unexpected HTTP " + std::to_string(t.status) + " (" + where + ")",
                              t.status);
            return res;
        }
        if (signedOnly) {
            // The final hop: the target of the URL this answer came from (the original, or a verified redirect's).
            Hop answer{requestTarget(url), 200, "", t.etag, t.wholeSha256.hex()};
            std::string why = spec.verifier->problem(answer, t.signature);
            if (why.empty() && spec.asked) {  // every row checked before any reaches the sink
                AskedSink check(spec.asked);
                StreamDecoder dry(check);
                dry.setMaxContentBytes(spec.maxAnswerBytes);
                for (const std::string& block : t.whole) {
                    if (!dry.feed(block.data(), block.size())) break;
                }
                if (!check.problem().empty()) why = "not the answer asked for: " + check.problem();
            }
            if (!why.empty()) {
                res.outcome = Outcome::Untrusted;
                res.error = Error(ErrorCode::Untrusted, why + " (" + where + ")", 200);
                return res;
            }
            bool fed = true;
            for (std::string& block : t.whole) {
                fed = t.decoder.feed(block.data(), block.size());
                std::string().swap(block);  // decoded: its memory goes back as the rest is decoded
                if (!fed) break;
            }
            if (!fed) {
                const Error& e = t.decoder.error();
                res.outcome = e.code == ErrorCode::Cancelled ? Outcome::Cancelled : Outcome::Corrupt;
                res.error = Error(e.code, e.message + " (" + where + ")", 200);
                return res;
            }
        }
        Result<void> fin = t.decoder.finish();
        if (!fin) {
            res.outcome = Outcome::Corrupt;
            res.error = Error(ErrorCode::Corrupt, fin.error().message + " (" + where + ")", 200);
            return res;
        }
        res.rows = t.decoder.rows();
        return res;
    }
    res.outcome = Outcome::Protocol;
    res.error = Error(ErrorCode::Protocol, "more than " + std::to_string(kMaxHops - 1) + " redirects (" + where + ")",
                      res.status);
    return res;
}

}  // namespace outpost::internal
