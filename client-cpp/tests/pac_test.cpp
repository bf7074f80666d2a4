// Proxy auto-config (docs/client-failover.md, "Proxy auto-config"): the shared cases of testdata/pac/cases.txt
// through libpacparser, and the client choosing its routes by PAC files served over HTTP, read from file:// and
// found by WPAD ("auto"), against in-process servers and proxies on 127.0.0.1.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "fake_service.h"
#include "outpost/client.h"
#include "pac.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

const std::string kPath = "/v1/bin/channels/DEMO/F";
const std::string kPacDir = std::string(OUTPOST_TESTDATA_DIR) + "/pac";

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string pacAnswering(const std::string& answer) {
    return "function FindProxyForURL(url, host) { return \"" + answer + "\"; }\n";
}

Handler pacHandler(std::shared_ptr<std::string> text) {
    return [text](const Request&) {
        Response r;
        r.body = *text;
        r.headers = {{"Content-Type", "application/x-ns-proxy-autoconfig"}};
        return r;
    };
}

/// A file in a fresh folder under TMPDIR, removed with its folder.
struct TempFile {
    std::string dir, path;
    TempFile(const std::string& name, const std::string& text) {
        std::string tmpl = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/outpost-pac-XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        dir = ::mkdtemp(buf.data());
        path = dir + "/" + name;
        std::ofstream(path) << text;
    }
    ~TempFile() {
        ::unlink(path.c_str());
        ::rmdir(dir.c_str());
    }
    std::string url() const { return "file://" + path; }
};

struct Routes {
    std::mutex mu;
    std::vector<std::string> lines;  // "kind proxy->server", attempts left out
    void operator()(const Event& e) {
        if (e.kind == Event::Kind::Attempt || e.server.empty()) return;
        std::lock_guard<std::mutex> lock(mu);
        lines.push_back(std::string(toString(e.kind)) + " " + (e.proxy.empty() ? "direct" : e.proxy) + "->" + e.server);
    }
};

Config config(const std::string& server, Routes& log) {
    Config c;
    c.servers = {server};
    c.retries = 0;
    c.backoff = std::chrono::milliseconds(0);
    c.connectTimeout = std::chrono::milliseconds(2000);
    c.cacheMaxBytes = 0;
    c.onEvent = [&log](const Event& e) { log(e); };
    return c;
}

Handler serviceHandler() { return [](const Request& r) { return fakeService(r); }; }

std::string hostPort(const std::string& url) { return url.substr(7); }

}  // namespace

