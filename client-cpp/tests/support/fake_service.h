// A fake Outpost service for client tests: folder /DEMO/F (time keys) with channels 0..9 whose IOVs are
// [k*1000 + c, (k+1)*1000 + c) carrying payload "c:k"; /DEMO/R has run-lumi keys. Answers nodes, channels,
// tags, tag, browse, at and count in the binary format.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "encoder.h"
#include "fake_server.h"
#include "outpost/query.h"

namespace outpost::testing {

inline std::vector<std::string> splitPath(const std::string& p) {
    std::vector<std::string> out;
    std::size_t i = 1;
    while (i <= p.size()) {
        std::size_t j = p.find('/', i);
        if (j == std::string::npos) j = p.size();
        out.push_back(p.substr(i, j - i));
        i = j + 1;
    }
    return out;
}

inline Table fakeNodes() {
    Table t;
    t.header.kind = AnswerKind::Nodes;
    t.header.columns = {{"path", ColumnType::String255},       {"folder", ColumnType::Bool},
                        {"versioning", ColumnType::String255}, {"keyType", ColumnType::String255},
                        {"payloadSpec", ColumnType::String4k},  {"description", ColumnType::String4k}};
    auto add = [&](const char* path, bool folder, Value v, Value k) {
        Row r;
        r.values = {std::string(path), folder, v, k, std::string(folder ? "payload:String4k" : ""), std::string("")};
        t.rows.push_back(r);
    };
    add("/DEMO", false, std::monostate{}, std::string("time"));
    add("/DEMO/F", true, std::string("SV"), std::string("time"));
    add("/DEMO/R", true, std::string("SV"), std::string("run-lumi"));
    return t;
}

/// The IOV rows of /DEMO/F overlapping [t1, t2] (since <= t2, until > t1) for the channels in `sel`.
inline Table fakeBrowse(const std::string& folder, const std::string& tag, Key t1, Key t2, const ChannelSelection& sel) {
    Table t = iovTable(folder, {{"payload", ColumnType::String4k}});
    t.header.tag = tag;
    for (std::uint32_t c = 0; c < 10; ++c) {
        if (!sel.contains(c)) continue;
        Key kFirst = t1 < Key(c) ? 0 : (t1 - c) / 1000;
        for (Key k = kFirst; k * 1000 + c <= t2 && k < kFirst + 100000; ++k) {
            Key since = k * 1000 + c, until = (k + 1) * 1000 + c;
            if (until > t1) addIov(t, c, since, until, {std::to_string(c) + ":" + std::to_string(k)});
        }
    }
    return t;
}

/// The codec of the fake service's answers: zstd, the server's default (docs/wire-format.md).
constexpr int kFakeCodec = 2;

inline Response fakeService(const Request& r, int maxAge = 60) {
    auto parts = splitPath(r.path);
    auto folderFrom = [&](std::size_t i) {
        std::string f;
        for (; i < parts.size(); ++i) f += "/" + parts[i];
        return f;
    };
    if (parts.size() < 3 || parts[0] != "v1" || parts[1] != "bin") return Response::problem(404, "no such path");
    const std::string& what = parts[2];
    if (what == "nodes") return Response::binary(encode(fakeNodes(), kFakeCodec), maxAge);
    if (what == "browse" && parts.size() >= 8) {
        Key t1 = std::atoll(parts[4].c_str()), t2 = std::atoll(parts[5].c_str());
        std::string folder = folderFrom(8);
        if (folder != "/DEMO/F" && folder != "/DEMO/R") return Response::problem(404, "unknown folder " + folder);
        return Response::binary(encode(fakeBrowse(folder, parts[3], t1, t2, ChannelSelection::parse(parts[6])), kFakeCodec), maxAge);
    }
    if (what == "at" && parts.size() >= 6) {
        Key t = std::atoll(parts[4].c_str());
        Table b = fakeBrowse(folderFrom(6), parts[3], t, t, ChannelSelection::parse(parts[5]));
        return Response::binary(encode(b, kFakeCodec), maxAge);
    }
    if (what == "count" && parts.size() >= 7) {
        Key t1 = std::atoll(parts[4].c_str()), t2 = std::atoll(parts[5].c_str());
        Table b = fakeBrowse(folderFrom(7), parts[3], t1, t2, ChannelSelection::parse(parts[6]));
        Table c;
        c.header.kind = AnswerKind::Count;
        c.header.folder = folderFrom(7);
        c.header.tag = parts[3];
        c.header.columns = {{"count", ColumnType::UInt63}};
        Row row;
        row.values = {std::int64_t(b.rows.size())};
        c.rows.push_back(row);
        return Response::binary(encode(c, kFakeCodec), maxAge);
    }
    if (what == "channels") {
        Table c;
        c.header.kind = AnswerKind::Channels;
        c.header.folder = folderFrom(3);
        c.header.columns = {{"channel", ColumnType::UInt32}, {"name", ColumnType::String255},
                            {"description", ColumnType::String255}};
        for (int i = 0; i < 10; ++i) {
            Row row;
            row.values = {std::int64_t(i), "ch" + std::to_string(i), std::string("")};
            c.rows.push_back(row);
        }
        return Response::binary(encode(c, kFakeCodec), maxAge);
    }
    if (what == "tags" || what == "tag") {
        Table c;
        c.header.kind = what == "tag" ? AnswerKind::Tag : AnswerKind::Tags;
        c.header.folder = folderFrom(what == "tag" ? 4 : 3);
        c.header.columns = {{"name", ColumnType::String255},  {"node", ColumnType::String255},
                            {"kind", ColumnType::String255},  {"lock", ColumnType::String255},
                            {"description", ColumnType::String4k}, {"insertionTime", ColumnType::String255}};
        Row row;
        row.values = {std::string(what == "tag" ? parts[3] : "F-v1"), c.header.folder, std::string("standard"),
                      std::string("locked"), std::string("d"), std::string("2026-01-01T00:00:00Z")};
        c.rows.push_back(row);
        return Response::binary(encode(c, kFakeCodec), maxAge);
    }
    return Response::problem(404, "no such query " + r.path);
}

}  // namespace outpost::testing
