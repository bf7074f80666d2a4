// Incremental decoder; see decoder.h and docs/wire-format.md.
//
// Bytes go through three states (header, body, trailer). Body bytes are decompressed (codec 1: zlib inflate,
// codec 2: zstd) into `buf_`, a window of decompressed content that holds at most one chunk plus an unfinished
// row; whole rows are parsed out of it and handed to the sink. The CRC-32 is computed over the decompressed bytes
// as they come out of the decompressor.
// One job, kept in one file: the states, the two decompressors and the row parser share that window and its
// counts, and the whole-answer decode() is the same decoder fed once.
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <limits>

#include "outpost/decoder.h"

namespace outpost {

namespace {

constexpr std::size_t kHeaderSize = 16;
constexpr std::size_t kTrailerSize = 16;
constexpr std::size_t kChunk = 256 * 1024;          // inflate output per call
constexpr std::uint32_t kMaxValueLength = 16u << 20; // String16M / Blob16M

std::uint64_t be64(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
    return v;
}
std::uint32_t be32(const unsigned char* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}
std::uint16_t be16(const unsigned char* p) { return std::uint16_t((p[0] << 8) | p[1]); }

/// Owns one zlib inflate stream (RAII).
class Inflater {
public:
    Inflater() = default;
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;
    ~Inflater() { if (initialised_) inflateEnd(&zs_); }
    bool init() {
        std::memset(&zs_, 0, sizeof zs_);
        initialised_ = inflateInit(&zs_) == Z_OK;
        return initialised_;
    }
    z_stream& stream() { return zs_; }

private:
    z_stream zs_{};
    bool initialised_ = false;
};

/// Owns one zstd decompression stream (RAII).
class ZstdStream {
public:
    ZstdStream() = default;
    ZstdStream(const ZstdStream&) = delete;
    ZstdStream& operator=(const ZstdStream&) = delete;
    ~ZstdStream() { ZSTD_freeDStream(ds_); }  // accepts nullptr
    bool init() {
        if (!ds_) ds_ = ZSTD_createDStream();
        return ds_ && !ZSTD_isError(ZSTD_DCtx_reset(ds_, ZSTD_reset_session_only));
    }
    ZSTD_DStream* get() { return ds_; }

private:
    ZSTD_DStream* ds_ = nullptr;
};

/// The 4 bytes every zstd frame starts with (0xFD2FB528, little-endian). Checked by the decoder itself because
/// libzstd would also accept skippable frames, and a codec-2 body is exactly one zstd frame.
constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};

enum class Parse { Ok, More, Bad };

/// Bounds-checked reader over the decompressed window. Running past the end records how many bytes
/// would have been needed, so the caller waits for that many before trying again.
struct Cursor {
    const unsigned char* p;
    std::size_t n;
    std::size_t pos = 0;
    std::size_t needed = 0;
    bool more = false;

    bool has(std::size_t k) {
        if (n - pos >= k) return true;
        more = true;
        needed = pos + k;
        return false;
    }
};

}  // namespace

struct StreamDecoder::Impl {
    enum class State { Header, Body, Trailer, Done, Failed };
    enum class Content { Header, Rows, End };

    explicit Impl(RowSink& s) : sink(s) {}

    RowSink& sink;
    State state = State::Header;
    Content content = Content::Header;
    Error error;

    unsigned char fixed[16];  // header, then trailer bytes
    std::size_t fixedHave = 0;
    std::uint8_t codec = 0;
    std::uint64_t bodyLen = 0;
    std::uint64_t bodySeen = 0;
    std::uint64_t bytesSeen = 0;
    Inflater inflater;
    ZstdStream zstd;
    bool streamEnded = false;          // the deflate stream / the zstd frame is complete

    std::vector<unsigned char> buf;
    std::size_t rpos = 0, wpos = 0;
    std::size_t need = 0;              // parse again only once wpos - rpos >= need
    std::uint64_t contentBase = 0;     // content offset of buf[0]
    std::uint32_t crc = 0;
    std::uint64_t contentSeen = 0;
    std::uint64_t maxContent = ~std::uint64_t(0);

    AnswerHeader header;
    Row row;
    std::uint64_t rowCount = 0;

    bool fail(ErrorCode code, std::string msg) {
        if (state == State::Failed) return false;
        state = State::Failed;
        error = Error(code, std::move(msg));
        return false;
    }
    bool corrupt(const std::string& msg) { return fail(ErrorCode::Corrupt, "corrupt answer: " + msg); }
    /// Counts content bytes: a small body may decompress to gigabytes.
    bool count(std::size_t n) {
        contentSeen += n;
        if (contentSeen <= maxContent) return true;
        return corrupt("answer too large: its content is over maxanswerbytes=" + std::to_string(maxContent) +
                       " bytes decompressed");
    }
    std::string at() const { return " at content byte " + std::to_string(contentBase + rpos); }

