// Decoding throughput of a ~100 MB answer vs decompression alone of the same bytes, for codec 1 (zlib) and
// codec 2 (zstd, the server's default).
//
// Builds, in process, an atlasPrompt-like answer: 100k rows (100 channels x 1000 IOVs), each with a
// 1000-character random string, compressed as the server sends it (zlib: one deflate stream; zstd: one frame,
// streamed, no content size or checksum in the frame header). Then measures, best of N runs, with the body fed in
// 64 KB pieces as from the network, per codec:
//   decompress - zlib inflate / ZSTD_decompressStream of the body into a reused 256 KB buffer (the floor of any
//                decoder)
//   decode     - outpost::StreamDecoder: decompression + CRC-32 + parsing every row into typed values
// and prints decode/decompress throughput (target >= 0.7). Compression time (one run) is printed for reference.
//
// Run:  build/outpost-decode-bench [rows] [string-length] [runs] [zlib-level] [zstd-level]
#include <zlib.h>
#include <zstd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "encoder.h"
#include "outpost/decoder.h"

using namespace outpost;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kPiece = 64 * 1024;

double inflateOnly(const std::string& answer, std::size_t& outBytes) {
    auto start = Clock::now();
    z_stream zs{};
    inflateInit(&zs);
    std::vector<unsigned char> out(256 * 1024);
    const unsigned char* body = reinterpret_cast<const unsigned char*>(answer.data()) + 16;
    std::size_t bodyLen = answer.size() - 32;
    outBytes = 0;
    int rc = Z_OK;
    for (std::size_t off = 0; off < bodyLen && rc != Z_STREAM_END; off += kPiece) {
        zs.next_in = const_cast<unsigned char*>(body + off);
        zs.avail_in = static_cast<uInt>(std::min(kPiece, bodyLen - off));
        do {
            zs.next_out = out.data();
            zs.avail_out = static_cast<uInt>(out.size());
            rc = inflate(&zs, Z_NO_FLUSH);
            outBytes += out.size() - zs.avail_out;
        } while (zs.avail_out == 0 && rc == Z_OK);
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END) { std::fprintf(stderr, "inflate failed\n"); std::exit(1); }
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double zstdOnly(const std::string& answer, std::size_t& outBytes) {
    auto start = Clock::now();
    ZSTD_DStream* ds = ZSTD_createDStream();
    ZSTD_initDStream(ds);
    std::vector<unsigned char> out(256 * 1024);
    const unsigned char* body = reinterpret_cast<const unsigned char*>(answer.data()) + 16;
    std::size_t bodyLen = answer.size() - 32;
    outBytes = 0;
    std::size_t rc = 1;
    for (std::size_t off = 0; off < bodyLen && rc != 0; off += kPiece) {
        ZSTD_inBuffer in{body + off, std::min(kPiece, bodyLen - off), 0};
        ZSTD_outBuffer ob{out.data(), out.size(), 0};
        do {
            ob.pos = 0;
            rc = ZSTD_decompressStream(ds, &ob, &in);
            if (ZSTD_isError(rc)) break;
            outBytes += ob.pos;
        } while (rc != 0 && (in.pos < in.size || ob.pos == ob.size));
        if (ZSTD_isError(rc)) break;
    }
    ZSTD_freeDStream(ds);
    if (rc != 0) { std::fprintf(stderr, "zstd decompression failed\n"); std::exit(1); }
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Touch : RowSink {
    std::uint64_t rows = 0, chars = 0;
    void begin(const AnswerHeader&) override {}
    bool row(const AnswerHeader&, const Row& r) override {
        ++rows;
        chars += std::get<std::string>(r.values[3]).size() + std::uint64_t(r.since & 1);
        return true;
    }
};

double decodeAll(const std::string& answer, std::uint64_t& rows) {
    auto start = Clock::now();
    Touch sink;
    StreamDecoder d(sink);
    for (std::size_t off = 0; off < answer.size(); off += kPiece) {
        if (!d.feed(answer.data() + off, std::min(kPiece, answer.size() - off))) break;
    }
    auto r = d.finish();
    if (!r) { std::fprintf(stderr, "decode failed: %s\n", r.error().message.c_str()); std::exit(1); }
    rows = sink.rows;
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Measured {
    double compressMs, decompress, decode;
    std::size_t body;
};

Measured measure(int codec, int level, const std::string& content, std::size_t rows, int runs) {
    auto start = Clock::now();
    std::string answer = testing::frame(content, rows, codec, level);
    Measured r{std::chrono::duration<double, std::milli>(Clock::now() - start).count(), 1e9, 1e9, answer.size() - 32};
    std::size_t outBytes = 0;
    std::uint64_t decodedRows = 0;
    for (int i = 0; i < runs; ++i) {
        r.decompress = std::min(r.decompress, codec == 1 ? inflateOnly(answer, outBytes) : zstdOnly(answer, outBytes));
        r.decode = std::min(r.decode, decodeAll(answer, decodedRows));
    }
    if (outBytes != content.size() || decodedRows != rows) { std::fprintf(stderr, "size mismatch\n"); std::exit(1); }
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    std::size_t len = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000;
    int runs = argc > 3 ? std::atoi(argv[3]) : 5;
    int zlibLevel = argc > 4 ? std::atoi(argv[4]) : 6;
    int zstdLevel = argc > 5 ? std::atoi(argv[5]) : ZSTD_CLEVEL_DEFAULT;

    std::printf("building %zu rows x %zu random characters ...\n", rows, len);
    Table t = testing::iovTable("/ATLAS/Prompt/F00", {{"payload", ColumnType::String4k}});
    std::mt19937_64 rng(42);
    const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::string content = testing::contentHeader(t.header);
    std::vector<Value> values(4);
    std::string s(len, ' ');
    for (std::size_t i = 0; i < rows; ++i) {
        for (auto& c : s) c = alphabet[rng() % 62];
        std::int64_t since = std::int64_t(i % 1000) * 300'000'000'000LL + std::int64_t(i / 1000) * 3'000'000;
        values = {std::int64_t(i / 1000), since, since + 300'000'000'000LL, s};
        testing::putRow(content, t.header.columns, values);
    }
    content += '\0';
    double mb = content.size() / 1e6;
    std::printf("content %.1f MB, %zu rows, best of %d runs, 64 KB pieces\n", mb, rows, runs);
    for (int codec : {1, 2}) {
        int level = codec == 1 ? zlibLevel : zstdLevel;
        Measured r = measure(codec, level, content, rows, runs);
        const char* name = codec == 1 ? "zlib" : "zstd";
        std::printf("codec %d %s level %d: body %.1f MB (%.0f %%), compressed in %.0f ms\n", codec, name, level,
                    r.body / 1e6, 100.0 * r.body / content.size(), r.compressMs);
        std::printf("  %s only  : %7.1f ms  %7.1f MB/s\n", codec == 1 ? "inflate" : "zstd   ", r.decompress * 1e3,
                    mb / r.decompress);
        std::printf("  full decode   : %7.1f ms  %7.1f MB/s  %.0f rows/s\n", r.decode * 1e3, mb / r.decode,
                    rows / r.decode);
        std::printf("  ratio decode/decompress throughput: %.2f (target >= 0.7)\n", r.decompress / r.decode);
    }
    return 0;
}
