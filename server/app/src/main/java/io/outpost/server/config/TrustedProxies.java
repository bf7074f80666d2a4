package io.outpost.server.config;

import java.util.ArrayList;
import java.util.List;
import org.apache.catalina.Valve;
import org.apache.catalina.util.NetMask;
import org.apache.catalina.valves.RemoteIpValve;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;

/**
 * Whose {@code X-Forwarded-For} the service believes: {@code outpost.trusted-proxies}, a list of addresses and CIDR
 * blocks (the site's Squids), becomes the one list of Tomcat's RemoteIpValve, which Spring Boot installs with
 * {@code server.forward-headers-strategy=native}. A request from one of them is the client's whose address the
 * proxy forwarded (access log, per-client Frontier limits); from anywhere else it is the connection's peer's, whatever
 * headers it carries. Empty (the default) trusts no one: a forwarded address is then only logged. Spring's own
 * default would trust every private and loopback address, and so any job on the site network could pick its own
 * address and per-client limit.
 */
public final class TrustedProxies implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {
    private final String cidrs;
    private final List<NetMask> masks;

    /** @param entries addresses ({@code 192.0.2.10}, {@code ::1}) and CIDR blocks ({@code 192.0.2.0/28}) */
    public TrustedProxies(List<String> entries) {
        this.cidrs = toCidrs(entries);
        this.masks = cidrs == null ? List.of() : java.util.Arrays.stream(cidrs.split(", ")).map(NetMask::new).toList();
    }

    /** Whether {@code address} is one of the trusted proxies. */
    public boolean contains(java.net.InetAddress address) {
        return masks.stream().anyMatch(m -> m.matches(address));
    }

    /**
     * The entries as Tomcat's comma-separated CIDR list, each checked ({@link AddressBlocks} refuses a setting that
     * fails here before the start goes on); null when there are none.
     */
    public static String toCidrs(List<String> entries) {
        List<String> out = new ArrayList<>();
        for (String raw : entries) {
            String e = raw.strip();
            if (e.isEmpty()) {
                continue;
            }
            String address = e.contains("/") ? e.substring(0, e.indexOf('/')) : e;
            // literal addresses only: a host name would be looked up in DNS, and the answer could change
            if (!address.matches("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*")) {
                throw new IllegalArgumentException("'" + e
                        + "' is not an IP address or CIDR block (e.g. 192.0.2.10 or 192.0.2.0/28)");
            }
            String cidr = e.contains("/") ? e : e + (address.contains(":") ? "/128" : "/32");
            try {
                new NetMask(cidr);
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException("'" + e + "' is not an IP address or CIDR block: "
                        + bad.getMessage(), bad);
            }
            out.add(cidr);
        }
        return out.isEmpty() ? null : String.join(", ", out);
    }

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        for (Valve v : factory.getEngineValves()) {
            if (v instanceof RemoteIpValve remoteIp) {
                // one list: proxies whose forwarded addresses are believed, and which never count as the client
                remoteIp.setInternalProxies(cidrs);
                remoteIp.setTrustedProxies(null);
            }
        }
    }

    /** After Spring Boot's own customizer, which adds the valve with its default (private networks) list. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
