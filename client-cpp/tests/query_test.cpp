#include <gtest/gtest.h>

#include "outpost/query.h"

using namespace outpost;

TEST(ChannelSelection, CanonicalSpellings) {
    EXPECT_EQ("all", ChannelSelection::all().canonical());
    EXPECT_EQ("3", ChannelSelection::channel(3).canonical());
    EXPECT_EQ("1-10", ChannelSelection::range(1, 10).canonical());
    EXPECT_EQ("5", ChannelSelection::range(5, 5).canonical());  // a range of one is N
    EXPECT_EQ("1-4,7,9-12", ChannelSelection::ranges({{9, 12}, {7, 7}, {1, 4}}).canonical());  // sorted
    EXPECT_EQ("1-4", ChannelSelection::ranges({{1, 3}, {4, 4}}).canonical());                 // touching: joined
    EXPECT_EQ("1-6", ChannelSelection::ranges({{1, 5}, {2, 6}}).canonical());                 // overlapping: merged
    EXPECT_EQ("name:A%2FB%20c-d.e_f~", ChannelSelection::named("A/B c-d.e_f~").canonical());
    EXPECT_EQ("name:%C3%A9", ChannelSelection::named("\xC3\xA9").canonical());
    EXPECT_EQ("0-4294967295", ChannelSelection::range(0, 4294967295u).canonical());
}

TEST(ChannelSelection, ParsesAnySpellingToTheCanonicalOne) {
    EXPECT_EQ("all", ChannelSelection::parse("all").canonical());
    EXPECT_EQ("1-4,7,9-12", ChannelSelection::parse("9-12,7,1-4").canonical());
    EXPECT_EQ("1-4", ChannelSelection::parse("1-3,4").canonical());
    EXPECT_EQ("name:A%2FB", ChannelSelection::parse("name:A/B").canonical());
    // a channel name is passed on exactly as written: "ch0 " is not ch0
    EXPECT_EQ("name:ch0%20", ChannelSelection::parse("name:ch0 ").canonical());
    EXPECT_EQ("name:A%2FB", ChannelSelection::parse("name:A%2fB").canonical());
    EXPECT_THROW(ChannelSelection::parse("4-1"), std::invalid_argument);
    EXPECT_THROW(ChannelSelection::parse("x"), std::invalid_argument);
    EXPECT_THROW(ChannelSelection::parse("1,,2"), std::invalid_argument);
    EXPECT_THROW(ChannelSelection::parse("4294967296"), std::invalid_argument);
}

TEST(Paths, AreTheCanonicalUrlsOfApiMd) {
    EXPECT_EQ("/v1/bin/nodes", paths::nodes());
    EXPECT_EQ("/v1/json/channels/DEMO/Calo/Pedestals", paths::channels("/DEMO/Calo/Pedestals", "json"));
    EXPECT_EQ("/v1/bin/tags/DEMO/Calo/Gains", paths::tags("/DEMO/Calo/Gains"));
    EXPECT_EQ("/v1/bin/tag/DEMO-2026/DEMO/Calo/Gains", paths::tag("/DEMO/Calo/Gains", "DEMO-2026"));
    EXPECT_EQ("/v1/bin/at/HEAD/1767229200000000000/all/DEMO/Calo/Pedestals",
              paths::at("/DEMO/Calo/Pedestals", "HEAD", 1767229200000000000LL, ChannelSelection::all()));
    EXPECT_EQ("/v1/bin/browse/HEAD/0/9223372036854775807/1-3/cs/DEMO/Calo/Pedestals",
              paths::browse("/DEMO/Calo/Pedestals", "HEAD", 0, kMaxKey, ChannelSelection::range(1, 3),
                            Order::ChannelSince));
    EXPECT_EQ("/v1/bin/browse/T-1.x_y/7/7/3/sdc/A",
              paths::browse("/A", "T-1.x_y", 7, 7, ChannelSelection::channel(3), Order::SinceDescChannel));
    EXPECT_EQ("/v1/bin/count/HEAD/0/9223372036854775807/all/DEMO/Calo/Pedestals",
              paths::count("/DEMO/Calo/Pedestals", "HEAD", 0, kMaxKey, ChannelSelection::all()));
}

TEST(Paths, RejectQueriesThatCannotMeanAnything) {
    EXPECT_THROW(paths::channels("DEMO"), std::invalid_argument);
    EXPECT_THROW(paths::channels("/DEMO/"), std::invalid_argument);
    EXPECT_THROW(paths::tag("/A", "bad tag"), std::invalid_argument);
    EXPECT_THROW(paths::at("/A", "HEAD", -1, ChannelSelection::all()), std::invalid_argument);
    EXPECT_THROW(paths::browse("/A", "HEAD", 5, 4, ChannelSelection::all(), Order::ChannelSince), std::invalid_argument);
}

TEST(Window, AlignsLikeCacheAlign) {
    Window w{600, 1};
    EXPECT_EQ(std::make_pair(Key(1200), Key(1799)), alignedWindow(1234, w));
    EXPECT_EQ(std::make_pair(Key(1200), Key(1799)), alignedWindow(1200, w));
    Window w4{600, 4};  // step 150: lo = 1200, hi = 1800 -> [1200, 1799]; t=1399 -> lo 1350
    EXPECT_EQ(std::make_pair(Key(1350), Key(1949)), alignedWindow(1399, w4));
    EXPECT_EQ(std::make_pair(kMaxKey - kMaxKey % 600, kMaxKey), alignedWindow(kMaxKey, w));
    Window run{Key(1) << 32, 1};
    Key k = runLumiKey(358031, 17);
    EXPECT_EQ(runLumiKey(358031, 0), alignedWindow(k, run).first);
    EXPECT_EQ(runLumiKey(358032, 0) - 1, alignedWindow(k, run).second);
}

TEST(Keys, RunLumi) {
    EXPECT_EQ((Key(5) << 32) | 7, runLumiKey(5, 7));
    EXPECT_THROW(runLumiKey(1ull << 31, 0), std::invalid_argument);
    EXPECT_THROW(runLumiKey(0, 1ull << 32), std::invalid_argument);
}
