// SnapshotSession against a fake service: inline and by-URL folders, reuse within the validity interval and the
// state's lifetime, one state refresh when a pinned snapshot is gone.
#include <gtest/gtest.h>

#include <atomic>

#include "encoder.h"
#include "fake_server.h"
#include "outpost/snapshot.h"

using namespace outpost;
using namespace outpost::testing;

namespace {
const std::string kOld = "0123456789abcdef";
const std::string kNew = "fedcba9876543210";

Table part(const std::string& folder, std::int64_t value) {
    Table t = iovTable(folder, {{"v", ColumnType::Int32}});
    addIov(t, 0, 0, kMaxKey, {std::int64_t(value)});
    return t;
}

/// A snapshot of two folders: /A inline, /B by its pinned URL; valid for keys [0, 100).
Table snapshot(std::int64_t inlineValue) {
    Table t;
    t.header.kind = AnswerKind::Snapshot;
    t.header.folder = "/";
    t.header.tag = "GT";
    t.header.validSince = 0;
    t.header.validUntil = 100;
    t.header.columns = {{"folder", ColumnType::String255}, {"tag", ColumnType::String255},
                        {"generation", ColumnType::String255}, {"rows", ColumnType::UInt63},
                        {"url", ColumnType::String4k}, {"answer", ColumnType::Blob16M}};
    Row a;
    a.values = {std::string("/A"), std::string("HEAD"), std::string("1.1"), std::int64_t(1), Value{},
                Blob{encode(part("/A", inlineValue))}};
    Row b;
    b.values = {std::string("/B"), std::string("B-1"), std::string("2.2"), std::int64_t(1),
                std::string("/v1/bin/pin/2.2/at/B-1/0/all/B"), Value{}};
    t.rows = {a, b};
    return t;
}

Response withState(Response r, const std::string& state) {
    r.headers.push_back({"X-Outpost-State", state});
    return r;
}
}  // namespace

TEST(SnapshotSession, InlineAndPinnedFoldersAndReuseWithinTheInterval) {
    FakeServer server([](const Request& r) {
        if (r.path == "/v1/bin/snapshot/GT/5") return withState(Response::binary(encode(snapshot(7)), 10), kOld);
        if (r.path == "/v1/bin/pin/2.2/at/B-1/0/all/B") return Response::binary(encode(part("/B", 8)), 31536000);
        return Response::problem(404, "unexpected " + r.path);
    });
    auto client = Client::create(*Config::fromString(server.url()));
    ASSERT_TRUE(client);
    SnapshotSession session(*client, "GT");
    auto s = session.at(5);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_EQ(kOld, s->state);
    EXPECT_EQ(kOld, session.state());
    ASSERT_EQ(2u, s->folders.size());
    EXPECT_EQ(2, s->requests);
    EXPECT_EQ(std::int64_t(7), std::get<std::int64_t>(s->folder("/A")->answer.rows[0].values[3]));
    EXPECT_EQ(std::int64_t(8), std::get<std::int64_t>(s->folder("/B")->answer.rows[0].values[3]));
    EXPECT_EQ("B-1", s->folder("/B")->tag);
    EXPECT_EQ("2.2", s->folder("/B")->generation);
    // another key inside [0, 100) while the state is fresh: no request at all
    auto again = session.at(42);
    ASSERT_TRUE(again);
    EXPECT_EQ(0, again->requests);
    EXPECT_EQ(2u, server.requests().size());
}

