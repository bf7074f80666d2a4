package io.outpost.client;

import java.util.Objects;

/** One way of reaching a server: directly, or through one proxy. */
public record Route(Endpoint server, Endpoint proxy) {

    public Route {
        Objects.requireNonNull(server, "server");
    }

    public static Route direct(Endpoint server) {
        return new Route(server, null);
    }

    public boolean isDirect() {
        return proxy == null;
    }

    @Override
    public String toString() {
        return isDirect() ? server + " direct" : server + " via " + proxy;
    }
}
