// outpost::SnapshotSession: a job's consistent view of every folder of a global tag (docs/api.md, "Global tags,
// states, pinned URLs and snapshots"). The session learns a state from its first snapshot (which names its state)
// and keeps it for the state's lifetime; until then every request goes to URLs pinned to that state, which caches
// keep for good. When the service says a pinned generation is gone (410) or not known yet (404), the session
// reads the current state once and asks again. Folders given by URL are fetched in parallel.
#pragma once

#include <chrono>
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
    Table answer;  ///< an iovs answer: the objects valid at the key, all channels
};

/// Every folder at one key, all at the generations of one state.
struct Snapshot {
    std::string globalTag;
    std::string state;                ///< the state hash it is pinned to
    Key validSince = 0;               ///< the same snapshot holds for every key in [validSince, validUntil)
    Key validUntil = 0;
    std::vector<FolderSnapshot> folders;  ///< in path order
    int requests = 0;                 ///< HTTP requests it took (0 when reused from the session)

    bool covers(Key t) const { return validSince <= t && t < validUntil; }
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
    /// The state hash the session is pinned to ("" before the first request).
    std::string state() const;

private:
    using Clock = std::chrono::steady_clock;
    Result<Snapshot> fetch(Key t);
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
