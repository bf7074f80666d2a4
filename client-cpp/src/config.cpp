#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include "outpost/config.h"
#include "outpost/version.h"

namespace outpost {

namespace {

Error configError(std::string msg) { return Error(ErrorCode::Config, std::move(msg)); }

bool parseLong(const std::string& s, long long& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno != 0 || *end != '\0') return false;
    out = v;
    return true;
}

bool parseSeconds(const std::string& s, std::chrono::milliseconds& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (*end != '\0' || !(v >= 0) || v > 86400) return false;
    out = std::chrono::milliseconds(static_cast<long long>(v * 1000 + 0.5));
    return true;
}

/// "http://host:port[/path]" with a missing scheme defaulting to http:// (as frontier_client 2.8.21); no
/// trailing '/'.
Result<std::string> normaliseUrl(std::string url, const char* what) {
    if (url.find("://") == std::string::npos) url = "http://" + url;
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
        return configError(std::string(what) + " '" + url + "': only http:// and https:// URLs are supported");
    }
    while (!url.empty() && url.back() == '/') url.pop_back();
    std::size_t hostStart = url.find("://") + 3;
    if (hostStart >= url.size() || url[hostStart] == '/' || url[hostStart] == ':') {
        return configError(std::string(what) + " '" + url + "' has no host");
    }
    return url;
}

std::vector<std::string> splitList(std::string_view s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == ';' || c == ' ' || c == '\t' || c == '\n' || c == ',') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

/// Splits "(k=v)(k=v(x))" into pairs; text outside the parentheses is ignored, nested parentheses are kept.
Result<std::vector<std::pair<std::string, std::string>>> parseComplex(std::string_view spec) {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t i = 0;
    while (i < spec.size()) {
        if (spec[i] != '(') { ++i; continue; }
        int depth = 1;
        std::size_t j = i + 1;
        while (j < spec.size() && depth > 0) {
            if (spec[j] == '(') ++depth;
            else if (spec[j] == ')') --depth;
            if (depth > 0) ++j;
        }
        if (depth != 0) return configError("unbalanced parentheses in '" + std::string(spec) + "'");
        std::string item(spec.substr(i + 1, j - i - 1));
        std::size_t eq = item.find('=');
        if (eq == std::string::npos) return configError("'(" + item + ")' is not (key=value)");
        std::string key = item.substr(0, eq);
        for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out.emplace_back(key, item.substr(eq + 1));
        i = j + 1;
    }
    return out;
}

bool isYes(const std::string& v) { return v == "yes" || v == "true" || v == "1" || v == "on"; }
bool isNo(const std::string& v) { return v == "no" || v == "false" || v == "0" || v == "off"; }

}  // namespace

