// Error model of the Outpost C++ client.
//
// Everything that can fail because of the network, the servers or the data returns a Result<T>: either a
// value or an Error{code, message}. Exceptions are thrown only for programmer errors (asking a failed Result
// for its value, a channel range with first > last, ...): std::invalid_argument / std::logic_error.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace outpost {

/// What failed. Stable numbers: the command-line tool maps them to exit codes.
enum class ErrorCode : int {
    Ok = 0,
    InvalidArgument = 1,  ///< a query or option that cannot mean anything (checked before any request)
    Config = 2,           ///< a configuration string / environment variable that cannot be parsed
    Connect = 3,          ///< could not connect to a proxy or server (refused, unreachable, DNS, connect timeout)
    Timeout = 4,          ///< connected, but the answer did not arrive in time
    Network = 5,          ///< the connection broke during the transfer
    Server = 6,           ///< HTTP 5xx (from a server or a proxy)
    Request = 7,          ///< HTTP 4xx: the server says the query is wrong (unknown folder, tag, ...); never retried
    Corrupt = 8,          ///< the answer is corrupt or truncated (magic, size, CRC-32, row count; wire-format.md)
    Protocol = 9,         ///< an answer that is whole but not what was asked for (wrong kind, odd status)
    Cancelled = 10,       ///< a row sink asked to stop
    Unavailable = 11,     ///< every route failed; Error::attempts lists why
    Untrusted = 12,       ///< security=sig: the answer's signature is missing, does not verify, or names an unknown key
};

const char* toString(ErrorCode code) noexcept;

/// One failure: a code and a message saying what failed and where (URL, proxy, byte offset, ...).
struct Error {
    ErrorCode code = ErrorCode::Ok;
    std::string message;
    int httpStatus = 0;                ///< HTTP status when there was an HTTP answer, else 0
    std::vector<Error> attempts;       ///< for Unavailable: every failed attempt, in order

    Error() = default;
    Error(ErrorCode c, std::string m, int status = 0) : code(c), message(std::move(m)), httpStatus(status) {}

    /// "Server: GET http://... -> HTTP 503 ..." ; with the attempts, one per line.
    std::string describe() const;
};

/// A value or an Error. `if (r)` tests success; value() on a failed Result throws std::logic_error.
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
    Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

    bool ok() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }

    T& value() & { check(); return std::get<0>(v_); }
    const T& value() const& { check(); return std::get<0>(v_); }
    T&& value() && { check(); return std::get<0>(std::move(v_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const {
        if (ok()) throw std::logic_error("outpost::Result::error() called on a successful result");
        return std::get<1>(v_);
    }

private:
    void check() const {
        if (!ok()) throw std::logic_error("outpost::Result::value() called on a failed result: " + std::get<1>(v_).message);
    }
    std::variant<T, Error> v_;
};

/// Result<void>: success or an Error.
template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : error_(std::move(error)) {}  // NOLINT
    bool ok() const noexcept { return !error_.has_value(); }
    explicit operator bool() const noexcept { return ok(); }
    const Error& error() const {
        if (ok()) throw std::logic_error("outpost::Result::error() called on a successful result");
        return *error_;
    }

private:
    std::optional<Error> error_;
};

}  // namespace outpost
