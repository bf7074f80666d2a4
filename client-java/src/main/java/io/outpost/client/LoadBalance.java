package io.outpost.client;

/** Frontier's {@code loadbalance}: which list each request starts at a random point of. */
public enum LoadBalance {
    /** Always start with the first proxy and the first server (after postponing failed ones). */
    NONE,
    /** Start at a random proxy, then go round the list. */
    PROXIES,
    /** Start at a random server, then go round the list. */
    SERVERS
}