Result<void> Config::apply(std::string_view spec) {
    if (spec.find('(') == std::string_view::npos) {
        for (auto& s : splitList(spec)) {
            auto u = normaliseUrl(s, "server URL");
            if (!u) return u.error();
            servers.push_back(*u);
        }
        return {};
    }
    auto pairs = parseComplex(spec);
    if (!pairs) return pairs.error();
    for (auto& [key, value] : *pairs) {
        long long n = 0;
        if (key == "serverurl") {
            auto u = normaliseUrl(value, "serverurl");
            if (!u) return u.error();
            servers.push_back(*u);
        } else if (key == "proxyurl") {
            auto u = normaliseUrl(value, "proxyurl");
            if (!u) return u.error();
            proxies.push_back(*u);
        } else if (key == "retries") {
            if (!parseLong(value, n) || n < 0 || n > kMaxRetries) {
                return configError("(retries=" + value + "): expected 0 ... " + std::to_string(kMaxRetries));
            }
            retries = static_cast<int>(n);
        } else if (key == "connecttimeout" || key == "connecttimeoutsecs") {
            if (!parseSeconds(value, connectTimeout)) return configError("(" + key + "=" + value + "): expected seconds");
        } else if (key == "readtimeout" || key == "readtimeoutsecs") {
            if (!parseSeconds(value, readTimeout)) return configError("(" + key + "=" + value + "): expected seconds");
        } else if (key == "backoff" || key == "backoffsecs") {
            if (!parseSeconds(value, backoff)) return configError("(" + key + "=" + value + "): expected seconds");
        } else if (key == "failovertoserver") {
            if (isYes(value)) failoverToServer = true;
            else if (isNo(value)) failoverToServer = false;
            else return configError("(failovertoserver=" + value + "): expected yes or no");
        } else if (key == "cachewindow") {  // seconds, for time folders
            if (!parseLong(value, n) || n < 0 || n > 9223372036LL) return configError("(cachewindow=" + value + "): expected seconds");
            timeWindow.length = static_cast<Key>(n) * 1000000000LL;
        } else if (key == "cachealign") {
            if (!parseLong(value, n) || n < 1 || n > 1000) return configError("(cachealign=" + value + "): expected 1 ... 1000");
            timeWindow.divisions = runLumiWindow.divisions = static_cast<int>(n);
        } else if (key == "clientcachemaxbytes" || key == "clientcache") {
            if (!parseLong(value, n) || n < 0) return configError("(" + key + "=" + value + "): expected bytes");
            cacheMaxBytes = static_cast<std::size_t>(n);
        } else if (key == "app") {
            app = value;
        } else if (key == "forcereload") {
            std::string v = value;
            for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            std::string level = v.rfind("soft", 0) == 0 ? v.substr(4) : v;
            if (v != "none" && level != "short" && level != "long" && level != "forever" && level != "shortforever") {
                return configError("(forcereload=" + value + "): expected none, short, long, forever or shortforever, "
                                   "each also with a soft prefix");
            }
            forceReload = v;
        } else if (key == "maxagesecs") {
            if (!parseLong(value, n) || n < 0) return configError("(maxagesecs=" + value + "): expected seconds >= 0");
            maxAgeSecs = static_cast<long>(n);
        } else if (key == "freshkey") {
            freshKey = value;
        } else if (key == "logicalserverurl") {
            auto u = normaliseUrl(value, "logicalserverurl");
            if (!u) return u.error();
            logicalServer = *u;
        } else if (key == "preferipfamily") {
            if (!parseLong(value, n) || (n != 0 && n != 4 && n != 6)) {
                return configError("(preferipfamily=" + value + "): expected 4, 6 or 0");
            }
            preferIpFamily = static_cast<int>(n);
        } else if (key == "writetimeout" || key == "writetimeoutsecs") {
            if (!parseSeconds(value, writeTimeout) || writeTimeout.count() <= 0) {
                return configError("(" + key + "=" + value + "): expected seconds");
            }
        } else if (key == "security") {
            if (value != "sig" && value != "none" && !value.empty()) {
                return configError("(security=" + value + "): expected sig or none");
            }
            signedAnswers = value == "sig";
        } else if (key == "acceptsig1") {
            if (isYes(value)) acceptSig1 = true;
            else if (isNo(value)) acceptSig1 = false;
            else return configError("(acceptsig1=" + value + "): expected yes or no");
        } else if (key == "maxanswerbytes") {
            long long n = 0;
            if (!parseLong(value, n) || n < 1) return configError("(maxanswerbytes=" + value + "): expected bytes > 0");
            maxAnswerBytes = static_cast<std::uint64_t>(n);
        } else if (key == "attempttimeout" || key == "attempttimeoutsecs") {
            if (!parseSeconds(value, attemptTimeout) || attemptTimeout.count() <= 0) {
                return configError("(" + key + "=" + value + "): expected seconds > 0");
            }
        } else if (key == "verifykey") {
            std::size_t colon = value.find(':');
            std::string id = colon == std::string::npos ? "" : value.substr(0, colon);
            bool idOk = !id.empty() && id.size() <= 64 && id.find_first_not_of(
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos;
            if (!idOk || colon + 1 >= value.size()) {
                return configError("(verifykey=" + value + "): verifykey is KEYID:FILE (a key id of letters, digits, "
                                   "'.', '_', '-' and a PEM public key file)");
            }
            verifyKeys.emplace_back(id, value.substr(colon + 1));
        } else if (key == "proxyconfigurl") {
            auto r = addProxyConfig(value);
            if (!r) return r.error();
        } else if (key == "loadbalance") {
            loadBalanceProxies = value == "proxies" || value == "proxy";
            if (!loadBalanceProxies) warn("loadbalance=" + value + " is not supported by the C++ client; ignored");
        } else {
            // Ignored, as frontier_client does (a string may be shared with it), but never silently.
            warn("unknown configuration key '" + key + "' ignored");
        }
    }
    if (!signedAnswers && !verifyKeys.empty()) {
        warn("verifykey is ignored without security=sig: answers are not verified");
    }
    if (loadBalanceProxies && !proxyConfigUrls.empty()) {
        warn("loadbalance=proxies is turned off: the proxy auto-config decides the order of the proxies");
    } else if (loadBalanceProxies) {
        warn("loadbalance=proxies is not supported by the C++ client; ignored");
    }
    return {};
}

Result<void> Config::addProxyConfig(const std::string& url) {
    std::string v = url;
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(v.begin());
    std::string lower = v;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "auto") v = "auto";
    else if (lower.rfind("http://", 0) != 0 && lower.rfind("https://", 0) != 0 && lower.rfind("file:/", 0) != 0) {
        return configError("proxyconfigurl must be http://..., file://... or auto, not '" + url + "'");
    }
    for (const auto& p : proxyConfigUrls) if (p == v) return {};
    if (proxyConfigUrls.size() >= kMaxProxyConfigs) {
        return configError("at most " + std::to_string(kMaxProxyConfigs) + " proxy auto-config URLs");
    }
    proxyConfigUrls.push_back(v);
    return {};
}