TEST(Pac, SharedCases) {
    std::ifstream cases(kPacDir + "/cases.txt");
    ASSERT_TRUE(cases) << "testdata/pac/cases.txt not found";
    std::string line;
    int n = 0;
    while (std::getline(cases, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream in(line.substr(0, line.find("=>")));
        std::string file, url;
        in >> file >> url;
        std::string expected = line.substr(line.find("=>") + 2);
        expected = expected.substr(expected.find_first_not_of(' '));
        SCOPED_TRACE(line);
        std::string pacUrl = "file://" + kPacDir + "/" + file;
        auto answer = internal::evaluatePac(readFile(kPacDir + "/" + file), pacUrl, url, internal::hostOf(url));
        Result<internal::PacAnswer> parsed = answer ? internal::parsePacAnswer(*answer, pacUrl)
                                                    : Result<internal::PacAnswer>(answer.error());
        if (expected == "error") {
            ASSERT_FALSE(parsed);
            EXPECT_EQ(ErrorCode::Config, parsed.error().code);
            EXPECT_NE(std::string::npos, parsed.error().message.find(pacUrl)) << parsed.error().message;
        } else {
            ASSERT_TRUE(parsed) << parsed.error().message;
            EXPECT_EQ(expected, parsed->toString());
        }
        ++n;
    }
    EXPECT_GT(n, 5);
}

TEST(Pac, ServedOverHttpItNamesTheProxiesAheadOfTheConfiguredOnes) {
    FakeServer server(serviceHandler());
    FakeServer pacProxy(proxyTo({&server}));
    FakeServer configured(proxyTo({&server}));
    DeadPort dead;
    auto text = std::make_shared<std::string>(pacAnswering("PROXY " + hostPort(dead.url()) + "; PROXY " +
                                                           hostPort(pacProxy.url())));
    FakeServer pac(pacHandler(text));
    Routes log;
    Config c = config(server.url(), log);
    c.proxies = {configured.url()};
    ASSERT_TRUE(c.apply("(proxyconfigurl=" + pac.url() + "/wpad.dat)"));
    auto client = Client::create(c);
    ASSERT_TRUE(client) << client.error().message;
    ASSERT_TRUE(client->get(kPath));
    ASSERT_TRUE(client->get(kPath));
    EXPECT_EQ((std::vector<std::string>{"connect-failed " + dead.url() + "->" + server.url(),
                                        "success " + pacProxy.url() + "->" + server.url(),
                                        "success " + pacProxy.url() + "->" + server.url()}),
              log.lines);
    EXPECT_EQ(1u, pac.requests().size());  // read once
    EXPECT_TRUE(configured.requests().empty());
}

TEST(Pac, FilePacWithDirectKeepsTheDirectRouteEvenWithoutFailoverToServer) {
    FakeServer broken([](const Request&) { return Response::problem(503, "down"); });
    FakeServer pacProxy(proxyTo({&broken}));
    TempFile pac("site.pac", pacAnswering("PROXY " + hostPort(pacProxy.url()) + "; DIRECT"));
    Routes log;
    Config c = config(broken.url(), log);
    c.failoverToServer = false;
    c.proxyConfigUrls = {pac.url()};
    auto client = Client::create(c);
    ASSERT_TRUE(client) << client.error().message;
    ASSERT_FALSE(client->get(kPath));
    EXPECT_EQ((std::vector<std::string>{"server-error " + pacProxy.url() + "->" + broken.url(),
                                        "server-error direct->" + broken.url()}),
              log.lines);
}

TEST(Pac, DirectAloneAsksTheServerDirectly) {
    FakeServer server(serviceHandler());
    TempFile pac("direct.pac", pacAnswering("DIRECT"));
    Routes log;
    Config c = config(server.url(), log);
    c.proxyConfigUrls = {pac.url()};
    auto client = Client::create(c);
    ASSERT_TRUE(client) << client.error().message;
    ASSERT_TRUE(client->get(kPath));
    EXPECT_EQ((std::vector<std::string>{"success direct->" + server.url()}), log.lines);
}

TEST(Pac, AutoReadsWpadDatFromTheHostNamedWpad) {
    FakeServer server(serviceHandler());
    FakeServer proxy(proxyTo({&server}));
    auto text = std::make_shared<std::string>(pacAnswering("PROXY " + hostPort(proxy.url())));
    FakeServer wpad(pacHandler(text));
    Routes log;
    Config c = config(server.url(), log);
    ASSERT_TRUE(c.apply("(proxyconfigurl=auto)"));
    // The test's own mapping of wpad:80 to its server, through libcurl: the machine's DNS is not involved.
    c.pacConnectTo = {"wpad:80:127.0.0.1:" + std::to_string(wpad.port())};
    auto client = Client::create(c);
    ASSERT_TRUE(client) << client.error().message;
    ASSERT_TRUE(client->get(kPath));
    ASSERT_EQ(1u, wpad.requests().size());
    EXPECT_EQ("/wpad.dat", wpad.requests()[0].path);
    EXPECT_EQ("wpad", wpad.requests()[0].header("host"));
    EXPECT_EQ((std::vector<std::string>{"success " + proxy.url() + "->" + server.url()}), log.lines);
}

TEST(Pac, UnreadableUrlsArePassedOverInOrderAndNoneReadableIsAnErrorNamingEach) {
    FakeServer server(serviceHandler());
    DeadPort dead;
    TempFile good("direct.pac", pacAnswering("DIRECT"));
    std::string missing = "file://" + good.dir + "/missing.pac";
    Routes log;
    Config c = config(server.url(), log);
    c.proxyConfigUrls = {dead.url() + "/proxy.pac", missing, good.url()};
    auto client = Client::create(c);
    ASSERT_TRUE(client) << client.error().message;
    ASSERT_TRUE(client->get(kPath));

    c.proxyConfigUrls = {dead.url() + "/proxy.pac", missing};
    auto bad = Client::create(c);
    ASSERT_FALSE(bad);
    EXPECT_EQ(ErrorCode::Config, bad.error().code);
    EXPECT_NE(std::string::npos, bad.error().message.find(dead.url() + "/proxy.pac")) << bad.error().message;
    EXPECT_NE(std::string::npos, bad.error().message.find(missing)) << bad.error().message;
}

TEST(Pac, ABadPacFileIsAConfigurationErrorNamingItsUrl) {
    for (const char* name : {"broken.pac", "empty.pac", "socks.pac"}) {
        SCOPED_TRACE(name);
        Config c;
        c.servers = {"http://db.site.example:8000"};
        c.proxyConfigUrls = {"file://" + kPacDir + "/" + name};
        auto client = Client::create(c);
        ASSERT_FALSE(client);
        EXPECT_EQ(ErrorCode::Config, client.error().code);
        EXPECT_NE(std::string::npos, client.error().message.find(c.proxyConfigUrls[0])) << client.error().message;
    }
}

TEST(Pac, TheAnswerIsCachedPerHostAndReadAgainAfterFiveMinutes) {
    FakeServer server(serviceHandler());
    FakeServer proxy(proxyTo({&server}));
    auto text = std::make_shared<std::string>(pacAnswering("DIRECT"));
    FakeServer pac(pacHandler(text));
    auto now = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
    Routes log;
    Config c = config(server.url(), log);
    c.proxyConfigUrls = {pac.url() + "/p.pac"};
    c.clock = [now] { return *now; };
    auto client = Client::create(c);
    ASSERT_TRUE(client) << client.error().message;
    ASSERT_TRUE(client->get(kPath));
    *text = pacAnswering("PROXY " + hostPort(proxy.url()));
    *now += std::chrono::minutes(5) - std::chrono::nanoseconds(1);
    ASSERT_TRUE(client->get(kPath));
    EXPECT_EQ(1u, pac.requests().size());
    *now += std::chrono::nanoseconds(1);
    ASSERT_TRUE(client->get(kPath));
    EXPECT_EQ(2u, pac.requests().size());
    EXPECT_EQ((std::vector<std::string>{"success direct->" + server.url(), "success direct->" + server.url(),
                                        "success " + proxy.url() + "->" + server.url()}),
              log.lines);

    *text = "function FindProxyForURL(url, host) {";  // a renewal that fails keeps the last answer
    *now += std::chrono::minutes(5);
    ASSERT_TRUE(client->get(kPath));
    EXPECT_EQ(2u, proxy.requests().size());
}

TEST(Pac, LoadbalanceProxiesIsTurnedOffWithAWarningAndUnknownKeysAreNamedOnce) {
    auto c = Config::fromString("(serverurl=http://a:8000)(proxyconfigurl=auto)(loadbalance=proxies)"
                                "(nosuchkey=1)(nosuchkey=2)(retrieve-ziplevel=5)");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ((std::vector<std::string>{"auto"}), c->proxyConfigUrls);
    EXPECT_EQ((std::vector<std::string>{
                  "unknown configuration key 'nosuchkey' ignored",
                  "unknown configuration key 'retrieve-ziplevel' ignored",
                  "loadbalance=proxies is turned off: the proxy auto-config decides the order of the proxies"}),
              c->warnings);
    auto back = Config::fromString(c->toString());
    ASSERT_TRUE(back);
    EXPECT_EQ(c->proxyConfigUrls, back->proxyConfigUrls);
}

TEST(Pac, FrontierProxyConfigsIsASemicolonList) {
    ::setenv("FRONTIER_SERVER", "http://a:8000", 1);
    ::setenv("FRONTIER_PROXYCONFIGS", "http://site/proxy.pac;auto;file:///etc/site.pac", 1);
    auto c = Config::fromEnvironment();
    ::unsetenv("FRONTIER_SERVER");
    ::unsetenv("FRONTIER_PROXYCONFIGS");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ((std::vector<std::string>{"http://site/proxy.pac", "auto", "file:///etc/site.pac"}), c->proxyConfigUrls);
    EXPECT_FALSE(Config::fromString("(serverurl=http://a:8000)(proxyconfigurl=ftp://x/p.pac)"));
}
