// Decodes every testdata/NAME.bin and compares it with testdata/NAME.json (the JSON form of wire-format.md).
// Also checks the comparison itself on vectors made by the test encoder, so it is exercised before the
// shared vectors exist.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "encoder.h"
#include "outpost/decoder.h"

using namespace outpost;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string base64Decode(const std::string& s) {
    static const std::string chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    int val = 0, bits = -8;
    for (char c : s) {
        if (c == '=') break;
        auto p = chars.find(c);
        if (p == std::string::npos) continue;
        val = (val << 6) + int(p);
        bits += 6;
        if (bits >= 0) {
            out += char((val >> bits) & 0xFF);
            bits -= 8;
        }
    }
    return out;
}

double specialDouble(const json& j) {
    std::string s = j.get<std::string>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    ADD_FAILURE() << "unexpected string for a floating point value: " << s;
    return 0;
}

void expectValue(const json& want, const Value& got, ColumnType type, const std::string& where) {
    SCOPED_TRACE(where);
    if (want.is_null()) {
        EXPECT_TRUE(isNull(got));
        return;
    }
    ASSERT_FALSE(isNull(got));
    switch (type) {
        case ColumnType::Bool:
            EXPECT_EQ(want.is_boolean() ? want.get<bool>() : want.get<int>() != 0, std::get<bool>(got));
            break;
        case ColumnType::Float: {
            float w = want.is_string() ? float(specialDouble(want)) : float(want.get<double>());
            float g = std::get<float>(got);
            if (std::isnan(w)) EXPECT_TRUE(std::isnan(g)); else EXPECT_EQ(w, g);
            break;
        }
        case ColumnType::Double: {
            double w = want.is_string() ? specialDouble(want) : want.get<double>();
            double g = std::get<double>(got);
            if (std::isnan(w)) EXPECT_TRUE(std::isnan(g)); else EXPECT_EQ(w, g);
            break;
        }
        case ColumnType::Blob64k:
        case ColumnType::Blob16M: EXPECT_EQ(base64Decode(want.get<std::string>()), std::get<Blob>(got).bytes); break;
        default:
            if (isString(type)) {
                EXPECT_EQ(want.get<std::string>(), std::get<std::string>(got));
            } else if (want.is_number_unsigned()) {
                EXPECT_EQ(want.get<std::uint64_t>(), static_cast<std::uint64_t>(std::get<std::int64_t>(got)));
            } else {
                EXPECT_EQ(want.get<std::int64_t>(), std::get<std::int64_t>(got));
            }
    }
}

void expectMatches(const json& want, const Table& got) {
    EXPECT_EQ(want.at("kind").get<std::string>(), toString(got.header.kind));
    EXPECT_EQ(want.at("folder").get<std::string>(), got.header.folder);
    EXPECT_EQ(want.at("tag").get<std::string>(), got.header.tag);
    EXPECT_EQ(want.at("validSince").get<std::int64_t>(), got.header.validSince);
    EXPECT_EQ(want.at("validUntil").get<std::int64_t>(), got.header.validUntil);
    const json& cols = want.at("columns");
    ASSERT_EQ(cols.size(), got.header.columns.size());
    for (std::size_t i = 0; i < cols.size(); ++i) {
        EXPECT_EQ(cols[i].at("name").get<std::string>(), got.header.columns[i].name);
        EXPECT_EQ(cols[i].at("type").get<std::string>(), toString(got.header.columns[i].type));
    }
    const json& rows = want.at("rows");
    ASSERT_EQ(rows.size(), got.rows.size());
    if (want.contains("rowCount")) EXPECT_EQ(want.at("rowCount").get<std::size_t>(), got.rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        ASSERT_EQ(rows[r].size(), got.header.columns.size());
        for (std::size_t c = 0; c < rows[r].size(); ++c) {
            expectValue(rows[r][c], got.rows[r].values[c], got.header.columns[c].type,
                        "row " + std::to_string(r) + " column " + got.header.columns[c].name);
        }
    }
}

