// What proxy auto-config costs the C++ client: reading and evaluating a PAC file with libpacparser (paid once per
// server host by the first request of a process, and again every 5 minutes), against answering from the per-host
// cache (every later request), side by side in one run. The PAC file is testdata/pac/site.pac, read via file://.
//
// Run:  build/outpost-pac-bench [rounds]     (from the client-cpp folder)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pac.h"

using namespace outpost::internal;
using Clock = std::chrono::steady_clock;

namespace {
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
    std::string pac = "file://" + std::string(OUTPOST_TESTDATA_DIR) + "/pac/site.pac";
    const std::string server = "http://db.conditions.example:8000/outpost";
    const std::string expected = "PROXY squid1.site.example:3128; PROXY squid2.site.example:3128; DIRECT";
    std::vector<double> first, cached;
    for (int i = 0; i < rounds; ++i) {
        auto t0 = Clock::now();
        auto d = ProxyDiscovery::start({pac}, {server}, std::chrono::seconds(5), std::chrono::seconds(10), {}, nullptr);
        auto t1 = Clock::now();
        if (!d) {
            std::fprintf(stderr, "pac-bench: %s\n", d.error().message.c_str());
            return 1;
        }
        first.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        for (int k = 0; k < 20; ++k) {
            auto s = Clock::now();
            PacAnswer a = (*d)->answerFor(server);
            auto e = Clock::now();
            if (a.toString() != expected) {
                std::fprintf(stderr, "pac-bench: wrong answer '%s'\n", a.toString().c_str());
                return 1;
            }
            cached.push_back(std::chrono::duration<double, std::milli>(e - s).count());
        }
    }
    std::printf("BENCHMARK pac C++ read + evaluate (first request per host, median of %d): %.3f ms; cached answer "
                "(later requests, median of %zu): %.4f ms\n",
                rounds, median(first), cached.size(), median(cached));
    return 0;
}
