#include "signature.h"

#include <cstdio>
#include <ctime>
#include <sstream>

#include "outpost/version.h"
#if OUTPOST_WITH_SIGNATURES
#include <openssl/evp.h>
#include <openssl/pem.h>
#endif

namespace outpost::internal {

const char* toString(Verdict v) {
    switch (v) {
        case Verdict::Ok: return "ok";
        case Verdict::BadSignature: return "bad-signature";
        case Verdict::Expired: return "expired";
        case Verdict::Unsigned: return "unsigned";
        case Verdict::UnknownKey: return "unknown-key";
        case Verdict::Malformed: return "malformed";
        case Verdict::Sig1Refused: return "sig1-refused";
    }
    return "?";
}

namespace {

std::string abbreviate(const std::string& s) { return s.size() > 80 ? s.substr(0, 80) + "..." : s; }

[[maybe_unused]] bool keyIdOk(const std::string& id) {  // used by verify (OpenSSL)
    return !id.empty() && id.size() <= 64 &&
           id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos;
}

bool decimal(const std::string& s) {
    return !s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == std::string::npos;
}

std::string isoTime(std::int64_t t) {
    std::time_t tt = static_cast<std::time_t>(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace

Check AnswerVerifier::check(const Hop& hop, const std::string& header) const {
    std::istringstream in(header);
    std::vector<std::string> parts;
    for (std::string p; in >> p && parts.size() < 6;) parts.push_back(p);
    if (parts.empty()) return {Verdict::Unsigned, "answer has no signature (X-Outpost-Signature)"};
    if (parts.size() == 3 && parts[0] == "ed25519") {
        if (!acceptSig1_) {
            return {Verdict::Sig1Refused, "answer has an outpost-sig-1 signature, which binds neither its generation "
                                          "nor an expiry (accepted only with acceptsig1=yes)"};
        }
        if (hop.status != 200) {
            return {Verdict::BadSignature, "an outpost-sig-1 signature on an HTTP " + std::to_string(hop.status)};
        }
        return verify(parts[1], parts[2], "outpost-sig-1\n" + hop.target + "\n" + hop.bodySha256, hop);
    }
    if (parts.size() != 5 || parts[0] != "outpost-sig-2" || parts[1] != "ed25519" || !decimal(parts[3])) {
        return {Verdict::Malformed, "unreadable signature header '" + abbreviate(header) + "'"};
    }
    const std::string message = "outpost-sig-2\nGET\n" + hop.target + "\n" + std::to_string(hop.status) + "\n" +
                                hop.location + "\n" + hop.etag + "\n" + parts[3] + "\n" + hop.bodySha256;
    Check c = verify(parts[2], parts[4], message, hop);
    if (c.verdict != Verdict::Ok) return c;
    std::int64_t expires = std::stoll(parts[3]);
    std::int64_t now = now_();
    if (now > expires) {
        return {Verdict::Expired, "signature by key '" + parts[2] + "' expired " + isoTime(expires) + ", " +
                                      std::to_string(now - expires) + " s ago (a replayed or superseded answer)"};
    }
    return c;
}

const char* const kSignaturesMissing =
    "security=sig is not available: this outpost-client was built without signature verification (CMake option "
    "OUTPOST_WITH_SIGNATURES=OFF, which leaves out OpenSSL)";

// OpenSSL: keys, SHA-256 and Ed25519. Without signatures (OUTPOST_WITH_SIGNATURES=OFF) no verifier can be loaded,
// so the stand-ins below are never asked to hash or verify anything.
#if OUTPOST_WITH_SIGNATURES

struct AnswerVerifier::Key {
    EVP_PKEY* pkey = nullptr;
    ~Key() { EVP_PKEY_free(pkey); }
};

AnswerVerifier::~AnswerVerifier() = default;

Result<std::shared_ptr<const AnswerVerifier>> AnswerVerifier::load(
    const std::vector<std::pair<std::string, std::string>>& keys, bool acceptSig1, std::function<std::int64_t()> now) {
    std::shared_ptr<AnswerVerifier> v(new AnswerVerifier());
    v->acceptSig1_ = acceptSig1;
    v->now_ = now ? std::move(now) : [] { return static_cast<std::int64_t>(std::time(nullptr)); };
    for (const auto& [id, file] : keys) {
        FILE* f = std::fopen(file.c_str(), "r");
        if (!f) return Error(ErrorCode::Config, "verifykey " + file + " cannot be read");
        auto key = std::make_unique<Key>();
        key->pkey = PEM_read_PUBKEY(f, nullptr, nullptr, nullptr);
        std::fclose(f);
        if (!key->pkey) return Error(ErrorCode::Config, "verifykey " + file + " is not a PEM public key");
        if (EVP_PKEY_id(key->pkey) != EVP_PKEY_ED25519) {
            return Error(ErrorCode::Config, "verifykey " + file + " is not an Ed25519 public key");
        }
        v->keys_[id] = std::move(key);
    }
    return std::shared_ptr<const AnswerVerifier>(std::move(v));
}

std::string sha256Hex(const void* data, std::size_t size) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(data, size, md, &len, EVP_sha256(), nullptr);
    static const char* const hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += hex[md[i] >> 4];
        out += hex[md[i] & 15];
    }
    return out;
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr); }
Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }
void Sha256::update(const void* data, std::size_t size) { EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data, size); }
std::string Sha256::hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &len);
    static const char* const digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += digits[md[i] >> 4];
        out += digits[md[i] & 15];
    }
    return out;
}

