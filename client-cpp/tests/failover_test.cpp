// Failover, refresh and retry rules of docs/client-failover.md, against in-process HTTP servers on 127.0.0.1.
// Each test asserts on the ordered event log the client emits.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "fake_service.h"
#include "outpost/client.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

const std::string kPath = "/v1/bin/channels/DEMO/F";

struct EventLog {
    std::mutex mu;
    std::vector<Event> events;
    void operator()(const Event& e) {
        std::lock_guard<std::mutex> lock(mu);
        events.push_back(e);
    }
    /// "kind proxy->server [refresh]" per event, skipping Attempt events unless asked.
    std::vector<std::string> lines(bool attempts = false) {
        std::lock_guard<std::mutex> lock(mu);
        std::vector<std::string> out;
        for (const auto& e : events) {
            if (e.kind == Event::Kind::Attempt && !attempts) continue;
            std::string s = toString(e.kind);
            if (!e.server.empty()) s += " " + (e.proxy.empty() ? std::string("direct") : e.proxy) + "->" + e.server;
            if (!e.refresh.empty()) s += " [" + e.refresh + "]";
            out.push_back(s);
        }
        return out;
    }
};

Config config(std::vector<std::string> servers, std::vector<std::string> proxies, EventLog& log) {
    Config c;
    c.servers = std::move(servers);
    c.proxies = std::move(proxies);
    c.retries = 0;
    c.backoff = std::chrono::milliseconds(0);
    c.connectTimeout = std::chrono::milliseconds(2000);
    c.cacheMaxBytes = 0;
    c.onEvent = [&log](const Event& e) { log(e); };
    return c;
}

Client make(Config c) {
    auto r = Client::create(std::move(c));
    if (!r) throw std::runtime_error(r.error().message);
    return std::move(*r);
}

Handler serviceHandler() { return [](const Request& r) { return fakeService(r); }; }

}  // namespace

TEST(Failover, DeadServerThenNextServer) {
    DeadPort dead;
    FakeServer good(serviceHandler());
    EventLog log;
    Client client = make(config({dead.url(), good.url()}, {}, log));
    auto t = client.get(kPath);
    ASSERT_TRUE(t) << t.error().describe();
    EXPECT_EQ(10u, t->rows.size());
    EXPECT_EQ((std::vector<std::string>{"connect-failed direct->" + dead.url(), "success direct->" + good.url()}),
              log.lines());
}

TEST(Failover, ServerErrorMovesToTheNextServer) {
    FakeServer broken([](const Request&) { return Response::problem(503, "database down"); });
    FakeServer good(serviceHandler());
    EventLog log;
    Client client = make(config({broken.url(), good.url()}, {}, log));
    auto t = client.get(kPath);
    ASSERT_TRUE(t) << t.error().describe();
    EXPECT_EQ((std::vector<std::string>{"server-error direct->" + broken.url(), "success direct->" + good.url()}),
              log.lines());
    EXPECT_EQ(1u, broken.requests().size());
}

TEST(Failover, DeadProxyThenNextProxy) {
    DeadPort deadProxy;
    FakeServer server(serviceHandler());
    FakeServer proxy(proxyTo({&server}));
    EventLog log;
    Client client = make(config({server.url()}, {deadProxy.url(), proxy.url()}, log));
    auto t = client.get(kPath);
    ASSERT_TRUE(t) << t.error().describe();
    EXPECT_EQ((std::vector<std::string>{"connect-failed " + deadProxy.url() + "->" + server.url(),
                                        "success " + proxy.url() + "->" + server.url()}),
              log.lines());
    ASSERT_EQ(1u, proxy.requests().size());
    EXPECT_EQ(server.url() + kPath, proxy.requests()[0].target);  // absolute URL: it went through the proxy
}

TEST(Failover, FrontierOrderThroughProxyThenDirect) {
    // server A is dead: the proxy answers 503 for it; A via proxy -> B via proxy -> direct A -> direct B.
    DeadPort a;
    FakeServer b([](const Request&) { return Response::problem(500, "broken"); });
    FakeServer proxy(proxyTo({&b}));
    EventLog log;
    Client client = make(config({a.url(), b.url()}, {proxy.url()}, log));
    auto t = client.get(kPath);
    ASSERT_FALSE(t);
    EXPECT_EQ(ErrorCode::Unavailable, t.error().code);
    EXPECT_EQ(4u, t.error().attempts.size());
    EXPECT_EQ((std::vector<std::string>{"server-error " + proxy.url() + "->" + a.url(),
                                        "server-error " + proxy.url() + "->" + b.url(),
                                        "connect-failed direct->" + a.url(), "server-error direct->" + b.url(),
                                        "give-up"}),
              log.lines());
    EXPECT_NE(std::string::npos, t.error().message.find("failed on every route"));
}

