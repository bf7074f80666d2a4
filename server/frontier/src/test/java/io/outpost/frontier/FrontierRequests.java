package io.outpost.frontier;

import io.outpost.frontier.protocol.P1Codec;
import java.util.LinkedHashMap;
import java.util.Map;

/** Frontier requests as frontier_client makes them (their answers are read with the test kit's FrontierDecoder). */
public final class FrontierRequests {
    private FrontierRequests() {
    }

    /** Builds the request path exactly as frontier_client does. */
    public static String path(String context, String encoding, Map<String, String> extra, String... sqls) {
        StringBuilder b = new StringBuilder("/" + context + "/Frontier/");
        for (int i = 0; i < sqls.length; i++) {
            if (i > 0) {
                b.append('&');
            }
            b.append("type=frontier_request:1:DEFAULT&encoding=").append(encoding).append("&p1=")
                    .append(P1Codec.encode(sqls[i]));
            extra.forEach((k, v) -> b.append('&').append(k).append('=').append(v));
        }
        return b.toString();
    }

    public static Map<String, String> clientHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("X-Frontier-Id", "client 2.10.2 7288 root(0) root");
        h.put("Cache-Control", "max-stale=1");
        return h;
    }
}
