// Signed answers (security=sig, docs/client-failover.md "Signed answers"): in-process servers sign fakeService's
// answers with an Ed25519 key made here; a proxy that alters a byte or drops the header is a failed route.
// Through the real service and a real Squid: the integration test, which ./outpost test runs with a signing key.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <unistd.h>

#include "fake_service.h"
#include "outpost/client.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

const std::string kPath = "/v1/bin/channels/DEMO/F";

/// An Ed25519 key pair; the public key is written to a PEM file in a temporary folder removed again at the end.
class TestKey {
public:
    explicit TestKey(const std::string& name) {
        key_ = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
        std::string tmpl = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/outpost-sig.XXXXXX";
        dir_ = mkdtemp(&tmpl[0]) ? tmpl : "";
        file_ = dir_ + "/" + name + ".pub";
        FILE* f = std::fopen(file_.c_str(), "w");
        if (!key_ || !f || PEM_write_PUBKEY(f, key_) != 1) throw std::runtime_error("cannot make a test key");
        std::fclose(f);
    }
    ~TestKey() {
        EVP_PKEY_free(key_);
        std::remove(file_.c_str());
        rmdir(dir_.c_str());
    }
    const std::string& publicKeyFile() const { return file_; }

    /// The X-Outpost-Signature value (outpost-sig-2) the service would send for `body` at `target`; a redirect is
    /// signed with its status and Location. `expiresIn`: seconds from now.
    std::string header(const std::string& keyId, const std::string& target, const std::string& body, int status = 200,
                       const std::string& location = "", long expiresIn = 360) const {
        std::string expires = std::to_string(static_cast<long long>(std::time(nullptr)) + expiresIn);
        std::string b64 = sign("outpost-sig-2\nGET\n" + target + "\n" + std::to_string(status) + "\n" + location +
                               "\n\n" + expires + "\n" + hexDigest(body));
        return "outpost-sig-2 ed25519 " + keyId + " " + expires + " " + b64;
    }

    /// An outpost-sig-1 header (target and body only), as the service sent before.
    std::string v1Header(const std::string& keyId, const std::string& target, const std::string& body) const {
        return "ed25519 " + keyId + " " + sign("outpost-sig-1\n" + target + "\n" + hexDigest(body));
    }

private:
    static std::string hexDigest(const std::string& body) {
        unsigned char md[32];
        unsigned int n = 0;
        EVP_Digest(body.data(), body.size(), md, &n, EVP_sha256(), nullptr);
        std::string hex;
        for (unsigned char c : md) {
            static const char* const digits = "0123456789abcdef";
            hex += digits[c >> 4];
            hex += digits[c & 15];
        }
        return hex;
    }

    std::string sign(const std::string& message) const {
        unsigned char sig[64];
        std::size_t len = sizeof sig;
        EVP_MD_CTX* ctx = EVP_MD_CTX_new();
        EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, key_);
        EVP_DigestSign(ctx, sig, &len, reinterpret_cast<const unsigned char*>(message.data()), message.size());
        EVP_MD_CTX_free(ctx);
        unsigned char b64[128];
        int b = EVP_EncodeBlock(b64, sig, static_cast<int>(len));
        return std::string(reinterpret_cast<char*>(b64), static_cast<std::size_t>(b));
    }

    EVP_PKEY* key_ = nullptr;
    std::string dir_;
    std::string file_;
};

/// fakeService's answers signed by `key` as `keyId` for the path asked; "/v1/bin/channels/DEMO/Old" redirects.
Handler signedBy(const TestKey& key, const std::string& keyId) {
    return [&key, keyId](const Request& r) {
        if (r.path == "/v1/bin/channels/DEMO/Old") {
            Response moved;
            moved.status = 301;
            moved.headers = {{"Location", kPath}, {"Cache-Control", "public, max-age=60"},
                             {"X-Outpost-Signature", key.header(keyId, r.path, "", 301, kPath)}};
            return moved;
        }
        Response a = fakeService(r);
        if (a.status == 200) a.headers.emplace_back("X-Outpost-Signature", key.header(keyId, r.path, a.body));
        return a;
    };
}

