// outpost::Client: the queries, the in-process cache and the cache-aligned at-time queries. Routes, failover,
// refresh escalation and backoff (docs/client-failover.md) are internal::Failover's (failover.cpp).
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>

#include "failover.h"
#include "http.h"
#include "outpost/client.h"
#include "pac.h"

namespace outpost {

using Clock = std::chrono::steady_clock;
using internal::Asked;

namespace {

std::size_t estimateBytes(const Table& t) {
    std::size_t n = sizeof(Table) + t.rows.size() * (sizeof(Row) + t.header.columns.size() * sizeof(Value));
    for (const auto& r : t.rows) {
        for (const auto& v : r.values) {
            if (auto* s = std::get_if<std::string>(&v)) n += s->capacity();
            else if (auto* b = std::get_if<Blob>(&v)) n += b->bytes.capacity();
        }
    }
    return n;
}

/// Decoded answers by canonical path, kept while their max-age lasts; least recently used go first.
class AnswerCache {
public:
    explicit AnswerCache(std::size_t maxBytes) : maxBytes_(maxBytes) {}

    std::shared_ptr<const Table> get(const std::string& key, Clock::time_point now) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = map_.find(key);
        if (it == map_.end()) return nullptr;
        if (now >= it->second.expires) {
            drop(it);
            return nullptr;
        }
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        return it->second.table;
    }

    void put(const std::string& key, std::shared_ptr<const Table> table, Clock::time_point expires) {
        std::size_t bytes = estimateBytes(*table);
        if (maxBytes_ == 0 || bytes > maxBytes_ / 4) return;  // one answer never takes over the cache
        std::lock_guard<std::mutex> lock(mu_);
        auto old = map_.find(key);
        if (old != map_.end()) drop(old);
        lru_.push_front(key);
        map_.emplace(key, Entry{std::move(table), expires, bytes, lru_.begin()});
        bytes_ += bytes;
        while (bytes_ > maxBytes_ && !lru_.empty()) drop(map_.find(lru_.back()));
    }

    void clear() {
        std::lock_guard<std::mutex> lock(mu_);
        map_.clear();
        lru_.clear();
        bytes_ = 0;
    }

private:
    struct Entry {
        std::shared_ptr<const Table> table;
        Clock::time_point expires;
        std::size_t bytes;
        std::list<std::string>::iterator lru;
    };
    void drop(std::unordered_map<std::string, Entry>::iterator it) {
        bytes_ -= it->second.bytes;
        lru_.erase(it->second.lru);
        map_.erase(it);
    }

    std::mutex mu_;
    std::unordered_map<std::string, Entry> map_;
    std::list<std::string> lru_;
    std::size_t bytes_ = 0;
    std::size_t maxBytes_;
};

std::string userName() {
    struct passwd pw;
    struct passwd* res = nullptr;
    char buf[1024];
    if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) == 0 && res) return res->pw_name;
    const char* u = std::getenv("USER");
    return u ? u : "unknown";
}

}  // namespace

/// Under security=sig: why a row of an IOV answer is not what was asked for ("" when it is): another folder, a
/// channel not selected, or an IOV not valid anywhere in [t1, t2] (t1 = t2 for a read at one key). A signed
/// answer of another query, served in this one's place, is refused like a bad signature.
static Asked askedFor(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2) {
    return [folder = std::string(folder), sel, t1, t2](const AnswerHeader& h, const Row& r) -> std::string {
        if (h.kind != AnswerKind::Iovs) return "";
        if (!h.folder.empty() && h.folder != folder) return "an answer for folder " + h.folder + ", asked " + folder;
        if (r.since > t2 || r.until <= t1) {
            return "an IOV valid [" + std::to_string(r.since) + ", " + std::to_string(r.until) + "), not at " +
                   (t1 == t2 ? "key " + std::to_string(t1) : "[" + std::to_string(t1) + ", " + std::to_string(t2) + "]");
        }
        if (!sel.contains(r.channel)) return "channel " + std::to_string(r.channel) + " was not asked for";
        return "";
    };
}

struct Client::Impl {
    explicit Impl(Config c) : cfg(std::move(c)), cache(cfg.cacheMaxBytes), user(userName()) {
        if (!cfg.clock) cfg.clock = [] { return Clock::now(); };
        if (cfg.appVersion.empty()) cfg.appVersion = OUTPOST_CLIENT_VERSION;
    }

    Config cfg;
    std::unique_ptr<internal::Failover> failover;  ///< set by create(), once the keys and PAC files are read
    AnswerCache cache;
    std::string user;

    std::mutex keyTypeMu;
    std::map<std::string, std::string> keyTypes;  // folder -> "time" / "run-lumi"
    bool keyTypesLoaded = false;

    std::atomic<std::uint64_t> cacheHits{0};

    std::string clientId() const {
        return cfg.app + "/" + cfg.appVersion + " " + std::to_string(::getpid()) + " " + user;
    }