TEST(Failover, NoDirectConnectionsWhenDisabled) {
    DeadPort deadProxy;
    FakeServer server(serviceHandler());
    EventLog log;
    Config c = config({server.url()}, {deadProxy.url()}, log);
    c.failoverToServer = false;
    Client client = make(c);
    auto t = client.get(kPath);
    ASSERT_FALSE(t);
    EXPECT_EQ(ErrorCode::Unavailable, t.error().code);
    EXPECT_EQ(ErrorCode::Connect, t.error().attempts.at(0).code);
    EXPECT_EQ(0u, server.requests().size());
}

TEST(Failover, CorruptAnswerGetsSoftThenHardRefreshThenFailover) {
    FakeServer corrupt([](const Request& r) {
        Response resp = fakeService(r);
        resp.body[resp.body.size() - 5] ^= 1;  // CRC-32 mismatch
        return resp;
    });
    FakeServer good(serviceHandler());
    FakeServer proxy(proxyTo({&corrupt, &good}));
    EventLog log;
    Client client = make(config({corrupt.url(), good.url()}, {proxy.url()}, log));
    auto t = client.get(kPath);
    ASSERT_TRUE(t) << t.error().describe();
    auto reqs = corrupt.requests();
    ASSERT_EQ(3u, reqs.size());
    EXPECT_EQ("", reqs[0].header("cache-control"));
    EXPECT_EQ("max-age=0", reqs[1].header("cache-control"));
    EXPECT_EQ("no-cache", reqs[2].header("cache-control"));
    std::string route = proxy.url() + "->" + corrupt.url();
    EXPECT_EQ((std::vector<std::string>{"corrupt " + route, "corrupt " + route + " [max-age=0]",
                                        "corrupt " + route + " [no-cache]", "success " + proxy.url() + "->" + good.url()}),
              log.lines());
}

TEST(Failover, CorruptZstdFrameIsRefreshedThenFailsOver) {
    FakeServer corrupt([](const Request& r) {
        Response resp = fakeService(r);
        EXPECT_EQ(2, resp.body.at(5));  // codec 2
        resp.body[resp.body.size() - 16 - 3] ^= 0x40;  // inside the last zstd block
        return resp;
    });
    FakeServer good(serviceHandler());
    EventLog log;
    Client client = make(config({corrupt.url(), good.url()}, {}, log));
    auto t = client.get(kPath);
    ASSERT_TRUE(t) << t.error().describe();
    EXPECT_EQ(3u, corrupt.requests().size());  // plain, max-age=0, no-cache
    EXPECT_EQ((std::vector<std::string>{"corrupt direct->" + corrupt.url(),
                                        "corrupt direct->" + corrupt.url() + " [max-age=0]",
                                        "corrupt direct->" + corrupt.url() + " [no-cache]",
                                        "success direct->" + good.url()}),
              log.lines());
}

TEST(Failover, TruncatedAnswerIsRefreshedOnTheSameRoute) {
    std::atomic<int> calls{0};
    FakeServer flaky([&calls](const Request& r) {
        Response resp = fakeService(r);
        if (calls++ == 0) resp.truncateAt = resp.body.size() / 2;  // connection closed half way
        return resp;
    });
    EventLog log;
    Client client = make(config({flaky.url()}, {}, log));
    auto t = client.get(kPath);
    ASSERT_TRUE(t) << t.error().describe();
    EXPECT_EQ((std::vector<std::string>{"corrupt direct->" + flaky.url(),
                                        "success direct->" + flaky.url() + " [max-age=0]"}),
              log.lines());
    EXPECT_EQ("max-age=0", flaky.requests().at(1).header("cache-control"));
}

TEST(Failover, ClientErrorsAreNeverRetried) {
    FakeServer a(serviceHandler());
    FakeServer b(serviceHandler());
    EventLog log;
    Config c = config({a.url(), b.url()}, {}, log);
    c.retries = 3;
    Client client = make(c);
    auto t = client.get("/v1/bin/nosuch");
    ASSERT_FALSE(t);
    EXPECT_EQ(ErrorCode::Request, t.error().code);
    EXPECT_EQ(404, t.error().httpStatus);
    EXPECT_NE(std::string::npos, t.error().message.find("no such query")) << t.error().message;
    EXPECT_EQ(1u, a.requests().size() + b.requests().size());
}

