package io.outpost.client.internal;

import io.outpost.client.ClientConfig;
import io.outpost.client.Endpoint;
import io.outpost.client.LoadBalance;
import io.outpost.client.Route;
import io.outpost.client.pac.PacAnswer;
import io.outpost.client.pac.ProxyDiscovery;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * With proxy auto-config each server has its own proxies: those of its PAC answer, then the configured ones. The
 * proxy groups follow their first appearance in the servers' lists, and a group holds only the servers whose list
 * has that proxy; a PAC answer with DIRECT keeps that server's direct route even with failovertoserver=no.
 */
public final class RoutePlanner {
    private final ClientConfig config;
    private final FailedRoutes failed;
    private final RandomGenerator random;
    private final ProxyDiscovery discovery;

    public RoutePlanner(ClientConfig config, FailedRoutes failed, RandomGenerator random, ProxyDiscovery discovery) {
        this.config = config;
        this.failed = failed;
        this.random = random;
        this.discovery = discovery;
    }

    public List<List<Route>> plan() {
        List<Endpoint> servers = failed.order(rotate(config.servers(), config.loadBalance() == LoadBalance.SERVERS));
        List<List<Route>> groups = new ArrayList<>();
        List<Endpoint> direct = new ArrayList<>();
        if (discovery == null) {
            List<Endpoint> proxies = failed.order(rotate(config.proxies(), config.loadBalance() == LoadBalance.PROXIES));
            for (Endpoint p : proxies) {
                groups.add(via(servers, p));
            }
            direct.addAll(servers);
        } else {
            // proxy -> the servers reached through it, in server order
            Map<Endpoint, List<Endpoint>> byProxy = new LinkedHashMap<>();
            for (Endpoint s : servers) {
                PacAnswer a = discovery.answerFor(s);
                List<Endpoint> own = new ArrayList<>(a.proxies());
                config.proxies().stream().filter(p -> !own.contains(p)).forEach(own::add);
                own.forEach(p -> byProxy.computeIfAbsent(p, k -> new ArrayList<>()).add(s));
                if (config.failoverToServer() || a.direct()) {
                    direct.add(s);
                }
            }
            for (Endpoint p : failed.order(new ArrayList<>(byProxy.keySet()))) {
                groups.add(via(byProxy.get(p), p));
            }
        }
        for (Endpoint p : failed.order(config.backupProxies())) {
            groups.add(via(servers, p));
        }
        if (discovery == null ? config.failoverToServer() || groups.isEmpty() : !direct.isEmpty()) {
            groups.add(via(direct, null));
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
