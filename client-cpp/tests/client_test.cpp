// Queries, cache-aligned at-time lookups, the in-process cache, streaming and many threads on one client.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "fake_service.h"
#include "outpost/client.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

struct FakeClock {
    std::shared_ptr<std::atomic<long long>> ms = std::make_shared<std::atomic<long long>>(0);
    std::function<std::chrono::steady_clock::time_point()> fn() const {
        auto p = ms;
        return [p] { return std::chrono::steady_clock::time_point(std::chrono::milliseconds(p->load())); };
    }
};

Client make(Config c) {
    auto r = Client::create(std::move(c));
    if (!r) throw std::runtime_error(r.error().message);
    return std::move(*r);
}

Config base(const FakeServer& s) {
    Config c;
    c.servers = {s.url()};
    c.retries = 0;
    c.timeWindow = Window{10000, 1};
    return c;
}

std::vector<std::string> requestedPaths(const FakeServer& s) {
    std::vector<std::string> out;
    for (auto& r : s.requests()) out.push_back(r.path);
    return out;
}

}  // namespace

TEST(Client, FindAsksForTheAlignedWindowAndPicksTheRowValidAtT) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    Client client = make(base(server));
    auto t = client.find("/DEMO/F", 3, 12345);
    ASSERT_TRUE(t) << t.error().describe();
    ASSERT_EQ(1u, t->rows.size());
    EXPECT_EQ(3u, t->rows[0].channel);
    EXPECT_EQ(12003, t->rows[0].since);
    EXPECT_EQ(13003, t->rows[0].until);
    EXPECT_EQ("3:12", std::get<std::string>(t->at(0, "payload")));
    EXPECT_EQ(12003, t->header.validSince);
    EXPECT_EQ(13003, t->header.validUntil);
    EXPECT_EQ((std::vector<std::string>{"/v1/bin/nodes", "/v1/bin/browse/HEAD/10000/19999/3/cs/DEMO/F"}),
              requestedPaths(server));
}

TEST(Client, ObjectsAtOverASelectionAndValidityRange) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    Client client = make(base(server));
    auto t = client.objectsAt("/DEMO/F", ChannelSelection::parse("1-2,5"), 15002, "HEAD");
    ASSERT_TRUE(t) << t.error().describe();
    ASSERT_EQ(3u, t->rows.size());
    EXPECT_EQ(1u, t->rows[0].channel);
    EXPECT_EQ(15001, t->rows[0].since);
    EXPECT_EQ(2u, t->rows[1].channel);
    EXPECT_EQ(15002, t->rows[1].since);
    EXPECT_EQ(5u, t->rows[2].channel);
    EXPECT_EQ(14005, t->rows[2].since);
    EXPECT_EQ(15002, t->header.validSince);   // channel 2 starts at 15002
    EXPECT_EQ(15005, t->header.validUntil);   // channel 5 changes at 15005
}

TEST(Client, NearbyTimesShareOneCachedWindowUntilMaxAge) {
    FakeClock clock;
    FakeServer server([](const Request& r) { return fakeService(r, 60); });
    Config c = base(server);
    c.clock = clock.fn();
    Client client = make(c);
    for (Key t = 10000; t < 20000; t += 500) ASSERT_TRUE(client.find("/DEMO/F", 1, t));
    EXPECT_EQ(2u, server.requests().size());  // nodes + one window
    clock.ms->store(61000);
    ASSERT_TRUE(client.find("/DEMO/F", 1, 10000));
    EXPECT_EQ(3u, server.requests().size());  // expired: the window is fetched again (key types are kept)
    EXPECT_GE(client.stats().cacheHits, 19u);
}

TEST(Client, AnswersWithoutMaxAgeAreNotCached) {
    FakeServer server([](const Request& r) {
        Response resp = fakeService(r);
        resp.headers[1].second = "no-store";
        return resp;
    });
    Client client = make(base(server));
    ASSERT_TRUE(client.channels("/DEMO/F"));
    ASSERT_TRUE(client.channels("/DEMO/F"));
    EXPECT_EQ(2u, server.requests().size());
}