TEST(Failover, RetriesEveryRouteAgainAfterBackoff) {
    std::atomic<int> calls{0};
    FakeServer late([&calls](const Request& r) {
        return calls++ < 2 ? Response::problem(503, "warming up") : fakeService(r);
    });
    EventLog log;
    Config c = config({late.url()}, {}, log);
    c.retries = 2;
    Client client = make(c);
    auto t = client.get(kPath);
    ASSERT_TRUE(t) << t.error().describe();
    EXPECT_EQ((std::vector<std::string>{"server-error direct->" + late.url(), "backoff",
                                        "server-error direct->" + late.url(), "backoff",
                                        "success direct->" + late.url()}),
              log.lines());
}

TEST(Failover, FailedServersArePostponedForLaterRequests) {
    FakeServer broken([](const Request&) { return Response::problem(500, "broken"); });
    FakeServer good(serviceHandler());
    EventLog log;
    Client client = make(config({broken.url(), good.url()}, {}, log));
    ASSERT_TRUE(client.get(kPath));
    ASSERT_TRUE(client.get(kPath));
    EXPECT_EQ(1u, broken.requests().size());  // the second request went to the good server first
}

TEST(Http, ReusesKeepAliveConnections) {
    FakeServer server(serviceHandler());
    EventLog log;
    Client client = make(config({server.url()}, {}, log));
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(client.get(kPath));
    EXPECT_EQ(20u, server.requests().size());
    EXPECT_EQ(1, server.connections());
}

TEST(Http, ReconnectsWhenTheServerClosedAnIdleConnection) {
    std::atomic<int> calls{0};
    FakeServer server([&calls](const Request& r) {
        Response resp = fakeService(r);
        if (calls++ == 1) resp.closeWithoutAnswer = true;  // as if the idle connection timed out
        return resp;
    });
    EventLog log;
    Client client = make(config({server.url()}, {}, log));
    ASSERT_TRUE(client.get(kPath));
    auto t = client.get(kPath);
    ASSERT_TRUE(t) << t.error().describe();
}

TEST(Http, SendsTheClientId) {
    FakeServer server(serviceHandler());
    EventLog log;
    Config c = config({server.url()}, {}, log);
    c.app = "calib";
    c.appVersion = "2.1";
    Client client = make(c);
    ASSERT_TRUE(client.get(kPath));
    auto req = server.requests().at(0);
    std::string id = req.header("x-outpost-client");
    EXPECT_EQ(0u, id.rfind("calib/2.1 " + std::to_string(::getpid()) + " ", 0)) << id;
    EXPECT_EQ(id, req.header("user-agent"));
    EXPECT_EQ(id, client.clientId());
}

// preferipfamily: a name with an IPv4 and an IPv6 address (given by the test hook hostAddresses, not the machine's
// DNS) is connected to the preferred family first; the two families' servers answer differently.
TEST(Failover, PreferIpFamilyChoosesTheFamilyConnectedFirst) {
    FakeServer v4(serviceHandler());
    FakeServer v6([](const Request&) { return Response::problem(503, "the IPv6 server"); }, true, v4.port());
    const std::string url = "http://dual.test:" + std::to_string(v4.port());
    auto run = [&](int family) {
        EventLog log;
        Config c = config({url}, {}, log);
        c.preferIpFamily = family;
        c.hostAddresses["dual.test"] = {"127.0.0.1", "::1"};
        Client client = make(std::move(c));
        auto t = client.get(kPath);
        return t ? std::string("ok") : std::to_string(t.error().httpStatus);
    };
    EXPECT_EQ("ok", run(4));
    EXPECT_EQ("503", run(6));
    EXPECT_EQ("ok", run(0)) << "no preference: the addresses' own order";
    EXPECT_EQ(1u, v6.requests().size());
}

TEST(Failover, PreferIpFamilyFallsBackToTheOtherFamilyWhenThePreferredOneIsNotListening) {
    FakeServer v4only(serviceHandler());
    EventLog log;
    Config c = config({"http://one.test:" + std::to_string(v4only.port())}, {}, log);
    c.preferIpFamily = 6;
    c.hostAddresses["one.test"] = {"127.0.0.1", "::1"};
    Client client = make(std::move(c));
    auto t = client.get(kPath);
    ASSERT_TRUE(t) << t.error().describe();
    EXPECT_EQ(10u, t->rows.size());
}