    bool feed(const unsigned char* data, std::size_t size);
    bool readHeader();
    bool readTrailer();
    bool body(const unsigned char* data, std::size_t size);
    bool inflateBody(const unsigned char* data, std::size_t size);
    bool zstdBody(const unsigned char* data, std::size_t size);
    bool append(const unsigned char* data, std::size_t size);
    void makeRoom(std::size_t atLeast);
    bool parse();
    Parse parseContentHeader(Cursor& c);
    Parse parseRow(Cursor& c);
    bool readString(Cursor& c, std::string& out, bool& bad);
};

bool StreamDecoder::Impl::feed(const unsigned char* data, std::size_t size) {
    bytesSeen += size;
    while (size > 0) {
        switch (state) {
            case State::Failed: return false;
            case State::Done:
                return corrupt("more than 16 + body_len + 16 = " + std::to_string(32 + bodyLen) + " bytes");
            case State::Header:
            case State::Trailer: {
                std::size_t take = std::min(size, 16 - fixedHave);
                std::memcpy(fixed + fixedHave, data, take);
                fixedHave += take;
                data += take;
                size -= take;
                if (fixedHave == 16) {
                    fixedHave = 0;
                    if (!(state == State::Header ? readHeader() : readTrailer())) return false;
                }
                break;
            }
            case State::Body: {
                std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(size, bodyLen - bodySeen));
                if (!body(data, take)) return false;
                data += take;
                size -= take;
                break;
            }
        }
    }
    return state != State::Failed;
}

bool StreamDecoder::Impl::readHeader() {
    if (std::memcmp(fixed, "OUTP", 4) != 0) return corrupt("header magic is not OUTP");
    if (fixed[4] != 1) return corrupt("format version " + std::to_string(fixed[4]) + ", this client reads version 1");
    codec = fixed[5];
    if (codec > 2) return corrupt("unknown codec " + std::to_string(codec));
    bodyLen = be64(fixed + 8);
    if (bodyLen > (std::uint64_t(1) << 62)) return corrupt("body_len " + std::to_string(bodyLen) + " is impossible");
    if (codec == 1 && !inflater.init()) return fail(ErrorCode::Protocol, "zlib inflateInit failed");
    if (codec == 2 && !zstd.init()) return fail(ErrorCode::Protocol, "zstd: cannot create a decompression stream");
    buf.resize(kChunk + kChunk / 4);
    state = State::Body;
    if (bodyLen == 0) return corrupt("empty body");
    return true;
}

bool StreamDecoder::Impl::readTrailer() {
    std::uint64_t trailerRows = be64(fixed);
    std::uint32_t trailerCrc = be32(fixed + 8);
    if (std::memcmp(fixed + 12, "PTUO", 4) != 0) return corrupt("trailer magic is not PTUO");
    if (trailerRows != rowCount) {
        return corrupt("trailer says " + std::to_string(trailerRows) + " rows, content has " + std::to_string(rowCount));
    }
    if (trailerCrc != crc) {
        char msg[96];
        std::snprintf(msg, sizeof msg, "CRC-32 mismatch: trailer %08x, content %08x", trailerCrc, crc);
        return corrupt(msg);
    }
    state = State::Done;
    sink.end(header, rowCount);
    return true;
}

void StreamDecoder::Impl::makeRoom(std::size_t atLeast) {
    if (buf.size() - wpos >= atLeast) return;
    if (rpos > 0) {  // slide the unparsed tail to the front
        std::memmove(buf.data(), buf.data() + rpos, wpos - rpos);
        contentBase += rpos;
        wpos -= rpos;
        rpos = 0;
    }
    if (buf.size() - wpos < atLeast) buf.resize(std::max(buf.size() * 2, wpos + atLeast));
}

bool StreamDecoder::Impl::append(const unsigned char* data, std::size_t size) {
    if (!count(size)) return false;
    makeRoom(size);
    std::memcpy(buf.data() + wpos, data, size);
    crc = static_cast<std::uint32_t>(crc32(crc, data, static_cast<uInt>(size)));
    wpos += size;
    return parse();
}

