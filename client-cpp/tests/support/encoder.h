// Test-side encoder of the wire format (docs/wire-format.md), written from the spec independently of the
// decoder. Used by the unit tests, the fake servers and the benchmark.
#pragma once

#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <optional>
#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "outpost/table.h"

namespace outpost::testing {

inline void putBE(std::string& out, std::uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
inline void putStr(std::string& out, const std::string& s) {
    putBE(out, s.size(), 4);
    out += s;
}

/// Appends one row (marker, null bitmap, values) to `content`.
inline void putRow(std::string& content, const std::vector<Column>& cols, const std::vector<Value>& values) {
    content += '\x01';
    std::string bitmap((cols.size() + 7) / 8, '\0');
    for (std::size_t i = 0; i < cols.size(); ++i) {
        if (isNull(values[i])) bitmap[i / 8] = static_cast<char>(bitmap[i / 8] | (1 << (i % 8)));
    }
    content += bitmap;
    for (std::size_t i = 0; i < cols.size(); ++i) {
        const Value& v = values[i];
        if (isNull(v)) continue;
        switch (cols[i].type) {
            case ColumnType::Bool: content += std::get<bool>(v) ? '\x01' : '\x00'; break;
            case ColumnType::UChar: putBE(content, std::uint64_t(std::get<std::int64_t>(v)), 1); break;
            case ColumnType::Int16:
            case ColumnType::UInt16: putBE(content, std::uint64_t(std::get<std::int64_t>(v)), 2); break;
            case ColumnType::Int32:
            case ColumnType::UInt32: putBE(content, std::uint64_t(std::get<std::int64_t>(v)), 4); break;
            case ColumnType::UInt63:
            case ColumnType::Int64: putBE(content, std::uint64_t(std::get<std::int64_t>(v)), 8); break;
            case ColumnType::Float: {
                float f = std::get<float>(v);
                std::uint32_t bits;
                std::memcpy(&bits, &f, 4);
                putBE(content, bits, 4);
                break;
            }
            case ColumnType::Double: {
                double d = std::get<double>(v);
                std::uint64_t bits;
                std::memcpy(&bits, &d, 8);
                putBE(content, bits, 8);
                break;
            }
            case ColumnType::Blob64k:
            case ColumnType::Blob16M: putStr(content, std::get<Blob>(v).bytes); break;
            default: putStr(content, std::get<std::string>(v)); break;
        }
    }
}

/// The content before the rows.
inline std::string contentHeader(const AnswerHeader& h) {
    std::string c;
    c += static_cast<char>(h.kind);
    putStr(c, h.folder);
    putStr(c, h.tag);
    putBE(c, std::uint64_t(h.validSince), 8);
    putBE(c, std::uint64_t(h.validUntil), 8);
    putBE(c, h.columns.size(), 2);
    for (const auto& col : h.columns) {
        putStr(c, col.name);
        c += static_cast<char>(col.type);
    }
    return c;
}

/// How codec 2 bodies are made. The server (zstd-jni's ZstdOutputStream) writes a streamed frame: no content
/// size in the frame header, no checksum. `contentSize` puts the size in the frame header (as ZSTD_compress()
/// does), `checksum` adds the frame's XXH64 content checksum.
struct ZstdFrame {
    bool contentSize = false;
    bool checksum = false;
};

inline std::string zstdCompress(const std::string& content, int level, ZstdFrame how = {}) {
    std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!cctx) throw std::runtime_error("ZSTD_createCCtx failed");
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, how.checksum ? 1 : 0);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, how.contentSize ? 1 : 0);
    if (how.contentSize) ZSTD_CCtx_setPledgedSrcSize(cctx.get(), content.size());
    // Streamed in 64 KB pieces like the server, so multi-block frames are the normal case.
    std::string body(ZSTD_compressBound(content.size()) + 64, '\0');
    ZSTD_outBuffer out{&body[0], body.size(), 0};
    for (std::size_t off = 0;;) {
        std::size_t take = std::min<std::size_t>(64 * 1024, content.size() - off);
        bool last = off + take == content.size();
        ZSTD_inBuffer in{content.data() + off, take, 0};
        std::size_t rc;
        do {
            rc = ZSTD_compressStream2(cctx.get(), &out, &in, last ? ZSTD_e_end : ZSTD_e_continue);
            if (ZSTD_isError(rc)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(rc));
        } while (last ? rc != 0 : in.pos < in.size);
        off += take;
        if (last) break;
    }
    body.resize(out.pos);
    return body;
}

/// Wraps finished content (rows and end marker included) into header + body + trailer.
/// `level` defaults to the codec's default level (zlib 6, zstd 3).
inline std::string frame(const std::string& content, std::uint64_t rows, int codec = 1,
                         std::optional<int> level = std::nullopt, ZstdFrame how = {}) {
    std::string body;
    if (codec == 1) {
        uLongf len = compressBound(static_cast<uLong>(content.size()));
        body.resize(len);
        if (compress2(reinterpret_cast<Bytef*>(&body[0]), &len, reinterpret_cast<const Bytef*>(content.data()),
                      static_cast<uLong>(content.size()), level.value_or(6)) != Z_OK) {
            throw std::runtime_error("compress2 failed");
        }
        body.resize(len);
    } else if (codec == 2) {
        body = zstdCompress(content, level.value_or(ZSTD_CLEVEL_DEFAULT), how);
    } else {
        body = content;
    }
    std::string out = "OUTP";
    out += '\x01';
    out += static_cast<char>(codec);
    putBE(out, 0, 2);
    putBE(out, body.size(), 8);
    out += body;
    putBE(out, rows, 8);
    putBE(out, crc32(0, reinterpret_cast<const Bytef*>(content.data()), static_cast<uInt>(content.size())), 4);
    out += "PTUO";
    return out;
}

/// The content of a table: header, rows, end marker.
inline std::string content(const Table& t) {
    std::string c = contentHeader(t.header);
    for (const auto& r : t.rows) putRow(c, t.header.columns, r.values);
    c += '\x00';
    return c;
}

inline std::string encode(const Table& t, int codec = 1, ZstdFrame how = {}) {
    return frame(content(t), t.rows.size(), codec, std::nullopt, how);
}

/// An iovs table with columns channel, since, until, then the given payload columns.
inline Table iovTable(const std::string& folder, std::vector<Column> payload) {
    Table t;
    t.header.kind = AnswerKind::Iovs;
    t.header.folder = folder;
    t.header.tag = "HEAD";
    t.header.columns = {{"channel", ColumnType::UInt32}, {"since", ColumnType::UInt63}, {"until", ColumnType::UInt63}};
    for (auto& c : payload) t.header.columns.push_back(std::move(c));
    return t;
}

inline void addIov(Table& t, std::uint32_t ch, std::int64_t since, std::int64_t until, std::vector<Value> payload) {
    Row r;
    r.channel = ch;
    r.since = since;
    r.until = until;
    r.values = {std::int64_t(ch), since, until};
    for (auto& v : payload) r.values.push_back(std::move(v));
    t.rows.push_back(std::move(r));
}

}  // namespace outpost::testing
