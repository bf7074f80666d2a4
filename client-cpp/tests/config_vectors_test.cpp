// The shared configuration vectors (testdata/config/cases.json): every configuration string and environment gives
// the normalised configuration, or the kind of error, that the Java and Python clients reach too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "outpost/config.h"

using nlohmann::json;
using namespace outpost;

namespace {

/// A warning only this client gives, about what it does not do (testdata/config/README.md, "Client notes").
const std::string kNotSupportedHere = "is not supported by the C++ client; ignored";

const json& doc() {
    static const json d = [] {
        std::ifstream in(std::string(OUTPOST_TESTDATA_DIR) + "/config/cases.json");
        std::stringstream s;
        s << in.rdbuf();
        return json::parse(s.str());
    }();
    return d;
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

/// The configuration in the vectors' terms (testdata/config/README.md).
json normalised(const Config& c) {
    json verifyKeys = json::array();
    for (const auto& [id, file] : c.verifyKeys) verifyKeys.push_back({id, file});
    json warnings = json::array();
    for (const auto& w : c.warnings) {
        if (w.find(kNotSupportedHere) == std::string::npos) warnings.push_back(w);
    }
    json clientId = nullptr;
    if (c.app != "outpost-cpp" || !c.appVersion.empty()) {
        clientId = c.app + (c.appVersion.empty() ? "" : "/" + c.appVersion);
    }
    return {
        {"servers", c.servers},
        {"proxies", c.proxies},
        {"backup_proxies", c.backupProxies},
        {"proxy_config_urls", c.proxyConfigUrls},
        {"failover_to_server", c.failoverToServer},
        {"load_balance", c.loadBalance},
        {"retries", c.retries},
        {"connect_timeout_ms", c.connectTimeout.count()},
        {"read_timeout_ms", c.readTimeout.count()},
        {"write_timeout_ms", c.writeTimeout.count()},
        {"attempt_timeout_ms", c.attemptTimeout.count()},
        {"backoff_ms", c.backoff.count()},
        {"max_backoff_ms", c.maxBackoff.count()},
        {"cache_window_secs", c.timeWindow.length / 1000000000LL},
        {"cache_align", c.timeWindow.divisions},
        {"cache_max_bytes", c.cacheMaxBytes},
        {"client_id", clientId},
        {"force_reload", c.forceReload},
        {"max_age_secs", c.maxAgeSecs},
        {"fresh_key", c.freshKey},
        {"logical_server", c.logicalServer},
        {"prefer_ip_family", c.preferIpFamily},
        {"security", c.signedAnswers ? "sig" : "none"},
        {"verify_keys", verifyKeys},
        {"accept_sig1", c.acceptSig1},
        {"max_answer_bytes", c.maxAnswerBytes},
        {"warnings", warnings},
    };
}

/// The case's configuration, checked as a client being created checks it.
Result<Config> configured(const json& c) {
    Result<Config> r = c.contains("config")
                           ? Config::fromString(c["config"].get<std::string>())
                           : Config::fromEnvironment(c["env"].get<std::map<std::string, std::string>>());
    if (!r) return r;
    auto v = r->validate();
    if (!v) return v.error();
    return r;
}

}  // namespace

TEST(ConfigVectors, EveryCaseGivesItsConfigurationOrError) {
    int cases = 0;
    for (const auto& c : doc()["cases"]) {
        SCOPED_TRACE(c["name"].get<std::string>());
        auto r = configured(c);
        if (c.contains("error")) {
            ASSERT_FALSE(r) << "accepted: " << r->toString();
            EXPECT_EQ(ErrorCode::Config, r.error().code);
            std::string message = lower(r.error().message);
            const json& e = c["error"];
            std::string marker = doc()["error_kinds"][e["kind"].get<std::string>()].get<std::string>();
            EXPECT_NE(std::string::npos, message.find(marker)) << message;
            if (!e["key"].is_null()) EXPECT_NE(std::string::npos, message.find(e["key"].get<std::string>())) << message;
        } else {
            ASSERT_TRUE(r) << r.error().message;
            json expected = doc()["defaults"];
            expected.update(c["expect"]);
            json got = normalised(*r);
            for (auto& [key, value] : expected.items()) EXPECT_EQ(value, got[key]) << key;
        }
        ++cases;
    }
    EXPECT_GE(cases, 100);
}

TEST(ConfigVectors, TheCasesReachEveryErrorKind) {
    std::set<std::string> kinds, reached;
    for (auto& [kind, marker] : doc()["error_kinds"].items()) kinds.insert(kind);
    for (const auto& c : doc()["cases"]) {
        if (c.contains("error")) reached.insert(c["error"]["kind"].get<std::string>());
    }
    EXPECT_EQ(kinds, reached);
}