bool StreamDecoder::Impl::body(const unsigned char* data, std::size_t size) {
    bodySeen += size;
    if (codec == 0) {
        // Feed in pieces so that the window stays small.
        while (size > 0) {
            std::size_t take = std::min(size, kChunk);
            if (!append(data, take)) return false;
            data += take;
            size -= take;
        }
    } else if (!(codec == 1 ? inflateBody(data, size) : zstdBody(data, size))) {
        return false;
    }
    if (bodySeen == bodyLen) {
        if (codec == 1 && !streamEnded) return corrupt("deflate stream does not end at body_len " + std::to_string(bodyLen));
        if (codec == 2 && !streamEnded) {
            return corrupt("zstd frame does not end at body_len " + std::to_string(bodyLen) + " (truncated frame)");
        }
        if (content != Content::End) return corrupt("content ends without the end marker" + at());
        state = State::Trailer;
    }
    return true;
}

// `size` body bytes, already counted in bodySeen.
bool StreamDecoder::Impl::inflateBody(const unsigned char* data, std::size_t size) {
    z_stream& zs = inflater.stream();
    zs.next_in = const_cast<unsigned char*>(data);
    zs.avail_in = static_cast<uInt>(size);
    while (!streamEnded) {
        makeRoom(kChunk / 4);
        unsigned char* out = buf.data() + wpos;
        std::size_t room = buf.size() - wpos;
        zs.next_out = out;
        zs.avail_out = static_cast<uInt>(room);
        int rc = inflate(&zs, Z_NO_FLUSH);
        std::size_t produced = room - zs.avail_out;
        if (produced > 0) {
            crc = static_cast<std::uint32_t>(crc32(crc, out, static_cast<uInt>(produced)));
            wpos += produced;
            if (!count(produced) || !parse()) return false;
        }
        if (rc == Z_STREAM_END) {
            streamEnded = true;
            if (zs.avail_in != 0 || bodySeen != bodyLen) {
                return corrupt("deflate stream ends " + std::to_string(bodyLen - bodySeen + zs.avail_in) +
                               " bytes before body_len " + std::to_string(bodyLen));
            }
            break;
        }
        if (rc == Z_BUF_ERROR || (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0)) break;  // wants input
        if (rc != Z_OK) {
            return corrupt(std::string("zlib: ") + (zs.msg ? zs.msg : "inflate error " + std::to_string(rc)) +
                           " at body byte " + std::to_string(bodySeen - zs.avail_in));
        }
    }
    if (streamEnded && zs.avail_in != 0) {
        return corrupt("bytes after the end of the deflate stream");
    }
    return true;
}

// `size` body bytes, already counted in bodySeen. The body must be exactly one zstd frame: it starts with the
// frame magic, ZSTD_decompressStream reports the frame complete (returns 0) exactly when its last byte is
// consumed, and that byte is the last of the body. libzstd checks the frame itself (block structure, the
// content size and XXH64 checksum when the frame has them); the CRC-32 and row count in the trailer follow.
bool StreamDecoder::Impl::zstdBody(const unsigned char* data, std::size_t size) {
    const std::uint64_t first = bodySeen - size;  // body offset of data[0]
    for (std::uint64_t i = first; i < 4 && i < bodySeen; ++i) {
        if (data[i - first] != kZstdMagic[i]) return corrupt("codec 2 body does not start with a zstd frame magic");
    }
    if (streamEnded) return size == 0 || corrupt("bytes after the end of the zstd frame");
    ZSTD_inBuffer in{data, size, 0};
    for (;;) {
        makeRoom(kChunk / 4);
        unsigned char* out = buf.data() + wpos;
        ZSTD_outBuffer ob{out, buf.size() - wpos, 0};
        std::size_t rc = ZSTD_decompressStream(zstd.get(), &ob, &in);
        if (ZSTD_isError(rc)) {
            return corrupt(std::string("zstd: ") + ZSTD_getErrorName(rc) + " at body byte " +
                           std::to_string(first + in.pos));
        }
        if (ob.pos > 0) {
            crc = static_cast<std::uint32_t>(crc32(crc, out, static_cast<uInt>(ob.pos)));
            wpos += ob.pos;
            if (!count(ob.pos) || !parse()) return false;
        }
        if (rc == 0) {  // frame complete and fully flushed
            streamEnded = true;
            if (in.pos != in.size || bodySeen != bodyLen) {
                return corrupt("zstd frame ends " + std::to_string(bodyLen - bodySeen + (in.size - in.pos)) +
                               " bytes before body_len " + std::to_string(bodyLen));
            }
            return true;
        }
        // All input consumed and the output not filled: zstd holds nothing back, it needs more input.
        if (in.pos == in.size && ob.pos < ob.size) return true;
    }
}

