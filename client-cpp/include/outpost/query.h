// Query vocabulary and canonical URL paths (docs/api.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace outpost {

/// Validity keys are COOL's UInt63: 0 ... 2^63-1.
using Key = std::int64_t;
constexpr Key kMinKey = 0;
constexpr Key kMaxKey = INT64_MAX;

/// Run-lumi key as ATLAS builds it: run in the high 32 bits, lumiblock in the low ones.
/// Throws std::invalid_argument when run > 2^31-1 or lumi > 2^32-1.
Key runLumiKey(std::uint64_t run, std::uint64_t lumi);

/// Which channels a query covers: all, ascending non-touching id ranges, or one channel name.
class ChannelSelection {
public:
    struct Range { std::uint32_t first, last; };

    static ChannelSelection all() { return ChannelSelection(); }
    static ChannelSelection channel(std::uint32_t id) { return ranges({{id, id}}); }
    static ChannelSelection range(std::uint32_t first, std::uint32_t last) { return ranges({{first, last}}); }
    /// Any order and overlap: sorted and merged (touching ranges joined) into the canonical form.
    /// Throws std::invalid_argument for an empty list or first > last.
    static ChannelSelection ranges(std::vector<Range> ranges);
    static ChannelSelection named(std::string name);
    /// Parses "all", "3", "1-4,7,9-12" (any order) or "name:X" (X raw or percent-encoded).
    /// Throws std::invalid_argument on bad syntax.
    static ChannelSelection parse(std::string_view text);

    bool isAll() const { return ranges_.empty() && !named_; }
    bool isNamed() const { return named_; }
    const std::string& name() const { return name_; }
    const std::vector<Range>& rangeList() const { return ranges_; }
    bool contains(std::uint32_t channel) const;  ///< a named selection contains every id (the server filters)

    /// The canonical URL spelling: "all", "1-4,7,9-12", "name:A%2FB".
    std::string canonical() const;

private:
    ChannelSelection() = default;
    std::vector<Range> ranges_;
    std::string name_;
    bool named_ = false;
};

/// Row order of a browse.
enum class Order { ChannelSince, SinceChannel, ChannelSinceDesc, SinceDescChannel };
const char* toUrl(Order o) noexcept;                     ///< cs, sc, csd, sdc
bool parseOrder(std::string_view text, Order& out) noexcept;

/// RFC 3986 percent-encoding: unreserved characters kept, others %XX upper-case.
std::string percentEncode(std::string_view s);

/// Canonical paths, without the server base URL. `format` is "bin" or "json".
namespace paths {
std::string nodes(std::string_view format = "bin");
/// Every global tag: name, lock, description, insertionTime.
std::string globalTags(std::string_view format = "bin");
std::string channels(std::string_view folder, std::string_view format = "bin");
std::string tags(std::string_view node, std::string_view format = "bin");
std::string tag(std::string_view folder, std::string_view tag, std::string_view format = "bin");
std::string at(std::string_view folder, std::string_view tag, Key t, const ChannelSelection& sel,
               std::string_view format = "bin");
std::string browse(std::string_view folder, std::string_view tag, Key t1, Key t2, const ChannelSelection& sel,
                   Order order, std::string_view format = "bin");
std::string count(std::string_view folder, std::string_view tag, Key t1, Key t2, const ChannelSelection& sel,
                  std::string_view format = "bin");
}  // namespace paths

/// Checks a folder/node path ("/A/B") and a tag name (HEAD or letters, digits, _ . -);
/// throw std::invalid_argument otherwise (used by the query functions before any request).
void checkPath(std::string_view path);
void checkTag(std::string_view tag);
void checkKey(const char* what, Key k);

/// The cache-aligned window of an at-time query (ATLAS CacheAlign): lo = t - t mod (L/N), hi = lo + L
/// (clamped to kMaxKey + 1 as an exclusive bound). The client browses [lo, hi-1] and picks the rows valid at t.
struct Window {
    Key length = 0;        ///< L; 0 disables windowing (a direct /at/ query)
    int divisions = 1;     ///< N >= 1
};
/// Returns {lo, hiInclusive}.
std::pair<Key, Key> alignedWindow(Key t, const Window& w);

}  // namespace outpost