TEST(SnapshotSession, AGoneStateIsRefreshedOnceAndTheSnapshotAskedAgain) {
    std::atomic<int> pinnedAsks{0};
    FakeServer server([&](const Request& r) {
        if (r.path == "/v1/bin/snapshot/GT/5") return withState(Response::binary(encode(snapshot(7)), 60), kOld);
        if (r.path == "/v1/bin/pin/" + kOld + "/snapshot/GT/500") {
            ++pinnedAsks;
            return Response::problem(410, "state is gone");
        }
        if (r.path == "/v1/bin/snapshot/GT/500") return withState(Response::binary(encode(snapshot(9)), 60), kNew);
        if (r.path == "/v1/bin/pin/2.2/at/B-1/0/all/B") return Response::binary(encode(part("/B", 8)), 31536000);
        return Response::problem(404, "unexpected " + r.path);
    });
    auto client = Client::create(*Config::fromString(server.url()));
    ASSERT_TRUE(client);
    SnapshotSession session(*client, "GT");
    ASSERT_TRUE(session.at(5));
    auto later = session.at(500);  // outside [0, 100): the pinned snapshot of the old state is asked first
    ASSERT_TRUE(later) << later.error().describe();
    EXPECT_EQ(1, pinnedAsks.load());
    EXPECT_EQ(kNew, later->state);
    EXPECT_EQ(std::int64_t(9), std::get<std::int64_t>(later->folder("/A")->answer.rows[0].values[3]));
}

TEST(SnapshotSession, ATimeAndARunLumiKeyWithValidityPerKeyType) {
    // /T a time folder valid for times [10, 20), /R a run-lumi folder valid for run-lumi keys [300, 400)
    Table t;
    t.header.kind = AnswerKind::Snapshot;
    t.header.folder = "/";
    t.header.tag = "GT";
    t.header.columns = {{"folder", ColumnType::String255}, {"tag", ColumnType::String255},
                        {"generation", ColumnType::String255}, {"rows", ColumnType::UInt63},
                        {"url", ColumnType::String4k}, {"answer", ColumnType::Blob16M},
                        {"keyType", ColumnType::String255}, {"validSince", ColumnType::UInt63},
                        {"validUntil", ColumnType::UInt63}};
    Row time;
    time.values = {std::string("/T"), std::string("HEAD"), std::string("1.1"), std::int64_t(1), Value{},
                   Blob{encode(part("/T", 1))}, std::string("time"), std::int64_t(10), std::int64_t(20)};
    Row run;
    run.values = {std::string("/R"), std::string("HEAD"), std::string("1.2"), std::int64_t(1), Value{},
                  Blob{encode(part("/R", 2))}, std::string("run-lumi"), std::int64_t(300), std::int64_t(400)};
    t.rows = {time, run};
    FakeServer server([&](const Request& r) {
        if (r.path == "/v1/bin/snapshot/GT/15,350") return withState(Response::binary(encode(t), 60), kOld);
        return Response::problem(404, "unexpected " + r.path);
    });
    auto client = Client::create(*Config::fromString(server.url()));
    ASSERT_TRUE(client);
    SnapshotSession session(*client, "GT");
    auto s = session.at(15, 350);
    ASSERT_TRUE(s) << s.error().describe();
    ASSERT_TRUE(s->time && s->runLumi);
    EXPECT_EQ(10, s->time->since);
    EXPECT_EQ(20, s->time->until);
    EXPECT_EQ(300, s->runLumi->since);
    EXPECT_EQ(400, s->runLumi->until);
    EXPECT_EQ("run-lumi", s->folder("/R")->keyType);
    // both keys inside their intervals: reused; one outside: asked again (pinned, then once more after the
    // fake's 404 as after a gone state)
    auto again = session.at(19, 301);
    ASSERT_TRUE(again);
    EXPECT_EQ(0, again->requests);
    EXPECT_EQ(1u, server.requests().size());
    EXPECT_FALSE(session.at(20, 301));
    EXPECT_EQ(3u, server.requests().size());
}

TEST(SnapshotSession, BadSpellingAndUnknownGlobalTag) {
    FakeServer server([](const Request&) { return Response::problem(404, "no global tag"); });
    auto client = Client::create(*Config::fromString(server.url()));
    ASSERT_TRUE(client);
    EXPECT_THROW(SnapshotSession(*client, "bad!tag"), std::invalid_argument);
    SnapshotSession session(*client, "NOPE");
    auto r = session.at(5);
    ASSERT_FALSE(r);
    EXPECT_EQ(ErrorCode::Request, r.error().code);
    EXPECT_EQ(404, r.error().httpStatus);
}
