#include <gtest/gtest.h>

#include <cstdlib>

#include "fake_service.h"
#include "outpost/client.h"
#include "outpost/config.h"

using namespace outpost;

TEST(Config, ParsesAFrontierStyleString) {
    auto c = Config::fromString(
        "frontier://(serverurl=http://a:8000)(serverurl=b:8001/outpost/)(proxyurl=http://p:3128)"
        "(retries=3)(connecttimeout=2)(readtimeout=7.5)(failovertoserver=no)(unknownkey=x(y))/ignored");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ((std::vector<std::string>{"http://a:8000", "http://b:8001/outpost"}), c->servers);
    EXPECT_EQ((std::vector<std::string>{"http://p:3128"}), c->proxies);
    EXPECT_EQ(3, c->retries);
    EXPECT_EQ(2000, c->connectTimeout.count());
    EXPECT_EQ(7500, c->readTimeout.count());
    EXPECT_FALSE(c->failoverToServer);
    EXPECT_TRUE(c->validate());
}

TEST(Config, AcceptsFrontierKeyNames) {
    auto c = Config::fromString("(serverurl=http://a:8000)(connecttimeoutsecs=3)(readtimeoutsecs=4)");
    ASSERT_TRUE(c);
    EXPECT_EQ(3000, c->connectTimeout.count());
    EXPECT_EQ(4000, c->readTimeout.count());
}

TEST(Config, PlainUrlList) {
    auto c = Config::fromString("http://a:8000;http://b:8000");
    ASSERT_TRUE(c);
    EXPECT_EQ(2u, c->servers.size());
}

TEST(Config, RejectsNonsense) {
    EXPECT_EQ(ErrorCode::Config, Config::fromString("(retries=-1)").error().code);
    EXPECT_EQ(ErrorCode::Config, Config::fromString("(retries=abc)").error().code);
    EXPECT_EQ(ErrorCode::Config, Config::fromString("(serverurl=ftp://x)").error().code);
    EXPECT_EQ(ErrorCode::Config, Config::fromString("(serverurl=http://a").error().code);
    EXPECT_EQ(ErrorCode::Config, Config::fromString("(readtimeout=soon)").error().code);
    EXPECT_FALSE(Config().validate());  // no server
    auto noDirect = Config::fromString("(serverurl=http://a)(failovertoserver=no)");
    ASSERT_TRUE(noDirect);
    EXPECT_FALSE(noDirect->validate());  // nothing left to try
}

TEST(Config, ReadsOutpostEnvironmentFirst) {
    ::setenv("OUTPOST_SERVER", "http://e1:8000 http://e2:8000", 1);
    ::setenv("OUTPOST_PROXY", "http://p1:3128;http://p2:3128", 1);
    ::setenv("FRONTIER_SERVER", "(serverurl=http://f:8000)", 1);
    auto c = Config::fromEnvironment();
    ::unsetenv("OUTPOST_SERVER");
    ::unsetenv("OUTPOST_PROXY");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ((std::vector<std::string>{"http://e1:8000", "http://e2:8000"}), c->servers);
    EXPECT_EQ((std::vector<std::string>{"http://p1:3128", "http://p2:3128"}), c->proxies);

    ::setenv("FRONTIER_PROXY", "http://fp:3128", 1);
    ::setenv("FRONTIER_SERVER2", "http://f2:8000", 1);
    ::setenv("FRONTIER_READTIMEOUTSECS", "3", 1);
    auto f = Config::fromEnvironment();
    ::unsetenv("FRONTIER_SERVER");
    ::unsetenv("FRONTIER_SERVER2");
    ::unsetenv("FRONTIER_PROXY");
    ::unsetenv("FRONTIER_READTIMEOUTSECS");
    ASSERT_TRUE(f) << f.error().message;
    EXPECT_EQ((std::vector<std::string>{"http://f:8000", "http://f2:8000"}), f->servers);
    EXPECT_EQ((std::vector<std::string>{"http://fp:3128"}), f->proxies);
    EXPECT_EQ(3000, f->readTimeout.count());

    auto none = Config::fromEnvironment();
    ASSERT_FALSE(none);
    EXPECT_NE(std::string::npos, none.error().message.find("OUTPOST_SERVER"));
}

