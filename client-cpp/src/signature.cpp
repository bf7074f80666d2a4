#include "signature.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdio>
#include <sstream>

namespace outpost::internal {

struct AnswerVerifier::Key {
    EVP_PKEY* pkey = nullptr;
    ~Key() { EVP_PKEY_free(pkey); }
};

AnswerVerifier::~AnswerVerifier() = default;

Result<std::shared_ptr<const AnswerVerifier>> AnswerVerifier::load(
    const std::vector<std::pair<std::string, std::string>>& keys) {
    std::shared_ptr<AnswerVerifier> v(new AnswerVerifier());
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

namespace {

std::string sha256Hex(const std::string& body) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(body.data(), body.size(), md, &len, EVP_sha256(), nullptr);
    static const char* const hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += hex[md[i] >> 4];
        out += hex[md[i] & 15];
    }
    return out;
}

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

std::string abbreviate(const std::string& s) { return s.size() > 80 ? s.substr(0, 80) + "..." : s; }

}  // namespace

std::string AnswerVerifier::problem(const std::string& pathAndQuery, const std::string& header,
                                    const std::string& body) const {
    if (header.empty()) return "answer has no signature (X-Outpost-Signature)";
    std::istringstream in(header);
    std::string alg, id, sig, extra;
    in >> alg >> id >> sig;
    if (alg != "ed25519" || sig.empty() || (in >> extra)) return "unreadable signature header '" + abbreviate(header) + "'";
    auto it = keys_.find(id);
    if (it == keys_.end()) {
        std::string known;
        for (const auto& k : keys_) known += (known.empty() ? "" : ", ") + k.first;
        return "answer signed with unknown key '" + abbreviate(id) + "' (verifykey has [" + known + "])";
    }
    std::string raw;
    const std::string message = "outpost-sig-1\n" + pathAndQuery + "\n" + sha256Hex(body);
    bool ok = false;
    if (base64Decode(sig, raw)) {
        EVP_MD_CTX* ctx = EVP_MD_CTX_new();
        // Ed25519 signs the message itself: no separate digest (md = NULL), one-shot EVP_DigestVerify.
        ok = ctx && EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, it->second->pkey) == 1 &&
             EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(raw.data()), raw.size(),
                              reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
        EVP_MD_CTX_free(ctx);
    }
    return ok ? "" : "signature by key '" + id + "' does not verify for " + pathAndQuery;
}

std::string requestTarget(const std::string& url) {
    std::size_t scheme = url.find("://");
    std::size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    if (slash == std::string::npos) return "/";
    std::string target = url.substr(slash);
    std::size_t hash = target.find('#');
    return hash == std::string::npos ? target : target.substr(0, hash);
}

}  // namespace outpost::internal
