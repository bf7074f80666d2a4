// Times on the command line, as docs/cli.md spells them (the Java tool reads the same grammar).
#pragma once

#include <optional>
#include <string>

#include "outpost/query.h"

namespace outpost::cli {

/// A decimal key, min, max, RUN/LUMI or RUN:LUMI, an ISO date or date-time (UTC unless it has an offset).
/// Returns nothing and sets `why` when the text is none of these.
std::optional<Key> parseTime(const std::string& text, std::string& why);

}  // namespace outpost::cli