TEST(Config, ToStringListsTheOptions) {
    auto c = Config::fromString("(serverurl=http://a:8000)(proxyurl=http://p:3128)");
    ASSERT_TRUE(c);
    std::string s = c->toString();
    EXPECT_NE(std::string::npos, s.find("(serverurl=http://a:8000)"));
    EXPECT_NE(std::string::npos, s.find("(proxyurl=http://p:3128)"));
    auto again = Config::fromString(s);
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(c->servers, again->servers);
}

TEST(Config, TheBoundsOfAnAttemptAndAcceptSig1) {
    auto d = Config::fromString("(serverurl=http://a:8000)");
    ASSERT_TRUE(d);
    EXPECT_EQ(256ull << 20, d->maxAnswerBytes);
    EXPECT_EQ(30000, d->attemptTimeout.count());
    EXPECT_FALSE(d->acceptSig1);
    auto c = Config::fromString("(serverurl=http://a:8000)(maxanswerbytes=1048576)(attempttimeoutsecs=2.5)(acceptsig1=yes)");
    ASSERT_TRUE(c) << c.error().message;
    auto again = Config::fromString(c->toString());
    ASSERT_TRUE(again) << again.error().message;
    for (const Config* x : {&*c, &*again}) {
        EXPECT_EQ(1u << 20, x->maxAnswerBytes);
        EXPECT_EQ(2500, x->attemptTimeout.count());
        EXPECT_TRUE(x->acceptSig1);
    }
    for (const char* bad : {"(maxanswerbytes=0)", "(maxanswerbytes=lots)", "(attempttimeout=0)", "(acceptsig1=maybe)"}) {
        auto r = Config::fromString(std::string("(serverurl=http://a:8000)") + bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(ErrorCode::Config, r.error().code);
    }
}

// backupproxyurl (docs/client-failover.md): tried after every proxy, and, as it implies failovertoserver=no, never
// followed by a direct connection.
TEST(Config, ABackupProxyIsTriedAfterEveryProxyAndNeverDirect) {
    outpost::testing::DeadPort deadProxy, deadBackup;
    outpost::testing::FakeServer server([](const outpost::testing::Request& r) { return outpost::testing::fakeService(r); });
    outpost::testing::FakeServer backup(outpost::testing::proxyTo({&server}));
    std::vector<std::string> events;
    auto attempt = [&](const std::string& backupUrl) {
        events.clear();
        auto c = Config::fromString("(serverurl=" + server.url() + ")(proxyurl=" + deadProxy.url() +
                                    ")(backupproxyurl=" + backupUrl + ")(retries=0)(clientcachemaxbytes=0)");
        EXPECT_TRUE(c) << c.error().message;
        c->onEvent = [&](const Event& e) {
            if (e.kind != Event::Kind::Attempt) events.push_back(std::string(toString(e.kind)) + " " + e.proxy);
        };
        auto client = Client::create(*c);
        EXPECT_TRUE(client) << client.error().message;
        return client->get("/v1/bin/channels/DEMO/F");
    };
    ASSERT_TRUE(attempt(backup.url()));
    EXPECT_EQ((std::vector<std::string>{"connect-failed " + deadProxy.url(), "success " + backup.url()}), events);
    EXPECT_EQ(1u, backup.requests().size());

    auto none = attempt(deadBackup.url());
    ASSERT_FALSE(none);
    EXPECT_EQ((std::vector<std::string>{"connect-failed " + deadProxy.url(), "connect-failed " + deadBackup.url(),
                                        "give-up "}),
              events);
    EXPECT_EQ(1u, server.requests().size());  // only the one through the backup proxy: never direct
}
