package io.outpost.frontier;

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
    String offer(java.nio.ByteBuffer... parts);
}