namespace {

/// Standard base64 (with padding) to bytes; false if malformed.
bool base64Decode(const std::string& in, std::string& out) {
    if (in.empty() || in.size() % 4 != 0) return false;
    std::string buf(in.size() / 4 * 3, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(&buf[0]),
                            reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
    if (n < 0) return false;
    std::size_t pad = in[in.size() - 1] == '=' ? (in[in.size() - 2] == '=' ? 2 : 1) : 0;
    buf.resize(static_cast<std::size_t>(n) - pad);  // EVP_DecodeBlock counts the padding as zero bytes
    out = std::move(buf);
    return true;
}

}  // namespace

Check AnswerVerifier::verify(const std::string& id, const std::string& sig, const std::string& message,
                             const Hop& hop) const {
    if (!keyIdOk(id)) return {Verdict::Malformed, "unreadable signature header: key id '" + abbreviate(id) + "'"};
    auto it = keys_.find(id);
    if (it == keys_.end()) {
        std::string known;
        for (const auto& k : keys_) known += (known.empty() ? "" : ", ") + k.first;
        return {Verdict::UnknownKey, "answer signed with unknown key '" + id + "' (verifykey has [" + known + "])"};
    }
    std::string raw;
    if (!base64Decode(sig, raw)) return {Verdict::Malformed, "signature by key '" + id + "' is not base64"};
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    // Ed25519 signs the message itself: no separate digest (md = NULL), one-shot EVP_DigestVerify.
    bool ok = ctx && EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, it->second->pkey) == 1 &&
              EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(raw.data()), raw.size(),
                               reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
    EVP_MD_CTX_free(ctx);
    if (ok) return {};
    return {Verdict::BadSignature, "signature by key '" + id + "' does not verify for HTTP " +
                                       std::to_string(hop.status) + " " + abbreviate(hop.target)};
}

#else

struct AnswerVerifier::Key {};

AnswerVerifier::~AnswerVerifier() = default;

Result<std::shared_ptr<const AnswerVerifier>> AnswerVerifier::load(const std::vector<std::pair<std::string, std::string>>&,
                                                                   bool, std::function<std::int64_t()>) {
    return Error(ErrorCode::Config, kSignaturesMissing);
}

std::string sha256Hex(const void*, std::size_t) { return ""; }
Sha256::Sha256() : ctx_(nullptr) {}
Sha256::~Sha256() = default;
void Sha256::update(const void*, std::size_t) {}
std::string Sha256::hex() { return ""; }

Check AnswerVerifier::verify(const std::string&, const std::string&, const std::string&, const Hop&) const {
    return {Verdict::BadSignature, kSignaturesMissing};
}

#endif

std::string requestTarget(const std::string& url) {
    std::size_t scheme = url.find("://");
    std::size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    if (slash == std::string::npos) return "/";
    std::string target = url.substr(slash);
    std::size_t hash = target.find('#');
    return hash == std::string::npos ? target : target.substr(0, hash);
}

}  // namespace outpost::internal
