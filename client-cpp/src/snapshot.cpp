// The snapshot session: state once per lifetime, pinned snapshot URLs, parallel fetches of large folders.
#include "outpost/snapshot.h"

#include <future>
#include <limits>

namespace outpost {

namespace {
constexpr std::size_t kParallelFetches = 8;

bool isGone(const Error& e) { return e.code == ErrorCode::Request && (e.httpStatus == 410 || e.httpStatus == 404); }

bool isStateHash(const std::string& s) {
    if (s.size() != 16) return false;
    for (char c : s) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

const std::string* str(const Row& r, std::size_t i) { return std::get_if<std::string>(&r.values[i]); }
}  // namespace

const FolderSnapshot* Snapshot::folder(const std::string& path) const {
    for (const auto& f : folders) {
        if (f.folder == path) return &f;
    }
    return nullptr;
}

bool Snapshot::covers(Key timeKey, Key runLumiKey) const {
    if (!time && !runLumi) return covers(timeKey) && covers(runLumiKey);
    return (!time || time->covers(timeKey)) && (!runLumi || runLumi->covers(runLumiKey));
}

SnapshotSession::SnapshotSession(Client& client, std::string globalTag, std::string subtree)
    : client_(client), globalTag_(std::move(globalTag)), subtree_(subtree == "/" ? "" : std::move(subtree)) {
    checkTag(globalTag_);
    if (!subtree_.empty()) checkPath(subtree_);
}

std::string SnapshotSession::state() const {
    std::lock_guard<std::mutex> lock(mu_);
    return state_;
}

Result<Snapshot> SnapshotSession::at(Key t) {
    try {
        checkKey("t", t);
    } catch (const std::invalid_argument& e) {
        return Error(ErrorCode::InvalidArgument, e.what());
    }
    return at(std::to_string(t), [t](const Snapshot& s) { return s.covers(t); });
}

Result<Snapshot> SnapshotSession::at(Key time, Key runLumi) {
    try {
        checkKey("time", time);
        checkKey("runLumi", runLumi);
    } catch (const std::invalid_argument& e) {
        return Error(ErrorCode::InvalidArgument, e.what());
    }
    return at(std::to_string(time) + "," + std::to_string(runLumi),
              [time, runLumi](const Snapshot& s) { return s.covers(time, runLumi); });
}

Result<Snapshot> SnapshotSession::at(const std::string& keys, const std::function<bool(const Snapshot&)>& covers) {
    auto r = fetch(keys, covers);
    if (r || !isGone(r.error())) return r;
    {
        std::lock_guard<std::mutex> lock(mu_);
        state_.clear();  // the state moved on: read the current one once, then ask again
        last_.reset();
    }
    return fetch(keys, covers);
}

Result<Snapshot> SnapshotSession::fetch(const std::string& keys, const std::function<bool(const Snapshot&)>& covers) {
    std::string pinned;
    {
        std::lock_guard<std::mutex> lock(mu_);
        bool fresh = !state_.empty() && Clock::now() < expires_;
        if (fresh && last_ && last_->state == state_ && covers(*last_)) {
            Snapshot reused = *last_;
            reused.requests = 0;
            return reused;
        }
        if (fresh) pinned = state_;
    }
    const std::string path = pinned.empty()
        ? "/v1/bin/snapshot/" + globalTag_ + "/" + keys + subtree_
        : "/v1/bin/pin/" + pinned + "/snapshot/" + globalTag_ + "/" + keys + subtree_;
    std::string header;
    long fresh = -1;
    auto answer = client_.getWithState(path, header, fresh);
    if (!answer) return answer.error();
    const Table& a = *answer;
    if (a.header.kind != AnswerKind::Snapshot || a.header.columns.size() < 6) {
        return Error(ErrorCode::Protocol, "GET " + path + " answered a " + std::string(toString(a.header.kind)) +
                                              " answer, expected a snapshot");
    }
    std::string state = pinned.empty() ? header : pinned;
    if (!isStateHash(state)) return Error(ErrorCode::Protocol, "GET " + path + ": no valid X-Outpost-State header");
    auto snap = assemble(a, state);
    if (!snap) return snap.error();
    std::lock_guard<std::mutex> lock(mu_);
    if (pinned.empty()) {
        state_ = state;
        expires_ = Clock::now() + std::chrono::seconds(std::max(0L, fresh));
    }
    last_ = *snap;
    return snap;
}

Result<Snapshot> SnapshotSession::assemble(const Table& a, const std::string& state) {
    Snapshot s;
    s.globalTag = globalTag_;
    s.state = state;
    s.validSince = a.header.validSince;
    s.validUntil = a.header.validUntil;
    s.requests = 1;
    s.folders.resize(a.rows.size());
    std::vector<std::size_t> byUrl;
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        const Row& r = a.rows[i];
        const std::string* folder = str(r, 0);
        const std::string* tag = str(r, 1);
        const std::string* generation = str(r, 2);
        if (!folder || !tag || !generation) return Error(ErrorCode::Protocol, "snapshot row without folder, tag or generation");
        FolderSnapshot& f = s.folders[i];
        f.folder = *folder;
        f.tag = *tag;
        f.generation = *generation;
        if (r.values.size() > 8 && str(r, 6)) {
            // Per key type validity (docs/api.md, "Mixed key types"): common to the folders of each type.
            const auto* since = std::get_if<std::int64_t>(&r.values[7]);
            const auto* until = std::get_if<std::int64_t>(&r.values[8]);
            if (!since || !until) return Error(ErrorCode::Protocol, "snapshot row of " + f.folder + " without validity");
            f.keyType = *str(r, 6);
            std::optional<Validity>& common = f.keyType == "run-lumi" ? s.runLumi : s.time;
            if (!common) common = Validity{0, std::numeric_limits<Key>::max()};
            common->since = std::max<Key>(common->since, static_cast<Key>(*since));
            common->until = std::min<Key>(common->until, static_cast<Key>(*until));
        }
        if (str(r, 4)) {
            byUrl.push_back(i);
            continue;
        }
        const Blob* inline_ = std::get_if<Blob>(&r.values[5]);
        if (!inline_) return Error(ErrorCode::Protocol, "snapshot row of " + f.folder + " has neither url nor answer");
        auto part = decode(inline_->bytes.data(), inline_->bytes.size());
        if (!part) return part.error();
        f.answer = std::move(*part);
    }
    // Folders given by URL: fetched in parallel, a few at a time, through the client (failover, cache).
    for (std::size_t from = 0; from < byUrl.size(); from += kParallelFetches) {
        std::vector<std::future<Result<Table>>> pending;
        for (std::size_t j = from; j < std::min(byUrl.size(), from + kParallelFetches); ++j) {
            std::string url = *str(a.rows[byUrl[j]], 4);
            pending.push_back(std::async(std::launch::async, [this, url] { return client_.get(url); }));
        }
        for (std::size_t j = 0; j < pending.size(); ++j) {
            auto part = pending[j].get();
            if (!part) return part.error();
            s.folders[byUrl[from + j]].answer = std::move(*part);
            ++s.requests;
        }
    }
    for (const auto& f : s.folders) {
        if (f.answer.header.kind != AnswerKind::Iovs) {
            return Error(ErrorCode::Protocol, "snapshot part of " + f.folder + " is not an iovs answer");
        }
    }
    return s;
}

}  // namespace outpost
