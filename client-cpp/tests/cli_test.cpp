// outpost-cli end to end against the in-process fake service: output formats, time syntax, exit codes.
#include <gtest/gtest.h>

#include <vector>

#include "cli_run.h"
#include "fake_service.h"

using namespace outpost;
using namespace outpost::testing;

TEST(Cli, PrintsTablesCsvAndJson) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    std::string s = "--server " + server.url() + " ";
    CliRun table = cli(s + "channels /DEMO/F");
    EXPECT_EQ(0, table.exitCode) << table.out;
    EXPECT_NE(std::string::npos, table.out.find("(10 rows)")) << table.out;
    CliRun csv = cli(s + "--format csv find /DEMO/F 12345 -c 3");
    EXPECT_EQ(0, csv.exitCode) << csv.out;
    EXPECT_EQ("channel,since,until,payload\n3,12003,13003,3:12\n", csv.out);
    CliRun json = cli(s + "--format json browse /DEMO/F 0 1999 --channels 1-2");
    EXPECT_EQ(0, json.exitCode) << json.out;
    EXPECT_NE(std::string::npos, json.out.find("\"rowCount\":4")) << json.out;
    EXPECT_NE(std::string::npos, json.out.find("[1,1,1001,\"1:0\"]")) << json.out;
    CliRun count = cli(s + "count /DEMO/F min 9999 --format=csv");
    EXPECT_EQ("count\n100\n", count.out);
    CliRun nodes = cli(s + "--format csv folders");
    EXPECT_NE(std::string::npos, nodes.out.find("/DEMO/R,true,SV,run-lumi")) << nodes.out;
}

TEST(Cli, ReadsIsoDatesAndRunLumi) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    std::string s = "--server " + server.url() + " --no-align --format csv ";
    EXPECT_EQ(0, cli(s + "find /DEMO/F 1970-01-01T00:00:00.000012345Z -c 1").exitCode);
    EXPECT_EQ(0, cli(s + "find /DEMO/R 7/5 -c 1").exitCode);
    EXPECT_EQ(0, cli(s + "find /DEMO/R 7:5 --channels=1").exitCode);
    EXPECT_EQ(0, cli(s + "find /DEMO/F 1970-01-01T02:00:00.000012345+02:00 -c 1").exitCode);
    // the at-time queries (the others ask whether channel 1 exists and which key type the folder has)
    std::vector<std::string> reqs;
    for (const auto& r : server.requests()) {
        if (r.path.find("/at/") != std::string::npos) reqs.push_back(r.path);
    }
    ASSERT_EQ(4u, reqs.size());
    EXPECT_EQ("/v1/bin/at/HEAD/12345/1/DEMO/F", reqs[0]);
    EXPECT_EQ("/v1/bin/at/HEAD/" + std::to_string((7LL << 32) | 5) + "/1/DEMO/R", reqs[1]);
    EXPECT_EQ(reqs[1], reqs[2]);
    EXPECT_EQ(reqs[0], reqs[3]);
    std::size_t before = server.requests().size();
    for (const char* bad : {"inf", "2026-01-01t10:00", "1969-12-31", "2262-04-11T23:47:16.854775808Z",
                            "9223372036854775808", "2026-02-30", "2026-01-01T24:00", "2147483648/1"}) {
        EXPECT_EQ(2, cli(s + "find /DEMO/F " + bad).exitCode) << bad;
    }
    EXPECT_EQ(before, server.requests().size()) << "a bad time sends no request";
}

TEST(Cli, PrintsRunLumiKeysAsRunSlashLumiAndRefusesUnknownChannelNumbers) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    std::string s = "--server " + server.url() + " --no-align ";
    CliRun csv = cli(s + "--format csv browse /DEMO/R raw:0 raw:2999 -c 1");
    EXPECT_EQ(0, csv.exitCode) << csv.out;
    EXPECT_NE(std::string::npos, csv.out.find("\n1,0/1,0/1001,")) << csv.out;
    EXPECT_EQ(std::string::npos, csv.out.find("\n1,1,")) << "keys as RUN/LUMI, not numbers: " << csv.out;
    CliRun json = cli(s + "--format json browse /DEMO/R raw:0 raw:2999 -c 1");
    EXPECT_NE(std::string::npos, json.out.find("[1,")) << json.out;
    EXPECT_EQ(std::string::npos, json.out.find("/0,")) << "json keeps numbers: " << json.out;
    EXPECT_EQ(3, cli(s + "find /DEMO/F 12345 -c 77").exitCode) << "no channel 77 (the fake has 0-9)";
    EXPECT_EQ(0, cli(s + "find /DEMO/F 12345 -c 7").exitCode);
}