struct Events {
    std::mutex mu;
    std::vector<std::string> lines;  // "kind proxy|direct detail"
};

Config signedConfig(std::vector<std::string> servers, std::vector<std::string> proxies,
                    std::vector<std::pair<std::string, std::string>> keys, Events& events) {
    Config c;
    c.servers = std::move(servers);
    c.proxies = std::move(proxies);
    c.retries = 0;
    c.cacheMaxBytes = 0;
    c.signedAnswers = true;
    c.verifyKeys = std::move(keys);
    c.onEvent = [&events](const Event& e) {
        if (e.kind == Event::Kind::Attempt) return;
        std::lock_guard<std::mutex> lock(events.mu);
        events.lines.push_back(std::string(toString(e.kind)) + " " + (e.proxy.empty() ? "direct" : "proxy") + " " +
                               e.detail);
    };
    return c;
}

Client make(Config c) {
    auto r = Client::create(std::move(c));
    if (!r) throw std::runtime_error(r.error().message);
    return std::move(*r);
}

/// A proxy that forwards to `origin` and alters the answer with `tamper`.
Handler tampering(FakeServer& origin, std::function<void(Response&)> tamper) {
    Handler forward = proxyTo({&origin});
    return [forward, tamper](const Request& r) {
        Response a = forward(r);
        if (a.status == 200) tamper(a);
        return a;
    };
}

}  // namespace

TEST(SignedAnswers, VerifiedWithEitherConfiguredKeyAndAfterARedirect) {
    TestKey oldKey("old"), newKey("new");
    FakeServer old(signedBy(oldKey, "k-1")), rotated(signedBy(newKey, "k-2"));
    for (FakeServer* s : {&old, &rotated}) {
        Events events;
        Client c = make(signedConfig({s->url()}, {}, {{"k-1", oldKey.publicKeyFile()}, {"k-2", newKey.publicKeyFile()}},
                                     events));
        auto t = c.get(kPath);
        ASSERT_TRUE(t) << t.error().describe();
        EXPECT_EQ(10u, t->rows.size());
        auto moved = c.get("/v1/bin/channels/DEMO/Old");
        ASSERT_TRUE(moved) << "verified against the final URL: " << moved.error().describe();
    }
}

TEST(SignedAnswers, AProxyThatFlipsOneByteOrDropsTheHeaderIsFailedOverToTheDirectRoute) {
    TestKey key("site");
    FakeServer origin(signedBy(key, "site-1"));
    FakeServer flips(tampering(origin, [](Response& a) { a.body[a.body.size() / 2] ^= 0x01; }));
    FakeServer drops(tampering(origin, [](Response& a) {
        for (auto it = a.headers.begin(); it != a.headers.end();) {
            it = it->first == "X-Outpost-Signature" ? a.headers.erase(it) : it + 1;
        }
    }));
    for (auto [proxy, reason] : {std::pair{&flips, "does not verify"}, std::pair{&drops, "no signature"}}) {
        Events events;
        Client c = make(signedConfig({origin.url()}, {proxy->url()}, {{"site-1", key.publicKeyFile()}}, events));
        auto t = c.get(kPath);
        ASSERT_TRUE(t) << t.error().describe();
        EXPECT_EQ(10u, t->rows.size());
        ASSERT_EQ(2u, events.lines.size());
        EXPECT_EQ(0u, events.lines[0].rfind("untrusted proxy ", 0)) << events.lines[0];
        EXPECT_NE(std::string::npos, events.lines[0].find(reason)) << events.lines[0];
        EXPECT_EQ(0u, events.lines[1].rfind("success direct", 0)) << events.lines[1];
    }
}

