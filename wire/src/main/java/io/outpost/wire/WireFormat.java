package io.outpost.wire;

/** The framing constants of an answer in the binary table format (docs/wire-format.md), shared by both directions. */
public final class WireFormat {
    /** The media type of a binary answer and of a binary IOV batch of the write API. */
    public static final String CONTENT_TYPE = "application/vnd.outpost.table";
    public static final int HEADER_LENGTH = 16;
    public static final int TRAILER_LENGTH = 16;
    /** The only version this code reads and writes. */
    public static final int VERSION = 1;
    static final int MAGIC = 0x4F555450; // "OUTP"
    static final int TRAILER_MAGIC = 0x5054554F; // "PTUO"

    private WireFormat() {
    }
}
