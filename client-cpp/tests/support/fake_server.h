// A tiny HTTP/1.1 server on 127.0.0.1 for tests (POSIX sockets, one thread per connection, keep-alive).
// The socket listens before the constructor returns, so tests never wait for it to start.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace outpost::testing {

struct Request {
    std::string method;
    std::string target;                          ///< as sent: a path, or an absolute URL through a proxy
    std::string path;                            ///< the path part of target
    std::map<std::string, std::string> headers;  ///< lower-case names
    int connection = 0;                          ///< index of the TCP connection it came on (keep-alive checks)
    std::string header(const std::string& name) const {
        auto it = headers.find(name);
        return it == headers.end() ? "" : it->second;
    }
};

struct Response {
    int status = 200;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    std::size_t truncateAt = std::string::npos;  ///< send only this many body bytes, then close
    bool closeWithoutAnswer = false;             ///< close the connection without any answer

    static Response binary(std::string body, int maxAge = 60) {
        Response r;
        r.body = std::move(body);
        r.headers = {{"Content-Type", "application/vnd.outpost.v1+binary"},
                     {"Cache-Control", "public, max-age=" + std::to_string(maxAge)}};
        return r;
    }
    static Response problem(int status, const std::string& detail) {
        Response r;
        r.status = status;
        r.body = "{\"type\":\"about:blank\",\"status\":" + std::to_string(status) + ",\"detail\":\"" + detail + "\"}";
        r.headers = {{"Content-Type", "application/problem+json"}};
        return r;
    }
};

using Handler = std::function<Response(const Request&)>;

class FakeServer {
public:
    explicit FakeServer(Handler handler);
    /// Listening on [::1] at `port` (0 = any), for tests of the address family a client picks; throws if taken.
    FakeServer(Handler handler, bool ipv6, int port);
    ~FakeServer();
    FakeServer(const FakeServer&) = delete;
    FakeServer& operator=(const FakeServer&) = delete;

    int port() const { return port_; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    std::vector<Request> requests() const;
    int connections() const { return connections_.load(); }
    /// Answers a request as this server would (used by fake proxies to forward in-process).
    Response handle(const Request& r);

private:
    void acceptLoop();
    void serve(int fd, int index);
    void closeClient(int fd);

    Handler handler_;
    int listenFd_ = -1;
    int port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<int> connections_{0};
    mutable std::mutex mu_;
    std::vector<Request> log_;
    std::vector<int> clientFds_;
    std::vector<std::thread> threads_;
    std::thread acceptor_;
};

/// A port where nothing listens (bound, not listening: connecting is refused at once).
class DeadPort {
public:
    DeadPort();
    ~DeadPort();
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

private:
    int fd_ = -1;
    int port_ = 0;
};

/// A handler for a FakeServer acting as a proxy (like Squid): forwards absolute-URL requests in-process to the
/// FakeServer with that port; an unknown port (a dead server) gets 503 as Squid would answer.
Handler proxyTo(std::vector<FakeServer*> servers);

}  // namespace outpost::testing
