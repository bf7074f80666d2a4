package io.outpost.server.cache;

/**
 * An encoded answer as the cache keeps it.
 *
 * @param generation       the folder (or catalog) generation it was computed at; a newer generation drops it
 * @param touchesOpenEnded it includes an IOV valid until the end of time, i.e. the current conditions
 * @param immutable        read through a locked tag: it can never change
 */
public record Answer(byte[] body, String contentType, long rows, long validSince, long validUntil,
                     boolean touchesOpenEnded, boolean immutable, String generation, Headers headers) {

    /**
     * Response header values, computed once per answer so cache hits only copy them; {@code folder} names whose
     * generation the answer depends on ("" for the whole catalog: node and tag lists, tag resolution);
     * {@code signature} keeps the answer's signature header once written.
     */
    public record Headers(String folder, String etag, long lastModifiedMillis, String lastModified, String cacheControl,
                          String cacheControlAllowingStale, String rows, String validSince, String validUntil,
                          SignatureMemo signature) {
        public Headers(String folder, String etag, long lastModifiedMillis, String lastModified, String cacheControl,
                       String cacheControlAllowingStale, String rows, String validSince, String validUntil) {
            this(folder, etag, lastModifiedMillis, lastModified, cacheControl, cacheControlAllowingStale, rows,
                    validSince, validUntil, new SignatureMemo());
        }
    }

    public Answer withHeaders(Headers h) {
        return new Answer(body, contentType, rows, validSince, validUntil, touchesOpenEnded, immutable, generation, h);
    }
}
