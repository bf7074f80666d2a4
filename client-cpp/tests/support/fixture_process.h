// A Python fixture server of testdata/ (failover_server.py, hostile_server.py) run beside a test.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace outpost::testing {

/// `python3 ARGS...` with its stdin and stdout on pipes held here. The fixtures serve until their stdin closes, so
/// one ends when this object does, or with the test process however that ends.
class FixtureProcess {
public:
    explicit FixtureProcess(const std::vector<std::string>& args) {
        int in[2], out[2];
        if (::pipe(in) != 0 || ::pipe(out) != 0) throw std::runtime_error("pipe");
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(in[0], 0);
            ::dup2(out[1], 1);
            ::close(in[1]);
            ::close(out[0]);
            std::vector<char*> argv{const_cast<char*>("python3")};
            for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            ::execvp("python3", argv.data());
            ::_exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        stdin_ = in[1];
        stdout_ = out[0];
    }
    ~FixtureProcess() {
        ::close(stdin_);
        ::close(stdout_);
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
    FixtureProcess(const FixtureProcess&) = delete;
    FixtureProcess& operator=(const FixtureProcess&) = delete;

    /// The next line it printed, without the newline ("" once its output ended).
    std::string line() {
        std::string s;
        char c;
        while (::read(stdout_, &c, 1) == 1 && c != '\n') s += c;
        return s;
    }

    void send(const std::string& text) {
        if (::write(stdin_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
            throw std::runtime_error("write to the fixture");
        }
    }

private:
    pid_t pid_ = -1;
    int stdin_ = -1, stdout_ = -1;
};

}  // namespace outpost::testing
