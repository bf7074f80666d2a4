package io.outpost.client.pac;

import io.outpost.client.Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a PAC file's {@code FindProxyForURL} answered for one server: its {@code PROXY host:port} entries in order,
 * and whether it named {@code DIRECT} (the server may be asked without a proxy, after the proxies).
 */
public record PacAnswer(List<Endpoint> proxies, boolean direct) {

    public PacAnswer {
        proxies = List.copyOf(proxies);
    }

    /**
     * Parses an answer such as {@code "PROXY a:3128; PROXY b:3128; DIRECT"}. An empty answer, or an entry other
     * than PROXY (or its synonym HTTP) and DIRECT, is a configuration error naming {@code pacUrl}.
     */
    public static PacAnswer parse(String answer, String pacUrl) {
        if (answer == null || answer.isBlank()) {
            throw new IllegalArgumentException("proxy auto-config " + pacUrl + ": FindProxyForURL returned nothing");
        }
        List<Endpoint> proxies = new ArrayList<>();
        boolean direct = false;
        for (String part : answer.split(";")) {
            String entry = part.strip();
            if (entry.isEmpty()) {
                continue;
            }
            String[] words = entry.split("\\s+", 2);
            switch (words[0].toUpperCase(Locale.ROOT)) {
                case "DIRECT" -> direct = true;
                case "PROXY", "HTTP" -> {
                    if (words.length < 2) {
                        throw new IllegalArgumentException("proxy auto-config " + pacUrl + ": '" + entry
                                + "' names no proxy");
                    }
                    Endpoint p = parseProxy(words[1].strip(), pacUrl);
                    if (!proxies.contains(p)) {
                        proxies.add(p);
                    }
                }
                default -> throw new IllegalArgumentException("proxy auto-config " + pacUrl + ": FindProxyForURL "
                        + "returned '" + entry + "', of a type the client cannot use (only PROXY and DIRECT)");
            }
        }
        if (proxies.isEmpty() && !direct) {
            throw new IllegalArgumentException("proxy auto-config " + pacUrl + ": FindProxyForURL returned nothing");
        }
        return new PacAnswer(proxies, direct);
    }

    private static Endpoint parseProxy(String hostPort, String pacUrl) {
        try {
            Endpoint e = Endpoint.parse(hostPort);
            if (!e.scheme().equals("http") || !e.basePath().isEmpty()) {
                throw new IllegalArgumentException("not http://host:port");
            }
            return e;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("proxy auto-config " + pacUrl + ": bad proxy '" + hostPort + "': "
                    + e.getMessage());
        }
    }

    /** The answer as PAC text, e.g. {@code PROXY a:3128; DIRECT} (for messages and the shared test cases). */
    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        proxies.forEach(p -> parts.add("PROXY " + p.host() + ":" + p.port()));
        if (direct) {
            parts.add("DIRECT");
        }
        return String.join("; ", parts);
    }
}
