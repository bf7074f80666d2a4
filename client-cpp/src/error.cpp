#include "outpost/error.h"

namespace outpost {

const char* toString(ErrorCode code) noexcept {
    switch (code) {
        case ErrorCode::Ok: return "Ok";
        case ErrorCode::InvalidArgument: return "InvalidArgument";
        case ErrorCode::Config: return "Config";
        case ErrorCode::Connect: return "Connect";
        case ErrorCode::Timeout: return "Timeout";
        case ErrorCode::Network: return "Network";
        case ErrorCode::Server: return "Server";
        case ErrorCode::Request: return "Request";
        case ErrorCode::Corrupt: return "Corrupt";
        case ErrorCode::Protocol: return "Protocol";
        case ErrorCode::Cancelled: return "Cancelled";
        case ErrorCode::Unavailable: return "Unavailable";
        case ErrorCode::Untrusted: return "Untrusted";
    }
    return "Unknown";
}

std::string Error::describe() const {
    std::string s = std::string(toString(code)) + ": " + message;
    for (std::size_t i = 0; i < attempts.size(); ++i) {
        s += "\n  attempt " + std::to_string(i + 1) + ": " + toString(attempts[i].code) + ": " + attempts[i].message;
    }
    return s;
}

}  // namespace outpost
