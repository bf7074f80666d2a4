package io.outpost.client.testing;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * A name resolver for the test JVM only (registered in the test resources' META-INF/services): names put in
 * {@link #MAP} resolve to the given loopback address, every other name goes to the JDK's own resolver. It lets a
 * test give the WPAD name {@code wpad} an address without touching the machine's DNS or /etc/hosts.
 */
public final class TestHostNames extends InetAddressResolverProvider {
    public static final Map<String, InetAddress> MAP = new ConcurrentHashMap<>();
    /** Names with several addresses, returned in this order whatever the JVM prefers. */
    public static final Map<String, java.util.List<InetAddress>> ADDRESSES = new ConcurrentHashMap<>();

    @Override
    public InetAddressResolver get(Configuration configuration) {
        InetAddressResolver builtin = configuration.builtinResolver();
        return new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy policy) throws UnknownHostException {
                java.util.List<InetAddress> several = ADDRESSES.get(host);
                if (several != null) {
                    return several.stream();
                }
                InetAddress mapped = MAP.get(host);
                return mapped != null ? Stream.of(mapped) : builtin.lookupByName(host, policy);
            }

            @Override
            public String lookupByAddress(byte[] addr) throws UnknownHostException {
                return builtin.lookupByAddress(addr);
            }
        };
    }

    @Override
    public String name() {
        return "outpost-test-host-names";
    }
}