// One rule for keys as text (docs/cli.md, "Times"): the form decides in which folders a key may be read.
TEST(Cli, ReadsAKeyOnlyInTheFoldersItsFormFits) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    std::string s = "--server " + server.url() + " --no-align --format csv ";
    CliRun bare = cli(s + "find /DEMO/R 7 -c 1");
    EXPECT_EQ(2, bare.exitCode) << bare.out;
    EXPECT_NE(std::string::npos, bare.out.find("'7' is not a run-lumi key: write RUN/LUMI, e.g. 7/0 for run 7, lumi 0;"
                                               " a raw key is written raw:7")) << bare.out;
    CliRun big = cli(s + "--format json find /DEMO/R 30064771077 -c 1");
    EXPECT_EQ(2, big.exitCode) << big.out;
    EXPECT_NE(std::string::npos, big.out.find("(7/5 is the raw key 30064771077)")) << big.out;
    EXPECT_EQ(0, cli(s + "find /DEMO/R raw:30064771077 -c 1").exitCode);
    EXPECT_EQ(2, cli(s + "find /DEMO/R 2026-01-01 -c 1").exitCode);
    EXPECT_EQ(2, cli(s + "browse /DEMO/R 7/5 8 -c 1").exitCode);
    EXPECT_EQ(2, cli(s + "count /DEMO/F 7/5 max").exitCode);
    EXPECT_EQ(0, cli(s + "count /DEMO/F 12345 max").exitCode);
    EXPECT_EQ(2, cli(s + "find /DEMO/F raw:x").exitCode);
    std::size_t ats = 0;
    for (const auto& r : server.requests()) ats += r.path.find("/at/") != std::string::npos;
    EXPECT_EQ(1u, ats) << "only the raw key was asked";
}

TEST(Cli, RefusesASnapshotFileAsTheOtherToolsDo) {
    for (const std::string& args : {std::string("--server sqlite:outpost-demo.db nodes"),
                                    std::string("--config '(serverurl=sqlite:/tmp/snapshot.db)' globaltags")}) {
        CliRun r = cli(args);
        EXPECT_EQ(2, r.exitCode) << args << ": " << r.out;
        EXPECT_NE(std::string::npos, r.out.find("to query a snapshot file, serve it")) << r.out;
    }
}

TEST(Cli, DirectMeansNoProxyWhateverTheEnvironmentSays) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    DeadPort deadProxy;
    std::string env = "OUTPOST_SERVER=" + server.url() + " OUTPOST_PROXY=" + deadProxy.url() + " ";
    std::string port = deadProxy.url().substr(deadProxy.url().rfind(':'));
    CliRun direct = cli("--direct -v nodes", env);
    EXPECT_EQ(0, direct.exitCode) << direct.out;
    EXPECT_EQ(std::string::npos, direct.out.find(port)) << direct.out;
    CliRun viaProxy = cli("-v --retries 0 nodes", env);
    EXPECT_NE(std::string::npos, viaProxy.out.find(port)) << viaProxy.out;
}

TEST(Cli, ExitCodesSayWhatWentWrong) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    DeadPort dead;
    EXPECT_EQ(2, cli("").exitCode);
    EXPECT_EQ(2, cli("--server " + server.url() + " frobnicate").exitCode);
    EXPECT_EQ(2, cli("--server " + server.url() + " find /DEMO/F yesterday").exitCode);
    EXPECT_EQ(2, cli("--server " + server.url() + " tags not-a-path").exitCode);
    EXPECT_EQ(2, cli("--server " + server.url() + " nodes --format xml").exitCode);
    EXPECT_EQ(2, cli("--server " + server.url() + " browse /DEMO/F max min").exitCode);
    EXPECT_EQ(2, cli("--server " + server.url() + " nodes --retries 11").exitCode);
    CliRun missing = cli("--server " + server.url() + " browse /DEMO/Missing");
    EXPECT_EQ(3, missing.exitCode) << missing.out;
    CliRun down = cli("--config '(serverurl=" + dead.url() + ")(retries=0)' nodes");
    EXPECT_EQ(5, down.exitCode) << down.out;
    EXPECT_NE(std::string::npos, down.out.find("could not connect")) << down.out;
}
