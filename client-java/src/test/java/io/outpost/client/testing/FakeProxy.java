package io.outpost.client.testing;

import io.outpost.client.testing.FakeServer.Reply;
import io.outpost.client.testing.FakeServer.Request;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A forwarding HTTP proxy for tests (receives absolute-form request URIs, like Squid). Answers 502 when the origin
 * cannot be reached. A "poisoned" entry plays a cache holding a bad copy of one URL: served to plain requests, and
 * to {@code max-age=0} revalidations too unless {@code softFixes}; {@code no-cache} always goes to the origin.
 */
public final class FakeProxy implements FakeServer.Handler {
    private record Poison(Reply reply, boolean softFixes) {
    }

    private final Map<String, Poison> poisoned = new ConcurrentHashMap<>();

    public void poison(String path, Reply reply, boolean softFixes) {
        poisoned.put(path, new Poison(reply, softFixes));
    }

    @Override
    public Reply handle(Request r) throws IOException {
        URI target = URI.create(r.target());
        if (target.getScheme() == null) {
            return Reply.of(400, "not a proxy request".getBytes());
        }
        String cc = r.header("Cache-Control");
        Poison p = poisoned.get(target.getRawPath());
        if (p != null && !"no-cache".equals(cc) && !("max-age=0".equals(cc) && p.softFixes)) {
            return p.reply;
        }
        HttpURLConnection c = (HttpURLConnection) target.toURL().openConnection(Proxy.NO_PROXY);
        c.setConnectTimeout(2000);
        c.setReadTimeout(5000);
        int status;
        try {
            status = c.getResponseCode();
        } catch (ConnectException e) {
            return Reply.of(502, "origin unreachable".getBytes());
        }
        InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
        byte[] body = in == null ? new byte[0] : in.readAllBytes();
        String[] h = {"Cache-Control", c.getHeaderField("Cache-Control"), "Age", c.getHeaderField("Age"),
            "X-Outpost-Valid-Since", c.getHeaderField("X-Outpost-Valid-Since"),
            "X-Outpost-Valid-Until", c.getHeaderField("X-Outpost-Valid-Until")};
        Reply reply = Reply.of(status, body);
        for (int i = 0; i < h.length; i += 2) {
            if (h[i + 1] != null) {
                reply.headers().put(h[i], h[i + 1]);
            }
        }
        return reply;
    }
}
