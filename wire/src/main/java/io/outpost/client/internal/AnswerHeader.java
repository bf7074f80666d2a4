package io.outpost.client.internal;

import io.outpost.client.AnswerKind;
import io.outpost.client.Schema;

/** The start of an answer: the 16-byte header plus the content's description (everything before the rows). */
public record AnswerHeader(int codec, long bodyLength, AnswerKind kind, String folder, String tag, long validSince,
                           long validUntil, Schema schema) {

    /** The whole answer's size on the wire: header + body + trailer. */
    public long encodedLength() {
        return AnswerDecoder.HEADER_LENGTH + bodyLength + AnswerDecoder.TRAILER_LENGTH;
    }
}
