// outpost::SnapshotSession: a job's consistent view of every folder of a global tag (docs/api.md, "Global tags,
// states, pinned URLs and snapshots"). The session learns a state from its first snapshot (which names its state)
// and keeps it for the state's lifetime; until then every request goes to URLs pinned to that state, which caches
// keep for good. When the service says a pinned generation is gone (410) or not known yet (404), the session
// reads the current state once and asks again. Folders given by URL are fetched in parallel.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "outpost/client.h"

namespace outpost {

/// One folder of a snapshot: the tag the global tag chose (or HEAD), its generation, its at-time answer.
struct FolderSnapshot {
    std::string folder;
    std::string tag;
    std::string generation;
    std::string keyType;  ///< "time" or "run-lumi" ("" from a service older than per key type validity)
    Table answer;  ///< an iovs answer: the objects valid at the key, all channels
};

/// Every key in [since, until) of one key type gives the same answers.
struct Validity {
    Key since = 0;
    Key until = 0;
    bool covers(Key k) const { return since <= k && k < until; }
};

/// Every folder at one key (or at a time and a run-lumi key), all at the generations of one state.
struct Snapshot {
    std::string globalTag;
    std::string state;                ///< the state hash it is pinned to
    Key validSince = 0;               ///< the same snapshot holds for every key in [validSince, validUntil)
    Key validUntil = 0;               ///< (both 0 for a snapshot of time and run-lumi folders: see time, runLumi)
    std::optional<Validity> time;     ///< common to the time folders; empty when there are none
    std::optional<Validity> runLumi;  ///< common to the run-lumi folders; empty when there are none
    std::vector<FolderSnapshot> folders;  ///< in path order
    int requests = 0;                 ///< HTTP requests it took (0 when reused from the session)

    bool covers(Key t) const { return validSince <= t && t < validUntil; }
    /// Both keys inside the validity of their key type (a key type without folders always covers).
    bool covers(Key timeKey, Key runLumiKey) const;
    /// The folder, or nullptr if it is not in the snapshot.
    const FolderSnapshot* folder(const std::string& path) const;
};

class SnapshotSession {
public:
    /// `globalTag` is a global tag or "HEAD"; `subtree` "" (everything) or a folderset/folder path.
    /// Throws std::invalid_argument for a badly spelled tag or path.
    SnapshotSession(Client& client, std::string globalTag, std::string subtree = "");

    /// Every folder at key t, pinned to the session's state; a snapshot of the same state covering t is reused.
    Result<Snapshot> at(Key t);
    /// A global tag holding time and run-lumi folders: each folder read at the key of its own key type
    /// (docs/api.md, "Mixed key types"); a global tag of one key type uses the key of its type.
    Result<Snapshot> at(Key time, Key runLumi);
    /// The state hash the session is pinned to ("" before the first request).
    std::string state() const;

private:
    using Clock = std::chrono::steady_clock;
    Result<Snapshot> at(const std::string& keys, const std::function<bool(const Snapshot&)>& covers);
    Result<Snapshot> fetch(const std::string& keys, const std::function<bool(const Snapshot&)>& covers);
    Result<Snapshot> assemble(const Table& answer, const std::string& state);

    Client& client_;
    std::string globalTag_;
    std::string subtree_;
    mutable std::mutex mu_;
    std::string state_;
    Clock::time_point expires_{};
    std::optional<Snapshot> last_;
};

}  // namespace outpost
