// Incremental decoder of the native wire format (docs/wire-format.md).
//
// Feed it the bytes of one answer as they arrive; it decompresses them (codec 0 none, 1 zlib, 2 zstd) chunk by
// chunk, parses whole rows out of a small window and hands each row to a RowSink, so a 100 MB answer is never
// held whole. It checks everything the contract lists: header magic and version, codec, exact size, a deflate
// stream or a single zstd frame ending exactly at body_len, the end marker, row count, CRC-32 of the content and
// trailer magic. Any mismatch is an ErrorCode::Corrupt error whose message says what and at which byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "outpost/error.h"
#include "outpost/table.h"

namespace outpost {

/// Receives a decoded answer. Rows are final only once end() is called: if a transfer fails half way and
/// the client retries (refresh or failover), begin() is called again and the sink must forget the rows it
/// got since the previous begin().
class RowSink {
public:
    virtual ~RowSink() = default;
    virtual void begin(const AnswerHeader& header) = 0;
    /// Return false to stop the transfer (the query then fails with ErrorCode::Cancelled).
    /// The Row is reused for the next row: copy what you keep.
    virtual bool row(const AnswerHeader& header, const Row& row) = 0;
    virtual void end(const AnswerHeader& /*header*/, std::uint64_t /*rowCount*/) {}
};

/// A RowSink that keeps everything in a Table.
class TableSink : public RowSink {
public:
    void begin(const AnswerHeader& header) override { table_.header = header; table_.rows.clear(); }
    bool row(const AnswerHeader&, const Row& row) override { table_.rows.push_back(row); return true; }
    Table& table() { return table_; }
    Table take() { return std::move(table_); }

private:
    Table table_;
};

class StreamDecoder {
public:
    explicit StreamDecoder(RowSink& sink);
    ~StreamDecoder();
    StreamDecoder(const StreamDecoder&) = delete;
    StreamDecoder& operator=(const StreamDecoder&) = delete;

    /// Feed the next bytes. Returns false once an error happened (see error()); later calls do nothing.
    bool feed(const void* data, std::size_t size);
    /// The most content bytes (decompressed) accepted; more is a corrupt answer ("answer too large").
    void setMaxContentBytes(std::uint64_t max);
    /// Call when the transfer ended: fails if the answer is not whole.
    Result<void> finish();

    bool failed() const;
    const Error& error() const;
    bool done() const;                       ///< the trailer was read and verified
    std::uint64_t bytesSeen() const;         ///< raw bytes fed so far
    std::uint64_t expectedSize() const;      ///< 32 + body_len once the header is known, else 0
    std::uint64_t rows() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Decode one whole answer held in memory.
Result<Table> decode(const void* data, std::size_t size);

}  // namespace outpost