    Result<std::uint64_t> fetch(const std::string& path, RowSink& sink, long* freshFor, std::string* state = nullptr,
                                const Asked* asked = nullptr) {
        return failover->fetch(path, sink, freshFor, state, asked);
    }

    Result<std::shared_ptr<const Table>> getShared(const std::string& path, const Asked* asked = nullptr) {
        auto now = cfg.clock();
        bool forced = failover->initialRefresh(path) != internal::Refresh::Plain;
        if (auto hit = forced ? nullptr : cache.get(path, now)) {
            ++cacheHits;
            failover->emit(Event{Event::Kind::CacheHit, "", "", path, "", 0, ""});
            return hit;
        }
        TableSink sink;
        long freshFor = -1;
        auto r = fetch(path, sink, &freshFor, nullptr, asked);
        if (!r) return r.error();
        auto table = std::make_shared<const Table>(sink.take());
        if (cfg.maxAgeSecs > 0) freshFor = std::min(freshFor, cfg.maxAgeSecs);
        if (freshFor > 0) cache.put(path, table, now + std::chrono::seconds(freshFor));
        return table;
    }

    Result<Table> get(const std::string& path, const Asked* asked = nullptr) {
        auto r = getShared(path, asked);
        if (!r) return r.error();
        return Table(**r);
    }

    /// The window for at-time queries on `folder`: per-folder setting, else by key type (from the node list).
    Window windowFor(const std::string& folder) {
        auto best = cfg.folderWindows.end();
        for (auto it = cfg.folderWindows.begin(); it != cfg.folderWindows.end(); ++it) {
            const std::string& k = it->first;
            bool match = k == folder || (k.back() == '/' && folder.compare(0, k.size(), k) == 0);
            if (match && (best == cfg.folderWindows.end() || k.size() > best->first.size())) best = it;
        }
        if (best != cfg.folderWindows.end()) return best->second;
        if (cfg.timeWindow.length <= 0 && cfg.runLumiWindow.length <= 0) return Window{0, 1};  // no lookup needed
        std::string keyType = keyTypeOf(folder);
        if (keyType == "time") return cfg.timeWindow;
        if (keyType == "run-lumi") return cfg.runLumiWindow;
        return Window{0, 1};  // unknown folder or node list unavailable: ask the server directly
    }

    std::string keyTypeOf(const std::string& folder) {
        {
            std::lock_guard<std::mutex> lock(keyTypeMu);
            auto it = keyTypes.find(folder);
            if (it != keyTypes.end()) return it->second;
            if (keyTypesLoaded) return "";
        }
        auto nodes = getShared(paths::nodes());
        if (!nodes) return "";
        const Table& t = **nodes;
        int pathCol = t.header.columnIndex("path"), keyCol = t.header.columnIndex("keyType");
        std::lock_guard<std::mutex> lock(keyTypeMu);
        keyTypesLoaded = true;
        if (pathCol < 0 || keyCol < 0) return "";
        for (const auto& r : t.rows) {
            auto* p = std::get_if<std::string>(&r.values[pathCol]);
            auto* k = std::get_if<std::string>(&r.values[keyCol]);
            if (p && k) keyTypes[*p] = *k;
        }
        auto it = keyTypes.find(folder);
        return it == keyTypes.end() ? "" : it->second;
    }
};

namespace {
template <typename F>
auto guarded(F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const std::invalid_argument& e) {
        return Error(ErrorCode::InvalidArgument, e.what());
    }
}
}  // namespace

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;
Client::~Client() = default;

Result<Client> Client::create(Config config) {
    auto v = config.validate();
    if (!v) return v.error();
    internal::ensureCurlGlobalInit();
    auto impl = std::make_unique<Impl>(std::move(config));
    std::shared_ptr<const internal::AnswerVerifier> verifier;
    if (impl->cfg.signedAnswers) {
        auto v = internal::AnswerVerifier::load(impl->cfg.verifyKeys, impl->cfg.acceptSig1, impl->cfg.wallClock);
        if (!v) return v.error();
        verifier = std::move(*v);
    }
    std::unique_ptr<internal::ProxyDiscovery> discovery;
    if (!impl->cfg.proxyConfigUrls.empty()) {
        // Read and evaluated now, so that a bad PAC file is an error of create(), not of a later query.
        auto d = internal::ProxyDiscovery::start(impl->cfg.proxyConfigUrls, impl->cfg.servers,
                                                 impl->cfg.connectTimeout, impl->cfg.readTimeout,
                                                 impl->cfg.pacConnectTo, impl->cfg.clock);
        if (!d) return d.error();
        discovery = std::move(*d);
    }
    const Impl* self = impl.get();  // stays where it is when the Client moves
    impl->failover = std::make_unique<internal::Failover>(impl->cfg, [self] { return self->clientId(); },
                                                          std::move(verifier), std::move(discovery));
    return Client(std::move(impl));
}