TEST(Client, RunLumiFoldersUseOneRunWindows) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    Client client = make(base(server));
    ASSERT_TRUE(client.find("/DEMO/R", 0, runLumiKey(7, 5)));
    EXPECT_EQ("/v1/bin/browse/HEAD/" + std::to_string(runLumiKey(7, 0)) + "/" + std::to_string(runLumiKey(8, 0) - 1) +
                  "/0/cs/DEMO/R",
              server.requests().at(1).path);
}

TEST(Client, PerFolderWindowOrDirectAtQueries) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    Config c = base(server);
    c.folderWindows["/DEMO/"] = Window{0, 1};  // direct /at/ queries for everything under /DEMO
    Client client = make(c);
    auto t = client.find("/DEMO/F", 4, 12345, "F-v1");
    ASSERT_TRUE(t) << t.error().describe();
    EXPECT_EQ((std::vector<std::string>{"/v1/bin/at/F-v1/12345/4/DEMO/F"}), requestedPaths(server));
}

TEST(Client, MetadataQueries) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    Client client = make(base(server));
    auto nodes = client.nodes();
    ASSERT_TRUE(nodes);
    EXPECT_EQ(AnswerKind::Nodes, nodes->header.kind);
    EXPECT_EQ("/DEMO/F", std::get<std::string>(nodes->at(1, "path")));
    auto ch = client.channels("/DEMO/F");
    ASSERT_TRUE(ch);
    EXPECT_EQ(10u, ch->rows.size());
    auto tags = client.tags("/DEMO/F");
    ASSERT_TRUE(tags);
    EXPECT_EQ("F-v1", std::get<std::string>(tags->at(0, "name")));
    auto tag = client.resolveTag("/DEMO/F", "DEMO-2026");
    ASSERT_TRUE(tag);
    EXPECT_EQ(AnswerKind::Tag, tag->header.kind);
    auto n = client.count("/DEMO/F", ChannelSelection::all(), 0, 9999);
    ASSERT_TRUE(n) << n.error().describe();
    EXPECT_EQ(100u, *n);
    auto bad = client.channels("no-slash");
    ASSERT_FALSE(bad);
    EXPECT_EQ(ErrorCode::InvalidArgument, bad.error().code);
}

TEST(Client, StreamingBrowseDeliversRowsAsTheyArrive) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    Client client = make(base(server));
    struct Sink : RowSink {
        int begins = 0;
        std::uint64_t rows = 0, ended = 0;
        Key lastSince = -1;
        bool ordered = true;
        void begin(const AnswerHeader&) override { ++begins; rows = 0; }
        bool row(const AnswerHeader&, const Row& r) override {
            ++rows;
            if (r.channel == 0) { ordered = ordered && r.since > lastSince; lastSince = r.since; }
            return true;
        }
        void end(const AnswerHeader&, std::uint64_t n) override { ended = n; }
    } sink;
    auto n = client.browse("/DEMO/F", ChannelSelection::all(), 0, 999999, "HEAD", Order::ChannelSince, sink);
    ASSERT_TRUE(n) << n.error().describe();
    EXPECT_EQ(10000u, *n);
    EXPECT_EQ(10000u, sink.rows);
    EXPECT_EQ(10000u, sink.ended);
    EXPECT_EQ(1, sink.begins);
    EXPECT_TRUE(sink.ordered);
}

TEST(Client, ManyThreadsShareOneClient) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    Config c = base(server);
    c.cacheMaxBytes = 0;  // every query goes to the server
    c.maxIdleConnections = 4;
    Client client = make(c);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int th = 0; th < 8; ++th) {
        threads.emplace_back([&client, &failures, th] {
            for (int i = 0; i < 40; ++i) {
                std::uint32_t ch = std::uint32_t((th + i) % 10);
                Key t = 1000 * (th * 40 + i) + 500;
                auto r = client.find("/DEMO/F", ch, t);
                if (!r || r->rows.size() != 1 || r->rows[0].channel != ch || !(r->rows[0].since <= t && t < r->rows[0].until)) {
                    ++failures;
                }
                auto n = client.count("/DEMO/F", ChannelSelection::channel(ch), 0, 9999);
                if (!n || *n != 10) ++failures;
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(0, failures.load());
    EXPECT_GE(server.requests().size(), 8u * 40u * 2u);
    EXPECT_LE(server.connections(), 8 + 4 * 2);  // pooled connections are reused, not one per request
}
