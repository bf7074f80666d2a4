#include "output.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

namespace outpost::cli {

std::string base64(const std::string& s) {
    static const char* b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < s.size(); i += 3) {
        unsigned n = unsigned((unsigned char)s[i]) << 16;
        if (i + 1 < s.size()) n |= unsigned((unsigned char)s[i + 1]) << 8;
        if (i + 2 < s.size()) n |= (unsigned char)s[i + 2];
        out += b64[n >> 18];
        out += b64[(n >> 12) & 63];
        out += i + 1 < s.size() ? b64[(n >> 6) & 63] : '=';
        out += i + 2 < s.size() ? b64[n & 63] : '=';
    }
    return out;
}

namespace {
template <typename F>
std::string floating(F x) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, x);  // shortest text that reads back to the same value
    return std::string(buf, r.ptr);
}
}  // namespace

std::string formatValue(const Value& v) {
    switch (v.index()) {
        case 0: return "NULL";
        case 1: return std::get<bool>(v) ? "true" : "false";
        case 2: return std::to_string(std::get<std::int64_t>(v));
        case 3: return floating(std::get<float>(v));
        case 4: return floating(std::get<double>(v));
        case 5: return std::get<std::string>(v);
        default: return base64(std::get<Blob>(v).bytes);
    }
}

std::string jsonString(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "\"";
}

std::string jsonValue(const Value& v) {
    switch (v.index()) {
        case 0: return "null";
        case 3:
        case 4: {
            std::string s = formatValue(v);
            return (s == "NaN" || s == "Infinity" || s == "-Infinity") ? "\"" + s + "\"" : s;
        }
        case 5: return jsonString(std::get<std::string>(v));
        case 6: return "\"" + base64(std::get<Blob>(v).bytes) + "\"";
        default: return formatValue(v);
    }
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

namespace {
void jsonHead(std::ostream& out, const AnswerHeader& h) {
    out << "{\"kind\":\"" << toString(h.kind) << "\",\"folder\":" << jsonString(h.folder)
        << ",\"tag\":" << jsonString(h.tag) << ",\"validSince\":" << h.validSince << ",\"validUntil\":" << h.validUntil
        << ",\n \"columns\":[";
    for (std::size_t i = 0; i < h.columns.size(); ++i) {
        out << (i ? "," : "") << "{\"name\":" << jsonString(h.columns[i].name) << ",\"type\":\""
            << toString(h.columns[i].type) << "\"}";
    }
    out << "],\n \"rows\":[";
}
void jsonRow(std::ostream& out, const Row& r, bool first) {
    out << (first ? "\n  [" : ",\n  [");
    for (std::size_t i = 0; i < r.values.size(); ++i) out << (i ? "," : "") << jsonValue(r.values[i]);
    out << "]";
}
void csvHead(std::ostream& out, const AnswerHeader& h) {
    for (std::size_t i = 0; i < h.columns.size(); ++i) out << (i ? "," : "") << csvField(h.columns[i].name);
    out << "\n";
}
void csvRow(std::ostream& out, const Row& r) {
    for (std::size_t i = 0; i < r.values.size(); ++i) {
        out << (i ? "," : "") << (isNull(r.values[i]) ? std::string() : csvField(formatValue(r.values[i])));
    }
    out << "\n";
}
}  // namespace

void printTable(std::ostream& out, const Table& t, Format f) {
    if (f == Format::Json) {
        jsonHead(out, t.header);
        for (std::size_t i = 0; i < t.rows.size(); ++i) jsonRow(out, t.rows[i], i == 0);
        out << "],\n \"rowCount\":" << t.rows.size() << "}\n";
        return;
    }
    if (f == Format::Csv) {
        csvHead(out, t.header);
        for (const auto& r : t.rows) csvRow(out, r);
        return;
    }
    // docs/cli.md: widths in characters from the names and the first 1000 rows; numbers right-aligned; values
    // over 48 characters cut to 45 and "..."; no trailing spaces.
    constexpr std::size_t kMaxWidth = 48;
    constexpr std::size_t kLookahead = 1000;
    auto chars = [](const std::string& s) {
        std::size_t n = 0;
        for (unsigned char c : s) n += (c & 0xC0) != 0x80;
        return n;
    };
    auto cell = [&](const Value& v) {
        std::string s = formatValue(v);
        for (char& c : s) if (c == '\n' || c == '\t' || c == '\r') c = ' ';
        if (chars(s) > kMaxWidth) {
            std::size_t n = 0, i = 0;
            for (; i < s.size(); ++i) {
                if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == kMaxWidth - 3) break;
            }
            s = s.substr(0, i) + "...";
        }
        return s;
    };
    std::vector<std::size_t> width;
    std::vector<bool> right;
    for (const auto& c : t.header.columns) {
        width.push_back(chars(c.name));
        right.push_back(isInteger(c.type) || c.type == ColumnType::Float || c.type == ColumnType::Double);
    }
    for (std::size_t r = 0; r < t.rows.size() && r < kLookahead; ++r) {
        const auto& row = t.rows[r];
        for (std::size_t i = 0; i < row.values.size(); ++i) width[i] = std::max(width[i], chars(cell(row.values[i])));
    }
    auto line = [&](auto get) {
        std::string l;
        for (std::size_t i = 0; i < width.size(); ++i) {
            std::string s = get(i);
            std::string pad(width[i] > chars(s) ? width[i] - chars(s) : 0, ' ');
            if (i > 0) l += "  ";
            l += right[i] ? pad + s : s + pad;
        }
        while (!l.empty() && l.back() == ' ') l.pop_back();
        out << l << "\n";
    };
    line([&](std::size_t i) { return t.header.columns[i].name; });
    line([&](std::size_t i) { return std::string(width[i], '-'); });
    for (const auto& r : t.rows) line([&](std::size_t i) { return cell(r.values[i]); });
    out << "(" << t.rows.size() << " row" << (t.rows.size() == 1 ? "" : "s") << ")\n";
}

void runLumiKeys(Row& r) {
    for (std::size_t i = 1; i <= 2 && i < r.values.size(); ++i) {
        if (const auto* k = std::get_if<std::int64_t>(&r.values[i])) {
            auto key = static_cast<std::uint64_t>(*k);
            r.values[i] = std::to_string(key >> 32) + "/" + std::to_string(key & 0xFFFFFFFFu);
        }
    }
}

void StreamingPrinter::begin(const AnswerHeader& h) {
    seen_ = 0;
    if (started_) return;  // a restarted answer: skip what was printed already
    started_ = true;
    if (format_ == Format::Json) jsonHead(out_, h); else csvHead(out_, h);
}

bool StreamingPrinter::row(const AnswerHeader&, const Row& r) {
    if (++seen_ <= printed_) return true;
    if (format_ == Format::Json) {
        jsonRow(out_, r, printed_ == 0);
    } else if (runLumiKeys_) {
        Row text = r;
        runLumiKeys(text);
        csvRow(out_, text);
    } else {
        csvRow(out_, r);
    }
    ++printed_;
    return true;
}

void StreamingPrinter::end(const AnswerHeader&, std::uint64_t n) {
    if (format_ == Format::Json) out_ << "],\n \"rowCount\":" << n << "}\n";
    out_.flush();
}

}  // namespace outpost::cli