void Config::warn(const std::string& message) {
    for (const auto& w : warnings) if (w == message) return;
    warnings.push_back(message);
    static std::mutex mu;
    static std::set<std::string> written;
    std::lock_guard<std::mutex> lock(mu);
    if (written.insert(message).second) std::cerr << "outpost: warning: " << message << "\n";
}

Result<Config> Config::fromString(std::string_view spec) {
    Config c;
    auto r = c.apply(spec);
    if (!r) return r.error();
    return c;
}

namespace {
Result<void> applyProxyConfigs(Config& c) {
    const char* v = std::getenv("FRONTIER_PROXYCONFIGS");
    if (!v) return {};
    std::string all(v);
    std::size_t start = 0;
    while (start <= all.size()) {
        std::size_t end = all.find(';', start);
        if (end == std::string::npos) end = all.size();
        std::string u = all.substr(start, end - start);
        start = end + 1;
        if (u.find_first_not_of(" \t") == std::string::npos) continue;
        auto r = c.addProxyConfig(u);
        if (!r) return Error(ErrorCode::Config, "FRONTIER_PROXYCONFIGS: " + r.error().message);
    }
    return {};
}
}  // namespace

Result<Config> Config::fromEnvironment() {
    auto c = fromEnvironmentVariables();
    if (!c) return c;
    auto r = applyProxyConfigs(*c);
    if (!r) return r.error();
    for (auto [var, key] : {std::pair{"FRONTIER_FORCERELOAD", "forcereload"}, std::pair{"FRONTIER_FRESHKEY", "freshkey"}}) {
        const char* v = std::getenv(var);
        if (!v || !*v) continue;
        r = c->apply("(" + std::string(key) + "=" + v + ")");
        if (!r) return Error(ErrorCode::Config, std::string(var) + ": " + r.error().message);
    }
    return c;
}

Result<Config> Config::fromEnvironmentVariables() {
    Config c;
    auto env = [](const std::string& name) -> std::string {
        const char* v = std::getenv(name.c_str());
        return v ? std::string(v) : std::string();
    };
    std::string server = env("OUTPOST_SERVER");
    std::string proxy = env("OUTPOST_PROXY");
    if (!server.empty()) {
        auto r = c.apply(server);
        if (!r) return Error(ErrorCode::Config, "OUTPOST_SERVER: " + r.error().message);
        if (!proxy.empty()) {
            if (proxy.find('(') != std::string::npos) {
                r = c.apply(proxy);
            } else {
                for (auto& p : splitList(proxy)) {
                    r = c.apply("(proxyurl=" + p + ")");
                    if (!r) break;
                }
            }
            if (!r) return Error(ErrorCode::Config, "OUTPOST_PROXY: " + r.error().message);
        }
        return c;
    }
    // Frontier-style variables: FRONTIER_SERVER may be a full "(serverurl=...)..." string.
    std::vector<std::string> frontier;
    frontier.push_back(env("FRONTIER_SERVER"));
    for (int i = 1; i <= 16; ++i) frontier.push_back(env("FRONTIER_SERVER" + std::to_string(i)));
    for (auto& s : frontier) {
        if (s.empty()) continue;
        auto r = c.apply(s);
        if (!r) return Error(ErrorCode::Config, "FRONTIER_SERVER: " + r.error().message);
    }
    std::vector<std::string> fproxies{env("FRONTIER_PROXY")};
    for (int i = 1; i <= 24; ++i) fproxies.push_back(env("FRONTIER_PROXY" + std::to_string(i)));
    for (auto& p : fproxies) {
        if (p.empty()) continue;
        auto r = c.apply("(proxyurl=" + p + ")");
        if (!r) return Error(ErrorCode::Config, "FRONTIER_PROXY: " + r.error().message);
    }
    for (auto [var, key] : {std::pair{"FRONTIER_CONNECTTIMEOUTSECS", "connecttimeout"},
                            std::pair{"FRONTIER_READTIMEOUTSECS", "readtimeout"}}) {
        std::string v = env(var);
        if (v.empty()) continue;
        auto r = c.apply("(" + std::string(key) + "=" + v + ")");
        if (!r) return Error(ErrorCode::Config, std::string(var) + ": " + r.error().message);
    }
    if (c.servers.empty()) {
        return configError("no server configured: set OUTPOST_SERVER (e.g. http://host:8000) or FRONTIER_SERVER");
    }
    return c;
}

