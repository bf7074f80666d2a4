// Times on the command line, as docs/cli.md spells them (the Java and Python tools read the same grammar).
#pragma once

#include <optional>
#include <string>

#include "outpost/query.h"

namespace outpost::cli {

/// How a key was written: forms that fit folders of either key type (min, max, raw:N), or of one only.
enum class KeyForm { Any, Number, RunLumi, Date };

/// A key as typed: its text, its value and its form.
struct CliKey {
    std::string text;
    Key value = 0;
    KeyForm form = KeyForm::Any;
};

/// min, max, raw:N, a decimal number, RUN/LUMI or RUN:LUMI, an ISO date or date-time (UTC unless it has an
/// offset). Returns nothing and sets `why` when the text is none of these.
std::optional<CliKey> parseKey(const std::string& text, std::string& why);

/// The key read in a folder of the given key type: a bare number or a date is no run-lumi key (320 could be run
/// 320 or the raw key 320), RUN/LUMI no time. Returns nothing and sets `why` when the form does not fit.
std::optional<Key> keyIn(const CliKey& key, bool runLumi, std::string& why);

/// The key's value whatever the folder (parseKey's value).
std::optional<Key> parseTime(const std::string& text, std::string& why);

}  // namespace outpost::cli
