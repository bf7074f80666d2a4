// The optional features (CMake options OUTPOST_WITH_PAC and OUTPOST_WITH_SIGNATURES): a plain configuration works in
// every build; a configuration that asks for a feature works where it is built in and is a clear configuration
// error (library and command line, exit 2) where it is not. run-tests.sh runs this in the normal build and in one
// with both features OFF.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "cli_run.h"
#include "fake_service.h"
#include "outpost/client.h"
#include "outpost/version.h"
#include "pac.h"
#include "signature.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

const std::string kTestdata = OUTPOST_TESTDATA_DIR;
// The fixed public key of the shared signature vectors: readable and Ed25519, so only the build decides.
const std::string kVerifyKey = "test-2026:" + kTestdata + "/signatures/test-2026.pub.pem";

/// A PAC file answering DIRECT, removed with the test.
struct DirectPac {
    std::string file = ::testing::TempDir() + "outpost-features-direct.pac";
    DirectPac() { std::ofstream(file) << "function FindProxyForURL(url, host) { return \"DIRECT\"; }\n"; }
    ~DirectPac() { std::remove(file.c_str()); }
    DirectPac(const DirectPac&) = delete;
    DirectPac& operator=(const DirectPac&) = delete;
    std::string url() const { return "file://" + file; }
};

Result<Client> clientFor(const std::string& spec) {
    auto cfg = Config::fromString(spec);
    if (!cfg) return cfg.error();
    return Client::create(std::move(*cfg));
}

}  // namespace

TEST(Features, APlainConfigurationNeedsNeither) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    auto client = clientFor("(serverurl=" + server.url() + ")");
    ASSERT_TRUE(client.ok()) << client.error().message;
    auto nodes = client->nodes();
    ASSERT_TRUE(nodes.ok()) << nodes.error().message;
    EXPECT_EQ(3u, nodes->rows.size());
    CliRun run = cli("--server " + server.url() + " --format csv folders");
    EXPECT_EQ(0, run.exitCode) << run.out;
    EXPECT_NE(std::string::npos, run.out.find("/DEMO/F,true")) << run.out;
}

TEST(Features, ProxyAutoConfigWorksOnlyWhereBuiltIn) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    DirectPac pacFile;
    std::string pac = pacFile.url();
    auto client = clientFor("(serverurl=" + server.url() + ")(proxyconfigurl=" + pac + ")");
    CliRun run = cli("--server " + server.url() + " --proxy-config " + pac + " --format csv folders");
    if (OUTPOST_WITH_PAC) {
        ASSERT_TRUE(client.ok()) << client.error().message;
        EXPECT_TRUE(client->nodes().ok());
        EXPECT_EQ(0, run.exitCode) << run.out;
    } else {
        ASSERT_FALSE(client.ok());
        EXPECT_EQ(ErrorCode::Config, client.error().code);
        EXPECT_EQ(internal::kPacMissing, client.error().message);
        EXPECT_EQ(2, run.exitCode) << run.out;
        EXPECT_NE(std::string::npos, run.out.find(internal::kPacMissing)) << run.out;
        EXPECT_TRUE(server.requests().empty()) << "nothing is asked with a configuration that cannot work";
    }
}

TEST(Features, SignedAnswersWorkOnlyWhereBuiltIn) {
    FakeServer server([](const Request& r) { return fakeService(r); });
    std::string sig = "(security=sig)(verifykey=" + kVerifyKey + ")";
    auto client = clientFor("(serverurl=" + server.url() + ")" + sig);
    CliRun run = cli("--config '(serverurl=" + server.url() + ")(retries=0)" + sig + "' folders");
    if (OUTPOST_WITH_SIGNATURES) {
        ASSERT_TRUE(client.ok()) << client.error().message;
        // The fake service signs nothing: verification is on, so its answers are refused.
        auto nodes = client->nodes();
        ASSERT_FALSE(nodes.ok());
        EXPECT_NE(std::string::npos, nodes.error().message.find("no signature")) << nodes.error().message;
        EXPECT_EQ(6, run.exitCode) << run.out;
    } else {
        ASSERT_FALSE(client.ok());
        EXPECT_EQ(ErrorCode::Config, client.error().code);
        EXPECT_EQ(internal::kSignaturesMissing, client.error().message);
        EXPECT_EQ(2, run.exitCode) << run.out;
        EXPECT_NE(std::string::npos, run.out.find(internal::kSignaturesMissing)) << run.out;
        EXPECT_TRUE(server.requests().empty()) << "nothing is asked with a configuration that cannot work";
    }
}
