// Internal: checks the X-Outpost-Signature of an answer or a redirect (docs/api.md "Signed answers",
// testdata/signatures/README.md) with OpenSSL's Ed25519.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "outpost/error.h"

namespace outpost::internal {

/// What a verifier concludes (the verdicts of testdata/signatures/cases.json).
enum class Verdict { Ok, BadSignature, Expired, Unsigned, UnknownKey, Malformed, Sig1Refused };
const char* toString(Verdict v);

/// One response as outpost-sig-2 covers it: the target asked at this hop (origin form, raw) and what came back.
struct Hop {
    std::string target;
    int status = 200;
    std::string location;   ///< a 301's Location, else ""
    std::string etag;       ///< as sent, else ""
    std::string bodySha256; ///< lowercase hex
};

struct Check {
    Verdict verdict = Verdict::Ok;
    std::string why;  ///< "" when Ok
};

class AnswerVerifier {
public:
    /// Reads every (key id, PEM public key file); a file that cannot be read or is no Ed25519 key is a Config error.
    /// `acceptSig1`: outpost-sig-1 headers verify too. `now`: Unix seconds (default: the system clock).
    static Result<std::shared_ptr<const AnswerVerifier>> load(const std::vector<std::pair<std::string, std::string>>& keys,
                                                              bool acceptSig1 = false,
                                                              std::function<std::int64_t()> now = nullptr);
    ~AnswerVerifier();

    /// The verdict on `hop` with its signature `header` ("" = missing).
    Check check(const Hop& hop, const std::string& header) const;
    /// Why `hop` cannot be trusted; "" when its signature verifies and has not expired.
    std::string problem(const Hop& hop, const std::string& header) const { return check(hop, header).why; }

private:
    AnswerVerifier() = default;
    Check verify(const std::string& id, const std::string& signature, const std::string& message,
                 const Hop& hop) const;
    struct Key;
    std::map<std::string, std::unique_ptr<Key>> keys_;
    bool acceptSig1_ = false;
    std::function<std::int64_t()> now_;
};

/// The error of a configuration with security=sig in a build without signatures (OUTPOST_WITH_SIGNATURES=OFF).
extern const char* const kSignaturesMissing;

/// Lowercase hex SHA-256 of `size` bytes.
std::string sha256Hex(const void* data, std::size_t size);

/// SHA-256 of bytes as they arrive: a body is hashed while it is read, never copied for it.
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    void update(const void* data, std::size_t size);
    std::string hex();  ///< lowercase; ends the hash

private:
    void* ctx_;
};

/// The request target (path and query) of an absolute URL: "http://h:1/a/b?c" -> "/a/b?c".
std::string requestTarget(const std::string& url);

}  // namespace outpost::internal
