#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include "outpost/config.h"
#include "outpost/version.h"

namespace outpost {

namespace {

Error configError(std::string msg) { return Error(ErrorCode::Config, std::move(msg)); }

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string strip(std::string_view s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return std::string(s.substr(b, e - b));
}

bool allDigits(const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

/// A whole number in [lo, hi]; no sign, no spaces inside.
bool parseLong(const std::string& s, long long lo, long long hi, long long& out) {
    if (!allDigits(s) || s.size() > 18) return false;
    long long v = std::stoll(s);
    if (v < lo || v > hi) return false;
    out = v;
    return true;
}

/// Plain decimal seconds ("2", "2.5", ".25", "3."), to the millisecond, at most a day: a finer value would be
/// rounded one way or another, so it is refused rather than guessed.
bool parseSeconds(const std::string& s, bool positive, std::chrono::milliseconds& out) {
    std::size_t dot = s.find('.');
    std::string whole = s.substr(0, dot);
    std::string fraction = dot == std::string::npos ? "" : s.substr(dot + 1);
    if (whole.empty() && fraction.empty()) return false;
    if ((!whole.empty() && !allDigits(whole)) || (!fraction.empty() && !allDigits(fraction))) return false;
    if (fraction.size() > 3 && fraction.find_first_not_of('0', 3) != std::string::npos) return false;
    if (whole.size() > 6) return false;
    long long ms = (whole.empty() ? 0 : std::stoll(whole)) * 1000 + std::stoll((fraction + "000").substr(0, 3));
    if (ms < (positive ? 1 : 0) || ms > 86400000) return false;
    out = std::chrono::milliseconds(ms);
    return true;
}

/// A URL as scheme://host:port[/path]: http:// is added when missing, the scheme's port when none is given, a
/// trailing '/' is dropped, the path is kept as written. The host is a name (letters, digits, '-', '.') or an IP
/// literal in brackets; the path RFC 3986 characters with '%' only before two hex digits. Anything else (spaces,
/// a query, a fragment, user info) is refused. A proxy is http://host:port.
Result<std::string> canonicalUrl(const std::string& key, const std::string& raw, bool proxy) {
    auto bad = [&](const std::string& why) { return configError("(" + key + "=" + raw + "): " + why); };
    std::string url = raw.find("://") == std::string::npos ? "http://" + raw : raw;
    std::size_t sep = url.find("://");
    std::string scheme = lower(url.substr(0, sep));
    if (scheme != "http" && scheme != "https") return bad("only http:// and https:// URLs are supported");
    std::string rest = url.substr(sep + 3);
    std::size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    std::string path = slash == std::string::npos ? "" : rest.substr(slash);
    std::string host = authority, port;
    bool hasPort = false;
    if (!authority.empty() && authority[0] == '[') {
        std::size_t close = authority.find(']');
        if (close == std::string::npos || close < 2 ||
            authority.find_first_not_of("0123456789abcdefABCDEF:.", 1) != close) {
            return bad("expected an IP address in brackets");
        }
        host = authority.substr(0, close + 1);
        std::string after = authority.substr(close + 1);
        if (!after.empty() && after[0] != ':') return bad("expected :port after the address");
        hasPort = !after.empty();
        if (hasPort) port = after.substr(1);
    } else {
        std::size_t colon = authority.find(':');
        host = authority.substr(0, colon);
        hasPort = colon != std::string::npos;
        if (hasPort) port = authority.substr(colon + 1);
        if (host.empty()) return bad("no host");
        if (host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") !=
            std::string::npos) {
            return bad("a host name is letters, digits, '-' and '.' (no user, no '_', no '%')");
        }
    }
    long long portNumber = scheme == "https" ? 443 : 80;
    if (hasPort && !port.empty() && !parseLong(port, 1, 65535, portNumber)) return bad("bad port '" + port + "'");
    static const std::string pathChars =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/";
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (path[i] == '%' && i + 2 < path.size() && std::isxdigit(static_cast<unsigned char>(path[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(path[i + 2]))) {
            i += 2;
        } else if (pathChars.find(path[i]) == std::string::npos) {
            return bad("no spaces, query, fragment or bad percent-encoding in a URL");
        }
    }
    while (!path.empty() && path.back() == '/') path.pop_back();
    if (proxy && (scheme != "http" || !path.empty())) return bad("a proxy is http://host:port");
    return scheme + "://" + host + ":" + std::to_string(portNumber) + path;
}

std::vector<std::string> splitList(std::string_view s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == ';' || c == ',' || std::isspace(static_cast<unsigned char>(c))) {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

/// Splits "(k=v)(k=v(x))" into pairs, keys in lower case, keys and values without surrounding white space; text
/// outside the parentheses is ignored, nested parentheses are kept.
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
        if (depth != 0) {
            return configError("unbalanced parentheses in the configuration string, expected (key=value): '" +
                               std::string(spec) + "'");
        }
        std::string item(spec.substr(i + 1, j - i - 1));
        std::size_t eq = item.find('=');
        if (eq == std::string::npos || strip(item.substr(0, eq)).empty()) {
            return configError("'(" + item + ")' is not (key=value)");
        }
        out.emplace_back(lower(strip(item.substr(0, eq))), strip(item.substr(eq + 1)));
        i = j + 1;
    }
    return out;
}

/// yes/no, true/false, on/off, 1/0, in any case.
bool yesNo(const std::string& value, bool& out) {
    std::string v = lower(value);
    if (v == "yes" || v == "true" || v == "1" || v == "on") out = true;
    else if (v == "no" || v == "false" || v == "0" || v == "off") out = false;
    else return false;
    return true;
}

}  // namespace

Result<void> Config::apply(std::string_view spec) {
    if (spec.find('(') == std::string_view::npos) {
        for (auto& s : splitList(spec)) {
            auto r = set("serverurl", s);
            if (!r) return r;
        }
    } else {
        auto pairs = parseComplex(spec);
        if (!pairs) return pairs.error();
        for (auto& [key, value] : *pairs) {
            auto r = set(key, value);
            if (!r) return r;
        }
    }
    settle();
    return {};
}

Result<void> Config::add(const std::string& key, std::vector<std::string>& values, const std::string& value,
                         std::size_t limit) {
    for (const auto& v : values) {
        if (v == value) {
            warn(key + " " + value + " given twice; used once");
            return {};
        }
    }
    if (values.size() >= limit) return configError("(" + key + "=" + value + "): at most " + std::to_string(limit));
    values.push_back(value);
    return {};
}

/// One (key=value) group; the key in lower case, key and value stripped.
Result<void> Config::set(const std::string& key, const std::string& value) {
    auto bad = [&](const std::string& expected) { return configError("(" + key + "=" + value + "): " + expected); };
    long long n = 0;
    if (key == "serverurl" || key == "proxyurl" || key == "backupproxyurl") {
        bool server = key == "serverurl";
        // sqlite:FILE is the Java client's offline snapshot: kept as written, refused by validate()
        if (server && lower(value).rfind("sqlite:", 0) == 0) return add(key, servers, value, kMaxServers);
        auto u = canonicalUrl(key, value, !server);
        if (!u) return u.error();
        if (key == "backupproxyurl") failoverToServer = false;  // as in frontier_client
        return add(key, server ? servers : key == "proxyurl" ? proxies : backupProxies, *u,
                   server ? kMaxServers : kMaxProxies);
    } else if (key == "proxyconfigurl") {
        return addProxyConfig(value);
    } else if (key == "retries") {
        if (!parseLong(value, 0, kMaxRetries, n)) return bad("expected 0 ... " + std::to_string(kMaxRetries));
        retries = static_cast<int>(n);
    } else if (key == "connecttimeout" || key == "connecttimeoutsecs") {
        if (!parseSeconds(value, true, connectTimeout)) return bad("expected seconds > 0, to the millisecond");
    } else if (key == "readtimeout" || key == "readtimeoutsecs") {
        if (!parseSeconds(value, true, readTimeout)) return bad("expected seconds > 0, to the millisecond");
    } else if (key == "writetimeout" || key == "writetimeoutsecs") {
        if (!parseSeconds(value, true, writeTimeout)) return bad("expected seconds > 0, to the millisecond");
    } else if (key == "attempttimeout" || key == "attempttimeoutsecs") {
        if (!parseSeconds(value, true, attemptTimeout)) return bad("expected seconds > 0, to the millisecond");
    } else if (key == "backoff" || key == "backoffsecs") {
        if (!parseSeconds(value, false, backoff)) return bad("expected seconds >= 0, to the millisecond");
        maxBackoff = std::max(maxBackoff, backoff);  // a first wait over the cap raises it: the wait asked is kept
    } else if (key == "failovertoserver") {
        if (!yesNo(value, failoverToServer)) return bad("expected yes or no");
    } else if (key == "acceptsig1") {
        if (!yesNo(value, acceptSig1)) return bad("expected yes or no");
    } else if (key == "cachewindow") {  // seconds, for time folders
        if (!parseLong(value, 0, 9223372036LL, n)) return bad("expected whole seconds >= 0");
        timeWindow.length = static_cast<Key>(n) * 1000000000LL;
    } else if (key == "cachealign") {
        if (!parseLong(value, 1, 1000, n)) return bad("expected 1 ... 1000");
        timeWindow.divisions = runLumiWindow.divisions = static_cast<int>(n);
    } else if (key == "clientcachemaxbytes" || key == "clientcache") {
        if (!parseLong(value, 0, std::numeric_limits<long long>::max(), n)) return bad("expected bytes >= 0");
        cacheMaxBytes = static_cast<std::size_t>(n);
    } else if (key == "clientid") {
        if (value.empty() || std::any_of(value.begin(), value.end(), [](char c) { return c <= 0x20 || c > 0x7E; })) {
            return bad("expected printable ASCII without spaces, e.g. myjob/1.2");
        }
        std::size_t slash = value.find('/');
        app = value.substr(0, slash);
        appVersion = slash == std::string::npos ? "" : value.substr(slash + 1);
    } else if (key == "forcereload") {
        std::string v = lower(value);
        std::string level = v.rfind("soft", 0) == 0 ? v.substr(4) : v;
        if (v != "none" && level != "short" && level != "long" && level != "forever" && level != "shortforever") {
            return bad("expected none, short, long, forever or shortforever, each also with a soft prefix");
        }
        forceReload = v;
    } else if (key == "maxagesecs") {
        if (!parseLong(value, 0, std::numeric_limits<long>::max(), n)) return bad("expected seconds >= 0");
        maxAgeSecs = static_cast<long>(n);
    } else if (key == "freshkey") {
        freshKey = value;
    } else if (key == "logicalserverurl") {
        if (value.empty()) {
            logicalServer.clear();
            return {};
        }
        auto u = canonicalUrl(key, value, false);
        if (!u) return u.error();
        logicalServer = *u;
    } else if (key == "preferipfamily") {
        if (!parseLong(value, 0, 6, n) || (n != 0 && n != 4 && n != 6)) return bad("expected 4, 6 or 0");
        preferIpFamily = static_cast<int>(n);
    } else if (key == "security") {
        std::string v = lower(value);
        if (v != "sig" && v != "none" && !v.empty()) return bad("expected sig or none");
        signedAnswers = v == "sig";
    } else if (key == "maxanswerbytes") {
        if (!parseLong(value, 1024, std::numeric_limits<long long>::max(), n)) return bad("expected bytes >= 1024");
        maxAnswerBytes = static_cast<std::uint64_t>(n);
    } else if (key == "verifykey") {
        std::size_t colon = value.find(':');
        std::string id = colon == std::string::npos ? "" : strip(value.substr(0, colon));
        std::string file = colon == std::string::npos ? "" : strip(value.substr(colon + 1));
        bool idOk = !id.empty() && id.size() <= 64 && id.find_first_not_of(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos;
        if (!idOk || file.empty()) {
            return bad("verifykey is KEYID:FILE (a key id of letters, digits, '.', '_', '-' and a PEM public key "
                       "file)");
        }
        for (const auto& [knownId, knownFile] : verifyKeys) {
            if (knownId != id) continue;
            if (knownFile != file) return bad("key id '" + id + "' given twice, with different files");
            warn("verifykey " + id + ":" + file + " given twice; used once");
            return {};
        }
        verifyKeys.emplace_back(id, file);
    } else if (key == "loadbalance") {
        std::string v = lower(value);
        if (v == "proxies" || v == "proxy") loadBalance = "proxies";
        else if (v == "servers" || v == "server") loadBalance = "servers";
        else if (v == "none" || v == "no" || v.empty()) loadBalance = "none";
        else return bad("expected proxies, servers or none");
    } else {
        // Ignored, as frontier_client does (a string may be shared with it), but never silently.
        warn("unknown configuration key '" + key + "' ignored");
    }
    return {};
}

void Config::settle() {
    if (!signedAnswers && !verifyKeys.empty()) {
        warn("verifykey is ignored without security=sig: answers are not verified");
    }
    if (loadBalance == "proxies" && !proxyConfigUrls.empty()) {
        // as frontier_client: the PAC file's order is the site's choice, so no random start over it
        warn("loadbalance=proxies is turned off: the proxy auto-config decides the order of the proxies");
        loadBalance = "none";
    } else if (loadBalance != "none") {
        warn("loadbalance=" + loadBalance + " is not supported by the C++ client; ignored");
    }
}

Result<void> Config::addProxyConfig(const std::string& url) {
    std::string v = strip(url);
    std::string l = lower(v);
    if (l == "auto") v = "auto";
    else if (l.rfind("http://", 0) != 0 && l.rfind("https://", 0) != 0 && l.rfind("file:/", 0) != 0) {
        return configError("proxyconfigurl must be http://..., file://... or auto, not '" + url + "'");
    }
    return add("proxyconfigurl", proxyConfigUrls, v, kMaxProxyConfigs);
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

Result<Config> Config::fromEnvironment() {
    return fromLookup([](const std::string& name) {
        const char* v = std::getenv(name.c_str());
        return v ? std::string(v) : std::string();
    });
}

Result<Config> Config::fromEnvironment(const std::map<std::string, std::string>& env) {
    return fromLookup([&env](const std::string& name) {
        auto it = env.find(name);
        return it == env.end() ? std::string() : it->second;
    });
}

Result<Config> Config::fromLookup(const std::function<std::string(const std::string&)>& lookup) {
    Config c;
    auto env = [&](const std::string& name) { return strip(lookup(name)); };  // white space only = not set
    auto listVars = [&](const std::string& name, std::size_t max) {
        std::vector<std::string> out;
        for (std::size_t i = 0; i <= max; ++i) {
            std::string v = env(i == 0 ? name : name + std::to_string(i));
            if (!v.empty()) out.push_back(v);
        }
        return out;
    };
    auto failed = [](const std::string& var, const Error& e) {
        return Error(ErrorCode::Config, var + ": " + e.message);
    };
    std::vector<std::string> serverVars = listVars("OUTPOST_SERVER", kMaxServers);
    std::vector<std::string> proxyVars = listVars("OUTPOST_PROXY", kMaxProxies);
    bool frontier = serverVars.empty();
    if (frontier) {
        serverVars = listVars("FRONTIER_SERVER", kMaxServers);
        if (proxyVars.empty()) proxyVars = listVars("FRONTIER_PROXY", kMaxProxies);
    }
    for (const auto& v : serverVars) {
        auto r = c.apply(v);
        if (!r) return failed(frontier ? "FRONTIER_SERVER" : "OUTPOST_SERVER", r.error());
    }
    // Proxies in a server string and in a proxy variable: add to them or replace them? Either could be meant.
    if (!proxyVars.empty() && !c.proxies.empty()) {
        return configError("proxyurl given twice: in the configuration string of the server variable and in "
                           "OUTPOST_PROXY/FRONTIER_PROXY; name the proxies in one place");
    }
    for (const auto& v : proxyVars) {
        for (const auto& p : splitList(v)) {
            auto r = c.set("proxyurl", p);
            if (!r) return failed("OUTPOST_PROXY/FRONTIER_PROXY", r.error());
        }
    }
    std::string pac = env("FRONTIER_PROXYCONFIGS");
    std::size_t start = 0;
    while (start <= pac.size()) {
        std::size_t end = pac.find(';', start);
        if (end == std::string::npos) end = pac.size();
        std::string u = strip(pac.substr(start, end - start));
        start = end + 1;
        if (u.empty()) continue;
        auto r = c.addProxyConfig(u);
        if (!r) return failed("FRONTIER_PROXYCONFIGS", r.error());
    }
    const std::pair<const char*, const char*> settings[] = {
        {"FRONTIER_FORCERELOAD", "forcereload"}, {"FRONTIER_FRESHKEY", "freshkey"},
        {"OUTPOST_CONNECTTIMEOUTSECS", "connecttimeoutsecs"}, {"OUTPOST_READTIMEOUTSECS", "readtimeoutsecs"},
        {"OUTPOST_RETRIES", "retries"}, {"OUTPOST_LOADBALANCE", "loadbalance"},
        {"OUTPOST_FAILOVERTOSERVER", "failovertoserver"}, {"OUTPOST_ID", "clientid"}};
    for (auto [var, key] : settings) {
        std::string name = var, v = env(name);
        if (v.empty() && frontier && name.find("TIMEOUTSECS") != std::string::npos) {
            name = "FRONTIER_" + name.substr(8);
            v = env(name);
        }
        if (v.empty()) continue;
        auto r = c.set(key, v);
        if (!r) return failed(name, r.error());
    }
    c.settle();
    if (c.servers.empty()) {
        return configError("no server configured: set OUTPOST_SERVER (e.g. http://host:8000) or FRONTIER_SERVER");
    }
    return c;
}

Result<void> Config::validate() const {
    if (servers.empty()) return configError("no server URL configured");
    if (servers.size() > kMaxServers) return configError("at most " + std::to_string(kMaxServers) + " servers");
    if (proxies.size() > kMaxProxies || backupProxies.size() > kMaxProxies) {
        return configError("at most " + std::to_string(kMaxProxies) + " proxies");
    }
    for (const auto& s : servers) {
        if (lower(s).rfind("sqlite:", 0) == 0) {
            return configError("(serverurl=" + s + "): an offline snapshot file is read by the Java client only");
        }
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
    if (!failoverToServer && proxies.empty() && backupProxies.empty() && proxyConfigUrls.empty()) {
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
    for (const auto& p : backupProxies) o << "(backupproxyurl=" << p << ")";
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
      << ")(clientcachemaxbytes=" << cacheMaxBytes << ")(clientid=" << app
      << (appVersion.empty() ? "" : "/" + appVersion) << ")";
    if (loadBalance != "none") o << "(loadbalance=" << loadBalance << ")";
    return o.str();
}

}  // namespace outpost
