#include "pac.h"

#include <curl/curl.h>

#include "outpost/version.h"
#if OUTPOST_WITH_PAC
#include <pacparser.h>
#endif

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <iostream>

#include "http.h"

namespace outpost::internal {

namespace {

Error pacError(const std::string& msg) { return Error(ErrorCode::Config, msg); }

std::string trim(const std::string& s) {
    std::size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) return "";
    return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

#if OUTPOST_WITH_PAC
// libpacparser reports errors through a printf-like callback; they are collected for the error message.
std::string* pacMessages = nullptr;

int collectPacError(const char* fmt, va_list args) {
    char buf[512];
    int n = std::vsnprintf(buf, sizeof buf, fmt, args);
    if (pacMessages) *pacMessages += buf;
    return n;
}

std::mutex& pacMutex() {
    static std::mutex mu;
    return mu;
}
#endif

std::size_t appendBody(char* data, std::size_t size, std::size_t n, void* out) {
    auto* s = static_cast<std::string*>(out);
    if (s->size() + size * n > (1u << 20)) return 0;  // a PAC file is small; refuse anything larger than 1 MiB
    s->append(data, size * n);
    return size * n;
}

}  // namespace

std::string PacAnswer::toString() const {
    std::string out;
    for (const auto& p : proxies) {
        if (!out.empty()) out += "; ";
        out += "PROXY " + p.substr(p.find("://") + 3);
    }
    if (direct) out += out.empty() ? "DIRECT" : "; DIRECT";
    return out;
}

Result<PacAnswer> parsePacAnswer(const std::string& answer, const std::string& pacUrl) {
    PacAnswer a;
    std::size_t start = 0;
    while (start <= answer.size()) {
        std::size_t end = answer.find(';', start);
        if (end == std::string::npos) end = answer.size();
        std::string entry = trim(answer.substr(start, end - start));
        start = end + 1;
        if (entry.empty()) continue;
        std::size_t sp = entry.find_first_of(" \t");
        std::string type = upper(entry.substr(0, sp));
        std::string rest = sp == std::string::npos ? "" : trim(entry.substr(sp));
        if (type == "DIRECT") {
            a.direct = true;
        } else if (type == "PROXY" || type == "HTTP") {
            if (rest.empty()) return pacError("proxy auto-config " + pacUrl + ": '" + entry + "' names no proxy");
            std::string url = rest.find("://") == std::string::npos ? "http://" + rest : rest;
            if (url.rfind("http://", 0) != 0) return pacError("proxy auto-config " + pacUrl + ": bad proxy '" + rest + "'");
            while (url.back() == '/') url.pop_back();
            if (url.find(':', 7) == std::string::npos) url += ":80";
            bool seen = false;
            for (const auto& p : a.proxies) seen = seen || p == url;
            if (!seen) a.proxies.push_back(url);
        } else {
            return pacError("proxy auto-config " + pacUrl + ": FindProxyForURL returned '" + entry +
                            "', of a type the client cannot use (only PROXY and DIRECT)");
        }
    }
    if (a.proxies.empty() && !a.direct) {
        return pacError("proxy auto-config " + pacUrl + ": FindProxyForURL returned nothing");
    }
    return a;
}

const char* const kPacMissing =
    "proxy auto-config (proxyconfigurl, --proxy-config) is not available: this outpost-client was built without "
    "it (CMake option OUTPOST_WITH_PAC=OFF, which leaves out libpacparser); list the proxies with proxyurl instead";

#if !OUTPOST_WITH_PAC
Result<std::string> evaluatePac(const std::string&, const std::string&, const std::string&, const std::string&) {
    return pacError(kPacMissing);
}
#else
Result<std::string> evaluatePac(const std::string& script, const std::string& pacUrl, const std::string& url,
                                const std::string& host) {
    std::lock_guard<std::mutex> lock(pacMutex());
    std::string messages;
    pacMessages = &messages;
    pacparser_set_error_printer(collectPacError);
    struct Cleanup {
        ~Cleanup() { pacparser_cleanup(); pacMessages = nullptr; }
    };
    if (!pacparser_init()) {
        pacMessages = nullptr;
        return pacError("proxy auto-config " + pacUrl + ": the JavaScript engine could not start: " + trim(messages));
    }
    Cleanup cleanup;
    if (!pacparser_parse_pac_string(script.c_str())) {
        return pacError("proxy auto-config " + pacUrl + " does not parse: " + trim(messages));
    }
    const char* r = pacparser_find_proxy(url.c_str(), host.c_str());
    if (!r) {
        return pacError("proxy auto-config " + pacUrl + ": FindProxyForURL(" + url + ", " + host +
                        ") failed: " + trim(messages));
    }
    std::string answer(r);
    // An answer of undefined or null is no answer.
    if (answer == "undefined" || answer == "null") answer.clear();
    return answer;
}
#endif

std::string expandPacUrl(const std::string& configured) {
    std::string v = trim(configured);
    return upper(v) == "AUTO" ? "http://wpad/wpad.dat" : v;
}

std::string hostOf(const std::string& url) {
    std::size_t s = url.find("://");
    s = s == std::string::npos ? 0 : s + 3;
    if (s < url.size() && url[s] == '[') {
        std::size_t e = url.find(']', s);
        return url.substr(s + 1, e == std::string::npos ? std::string::npos : e - s - 1);
    }
    std::size_t e = url.find_first_of(":/", s);
    return url.substr(s, e == std::string::npos ? std::string::npos : e - s);
}

Result<std::unique_ptr<ProxyDiscovery>> ProxyDiscovery::start(const std::vector<std::string>& urls,
                                                              const std::vector<std::string>& servers,
                                                              std::chrono::milliseconds connectTimeout,
                                                              std::chrono::milliseconds readTimeout,
                                                              std::vector<std::string> connectTo, ClockFn clock) {
    if (!OUTPOST_WITH_PAC) return pacError(kPacMissing);  // before any PAC file is read
    std::unique_ptr<ProxyDiscovery> d(new ProxyDiscovery());
    d->urls_ = urls;
    d->connectTimeout_ = connectTimeout;
    d->readTimeout_ = readTimeout;
    d->connectTo_ = std::move(connectTo);
    d->clock_ = clock ? std::move(clock) : ClockFn([] { return std::chrono::steady_clock::now(); });
    auto s = d->read();
    if (!s) return s.error();
    d->script_ = std::move(*s);
    d->scriptRead_ = d->clock_();
    for (const auto& server : servers) {
        auto a = d->evaluate(server);
        if (!a) return a.error();
        d->byHost_[hostOf(server)] = Cached{std::move(*a), d->scriptRead_};
    }
    return d;
}

PacAnswer ProxyDiscovery::answerFor(const std::string& server) {
    std::lock_guard<std::mutex> lock(mu_);
    auto now = clock_();
    std::string host = hostOf(server);
    auto it = byHost_.find(host);
    if (it != byHost_.end() && now - it->second.at < kRefresh) return it->second.answer;
    if (now - scriptRead_ >= kRefresh) {
        auto s = read();
        if (s) script_ = std::move(*s);
        else std::cerr << "outpost: warning: keeping the previous proxy auto-config: " << s.error().message << "\n";
        scriptRead_ = now;
    }
    auto a = evaluate(server);
    if (a) {
        byHost_[host] = Cached{*a, now};
        return *a;
    }
    std::cerr << "outpost: warning: keeping the previous proxy list for " << host << ": " << a.error().message << "\n";
    if (it == byHost_.end()) return PacAnswer{{}, true};  // cannot happen for configured servers: start() evaluated them
    it->second.at = now;
    return it->second.answer;
}

std::string ProxyDiscovery::source() const {
    std::lock_guard<std::mutex> lock(mu_);
    return script_.url;
}

Result<PacAnswer> ProxyDiscovery::evaluate(const std::string& server) const {
    auto r = evaluatePac(script_.text, script_.url, server, hostOf(server));
    if (!r) return r.error();
    return parsePacAnswer(*r, script_.url);
}

Result<ProxyDiscovery::Script> ProxyDiscovery::read() const {
    ensureCurlGlobalInit();
    std::string failures;
    for (const auto& configured : urls_) {
        std::string url = expandPacUrl(configured);
        CurlEasy h(curl_easy_init());
        if (!h) return pacError("curl_easy_init failed");
        std::string body;
        char errbuf[CURL_ERROR_SIZE] = {0};
        CurlSlist connectTo;
        for (const auto& r : connectTo_) {
            curl_slist* n = curl_slist_append(connectTo.get(), r.c_str());
            if (n) { connectTo.release(); connectTo.reset(n); }
        }
        curl_easy_setopt(h.get(), CURLOPT_URL, url.c_str());
#if LIBCURL_VERSION_NUM >= 0x075500
        curl_easy_setopt(h.get(), CURLOPT_PROTOCOLS_STR, "http,https,file");
#else
        curl_easy_setopt(h.get(), CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS | CURLPROTO_FILE);
#endif
        curl_easy_setopt(h.get(), CURLOPT_PROXY, "");  // never through a proxy: the PAC file says which to use
        curl_easy_setopt(h.get(), CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h.get(), CURLOPT_FAILONERROR, 1L);
        curl_easy_setopt(h.get(), CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connectTimeout_.count()));
        curl_easy_setopt(h.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(connectTimeout_.count() + readTimeout_.count()));
        curl_easy_setopt(h.get(), CURLOPT_CONNECT_TO, connectTo.get());
        curl_easy_setopt(h.get(), CURLOPT_WRITEFUNCTION, appendBody);
        curl_easy_setopt(h.get(), CURLOPT_WRITEDATA, &body);
        curl_easy_setopt(h.get(), CURLOPT_ERRORBUFFER, errbuf);
        CURLcode rc = curl_easy_perform(h.get());
        if (rc == CURLE_OK) return Script{url, body};
        if (!failures.empty()) failures += "; ";
        failures += url + " (" + (errbuf[0] ? std::string(errbuf) : curl_easy_strerror(rc)) + ")";
    }
    return pacError("no proxy auto-config file could be read: " + failures);
}

}  // namespace outpost::internal