bool StreamDecoder::Impl::readString(Cursor& c, std::string& out, bool& bad) {
    if (!c.has(4)) return false;
    std::uint32_t len = be32(c.p + c.pos);
    if (len > kMaxValueLength) { bad = true; return false; }
    if (!c.has(4 + std::size_t(len))) return false;
    out.assign(reinterpret_cast<const char*>(c.p + c.pos + 4), len);
    c.pos += 4 + len;
    return true;
}

Parse StreamDecoder::Impl::parseContentHeader(Cursor& c) {
    bool bad = false;
    AnswerHeader h;
    if (!c.has(1)) return Parse::More;
    std::uint8_t kind = c.p[c.pos++];
    if (kind < 1 || kind > 10) { corrupt("unknown kind " + std::to_string(kind)); return Parse::Bad; }
    h.kind = static_cast<AnswerKind>(kind);
    if (!readString(c, h.folder, bad) || !readString(c, h.tag, bad)) return bad ? (corrupt("bad string length in content header"), Parse::Bad) : Parse::More;
    if (!c.has(18)) return Parse::More;
    h.validSince = static_cast<std::int64_t>(be64(c.p + c.pos));
    h.validUntil = static_cast<std::int64_t>(be64(c.p + c.pos + 8));
    std::uint16_t ncols = be16(c.p + c.pos + 16);
    c.pos += 18;
    h.columns.resize(ncols);
    for (auto& col : h.columns) {
        if (!readString(c, col.name, bad)) return bad ? (corrupt("bad column name length"), Parse::Bad) : Parse::More;
        if (!c.has(1)) return Parse::More;
        std::uint8_t t = c.p[c.pos++];
        if (t > 15) { corrupt("unknown type code " + std::to_string(t) + " of column " + col.name); return Parse::Bad; }
        col.type = static_cast<ColumnType>(t);
    }
    if (h.kind == AnswerKind::Iovs &&
        (ncols < 3 || h.columns[0].name != "channel" || h.columns[1].name != "since" || h.columns[2].name != "until")) {
        corrupt("an iovs answer starts with the columns channel, since, until");
        return Parse::Bad;
    }
    header = std::move(h);
    row.values.assign(header.columns.size(), Value{});
    return Parse::Ok;
}

Parse StreamDecoder::Impl::parseRow(Cursor& c) {
    const std::size_t ncols = header.columns.size();
    const std::size_t bitmapBytes = (ncols + 7) / 8;
    if (!c.has(1 + bitmapBytes)) return Parse::More;
    const unsigned char* bitmap = c.p + c.pos + 1;
    c.pos += 1 + bitmapBytes;
    for (std::size_t i = 0; i < ncols; ++i) {
        Value& v = row.values[i];
        if (bitmap[i >> 3] & (1u << (i & 7))) {
            v = std::monostate{};
            continue;
        }
        const unsigned char* p = c.p + c.pos;
        switch (header.columns[i].type) {
            case ColumnType::Bool:
                if (!c.has(1)) return Parse::More;
                if (*p > 1) { corrupt("Bool value " + std::to_string(*p) + at()); return Parse::Bad; }
                v = *p != 0; c.pos += 1; break;
            case ColumnType::UChar:
                if (!c.has(1)) return Parse::More;
                v = std::int64_t(*p); c.pos += 1; break;
            case ColumnType::Int16:
                if (!c.has(2)) return Parse::More;
                v = std::int64_t(std::int16_t(be16(p))); c.pos += 2; break;
            case ColumnType::UInt16:
                if (!c.has(2)) return Parse::More;
                v = std::int64_t(be16(p)); c.pos += 2; break;
            case ColumnType::Int32:
                if (!c.has(4)) return Parse::More;
                v = std::int64_t(std::int32_t(be32(p))); c.pos += 4; break;
            case ColumnType::UInt32:
                if (!c.has(4)) return Parse::More;
                v = std::int64_t(be32(p)); c.pos += 4; break;
            case ColumnType::UInt63:
            case ColumnType::Int64:
                if (!c.has(8)) return Parse::More;
                v = std::int64_t(be64(p)); c.pos += 8; break;
            case ColumnType::Float: {
                if (!c.has(4)) return Parse::More;
                std::uint32_t bits = be32(p);
                float f;
                std::memcpy(&f, &bits, 4);
                v = f; c.pos += 4; break;
            }
            case ColumnType::Double: {
                if (!c.has(8)) return Parse::More;
                std::uint64_t bits = be64(p);
                double d;
                std::memcpy(&d, &bits, 8);
                v = d; c.pos += 8; break;
            }
            default: {  // strings and blobs: 4-byte length + bytes
                if (!c.has(4)) return Parse::More;
                std::uint32_t len = be32(p);
                if (len > kMaxValueLength) { corrupt("value length " + std::to_string(len) + at()); return Parse::Bad; }
                if (!c.has(4 + std::size_t(len))) return Parse::More;
                const char* s = reinterpret_cast<const char*>(p + 4);
                if (isBlob(header.columns[i].type)) {
                    if (auto* b = std::get_if<Blob>(&v)) b->bytes.assign(s, len); else v = Blob{std::string(s, len)};
                } else {
                    if (auto* str = std::get_if<std::string>(&v)) str->assign(s, len); else v = std::string(s, len);
                }
                c.pos += 4 + len;
            }
        }
    }
    if (header.kind == AnswerKind::Iovs) {
        const auto* ch = std::get_if<std::int64_t>(&row.values[0]);
        const auto* since = std::get_if<std::int64_t>(&row.values[1]);
        const auto* until = std::get_if<std::int64_t>(&row.values[2]);
        if (!ch || !since || !until) { corrupt("NULL channel, since or until" + at()); return Parse::Bad; }
        row.channel = static_cast<std::uint32_t>(*ch);
        row.since = *since;
        row.until = *until;
    }
    return Parse::Ok;
}

