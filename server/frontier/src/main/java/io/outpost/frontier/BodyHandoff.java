package io.outpost.frontier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Where a finished response body can be left for the HTTP front that holds the client's connection, instead of
 * being written to it over the loopback connection between them. The front finds it by the value of {@link #HEADER}
 * in the (empty) response and sends it itself, with the response's own status and headers: a large answer then
 * crosses no second socket. Set as the request attribute {@link #ATTRIBUTE} only on requests the front forwarded.
 */
public interface BodyHandoff {
    /** The request attribute holding the handoff of a request that came through the front. */
    String ATTRIBUTE = BodyHandoff.class.getName();
    /** The response header naming the body left with the front; the front removes it. */
    String HEADER = "X-Outpost-Body";
    /** Smaller bodies are written as usual: for them the second socket costs little. */
    int MIN_BYTES = 32 * 1024;

    /**
     * Leaves the body, the remaining bytes of {@code parts} in order (heap buffers no one changes any more), with
     * the front.
     *
     * @return the value for {@link #HEADER}, or null when the front takes no more now (write the body as usual)
     */
    String offer(ByteBuffer... parts);

    /** The handoff of a GET that came through the front, else null (HEAD and other methods send no such body). */
    static BodyHandoff of(HttpServletRequest req) {
        return "GET".equals(req.getMethod()) && req.getAttribute(ATTRIBUTE) instanceof BodyHandoff h ? h : null;
    }

    /**
     * Leaves a body of at least {@link #MIN_BYTES} with {@code handoff} (may be null) and sends the empty stand-in
     * naming it. False when it was not left: the caller writes the body as usual.
     */
    static boolean leave(BodyHandoff handoff, HttpServletResponse resp, long length, ByteBuffer... parts)
            throws IOException {
        if (handoff == null || length < MIN_BYTES) {
            return false;
        }
        String token = handoff.offer(parts);
        if (token == null) {
            return false;
        }
        resp.setHeader(HEADER, token);
        resp.setContentLength(0);
        resp.getOutputStream().flush();
        return true;
    }
}
