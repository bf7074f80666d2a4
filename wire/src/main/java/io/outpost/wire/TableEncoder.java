package io.outpost.wire;

import java.util.List;

/**
 * Writes one answer table: a header, rows one at a time (streamed, never all held), then the finished bytes.
 * Implementations: {@link AnswerEncoder} here and the service's JSON form.
 */
public interface TableEncoder {

    void begin(AnswerKind kind, String folder, String tag, long validSince, long validUntil, List<Column> columns);

    void row(Object[] values);

    /** Finishes the document and returns it; the encoder is unusable afterwards. */
    byte[] finish();

    long rows();

    /** Frees what an unfinished encoder holds (after a failed read); the encoder is unusable afterwards. */
    default void abandon() {
    }

    String contentType();
}