bool StreamDecoder::Impl::parse() {
    while (wpos - rpos >= need && wpos > rpos) {
        Cursor c{buf.data() + rpos, wpos - rpos};
        need = 0;
        Parse r;
        switch (content) {
            case Content::Header:
                r = parseContentHeader(c);
                if (r == Parse::Ok) sink.begin(header);
                break;
            case Content::Rows: {
                std::uint8_t marker = c.p[0];
                if (marker == 0) {
                    c.pos = 1;
                    r = Parse::Ok;
                    content = Content::End;
                    rpos += c.pos;
                    continue;
                }
                if (marker != 1) {
                    return corrupt("row marker " + std::to_string(marker) + at());
                }
                r = parseRow(c);
                if (r == Parse::Ok) {
                    ++rowCount;
                    rpos += c.pos;
                    if (!sink.row(header, row)) return fail(ErrorCode::Cancelled, "the row sink stopped the transfer");
                    continue;
                }
                break;
            }
            case Content::End:
                return corrupt(std::to_string(wpos - rpos) + " bytes after the end marker" + at());
        }
        if (r == Parse::Bad) return false;
        if (r == Parse::More) {
            need = c.needed;
            return true;
        }
        rpos += c.pos;
        content = Content::Rows;
    }
    return state != State::Failed;
}

StreamDecoder::StreamDecoder(RowSink& sink) : impl_(std::make_unique<Impl>(sink)) {}
StreamDecoder::~StreamDecoder() = default;

bool StreamDecoder::feed(const void* data, std::size_t size) {
    return impl_->feed(static_cast<const unsigned char*>(data), size);
}

Result<void> StreamDecoder::finish() {
    Impl& d = *impl_;
    if (d.state == Impl::State::Failed) return d.error;
    if (d.state != Impl::State::Done) {
        if (d.bytesSeen < kHeaderSize) {
            return Error(ErrorCode::Corrupt, "truncated answer: " + std::to_string(d.bytesSeen) +
                                                 " bytes, less than the 16-byte header");
        }
        return Error(ErrorCode::Corrupt, "truncated answer: " + std::to_string(d.bytesSeen) + " of " +
                                             std::to_string(32 + d.bodyLen) + " bytes");
    }
    return {};
}

bool StreamDecoder::failed() const { return impl_->state == Impl::State::Failed; }
const Error& StreamDecoder::error() const { return impl_->error; }
bool StreamDecoder::done() const { return impl_->state == Impl::State::Done; }
std::uint64_t StreamDecoder::bytesSeen() const { return impl_->bytesSeen; }
std::uint64_t StreamDecoder::expectedSize() const {
    return impl_->state == Impl::State::Header ? 0 : 32 + impl_->bodyLen;
}
std::uint64_t StreamDecoder::rows() const { return impl_->rowCount; }
void StreamDecoder::setMaxContentBytes(std::uint64_t max) { impl_->maxContent = max; }

Result<Table> decode(const void* data, std::size_t size) {
    TableSink sink;
    StreamDecoder d(sink);
    d.feed(data, size);
    auto r = d.finish();
    if (!r) return r.error();
    return sink.take();
}

}  // namespace outpost
