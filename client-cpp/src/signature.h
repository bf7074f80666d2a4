// Internal: checks the X-Outpost-Signature of an answer (docs/api.md "Signed answers") with OpenSSL's Ed25519.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "outpost/error.h"

namespace outpost::internal {

class AnswerVerifier {
public:
    /// Reads every (key id, PEM public key file); a file that cannot be read or is no Ed25519 key is a Config error.
    static Result<std::shared_ptr<const AnswerVerifier>> load(const std::vector<std::pair<std::string, std::string>>& keys);
    ~AnswerVerifier();

    /// Why `body`, the answer to `pathAndQuery` (the final request's target, raw), cannot be trusted; "" when the
    /// signature `header` ("ed25519 KEYID BASE64SIG", "" = missing) verifies.
    std::string problem(const std::string& pathAndQuery, const std::string& header, const std::string& body) const;

private:
    AnswerVerifier() = default;
    struct Key;
    std::map<std::string, std::unique_ptr<Key>> keys_;
};

/// The request target (path and query) of an absolute URL: "http://h:1/a/b?c" -> "/a/b?c".
std::string requestTarget(const std::string& url);

}  // namespace outpost::internal
