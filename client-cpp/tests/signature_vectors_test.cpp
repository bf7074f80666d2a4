// The shared signed-answer vectors (testdata/signatures/cases.json): the C++ verifier reaches every verdict the
// Java and Python verifiers reach and the service's signer is checked against.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "signature.h"

using namespace outpost::internal;

namespace {

const std::string kDir = std::string(OUTPOST_TESTDATA_DIR) + "/signatures";

nlohmann::json cases() {
    std::ifstream in(kDir + "/cases.json");
    std::stringstream s;
    s << in.rdbuf();
    return nlohmann::json::parse(s.str())["cases"];
}

std::string base64Decoded(const std::string& in) {
    if (in.empty()) return "";
    std::string out(in.size() / 4 * 3, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(&out[0]), reinterpret_cast<const unsigned char*>(in.data()),
                            static_cast<int>(in.size()));
    std::size_t pad = in.back() == '=' ? (in[in.size() - 2] == '=' ? 2 : 1) : 0;
    out.resize(static_cast<std::size_t>(n) - pad);
    return out;
}

Verdict verdictOf(const nlohmann::json& c, bool acceptSig1 = false, std::int64_t later = 0) {
    std::int64_t now = c["now"].get<std::int64_t>() + later;
    auto v = AnswerVerifier::load({{"test-2026", kDir + "/test-2026.pub.pem"}}, acceptSig1, [now] { return now; });
    EXPECT_TRUE(v) << v.error().message;
    std::string body = base64Decoded(c["body_base64"].get<std::string>());
    Hop hop{c["target"].get<std::string>(), c["status"].get<int>(), c["location"].get<std::string>(),
            c["etag"].get<std::string>(), sha256Hex(body.data(), body.size())};
    return (*v)->check(hop, c["header"].get<std::string>()).verdict;
}

}  // namespace

TEST(SignatureVectors, EveryCaseReachesItsVerdictAndEveryVerdictIsReached) {
    std::set<std::string> reached;
    for (const auto& c : cases()) {
        std::string got = toString(verdictOf(c));
        EXPECT_EQ(c["verdict"].get<std::string>(), got) << c["name"];
        reached.insert(got);
    }
    EXPECT_EQ((std::set<std::string>{"ok", "bad-signature", "expired", "unsigned", "unknown-key", "malformed",
                                     "sig1-refused"}),
              reached);
}

TEST(SignatureVectors, OutpostSig1VerifiesOnlyWhereAccepted) {
    int sig1 = 0;
    for (const auto& c : cases()) {
        std::string expected = c["verdict"].get<std::string>();
        if (expected == "sig1-refused") {
            ++sig1;
            EXPECT_EQ(Verdict::Ok, verdictOf(c, true)) << c["name"];
        } else {
            EXPECT_EQ(expected, toString(verdictOf(c, true))) << c["name"];  // acceptsig1 changes nothing else
        }
    }
    EXPECT_GT(sig1, 0);
}

TEST(SignatureVectors, OneSecondAfterItsExpiryASignatureIsExpired) {
    for (const auto& c : cases()) {
        if (c["name"] == "expires-now") EXPECT_EQ(Verdict::Expired, verdictOf(c, false, 1));
    }
}
