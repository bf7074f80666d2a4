#include <algorithm>
#include <stdexcept>

#include "outpost/query.h"

namespace outpost {

Key runLumiKey(std::uint64_t run, std::uint64_t lumi) {
    if (run > 0x7FFFFFFFull) throw std::invalid_argument("run " + std::to_string(run) + " is outside 0 ... 2147483647");
    if (lumi > 0xFFFFFFFFull) throw std::invalid_argument("lumiblock " + std::to_string(lumi) + " is outside 0 ... 4294967295");
    return static_cast<Key>((run << 32) | lumi);
}

ChannelSelection ChannelSelection::ranges(std::vector<Range> rs) {
    if (rs.empty()) throw std::invalid_argument("a channel selection needs at least one range");
    for (const auto& r : rs) {
        if (r.first > r.last) {
            throw std::invalid_argument("channel range " + std::to_string(r.first) + "-" + std::to_string(r.last) +
                                        " has first > last");
        }
    }
    std::sort(rs.begin(), rs.end(), [](const Range& a, const Range& b) { return a.first < b.first; });
    ChannelSelection s;
    for (const auto& r : rs) {
        // Merge overlapping and touching ranges (1-3,4 -> 1-4): the canonical form has neither.
        if (!s.ranges_.empty() && std::uint64_t(r.first) <= std::uint64_t(s.ranges_.back().last) + 1) {
            s.ranges_.back().last = std::max(s.ranges_.back().last, r.last);
        } else {
            s.ranges_.push_back(r);
        }
    }
    return s;
}

ChannelSelection ChannelSelection::named(std::string name) {
    if (name.empty()) throw std::invalid_argument("a channel name must not be empty");
    ChannelSelection s;
    s.name_ = std::move(name);
    s.named_ = true;
    return s;
}

namespace {
std::uint32_t parseChannelId(std::string_view t, std::string_view whole) {
    if (t.empty() || t.size() > 10) throw std::invalid_argument("bad channel id in '" + std::string(whole) + "'");
    std::uint64_t v = 0;
    for (char c : t) {
        if (c < '0' || c > '9') throw std::invalid_argument("bad channel id in '" + std::string(whole) + "'");
        v = v * 10 + std::uint64_t(c - '0');
    }
    if (v > 0xFFFFFFFFull) throw std::invalid_argument("channel id over 4294967295 in '" + std::string(whole) + "'");
    return static_cast<std::uint32_t>(v);
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
}  // namespace

ChannelSelection ChannelSelection::parse(std::string_view text) {
    if (text == "all" || text == "*") return all();
    if (text.substr(0, 5) == "name:") {
        std::string name;
        std::string_view raw = text.substr(5);
        for (std::size_t i = 0; i < raw.size(); ++i) {
            int h1, h2;
            if (raw[i] == '%' && i + 2 < raw.size() && (h1 = hexValue(raw[i + 1])) >= 0 &&
                (h2 = hexValue(raw[i + 2])) >= 0) {
                name += static_cast<char>(h1 * 16 + h2);
                i += 2;
            } else {
                name += raw[i];
            }
        }
        return named(std::move(name));
    }
    std::vector<Range> rs;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t comma = text.find(',', pos);
        std::string_view part = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        std::size_t dash = part.find('-');
        if (dash == std::string_view::npos) {
            auto id = parseChannelId(part, text);
            rs.push_back({id, id});
        } else {
            rs.push_back({parseChannelId(part.substr(0, dash), text), parseChannelId(part.substr(dash + 1), text)});
        }
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    return ranges(std::move(rs));
}

bool ChannelSelection::contains(std::uint32_t channel) const {
    if (ranges_.empty()) return true;
    for (const auto& r : ranges_) {
        if (channel >= r.first && channel <= r.last) return true;
    }
    return false;
}

std::string percentEncode(std::string_view s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
            c == '_' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::string ChannelSelection::canonical() const {
    if (named_) return "name:" + percentEncode(name_);
    if (ranges_.empty()) return "all";
    std::string s;
    for (const auto& r : ranges_) {
        if (!s.empty()) s += ',';
        s += std::to_string(r.first);
        if (r.last != r.first) s += '-' + std::to_string(r.last);
    }
    return s;
}

const char* toUrl(Order o) noexcept {
    switch (o) {
        case Order::ChannelSince: return "cs";
        case Order::SinceChannel: return "sc";
        case Order::ChannelSinceDesc: return "csd";
        case Order::SinceDescChannel: return "sdc";
    }
    return "cs";
}

bool parseOrder(std::string_view t, Order& out) noexcept {
    if (t == "cs") out = Order::ChannelSince;
    else if (t == "sc") out = Order::SinceChannel;
    else if (t == "csd") out = Order::ChannelSinceDesc;
    else if (t == "sdc") out = Order::SinceDescChannel;
    else return false;
    return true;
}

void checkPath(std::string_view path) {
    if (path.empty() || path[0] != '/') {
        throw std::invalid_argument("a folder or node path starts with '/', got '" + std::string(path) + "'");
    }
    if (path.size() > 1 && path.back() == '/') {
        throw std::invalid_argument("a folder or node path does not end with '/', got '" + std::string(path) + "'");
    }
    for (unsigned char c : path) {
        if (c <= ' ' || c == '?' || c == '#' || c == '%' || c == 127) {
            throw std::invalid_argument("bad character in folder or node path '" + std::string(path) + "'");
        }
    }
}

void checkTag(std::string_view tag) {
    if (tag.empty()) throw std::invalid_argument("a tag must not be empty (use HEAD)");
    for (char c : tag) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
                  c == '-';
        if (!ok) throw std::invalid_argument("a tag is letters, digits, '_', '.', '-', got '" + std::string(tag) + "'");
    }
}

void checkKey(const char* what, Key k) {
    if (k < 0) throw std::invalid_argument(std::string(what) + " " + std::to_string(k) + " is negative; keys run from 0 to 2^63-1");
}

namespace paths {
namespace {
std::string base(std::string_view format) { return "/v1/" + std::string(format) + "/"; }
}  // namespace

std::string nodes(std::string_view format) { return base(format) + "nodes"; }
std::string globalTags(std::string_view format) { return base(format) + "globaltags"; }
std::string channels(std::string_view folder, std::string_view format) {
    checkPath(folder);
    return base(format) + "channels" + std::string(folder);
}
std::string tags(std::string_view node, std::string_view format) {
    checkPath(node);
    return base(format) + "tags" + std::string(node);
}
std::string tag(std::string_view folder, std::string_view tag, std::string_view format) {
    checkPath(folder);
    checkTag(tag);
    return base(format) + "tag/" + std::string(tag) + std::string(folder);
}
std::string at(std::string_view folder, std::string_view tag, Key t, const ChannelSelection& sel,
               std::string_view format) {
    checkPath(folder);
    checkTag(tag);
    checkKey("t", t);
    return base(format) + "at/" + std::string(tag) + "/" + std::to_string(t) + "/" + sel.canonical() +
           std::string(folder);
}
std::string browse(std::string_view folder, std::string_view tag, Key t1, Key t2, const ChannelSelection& sel,
                   Order order, std::string_view format) {
    checkPath(folder);
    checkTag(tag);
    checkKey("t1", t1);
    checkKey("t2", t2);
    if (t1 > t2) throw std::invalid_argument("t1 " + std::to_string(t1) + " > t2 " + std::to_string(t2));
    return base(format) + "browse/" + std::string(tag) + "/" + std::to_string(t1) + "/" + std::to_string(t2) + "/" +
           sel.canonical() + "/" + toUrl(order) + std::string(folder);
}
std::string count(std::string_view folder, std::string_view tag, Key t1, Key t2, const ChannelSelection& sel,
                  std::string_view format) {
    checkPath(folder);
    checkTag(tag);
    checkKey("t1", t1);
    checkKey("t2", t2);
    if (t1 > t2) throw std::invalid_argument("t1 " + std::to_string(t1) + " > t2 " + std::to_string(t2));
    return base(format) + "count/" + std::string(tag) + "/" + std::to_string(t1) + "/" + std::to_string(t2) + "/" +
           sel.canonical() + std::string(folder);
}
}  // namespace paths

std::pair<Key, Key> alignedWindow(Key t, const Window& w) {
    checkKey("t", t);
    if (w.length <= 0) return {t, t};
    int n = w.divisions < 1 ? 1 : w.divisions;
    Key step = w.length / n;
    if (step <= 0) step = 1;
    Key lo = t - t % step;
    Key hiInclusive = (lo > kMaxKey - w.length) ? kMaxKey : lo + w.length - 1;
    return {lo, hiInclusive};
}

}  // namespace outpost
