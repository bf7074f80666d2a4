// frontier_client's reload controls on native requests (docs/client-failover.md, "Reload controls") and its keys
// logicalserverurl, preferipfamily and writetimeoutsecs: the same cases as the Java client's ReloadControlsTest and
// FrontierKeysTest.
#include <gtest/gtest.h>

#include <cstdlib>

#include "fake_service.h"
#include "outpost/client.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

/// "kind[@tag] cache-control[ pragma]" of every request: a HEAD list, a HEAD browse and a tagged browse, twice.
std::vector<std::string> sent(const std::string& options) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    auto c = Config::fromString("(serverurl=" + server.url() + ")(retries=0)" + options);
    if (!c) throw std::runtime_error(c.error().message);
    auto client = Client::create(*c);
    if (!client) throw std::runtime_error(client.error().message);
    for (int i = 0; i < 2; ++i) {
        for (const char* p : {"/v1/bin/channels/DEMO/F", "/v1/bin/browse/HEAD/0/99/all/cs/DEMO/F",
                              "/v1/bin/browse/T-1/0/99/all/cs/DEMO/F"}) {
            auto t = client->get(p);
            if (!t) throw std::runtime_error(t.error().describe());
        }
    }
    std::vector<std::string> out;
    for (const auto& r : server.requests()) {
        std::string kind = r.path.substr(8, r.path.find('/', 8) - 8);
        if (r.path.find("/T-1/") != std::string::npos) kind += "@tag";
        std::string cc = r.header("cache-control");
        out.push_back(kind + " " + (cc.empty() ? "null" : cc) + (r.header("pragma").empty() ? "" : " " + r.header("pragma")));
    }
    return out;
}

using Lines = std::vector<std::string>;

}  // namespace

TEST(Reload, WithoutControlsTheInProcessCacheAnswersRepeats) {
    EXPECT_EQ((Lines{"channels null", "browse null", "browse@tag null"}), sent(""));
}

TEST(Reload, ForceReloadShortReloadsShortLivedAnswersOnly) {
    EXPECT_EQ((Lines{"channels no-cache no-cache", "browse no-cache no-cache", "browse@tag null",
                     "channels no-cache no-cache", "browse no-cache no-cache"}),
              sent("(forcereload=short)"));
}

TEST(Reload, ShortForeverIsShortAsInFrontierClient) {
    // frontier_client takes the first of short, long, forever that the value contains
    EXPECT_EQ(sent("(forcereload=short)"), sent("(forcereload=shortforever)"));
    EXPECT_EQ((Lines{"channels max-age=0", "browse max-age=0", "browse@tag null", "channels max-age=0", "browse max-age=0"}),
              sent("(forcereload=softshortforever)"));
}

TEST(Reload, SoftLongRevalidatesAndMaxAgeSecsZeroIsTheSame) {
    Lines soft{"channels max-age=0", "browse max-age=0", "browse@tag max-age=0",
               "channels max-age=0", "browse max-age=0", "browse@tag max-age=0"};
    EXPECT_EQ(soft, sent("(forcereload=softlong)"));
    EXPECT_EQ(soft, sent("(maxagesecs=0)"));
}

TEST(Reload, MaxAgeSecsAsksForYoungCopiesAndFreshKeyRevalidatesShortLivedAnswers) {
    EXPECT_EQ((Lines{"channels max-age=30", "browse max-age=30", "browse@tag max-age=30"}), sent("(maxagesecs=30)"));
    EXPECT_EQ((Lines{"channels max-age=0", "browse max-age=0", "browse@tag null", "channels max-age=0",
                     "browse max-age=0"}),
              sent("(freshkey=abc)"));
}

TEST(Reload, EnvironmentAndBadValues) {
    ::setenv("FRONTIER_SERVER", "http://a:8000", 1);
    ::setenv("FRONTIER_FORCERELOAD", "softshort", 1);
    ::setenv("FRONTIER_FRESHKEY", "long-k1", 1);
    auto c = Config::fromEnvironment();
    for (const char* v : {"FRONTIER_SERVER", "FRONTIER_FORCERELOAD", "FRONTIER_FRESHKEY"}) ::unsetenv(v);
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ("softshort", c->forceReload);
    EXPECT_EQ("long-k1", c->freshKey);
    EXPECT_EQ("softshort", Config::fromString(c->toString())->forceReload);
    auto bad = Config::fromString("(serverurl=a:1)(forcereload=sometimes)");
    ASSERT_FALSE(bad);
    EXPECT_NE(std::string::npos, bad.error().message.find("sometimes"));
}

TEST(FrontierKeys, LogicalServerIsTheUrlRequestsThroughAProxyName) {
    FakeServer origin([](const Request& r) { return fakeService(r); });
    FakeServer proxy(proxyTo({&origin}));
    DeadPort physical;  // nothing listens there: only the logical name reaches the origin
    auto c = Config::fromString("(serverurl=" + physical.url() + ")(proxyurl=" + proxy.url() + ")(logicalserverurl=" +
                                origin.url() + ")(retries=0)");
    ASSERT_TRUE(c) << c.error().message;
    auto client = Client::create(*c);
    ASSERT_TRUE(client) << client.error().message;
    auto t = client->get("/v1/bin/channels/DEMO/F");
    ASSERT_TRUE(t) << t.error().describe();
    ASSERT_EQ(1u, proxy.requests().size());
    EXPECT_EQ(origin.url() + "/v1/bin/channels/DEMO/F", proxy.requests()[0].target);
    EXPECT_EQ(origin.url(), Config::fromString(c->toString())->logicalServer);
}

TEST(FrontierKeys, PreferIpFamilyAndWriteTimeoutAreCheckedAndKept) {
    auto c = Config::fromString("(serverurl=http://a:8000)(preferipfamily=0)(writetimeoutsecs=2.5)");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(0, c->preferIpFamily);
    EXPECT_EQ(2500, c->writeTimeout.count());
    EXPECT_TRUE(c->warnings.empty());
    EXPECT_EQ(2500, Config::fromString(c->toString())->writeTimeout.count());
    auto bad = Config::fromString("(serverurl=http://a:8000)(preferipfamily=5)");
    ASSERT_FALSE(bad);
    EXPECT_NE(std::string::npos, bad.error().message.find("4, 6 or 0"));
}
