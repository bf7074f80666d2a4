package io.outpost.wire;


/** The start of an answer: the 16-byte header plus the content's description (everything before the rows). */
public record AnswerHeader(Codec codec, long bodyLength, AnswerKind kind, String folder, String tag, long validSince,
                           long validUntil, Schema schema) {

    /** The whole answer's size on the wire: header + body + trailer. */
    public long encodedLength() {
        return WireFormat.HEADER_LENGTH + bodyLength + WireFormat.TRAILER_LENGTH;
    }
}
