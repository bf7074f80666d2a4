// Against the real service: set OUTPOST_TEST_SERVER=http://127.0.0.1:8000 (e.g. while `./outpost start` runs).
// With OUTPOST_TEST_VERIFYKEY=KEYID:FILE (the service started with that key, as ./outpost test does) every answer
// is verified (security=sig), also through the real Squid of ./outpost test's second run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "outpost/client.h"
#include "outpost/snapshot.h"

using namespace outpost;

namespace {
const char* serverUrl() { return std::getenv("OUTPOST_TEST_SERVER"); }
const char* verifyKey() { return std::getenv("OUTPOST_TEST_VERIFYKEY"); }

/// The configuration of OUTPOST_TEST_SERVER, verifying signatures when OUTPOST_TEST_VERIFYKEY is set.
Result<Config> testConfig(const std::string& url) {
    auto cfg = Config::fromString(url);
    if (!cfg || !verifyKey() || !*verifyKey()) return cfg;
    auto signedToo = cfg->apply("(security=sig)(verifykey=" + std::string(verifyKey()) + ")");
    if (!signedToo) return signedToo.error();
    return cfg;
}
}  // namespace

/// The tests against OUTPOST_TEST_SERVER, skipped without it: `config` and `client` are that service's.
class Integration : public ::testing::Test {
protected:
    void SetUp() override {
        const char* url = serverUrl();
        if (!url || !*url) GTEST_SKIP() << "OUTPOST_TEST_SERVER is not set (e.g. http://127.0.0.1:8000): skipped";
        auto cfg = testConfig(url);
        ASSERT_TRUE(cfg) << cfg.error().message;
        config = *cfg;
        auto created = Client::create(config);
        ASSERT_TRUE(created) << created.error().message;
        client.emplace(std::move(*created));
    }

    Config config;
    std::optional<Client> client;
};

TEST_F(Integration, SignedAnswersVerifyAndAnotherKeyIsRefused) {
    if (!verifyKey() || !*verifyKey()) GTEST_SKIP() << "OUTPOST_TEST_VERIFYKEY is not set: skipped";
    auto nodes = client->nodes();
    ASSERT_TRUE(nodes) << nodes.error().describe();
    // The same public key under another id: the service's key id is unknown to this client.
    std::string spec = verifyKey();
    config.verifyKeys = {{"not-the-service-key", spec.substr(spec.find(':') + 1)}};
    config.retries = 0;
    auto other = Client::create(config);
    ASSERT_TRUE(other) << other.error().message;
    auto refused = other->nodes();
    ASSERT_FALSE(refused);
    ASSERT_FALSE(refused.error().attempts.empty());
    for (const auto& a : refused.error().attempts) EXPECT_EQ(ErrorCode::Untrusted, a.code) << a.message;
}

TEST_F(Integration, AgainstTheRunningService) {
    auto nodes = client->nodes();
    ASSERT_TRUE(nodes) << nodes.error().describe();
    ASSERT_FALSE(nodes->rows.empty());
    int tested = 0;
    for (std::size_t i = 0; i < nodes->rows.size() && tested < 3; ++i) {
        auto* isFolder = std::get_if<bool>(&nodes->at(i, "folder"));
        if (!isFolder || !*isFolder) continue;
        std::string folder = std::get<std::string>(nodes->at(i, "path"));
        SCOPED_TRACE(folder);
        auto ch = client->channels(folder);
        ASSERT_TRUE(ch) << ch.error().describe();
        ASSERT_TRUE(client->tags(folder)) << "tags";
        auto n = client->count(folder, ChannelSelection::all(), 0, kMaxKey);
        ASSERT_TRUE(n) << n.error().describe();
        auto all = client->browse(folder, ChannelSelection::all(), 0, kMaxKey);
        ASSERT_TRUE(all) << all.error().describe();
        EXPECT_EQ(*n, all->rows.size());
        if (!all->rows.empty()) {
            const Row& r = all->rows[all->rows.size() / 2];
            auto at = client->objectsAt(folder, ChannelSelection::channel(r.channel), r.since);
            ASSERT_TRUE(at) << at.error().describe();
            ASSERT_EQ(1u, at->rows.size());
            EXPECT_EQ(r.since, at->rows[0].since);
            // the server's own at-time answer agrees with the one picked from the aligned window
            auto direct = client->get(paths::at(folder, "HEAD", r.since, ChannelSelection::channel(r.channel)));
            ASSERT_TRUE(direct) << direct.error().describe();
            ASSERT_EQ(1u, direct->rows.size());
            EXPECT_EQ(direct->rows[0].values, at->rows[0].values);
        }
        ++tested;
    }
    auto bad = client->channels("/NO/SUCH/FOLDER");
    ASSERT_FALSE(bad);
    EXPECT_EQ(ErrorCode::Request, bad.error().code);
}

TEST_F(Integration, SnapshotOfTheDemoGlobalTagEqualsPerFolderAnswers) {
    SnapshotSession session(*client, "DEMO-GT-2026");
    const Key t = 1767229200000000000;  // 2026-01-01T01:00:00Z
    const Key rl = (Key(302) << 32) | 17;  // run 302, lumi 17: the global tag holds time and run-lumi folders
    auto oneKey = session.at(t);
    ASSERT_FALSE(oneKey);
    EXPECT_EQ(400, oneKey.error().httpStatus);
    auto snap = session.at(t, rl);
    ASSERT_TRUE(snap) << snap.error().describe();
    EXPECT_EQ(16u, session.state().size());
    ASSERT_NE(nullptr, snap->folder("/DEMO/Calo/Gains"));
    EXPECT_EQ("GAINS-v2", snap->folder("/DEMO/Calo/Gains")->tag);
    EXPECT_EQ("run-lumi", snap->folder("/DEMO/Calo/Gains")->keyType);
    for (const auto& f : snap->folders) {
        SCOPED_TRACE(f.folder);
        const Key key = f.keyType == "run-lumi" ? rl : t;
        auto direct = client->get(paths::at(f.folder, f.tag, key, ChannelSelection::all()));
        ASSERT_TRUE(direct) << direct.error().describe();
        ASSERT_EQ(direct->rows.size(), f.answer.rows.size());
        EXPECT_FALSE(f.answer.rows.empty());
        for (std::size_t i = 0; i < direct->rows.size(); ++i) EXPECT_EQ(direct->rows[i].values, f.answer.rows[i].values);
    }
    ASSERT_TRUE(snap->time && snap->runLumi);
    EXPECT_TRUE(snap->covers(t, rl));
    auto again = session.at(snap->time->since, snap->runLumi->since);
    ASSERT_TRUE(again);
    EXPECT_EQ(0, again->requests);
}
