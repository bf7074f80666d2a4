#include <stdexcept>

#include "outpost/table.h"

namespace outpost {

namespace {
constexpr const char* kTypeNames[] = {"Bool",   "UChar",  "Int16",     "UInt16",   "Int32",     "UInt32",
                                      "UInt63", "Int64",  "Float",     "Double",   "String255", "String4k",
                                      "String64k", "String16M", "Blob64k", "Blob16M"};
}

const char* toString(ColumnType t) noexcept {
    auto i = static_cast<unsigned>(t);
    return i < 16 ? kTypeNames[i] : "?";
}

bool parseColumnType(std::string_view name, ColumnType& out) noexcept {
    for (unsigned i = 0; i < 16; ++i) {
        if (name == kTypeNames[i]) { out = static_cast<ColumnType>(i); return true; }
    }
    return false;
}

bool isString(ColumnType t) noexcept { return t >= ColumnType::String255 && t <= ColumnType::String16M; }
bool isBlob(ColumnType t) noexcept { return t == ColumnType::Blob64k || t == ColumnType::Blob16M; }
bool isInteger(ColumnType t) noexcept { return t >= ColumnType::UChar && t <= ColumnType::Int64; }

const char* toString(AnswerKind k) noexcept {
    switch (k) {
        case AnswerKind::Iovs: return "iovs";
        case AnswerKind::Nodes: return "nodes";
        case AnswerKind::Channels: return "channels";
        case AnswerKind::Tags: return "tags";
        case AnswerKind::Count: return "count";
        case AnswerKind::Tag: return "tag";
        case AnswerKind::GlobalTags: return "globaltags";
        case AnswerKind::Resolve: return "resolve";
        case AnswerKind::State: return "state";
        case AnswerKind::Snapshot: return "snapshot";
    }
    return "?";
}

int AnswerHeader::columnIndex(std::string_view name) const {
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (columns[i].name == name) return static_cast<int>(i);
    }
    return -1;
}

const Value& Table::at(std::size_t row, std::string_view name) const {
    int i = header.columnIndex(name);
    if (i < 0) throw std::out_of_range("no column '" + std::string(name) + "' in this answer");
    return rows.at(row).values.at(static_cast<std::size_t>(i));
}

}  // namespace outpost