/// The JSON form of a table, as the Java side writes it (used to test the comparison).
json toJson(const Table& t) {
    static const char* b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    json j;
    j["kind"] = toString(t.header.kind);
    j["folder"] = t.header.folder;
    j["tag"] = t.header.tag;
    j["validSince"] = t.header.validSince;
    j["validUntil"] = t.header.validUntil;
    j["columns"] = json::array();
    for (auto& c : t.header.columns) j["columns"].push_back({{"name", c.name}, {"type", toString(c.type)}});
    j["rows"] = json::array();
    for (auto& r : t.rows) {
        json row = json::array();
        for (auto& v : r.values) {
            std::visit([&row](auto&& x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, std::monostate>) row.push_back(nullptr);
                else if constexpr (std::is_same_v<T, Blob>) {
                    std::string out;
                    const std::string& s = x.bytes;
                    for (std::size_t i = 0; i < s.size(); i += 3) {
                        unsigned n = (unsigned char)s[i] << 16 | (i + 1 < s.size() ? (unsigned char)s[i + 1] << 8 : 0) |
                                     (i + 2 < s.size() ? (unsigned char)s[i + 2] : 0);
                        out += b64[n >> 18];
                        out += b64[(n >> 12) & 63];
                        out += i + 1 < s.size() ? b64[(n >> 6) & 63] : '=';
                        out += i + 2 < s.size() ? b64[n & 63] : '=';
                    }
                    row.push_back(out);
                } else if constexpr (std::is_floating_point_v<T>) {
                    if (std::isnan(x)) row.push_back("NaN");
                    else if (std::isinf(x)) row.push_back(x > 0 ? "Infinity" : "-Infinity");
                    else row.push_back(double(x));
                } else row.push_back(x);
            }, v);
        }
        j["rows"].push_back(row);
    }
    j["rowCount"] = t.rows.size();
    return j;
}

}  // namespace

TEST(Testdata, EncoderVectorsMatchTheirJson) {
    Table t = outpost::testing::iovTable("/T/V", {{"f", ColumnType::Float}, {"d", ColumnType::Double},
                                        {"s", ColumnType::String255}, {"b", ColumnType::Blob64k},
                                        {"n", ColumnType::Int64}, {"ok", ColumnType::Bool}});
    outpost::testing::addIov(t, 7, 0, INT64_MAX, {0.1f, 0.1, std::string("x\"y\\z\n"), Blob{std::string("\0\xff\x10", 3)},
                                         std::int64_t(INT64_MIN), true});
    outpost::testing::addIov(t, 8, 5, 6, {std::numeric_limits<float>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                                 std::monostate{}, Blob{std::string("ab")}, std::int64_t(-1), std::monostate{}});
    json j = json::parse(toJson(t).dump());  // through text, as from a file
    for (int codec : {0, 1, 2}) {
        SCOPED_TRACE("codec " + std::to_string(codec));
        std::string bin = outpost::testing::encode(t, codec);
        auto got = decode(bin.data(), bin.size());
        ASSERT_TRUE(got) << got.error().message;
        expectMatches(j, *got);
    }
}

TEST(Testdata, EveryVectorDecodesToItsJson) {
    fs::path dir = OUTPOST_TESTDATA_DIR;
    int n = 0;
    std::map<int, int> perCodec;  // codec byte -> vectors
    if (fs::is_directory(dir)) {
        for (const auto& entry : fs::directory_iterator(dir)) {
            if (entry.path().extension() != ".bin") continue;
            fs::path expected = entry.path();
            expected.replace_extension(".json");
            SCOPED_TRACE(entry.path().filename().string());
            ASSERT_TRUE(fs::exists(expected)) << "no " << expected << " next to " << entry.path();
            std::string bin = readFile(entry.path());
            json want = json::parse(readFile(expected));
            ASSERT_GE(bin.size(), 6u);
            ++perCodec[static_cast<unsigned char>(bin[5])];
            auto got = decode(bin.data(), bin.size());
            ASSERT_TRUE(got) << got.error().message;
            expectMatches(want, *got);
            ++n;
        }
    }
    if (n == 0) GTEST_SKIP() << "no *.bin vectors in " << dir << " yet (the Java side generates them)";
    std::cout << "[          ] " << n << " testdata vectors decoded (by codec:";
    for (auto [codec, count] : perCodec) std::cout << " " << codec << "=" << count;
    std::cout << ")\n";
}
