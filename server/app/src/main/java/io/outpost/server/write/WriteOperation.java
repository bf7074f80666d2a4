package io.outpost.server.write;

/**
 * What a write request asks for, as the audit records it.
 *
 * @param name        e.g. {@code store-iovs}, {@code create-folder}, {@code lock-tag}
 * @param path        the node it changes (null when it is not known yet)
 * @param tag         the tag it concerns, if any
 * @param rows        IOVs in the batch, if any
 * @param requestHash digest of everything that makes the request what it is, to recognise a retry
 */
public record WriteOperation(String name, String path, String tag, Long rows, String requestHash) {
}
