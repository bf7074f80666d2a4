// The shared failover vectors (testdata/failover): each case's servers and proxies, scripted request by request by
// failover_server.py on real sockets. The client's events, in the vectors' vocabulary, must be exactly the expected
// trace, as the Java and Python clients' are. Needs python3 (the fixture is a Python script).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fixture_process.h"
#include "outpost/client.h"

using namespace outpost;
using json = nlohmann::json;

namespace {

const std::string kDir = std::string(OUTPOST_TESTDATA_DIR) + "/failover";

json vectors() {
    std::ifstream in(kDir + "/cases.json");
    return json::parse(in);
}

/// The fixture process of one case, driven through its stdin and stdout; it ends with this test.
class Script {
public:
    explicit Script(const std::string& name) : process_({kDir + "/failover_server.py", "--case", name}) {
        std::istringstream words(process_.line());
        std::string word;
        words >> word;
        if (word != "PORTS") throw std::runtime_error("the failover fixture did not start");
        while (words >> word) {
            std::string name = word.substr(0, word.find('=')), port = word.substr(word.find('=') + 1);
            urls[name] = "http://127.0.0.1:" + port;
        }
    }
    /// Puts the endpoints in the state of request i.
    void request(std::size_t i) {
        process_.send("request " + std::to_string(i) + "\n");
        if (process_.line() != "ready " + std::to_string(i)) {
            throw std::runtime_error("the failover fixture did not answer");
        }
    }
    std::map<std::string, std::string> urls;  // endpoint name -> URL

private:
    outpost::testing::FixtureProcess process_;
};

/// An event in the vectors' words (testdata/failover/README.md); "" for events they leave out.
std::string vocabulary(const Event& e, const std::map<std::string, std::string>& names) {
    auto name = [&](const std::string& url) { auto it = names.find(url); return it == names.end() ? url : it->second; };
    std::string route = e.proxy.empty() ? name(e.server) : name(e.proxy) + ">" + name(e.server);
    switch (e.kind) {
        case Event::Kind::Attempt:
            return "attempt route=" + route + " refresh=" +
                   (e.refresh == "max-age=0" ? "soft" : e.refresh == "no-cache" ? "hard" : "plain");
        case Event::Kind::Success: return "answer route=" + route;
        case Event::Kind::Backoff: return "backoff pass=" + std::to_string(e.pass);
        case Event::Kind::GiveUp: return "give-up";
        case Event::Kind::CacheHit: return "";
        default: break;
    }
    std::string reason = e.kind == Event::Kind::Untrusted ? "unsigned" : toString(e.kind);
    bool withStatus = e.kind == Event::Kind::ServerError || e.kind == Event::Kind::RequestError;
    return "failed route=" + route + " reason=" + reason + (withStatus ? " status=" + std::to_string(e.httpStatus) : "") +
           " next=" + toString(e.decision);
}

class FailoverVectors : public ::testing::TestWithParam<std::string> {};

TEST_P(FailoverVectors, TheTraceIsTheExpectedOne) {
    if (std::system("python3 -c '' >/dev/null 2>&1") != 0) GTEST_SKIP() << "the failover fixture needs python3";
    json doc = vectors();
    json c;
    for (const auto& each : doc["cases"]) {
        if (each["name"] == GetParam()) c = each;
    }
    Script script(GetParam());
    std::map<std::string, std::string> names;
    for (const auto& [name, url] : script.urls) names[url] = name;
    std::string spec;
    for (const auto& s : c["servers"]) spec += "(serverurl=" + script.urls.at(s.get<std::string>()) + ")";
    for (const auto& p : c["proxies"]) spec += "(proxyurl=" + script.urls.at(p.get<std::string>()) + ")";
    json keys = doc["base_config"];
    keys.update(c["config"]);
    for (const auto& [k, v] : keys.items()) spec += "(" + k + "=" + v.get<std::string>() + ")";

    auto cfg = Config::fromString(spec);
    ASSERT_TRUE(cfg) << cfg.error().message;
    std::mutex mu;
    std::vector<Event> events;
    auto now = std::chrono::steady_clock::time_point(std::chrono::hours(1000));
    cfg->onEvent = [&](const Event& e) {
        std::lock_guard<std::mutex> lock(mu);
        events.push_back(e);
    };
    cfg->clock = [&now] { return now; };
    auto client = Client::create(std::move(*cfg));
    ASSERT_TRUE(client) << client.error().message;

    for (std::size_t i = 0; i < c["requests"].size(); ++i) {
        const json& req = c["requests"][i];
        now += std::chrono::seconds(req.value("advance", 0));
        script.request(i);
        {
            std::lock_guard<std::mutex> lock(mu);
            events.clear();
        }
        auto answer = client->get("/v1/bin/nodes");
        std::string result = req["result"];
        if (result == "answer") {
            ASSERT_TRUE(answer) << answer.error().describe();
            EXPECT_EQ(2u, answer->rows.size());
        } else {
            ASSERT_FALSE(answer) << "request " << i;
            EXPECT_EQ(result == "not-found" ? ErrorCode::Request : ErrorCode::Unavailable, answer.error().code)
                << answer.error().describe();
        }
        std::vector<std::string> trace;
        {
            std::lock_guard<std::mutex> lock(mu);
            for (const Event& e : events) {
                std::string line = vocabulary(e, names);
                if (!line.empty()) trace.push_back(line);
            }
        }
        EXPECT_EQ(req["trace"].get<std::vector<std::string>>(), trace) << GetParam() << ", request " << i;
    }
}

std::vector<std::string> caseNames() {
    std::vector<std::string> out;
    const json doc = vectors();  // kept: a range-for over a temporary's member would outlive it
    for (const auto& c : doc["cases"]) out.push_back(c["name"]);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Shared, FailoverVectors, ::testing::ValuesIn(caseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = info.param;
                             for (char& ch : n) if (ch == '-') ch = '_';
                             return n;
                         });

}  // namespace