TEST(SignedAnswers, AWrongOrUnknownKeyFailsEveryRouteWithAClearError) {
    TestKey key("site"), other("other");
    FakeServer origin(signedBy(key, "site-1"));
    Events events;
    Client wrong = make(signedConfig({origin.url()}, {}, {{"site-1", other.publicKeyFile()}}, events));
    auto t = wrong.get(kPath);
    ASSERT_FALSE(t);
    EXPECT_EQ(ErrorCode::Unavailable, t.error().code);
    ASSERT_EQ(1u, t.error().attempts.size());
    EXPECT_EQ(ErrorCode::Untrusted, t.error().attempts[0].code);
    EXPECT_NE(std::string::npos, t.error().message.find("signature by key 'site-1' does not verify")) << t.error().message;
    Client unknown = make(signedConfig({origin.url()}, {}, {{"site-2", key.publicKeyFile()}}, events));
    auto u = unknown.get(kPath);
    ASSERT_FALSE(u);
    EXPECT_NE(std::string::npos, u.error().message.find("answer signed with unknown key 'site-1' (verifykey has [site-2])"))
        << u.error().message;
}

TEST(SignedAnswers, Configuration) {
    TestKey key("site");
    auto c = Config::fromString("(serverurl=http://a:8000)(security=sig)(verifykey=k-1:" + key.publicKeyFile() + ")");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_TRUE(c->signedAnswers);
    ASSERT_EQ(1u, c->verifyKeys.size());
    EXPECT_EQ("k-1", c->verifyKeys[0].first);
    auto again = Config::fromString(c->toString());
    ASSERT_TRUE(again);
    EXPECT_EQ(c->verifyKeys, again->verifyKeys);

    auto noKey = Config::fromString("(serverurl=http://a:8000)(security=sig)");
    ASSERT_TRUE(noKey);
    auto refused = Client::create(*noKey);
    ASSERT_FALSE(refused);
    EXPECT_NE(std::string::npos, refused.error().message.find("security=sig needs at least one verifykey=KEYID:FILE"));
    auto badForm = Config::fromString("(serverurl=http://a:8000)(verifykey=" + key.publicKeyFile() + ")");
    ASSERT_FALSE(badForm);
    EXPECT_NE(std::string::npos, badForm.error().message.find("verifykey is KEYID:FILE"));
    auto unverified = Config::fromString("(serverurl=http://a:8000)(verifykey=k:" + key.publicKeyFile() + ")");
    ASSERT_TRUE(unverified);
    EXPECT_EQ(std::vector<std::string>{"verifykey is ignored without security=sig: answers are not verified"},
              unverified->warnings);
    auto missing = Config::fromString("(serverurl=http://a:8000)(security=sig)(verifykey=k:/nonexistent/k.pub)");
    ASSERT_TRUE(missing);
    auto unreadable = Client::create(*missing);
    ASSERT_FALSE(unreadable);
    EXPECT_EQ(ErrorCode::Config, unreadable.error().code);
    EXPECT_NE(std::string::npos, unreadable.error().message.find("verifykey /nonexistent/k.pub cannot be read"));
}

TEST(SignedAnswers, ARedirectNotSignedForItsHopIsRefusedLikeABadAnswer) {
    TestKey key("site");
    FakeServer good(signedBy(key, "site-1"));
    auto redirecting = [&key](std::function<std::string(const std::string&)> header) {
        return [&key, header](const Request& r) {
            if (r.path == "/v1/bin/channels/DEMO/Old") {
                Response moved;
                moved.status = 301;
                moved.headers = {{"Location", kPath}};
                std::string h = header(r.path);
                if (!h.empty()) moved.headers.emplace_back("X-Outpost-Signature", h);
                return moved;
            }
            return signedBy(key, "site-1")(r);
        };
    };
    std::vector<std::pair<std::string, std::function<std::string(const std::string&)>>> cases = {
        {"no signature", [](const std::string&) { return std::string(); }},
        {"does not verify", [&key](const std::string& t) { return key.header("site-1", t, "", 301, "/v1/bin/x"); }},
        {"does not verify", [&key](const std::string&) { return key.header("site-1", "/v1/bin/y", "", 301, kPath); }},
        {"expired", [&key](const std::string& t) { return key.header("site-1", t, "", 301, kPath, -1); }},
    };
    for (const auto& [reason, header] : cases) {
        FakeServer bad(redirecting(header));
        Events events;
        Client c = make(signedConfig({bad.url(), good.url()}, {}, {{"site-1", key.publicKeyFile()}}, events));
        auto t = c.get("/v1/bin/channels/DEMO/Old");
        ASSERT_TRUE(t) << t.error().describe();
        ASSERT_EQ(2u, events.lines.size());
        EXPECT_EQ(0u, events.lines[0].rfind("untrusted direct redirect to " + kPath + " refused: ", 0)) << events.lines[0];
        EXPECT_NE(std::string::npos, events.lines[0].find(reason)) << events.lines[0];
        EXPECT_EQ(1u, bad.requests().size()) << "never followed";
    }
}

