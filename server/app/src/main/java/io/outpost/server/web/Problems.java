package io.outpost.server.web;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes RFC 9457 problem+json answers. Errors get a cache life of a few seconds at most and Last-Modified at
 * the epoch, so no cache on the way keeps them.
 */
final class Problems {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final String EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT";

    private Problems() {
    }

    static void write(HttpServletResponse resp, int status, String title, String detail, String instance,
                      String cacheControl) throws IOException {
        write(resp, status, title, detail, instance, cacheControl, null, null);
    }

    /** As {@link #write(HttpServletResponse, int, String, String, String, String)}, with one more member if named. */
    static void write(HttpServletResponse resp, int status, String title, String detail, String instance,
                      String cacheControl, String member, String value) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.put("type", "about:blank");
        body.put("title", title);
        body.put("status", status);
        body.put("detail", EchoedInput.cap(detail));
        body.put("instance", instance.length() > 512 ? instance.substring(0, 512) + "…" : instance);
        if (member != null) {
            body.put(member, value);
        }
        byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("application/problem+json");
        resp.setHeader("Cache-Control", cacheControl);
        resp.setHeader("Last-Modified", EPOCH);
        if (status == 503) {
            resp.setHeader("Retry-After", "1");
        }
        resp.setContentLength(bytes.length);
        resp.getOutputStream().write(bytes);
    }
}
