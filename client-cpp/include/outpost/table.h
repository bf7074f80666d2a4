// Decoded answers: typed columns and rows (docs/wire-format.md, "Content").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace outpost {

/// Column type codes of the wire format.
enum class ColumnType : std::uint8_t {
    Bool = 0, UChar = 1, Int16 = 2, UInt16 = 3, Int32 = 4, UInt32 = 5, UInt63 = 6, Int64 = 7,
    Float = 8, Double = 9, String255 = 10, String4k = 11, String64k = 12, String16M = 13,
    Blob64k = 14, Blob16M = 15,
};
const char* toString(ColumnType t) noexcept;
bool parseColumnType(std::string_view name, ColumnType& out) noexcept;
bool isString(ColumnType t) noexcept;
bool isBlob(ColumnType t) noexcept;
bool isInteger(ColumnType t) noexcept;

/// What an answer is about (the `kind` byte).
enum class AnswerKind : std::uint8_t {
    Iovs = 1, Nodes = 2, Channels = 3, Tags = 4, Count = 5, Tag = 6, GlobalTags = 7, Resolve = 8, State = 9,
    Snapshot = 10,
};
const char* toString(AnswerKind k) noexcept;

/// Bytes of a Blob column (kept apart from strings so the two never mix up).
struct Blob {
    std::string bytes;
    bool operator==(const Blob& o) const { return bytes == o.bytes; }
};

/// One value. The alternative follows the column type: NULL -> monostate; Bool -> bool; every integer type
/// (UChar ... Int64, UInt63) -> int64_t (UInt32 and UInt63 always fit); Float -> float; Double -> double;
/// String* -> std::string; Blob* -> Blob.
using Value = std::variant<std::monostate, bool, std::int64_t, float, double, std::string, Blob>;

inline bool isNull(const Value& v) { return v.index() == 0; }

struct Column {
    std::string name;
    ColumnType type = ColumnType::Bool;
};

/// The part of an answer that precedes the rows.
struct AnswerHeader {
    AnswerKind kind = AnswerKind::Iovs;
    std::string folder;
    std::string tag;
    std::int64_t validSince = 0;  ///< at-time answers: same answer for every key in [validSince, validUntil)
    std::int64_t validUntil = 0;
    std::vector<Column> columns;

    /// Index of the column with that name, or -1.
    int columnIndex(std::string_view name) const;
};

/// One row: one Value per column. For iovs answers, channel/since/until are also available as fields.
struct Row {
    std::vector<Value> values;
    std::uint32_t channel = 0;  ///< iovs only
    std::int64_t since = 0;     ///< iovs only
    std::int64_t until = 0;     ///< iovs only

    const Value& operator[](std::size_t i) const { return values[i]; }
};

/// A whole decoded answer.
struct Table {
    AnswerHeader header;
    std::vector<Row> rows;

    const std::vector<Column>& columns() const { return header.columns; }
    std::size_t size() const { return rows.size(); }
    /// The value in `row` of the column called `name`; throws std::out_of_range if there is no such column.
    const Value& at(std::size_t row, std::string_view name) const;
};

}  // namespace outpost