TEST(SignedAnswers, OutpostSig1OnlyWithAcceptSig1AndAnExpiredSignatureSaysSo) {
    TestKey key("site");
    FakeServer v1([&key](const Request& r) {
        Response a = fakeService(r);
        if (a.status == 200) a.headers.emplace_back("X-Outpost-Signature", key.v1Header("site-1", r.path, a.body));
        return a;
    });
    FakeServer expired([&key](const Request& r) {
        Response a = fakeService(r);
        if (a.status == 200) a.headers.emplace_back("X-Outpost-Signature", key.header("site-1", r.path, a.body, 200, "", -600));
        return a;
    });
    Events events;
    Config accepting = signedConfig({v1.url()}, {}, {{"site-1", key.publicKeyFile()}}, events);
    accepting.acceptSig1 = true;
    auto ok = make(accepting).get(kPath);
    ASSERT_TRUE(ok) << ok.error().describe();
    auto refused = make(signedConfig({v1.url()}, {}, {{"site-1", key.publicKeyFile()}}, events)).get(kPath);
    ASSERT_FALSE(refused);
    EXPECT_NE(std::string::npos, refused.error().message.find("acceptsig1=yes")) << refused.error().message;
    auto old = make(signedConfig({expired.url()}, {}, {{"site-1", key.publicKeyFile()}}, events)).get(kPath);
    ASSERT_FALSE(old);
    ASSERT_EQ(1u, old.error().attempts.size());
    EXPECT_EQ(ErrorCode::Untrusted, old.error().attempts[0].code);
    EXPECT_NE(std::string::npos, old.error().message.find("expired")) << old.error().message;
}

TEST(SignedAnswers, ASignedAnswerForAnotherQueryIsRefusedBeforeAnyRowReachesTheApplication) {
    // The server signs what it sends for the URL asked, but answers another key: a leaked key, or a server bug,
    // must not make a job read other conditions.
    TestKey key("site");
    FakeServer wrong([&key](const Request& r) {
        Request other = r;
        std::string from = "/at/HEAD/12345/";
        if (other.path.find(from) != std::string::npos) other.path.replace(other.path.find(from), from.size(), "/at/HEAD/2345/");
        Response a = fakeService(other);
        if (a.status == 200) a.headers.emplace_back("X-Outpost-Signature", key.header("site-1", r.path, a.body));
        return a;
    });
    Events events;
    Config cfg = signedConfig({wrong.url()}, {}, {{"site-1", key.publicKeyFile()}}, events);
    cfg.timeWindow.length = 0;
    cfg.runLumiWindow.length = 0;
    Client c = make(cfg);
    auto right = c.find("/DEMO/F", 3, 2345);
    ASSERT_TRUE(right) << right.error().describe();
    auto t = c.find("/DEMO/F", 3, 12345);
    ASSERT_FALSE(t);
    ASSERT_EQ(1u, t.error().attempts.size());
    EXPECT_EQ(ErrorCode::Untrusted, t.error().attempts[0].code);
    EXPECT_NE(std::string::npos, t.error().message.find("not the answer asked for: an IOV valid [")) << t.error().message;
    EXPECT_NE(std::string::npos, t.error().message.find("not at key 12345")) << t.error().message;
}
