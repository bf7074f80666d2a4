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
    bool keepWhole = false;  // security=sig: collect the body in `whole` instead of decoding it as it arrives
    std::string whole;
    std::string errorBody;   // the body of a non-200 answer (problem+json), capped
    std::uint64_t bytes = 0;

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

std::size_t onHeader(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    std::string line(data, size * n);
    if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect or 100-continue): reset
        t->maxAge = -1;
        t->age = 0;
        t->noStore = false;
        t->contentType.clear();
        t->outpostState.clear();
        t->signature.clear();
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
    }
    return size * n;
}

std::size_t onBody(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    std::size_t len = size * n;
    t->bytes += len;
    if (t->status == 200 && t->keepWhole) {
        t->whole.append(data, len);
        return len;
    }
    if (t->status == 200) {
        return t->decoder.feed(data, len) ? len : 0;  // 0 aborts the transfer (CURLE_WRITE_ERROR)
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

}  // namespace

AttemptResult performAttempt(CURL* h, const AttemptSpec& spec, RowSink& sink) {
    AttemptResult res;
    Transfer t(h, sink);
    t.keepWhole = spec.verifier != nullptr;
    const std::string where = "GET " + spec.url + (spec.proxy.empty() ? " (direct)" : " via proxy " + spec.proxy) +
                              (spec.refresh.empty() ? "" : " [Cache-Control: " + spec.refresh + "]");

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

    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_reset(h);  // keeps the connection cache: keep-alive connections are reused
    // The first address's family is tried first (libcurl's happy eyeballs start with it), the other after it fails.
    if (resolve) curl_easy_setopt(h, CURLOPT_RESOLVE, resolve.get());
    curl_easy_setopt(h, CURLOPT_URL, spec.url.c_str());
    curl_easy_setopt(h, CURLOPT_PROXY, spec.proxy.c_str());  // "" disables proxies, even from the environment
    curl_easy_setopt(h, CURLOPT_NOPROXY, "");                // and no_proxy never bypasses the configured proxy
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(h, CURLOPT_USERAGENT, spec.clientId.c_str());
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);   // 301 to the canonical URL
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 3L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(spec.connectTimeout.count()));
    long readSecs = static_cast<long>((spec.readTimeout.count() + 999) / 1000);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, readSecs < 1 ? 1L : readSecs);
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

    long connects = 0;
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
    res.reusedConnection = connects == 0;
    res.status = t.status;
    res.bytes = t.bytes;
    res.maxAge = t.noStore ? 0 : t.maxAge;
    res.age = t.age;
    res.outpostState = t.outpostState;
    std::string curlMsg = errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc));

    if (rc == CURLE_WRITE_ERROR && t.decoder.failed()) {
        const Error& e = t.decoder.error();
        res.outcome = e.code == ErrorCode::Cancelled ? Outcome::Cancelled : Outcome::Corrupt;
        res.error = Error(e.code, e.message + " (" + where + ", after " + std::to_string(t.bytes) + " bytes)", 200);
        return res;
    }
    if (rc != CURLE_OK) {
        curl_off_t connectTime = 0;
        curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connectTime);
        bool neverConnected = rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
                              rc == CURLE_COULDNT_RESOLVE_PROXY ||
                              (rc == CURLE_OPERATION_TIMEDOUT && connectTime == 0 && t.status == 0);
        if (neverConnected) {
            res.outcome = Outcome::ConnectFailed;
            res.error = Error(ErrorCode::Connect, "could not connect: " + curlMsg + " (" + where + ")");
        } else if (rc == CURLE_PARTIAL_FILE && t.status == 200) {
            res.outcome = Outcome::Corrupt;
            res.error = Error(ErrorCode::Corrupt, "truncated answer: connection closed after " +
                                                      std::to_string(t.bytes) + " bytes (" + where + ")", 200);
        } else {
            res.outcome = Outcome::TransferFailed;
            res.error = Error(rc == CURLE_OPERATION_TIMEDOUT ? ErrorCode::Timeout : ErrorCode::Network,
                              "transfer failed: " + curlMsg + " after " + std::to_string(t.bytes) + " bytes (" +
                                  where + ")", t.status);
        }
        return res;
    }
    if (t.status >= 500) {
        res.outcome = Outcome::ServerError;
        res.error = Error(ErrorCode::Server, "HTTP " + std::to_string(t.status) + " " + problemDetail(t.errorBody) +
                                                 " (" + where + ")", t.status);
        return res;
    }
    if (t.status >= 400) {
        res.outcome = Outcome::RequestError;
        res.error = Error(ErrorCode::Request, "HTTP " + std::to_string(t.status) + ": " + problemDetail(t.errorBody) +
                                                  " (" + where + ")", t.status);
        return res;
    }
    if (t.status != 200) {
        res.outcome = Outcome::Protocol;
        res.error = Error(ErrorCode::Protocol, "unexpected HTTP " + std::to_string(t.status) + " (" + where + ")",
                          t.status);
        return res;
    }
    if (spec.verifier) {
        char* effective = nullptr;  // the final URL, after redirects: the signature names it
        curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &effective);
        std::string why = spec.verifier->problem(requestTarget(effective ? effective : spec.url), t.signature, t.whole);
        if (!why.empty()) {
            res.outcome = Outcome::Untrusted;
            res.error = Error(ErrorCode::Untrusted, why + " (" + where + ")", 200);
            return res;
        }
        if (!t.decoder.feed(t.whole.data(), t.whole.size())) {
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

}  // namespace outpost::internal
