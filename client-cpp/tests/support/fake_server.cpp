#include "fake_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

namespace outpost::testing {

namespace {

int bindLoopback(int& port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) throw std::runtime_error("bind() failed");
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    return fd;
}

int bindLoopback6(int& port) {
    int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("socket(AF_INET6) failed");
    int one = 1;
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_addr = in6addr_loopback;
    addr.sin6_port = htons(static_cast<uint16_t>(port));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        throw std::runtime_error("bind([::1]:" + std::to_string(port) + ") failed");
    }
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin6_port);
    return fd;
}

bool sendAll(int fd, const char* p, std::size_t n) {
    while (n > 0) {
        ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) return false;
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

const char* reason(int status) {
    switch (status) {
        case 200: return "OK";
        case 301: return "Moved Permanently";
        case 400: return "Bad Request";
        case 404: return "Not Found";
        case 500: return "Internal Server Error";
        case 502: return "Bad Gateway";
        case 503: return "Service Unavailable";
        default: return "Status";
    }
}

}  // namespace

FakeServer::FakeServer(Handler handler) : handler_(std::move(handler)) {
    listenFd_ = bindLoopback(port_);
    if (::listen(listenFd_, 64) != 0) throw std::runtime_error("listen() failed");
    acceptor_ = std::thread([this] { acceptLoop(); });
}

FakeServer::FakeServer(Handler handler, bool ipv6, int port) : handler_(std::move(handler)) {
    port_ = port;
    listenFd_ = ipv6 ? bindLoopback6(port_) : bindLoopback(port_);
    if (::listen(listenFd_, 64) != 0) throw std::runtime_error("listen() failed");
    acceptor_ = std::thread([this] { acceptLoop(); });
}

FakeServer::~FakeServer() {
    stopping_ = true;
    ::shutdown(listenFd_, SHUT_RDWR);
    acceptor_.join();
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (int fd : clientFds_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : threads_) t.join();
    ::close(listenFd_);
}

std::vector<Request> FakeServer::requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
}

Response FakeServer::handle(const Request& r) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        log_.push_back(r);
    }
    return handler_(r);
}

void FakeServer::acceptLoop() {
    while (!stopping_) {
        int fd = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (stopping_ || errno == EINVAL || errno == EBADF) return;
            continue;
        }
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        int index = connections_++;
        std::lock_guard<std::mutex> lock(mu_);
        clientFds_.push_back(fd);
        threads_.emplace_back([this, fd, index] { serve(fd, index); });
    }
}

void FakeServer::closeClient(int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    clientFds_.erase(std::remove(clientFds_.begin(), clientFds_.end(), fd), clientFds_.end());
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
}

void FakeServer::serve(int fd, int index) {
    std::string in;
    char buf[8192];
    for (;;) {
        std::size_t end;
        while ((end = in.find("\r\n\r\n")) == std::string::npos) {
            ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0) { closeClient(fd); return; }
            in.append(buf, static_cast<std::size_t>(n));
        }
        std::string head = in.substr(0, end);
        in.erase(0, end + 4);
        Request req;
        req.connection = index;
        std::size_t lineEnd = head.find("\r\n");
        std::string first = head.substr(0, lineEnd);
        std::size_t sp1 = first.find(' '), sp2 = first.rfind(' ');
        req.method = first.substr(0, sp1);
        req.target = first.substr(sp1 + 1, sp2 - sp1 - 1);
        req.path = req.target;
        if (req.path.rfind("http://", 0) == 0) {
            std::size_t slash = req.path.find('/', 7);
            req.path = slash == std::string::npos ? "/" : req.path.substr(slash);
        }
        std::size_t pos = lineEnd == std::string::npos ? head.size() : lineEnd + 2;
        while (pos < head.size()) {
            std::size_t e = head.find("\r\n", pos);
            if (e == std::string::npos) e = head.size();
            std::string line = head.substr(pos, e - pos);
            std::size_t colon = line.find(':');
            if (colon != std::string::npos) {
                std::string name = line.substr(0, colon);
                std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
                std::size_t v = line.find_first_not_of(' ', colon + 1);
                req.headers[name] = v == std::string::npos ? "" : line.substr(v);
            }
            pos = e + 2;
        }
        Response resp = handle(req);
        if (resp.closeWithoutAnswer) { closeClient(fd); return; }
        std::string out = "HTTP/1.1 " + std::to_string(resp.status) + " " + reason(resp.status) + "\r\n";
        for (auto& [k, v] : resp.headers) out += k + ": " + v + "\r\n";
        out += "Content-Length: " + std::to_string(resp.body.size()) + "\r\n\r\n";
        bool truncated = resp.truncateAt < resp.body.size();
        if (req.method != "HEAD") out.append(resp.body, 0, truncated ? resp.truncateAt : resp.body.size());
        if (!sendAll(fd, out.data(), out.size()) || truncated) { closeClient(fd); return; }
    }
}

DeadPort::DeadPort() { fd_ = bindLoopback(port_); }
DeadPort::~DeadPort() { ::close(fd_); }

Handler proxyTo(std::vector<FakeServer*> servers) {
    return [servers](const Request& r) -> Response {
        // target: http://127.0.0.1:PORT/path
        std::size_t colon = r.target.find(':', 7);
        int port = colon == std::string::npos ? 80 : std::atoi(r.target.c_str() + colon + 1);
        for (FakeServer* s : servers) {
            if (s->port() == port) {
                Request fwd = r;
                fwd.target = r.path;
                fwd.headers["via"] = "1.1 fake-squid";
                return s->handle(fwd);
            }
        }
        return Response::problem(503, "fake squid: cannot connect to " + r.target);
    };
}

}  // namespace outpost::testing