Result<Client> Client::fromEnvironment() {
    auto c = Config::fromEnvironment();
    if (!c) return c.error();
    return create(std::move(*c));
}

const Config& Client::config() const { return impl_->cfg; }
void Client::clearCache() { impl_->cache.clear(); }
std::string Client::clientId() const { return impl_->clientId(); }

Client::Stats Client::stats() const {
    const internal::Failover& f = *impl_->failover;
    return Stats{f.requests.load(), impl_->cacheHits.load(), f.failovers.load(), f.refreshes.load()};
}

Result<Table> Client::get(const std::string& path) { return impl_->get(path); }

Result<Table> Client::getWithState(const std::string& path, std::string& state, long& freshSeconds) {
    TableSink sink;
    freshSeconds = -1;
    auto r = impl_->fetch(path, sink, &freshSeconds, &state);
    if (!r) return r.error();
    return sink.take();
}

Result<std::uint64_t> Client::get(const std::string& path, RowSink& sink) {
    return impl_->fetch(path, sink, nullptr);
}

Result<Table> Client::nodes() { return impl_->get(paths::nodes()); }
Result<Table> Client::channels(std::string_view folder) {
    return guarded([&]() -> Result<Table> { return impl_->get(paths::channels(folder)); });
}
Result<Table> Client::tags(std::string_view node) {
    return guarded([&]() -> Result<Table> { return impl_->get(paths::tags(node)); });
}
Result<Table> Client::resolveTag(std::string_view folder, std::string_view tag) {
    return guarded([&]() -> Result<Table> { return impl_->get(paths::tag(folder, tag)); });
}

Result<Table> Client::find(std::string_view folder, std::uint32_t channel, Key t, std::string_view tag) {
    return objectsAt(folder, ChannelSelection::channel(channel), t, tag);
}

Result<Table> Client::objectsAt(std::string_view folder, const ChannelSelection& sel, Key t, std::string_view tag) {
    return guarded([&]() -> Result<Table> {
        checkPath(folder);
        checkTag(tag);
        checkKey("t", t);
        Window w = impl_->windowFor(std::string(folder));
        if (w.length <= 0) {
            Asked asked = askedFor(folder, sel, t, t);
            return impl_->get(paths::at(folder, tag, t, sel), &asked);
        }
        auto [lo, hi] = alignedWindow(t, w);
        Asked asked = askedFor(folder, sel, lo, hi);
        auto window = impl_->getShared(paths::browse(folder, tag, lo, hi, sel, Order::ChannelSince), &asked);
        if (!window) return window.error();
        const Table& all = **window;
        if (all.header.kind != AnswerKind::Iovs) {
            return Error(ErrorCode::Protocol, "expected an iovs answer for " + std::string(folder) + ", got " +
                                                  toString(all.header.kind));
        }
        // Pick the rows valid at t; the answer is the same for every key between the nearest IOV edges
        // around t (clamped to the window).
        Table out;
        out.header = all.header;
        Key validSince = lo;
        Key validUntil = hi == kMaxKey ? kMaxKey : hi + 1;
        for (const Row& r : all.rows) {
            if (r.since <= t && t < r.until) out.rows.push_back(r);
            for (Key edge : {r.since, r.until}) {
                if (edge <= t) validSince = std::max(validSince, edge);
                else validUntil = std::min(validUntil, edge);
            }
        }
        out.header.validSince = validSince;
        out.header.validUntil = validUntil;
        return out;
    });
}

Result<Table> Client::browse(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2,
                             std::string_view tag, Order order) {
    return guarded([&]() -> Result<Table> {
        Asked asked = askedFor(folder, sel, t1, t2);
        return impl_->get(paths::browse(folder, tag, t1, t2, sel, order), &asked);
    });
}

Result<std::uint64_t> Client::browse(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2,
                                     std::string_view tag, Order order, RowSink& sink) {
    return guarded([&]() -> Result<std::uint64_t> {
        Asked asked = askedFor(folder, sel, t1, t2);
        return impl_->fetch(paths::browse(folder, tag, t1, t2, sel, order), sink, nullptr, nullptr, &asked);
    });
}

Result<std::uint64_t> Client::count(std::string_view folder, const ChannelSelection& sel, Key t1, Key t2,
                                    std::string_view tag) {
    return guarded([&]() -> Result<std::uint64_t> {
        auto t = impl_->getShared(paths::count(folder, tag, t1, t2, sel));
        if (!t) return t.error();
        const Table& table = **t;
        if (table.header.kind != AnswerKind::Count || table.rows.size() != 1 || table.header.columns.empty()) {
            return Error(ErrorCode::Protocol, "a count answer has one row with one column");
        }
        auto* n = std::get_if<std::int64_t>(&table.rows[0].values[0]);
        if (!n) return Error(ErrorCode::Protocol, "the count is NULL");
        return static_cast<std::uint64_t>(*n);
    });
}

}  // namespace outpost
