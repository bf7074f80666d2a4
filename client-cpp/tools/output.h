// Output formats of outpost-cli: aligned table, CSV (RFC 4180), JSON (the JSON form of docs/wire-format.md).
#pragma once

#include <ostream>
#include <string>

#include "outpost/decoder.h"
#include "outpost/table.h"

namespace outpost::cli {

enum class Format { Table, Csv, Json };

std::string formatValue(const Value& v);          // plain text: numbers, strings, base64 blobs, NULL
std::string jsonValue(const Value& v);
std::string csvField(const std::string& s);
std::string jsonString(const std::string& s);
std::string base64(const std::string& bytes);

void printTable(std::ostream& out, const Table& t, Format f);

/// An iovs row with since and until (columns 1 and 2) as RUN/LUMI text: how table and csv output show the keys of
/// run-lumi folders (docs/cli.md, "Output"); JSON keeps the numbers.
void runLumiKeys(Row& r);

/// Prints rows as they are decoded (CSV or JSON). If the client restarts the answer (a refresh or failover after
/// a broken transfer), the rows already printed are skipped: the same canonical URL carries the same rows.
class StreamingPrinter : public RowSink {
public:
    StreamingPrinter(std::ostream& out, Format f, bool runLumiKeys = false)
        : out_(out), format_(f), runLumiKeys_(runLumiKeys) {}
    void begin(const AnswerHeader& h) override;
    bool row(const AnswerHeader& h, const Row& r) override;
    void end(const AnswerHeader& h, std::uint64_t n) override;

private:
    std::ostream& out_;
    Format format_;
    bool runLumiKeys_;
    bool started_ = false;
    std::uint64_t printed_ = 0;
    std::uint64_t seen_ = 0;
};

}  // namespace outpost::cli
