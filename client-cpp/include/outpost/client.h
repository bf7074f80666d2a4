// outpost::Client: queries the Outpost service through Squid proxies with failover, retries, refresh of corrupt
// answers, keep-alive connection reuse and a small in-process cache. One Client may be shared by any number of
// threads. See client-cpp/README.md and docs/client-failover.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "outpost/config.h"
#include "outpost/decoder.h"
#include "outpost/error.h"
#include "outpost/query.h"
#include "outpost/table.h"
#include "outpost/version.h"

namespace outpost {

class Client {
public:
    /// Validates the config; fails with ErrorCode::Config.
    static Result<Client> create(Config config);
    /// Config::fromEnvironment() then create().
    static Result<Client> fromEnvironment();

    Client(Client&&) noexcept;
    Client& operator=(Client&&) noexcept;
    ~Client();

    // --- metadata
    Result<Table> nodes();
    Result<Table> channels(std::string_view folder);
    Result<Table> tags(std::string_view node);
    /// Resolves `tag` (possibly a parent node's tag) for `folder`: one row of the tags columns.
    Result<Table> resolveTag(std::string_view folder, std::string_view tag);

    // --- IOVs. `tag` is "HEAD" or a tag name.
    /// The object of one channel valid at t (0 or 1 row).
    Result<Table> find(std::string_view folder, std::uint32_t channel, Key t, std::string_view tag = "HEAD");
    /// Objects valid at t over a channel selection. Uses the folder's aligned window (see Config) so that
    /// jobs at nearby t share one cached URL; header.validSince/validUntil give the range where this holds.
    Result<Table> objectsAt(std::string_view folder, const ChannelSelection& sel, Key t,
                            std::string_view tag = "HEAD");
    /// Every IOV with since <= t2 and until > t1.
    Result<Table> browse(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2,
                         std::string_view tag = "HEAD", Order order = Order::ChannelSince);
    /// Streaming browse: rows go to `sink` as they are decoded; returns the row count. Not cached.
    Result<std::uint64_t> browse(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2,
                                 std::string_view tag, Order order, RowSink& sink);
    Result<std::uint64_t> count(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2,
                                std::string_view tag = "HEAD");

    /// Any canonical binary path ("/v1/bin/..."): decoded, through the cache.
    Result<Table> get(const std::string& path);
    /// Any canonical binary path, not cached, with the answer's X-Outpost-State ("" if none) and the seconds it
    /// may be kept (-1: not cacheable). Used by SnapshotSession.
    Result<Table> getWithState(const std::string& path, std::string& state, long& freshSeconds);
    /// Any canonical binary path, streamed, not cached; returns the row count.
    Result<std::uint64_t> get(const std::string& path, RowSink& sink);

    const Config& config() const;
    void clearCache();

    struct Stats {
        std::uint64_t requests = 0;      ///< HTTP requests sent (attempts)
        std::uint64_t cacheHits = 0;
        std::uint64_t failovers = 0;     ///< attempts that failed and moved on
        std::uint64_t refreshes = 0;     ///< soft + hard refreshes
    };
    Stats stats() const;

    /// "app/version pid user", sent as X-Outpost-Client and User-Agent.
    std::string clientId() const;

private:
    struct Impl;
    explicit Client(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace outpost