Result<void> Config::validate() const {
    if (servers.empty()) return configError("no server URL configured");
    if (servers.size() > kMaxServers) return configError("at most " + std::to_string(kMaxServers) + " servers");
    if (proxies.size() > kMaxProxies) return configError("at most " + std::to_string(kMaxProxies) + " proxies");
    for (const auto& s : servers) {
        if (s.rfind("http://", 0) != 0 && s.rfind("https://", 0) != 0) return configError("server URL '" + s + "' is not http(s)://");
        if (!s.empty() && s.back() == '/') return configError("server URL '" + s + "' ends with '/'");
    }
    for (const auto& p : proxies) {
        if (p.find("://") == std::string::npos) return configError("proxy URL '" + p + "' has no scheme");
    }
    if (retries < 0 || retries > kMaxRetries) return configError("retries must be 0 ... " + std::to_string(kMaxRetries));
    if (connectTimeout.count() <= 0 || readTimeout.count() <= 0) return configError("timeouts must be positive");
    if (backoff.count() < 0 || maxBackoff < backoff) return configError("need 0 <= backoff <= maxBackoff");
    if (timeWindow.length < 0 || runLumiWindow.length < 0 || timeWindow.divisions < 1 || runLumiWindow.divisions < 1) {
        return configError("window length must be >= 0 and divisions >= 1");
    }
    for (const auto& [folder, w] : folderWindows) {
        if (folder.empty() || folder[0] != '/' || w.length < 0 || w.divisions < 1) {
            return configError("bad window for folder '" + folder + "'");
        }
    }
    if (!failoverToServer && proxies.empty() && proxyConfigUrls.empty()) {
        return configError("failovertoserver=no needs at least one proxy");
    }
    if (signedAnswers && verifyKeys.empty()) {
        return configError("security=sig needs at least one verifykey=KEYID:FILE to verify with");
    }
    return {};
}

std::string Config::toString() const {
    std::ostringstream o;
    for (const auto& s : servers) o << "(serverurl=" << s << ")";
    for (const auto& p : proxies) o << "(proxyurl=" << p << ")";
    for (const auto& p : proxyConfigUrls) o << "(proxyconfigurl=" << p << ")";
    if (forceReload != "none") o << "(forcereload=" << forceReload << ")";
    if (maxAgeSecs >= 0) o << "(maxagesecs=" << maxAgeSecs << ")";
    if (!freshKey.empty()) o << "(freshkey=" << freshKey << ")";
    if (!logicalServer.empty()) o << "(logicalserverurl=" << logicalServer << ")";
    if (signedAnswers) o << "(security=sig)";
    for (const auto& [id, file] : verifyKeys) o << "(verifykey=" << id << ":" << file << ")";
    if (acceptSig1) o << "(acceptsig1=yes)";
    o << "(maxanswerbytes=" << maxAnswerBytes << ")(attempttimeoutsecs=" << attemptTimeout.count() / 1000.0 << ")";
    o << "(preferipfamily=" << preferIpFamily << ")(writetimeoutsecs=" << writeTimeout.count() / 1000.0 << ")";
    o << "(retries=" << retries << ")(connecttimeout=" << connectTimeout.count() / 1000.0
      << ")(readtimeout=" << readTimeout.count() / 1000.0 << ")(backoff=" << backoff.count() / 1000.0
      << ")(failovertoserver=" << (failoverToServer ? "yes" : "no") << ")(cachewindow="
      << timeWindow.length / 1000000000LL << ")(cachealign=" << timeWindow.divisions
      << ")(clientcachemaxbytes=" << cacheMaxBytes << ")(app=" << app << ")";
    return o.str();
}

}  // namespace outpost
