package io.outpost.client.internal;

import io.outpost.client.ClientConfig;
import io.outpost.client.Endpoint;
import io.outpost.client.LoadBalance;
import io.outpost.client.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Orders the routes of one pass (docs/client-failover.md, "Route order"):
 * <ol>
 *   <li>one group per proxy, in configured order (random start with loadbalance=proxies), failed ones last;</li>
 *   <li>within a group every server, in configured order (random start with loadbalance=servers), failed ones
 *       last;</li>
 *   <li>then one group per backup proxy;</li>
 *   <li>then, unless failovertoserver=no, one group of direct connections to every server.</li>
 * </ol>
 */
public final class RoutePlanner {
    private final ClientConfig config;
    private final FailedRoutes failed;
    private final RandomGenerator random;

    public RoutePlanner(ClientConfig config, FailedRoutes failed, RandomGenerator random) {
        this.config = config;
        this.failed = failed;
        this.random = random;
    }

    public List<List<Route>> plan() {
        List<Endpoint> servers = failed.order(rotate(config.servers(), config.loadBalance() == LoadBalance.SERVERS));
        List<Endpoint> proxies = failed.order(rotate(config.proxies(), config.loadBalance() == LoadBalance.PROXIES));
        List<List<Route>> groups = new ArrayList<>();
        for (Endpoint p : proxies) {
            groups.add(via(servers, p));
        }
        for (Endpoint p : failed.order(config.backupProxies())) {
            groups.add(via(servers, p));
        }
        if (config.failoverToServer() || groups.isEmpty()) {
            groups.add(via(servers, null));
        }
        return groups;
    }

    private static List<Route> via(List<Endpoint> servers, Endpoint proxy) {
        List<Route> g = new ArrayList<>(servers.size());
        for (Endpoint s : servers) {
            g.add(new Route(s, proxy));
        }
        return g;
    }

    private List<Endpoint> rotate(List<Endpoint> list, boolean randomStart) {
        if (!randomStart || list.size() < 2) {
            return list;
        }
        int start;
        synchronized (random) {
            start = random.nextInt(list.size());
        }
        List<Endpoint> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            out.add(list.get((start + i) % list.size()));
        }
        return out;
    }
}
