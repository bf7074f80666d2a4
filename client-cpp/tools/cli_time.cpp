#include "cli_time.h"

#include <regex>

namespace outpost::cli {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
long long daysFromCivil(long long y, unsigned m, unsigned d) {
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<long long>(doe) - 719468;
}

bool leap(long long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned daysInMonth(long long y, unsigned m) {
    static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : days[m - 1];
}

bool allDigits(const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

int num(const std::ssub_match& m) { return std::stoi(m.str()); }

std::optional<Key> decimal(const std::string& digits, std::string& why) {
    if (digits.size() == 19 && digits > "9223372036854775807") {
        why = "over 2^63-1";
        return std::nullopt;
    }
    return static_cast<Key>(std::stoll(digits));
}

std::optional<Key> parseDate(const std::string& s, std::string& why);

}  // namespace

std::optional<CliKey> parseKey(const std::string& s, std::string& why) {
    if (s == "min") return CliKey{s, kMinKey, KeyForm::Any};
    if (s == "max") return CliKey{s, kMaxKey, KeyForm::Any};
    if (s.rfind("raw:", 0) == 0) {
        std::string digits = s.substr(4);
        if (!allDigits(digits) || digits.size() > 19) {
            why = "raw: is followed by the key as a whole number, e.g. raw:1297080123392";
            return std::nullopt;
        }
        auto k = decimal(digits, why);
        if (!k) return std::nullopt;
        return CliKey{s, *k, KeyForm::Any};
    }
    if (allDigits(s) && s.size() <= 19) {
        auto k = decimal(s, why);
        if (!k) return std::nullopt;
        return CliKey{s, *k, KeyForm::Number};
    }
    static const std::regex runLumi(R"((\d{1,10})[/:](\d{1,10}))");
    std::smatch m;
    if (std::regex_match(s, m, runLumi)) {
        unsigned long long run = std::stoull(m[1].str()), lumi = std::stoull(m[2].str());
        if (run > 0x7FFFFFFFULL || lumi > 0xFFFFFFFFULL) {
            why = "run must be below 2^31 and lumi below 2^32";
            return std::nullopt;
        }
        return CliKey{s, static_cast<Key>((run << 32) | lumi), KeyForm::RunLumi};
    }
    auto date = parseDate(s, why);
    if (!date) return std::nullopt;
    return CliKey{s, *date, KeyForm::Date};
}

std::optional<Key> keyIn(const CliKey& k, bool runLumi, std::string& why) {
    if (runLumi && k.form == KeyForm::Number) {
        // as the loader and the write API say it: the likeliest meaning spelled out
        auto n = static_cast<unsigned long long>(k.value);
        why = "'" + k.text + "' is not a run-lumi key: write RUN/LUMI";
        if (n <= 0x7FFFFFFFULL) {
            why += ", e.g. " + std::to_string(n) + "/0 for run " + std::to_string(n) + ", lumi 0";
        }
        if (n > 0xFFFFFFFFULL) {
            why += " (" + std::to_string(n >> 32) + "/" + std::to_string(n & 0xFFFFFFFFULL) + " is the raw key " +
                   std::to_string(n) + ")";
        }
        why += "; a raw key is written raw:" + std::to_string(n);
        return std::nullopt;
    }
    if (runLumi && k.form == KeyForm::Date) {
        why = "'" + k.text + "' is a date, not a run-lumi key: write RUN/LUMI, e.g. 305/50";
        return std::nullopt;
    }
    if (!runLumi && k.form == KeyForm::RunLumi) {
        why = "'" + k.text + "' is RUN/LUMI, not a time: write ns since 1970 or an ISO date/time, e.g. "
              "2026-01-01T01:00:00Z";
        return std::nullopt;
    }
    return k.value;
}

std::optional<Key> parseTime(const std::string& s, std::string& why) {
    auto k = parseKey(s, why);
    if (!k) return std::nullopt;
    return k->value;
}

namespace {

std::optional<Key> parseDate(const std::string& s, std::string& why) {
    static const std::regex iso(
        R"((\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?)");
    std::smatch m;
    if (!std::regex_match(s, m, iso)) {
        why = "use min, max, RUN/LUMI, ns since 1970 (UTC), an ISO date/time such as 2026-01-01T01:00:00Z, or raw:N"
              " for a raw key";
        return std::nullopt;
    }
    long long year = num(m[1]);
    int month = num(m[2]), day = num(m[3]);
    int hour = m[4].matched ? num(m[4]) : 0, minute = m[5].matched ? num(m[5]) : 0;
    int second = m[6].matched ? num(m[6]) : 0;
    long long nanos = 0;
    if (m[7].matched) nanos = std::stoll((m[7].str() + "00000000").substr(0, 9));
    long long offset = 0;  // seconds east of UTC
    if (m[8].matched && m[8].str() != "Z") {
        std::string o = m[8].str();
        int oh = std::stoi(o.substr(1, 2)), om = std::stoi(o.substr(4, 2));
        if (oh > 18 || om > 59 || oh * 3600 + om * 60 > 18 * 3600) {
            why = "not a valid date/time (offset out of range)";
            return std::nullopt;
        }
        offset = (o[0] == '-' ? -1 : 1) * (oh * 3600LL + om * 60LL);
    }
    if (month < 1 || month > 12 || day < 1 || static_cast<unsigned>(day) > daysInMonth(year, month) || hour > 23 ||
        minute > 59 || second > 59) {
        why = "not a valid date/time";
        return std::nullopt;
    }
    long long secs = daysFromCivil(year, month, day) * 86400LL + hour * 3600LL + minute * 60LL + second - offset;
    if (secs < 0) {
        why = "before 1970";
        return std::nullopt;
    }
    if (secs > 9223372036LL || (secs == 9223372036LL && nanos > 854775807LL)) {
        why = "after 2262-04-11T23:47:16.854775807Z";
        return std::nullopt;
    }
    return static_cast<Key>(secs * 1000000000LL + nanos);
}

}  // namespace

}  // namespace outpost::cli
