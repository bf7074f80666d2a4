package io.outpost.server.cache;

/**
 * An encoded answer as the cache keeps it.
 *
 * @param generation       the folder (or catalog) generation it was computed at; a newer generation drops it
 * @param touchesOpenEnded it includes an IOV valid until the end of time, i.e. the current conditions
 * @param immutable        read through a locked tag: it can never change
 */
public record Answer(byte[] body, String contentType, long rows, long validSince, long validUntil,
                     boolean touchesOpenEnded, boolean immutable, String generation) {
}
