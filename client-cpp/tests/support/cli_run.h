// outpost-cli run by a test (targets that define OUTPOST_CLI, the tool's path).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace outpost::testing {

struct CliRun {
    int exitCode;
    std::string out;  // standard output and error together
};

/// `env outpost-cli args` through the shell; `env` is a prefix such as "OUTPOST_SERVER=... ".
inline CliRun cli(const std::string& args, const std::string& env = "") {
    std::string cmd = env + std::string(OUTPOST_CLI) + " " + args + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    CliRun r{-1, ""};
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    int status = ::pclose(p);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

}  // namespace outpost::testing
