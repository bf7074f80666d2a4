package io.outpost.frontier.encode;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A stream that can take a finished array by reference instead of copying it: an answer's whole base64 text, which
 * nobody changes after it is written. The servlet's response output then holds it until it is sent (and it goes out
 * with its length), and an answer kept for later holds the same array.
 */
public interface SharedWrites {
    /** Appends {@code b}; the caller never changes it again. */
    void writeShared(byte[] b) throws IOException;

    /** {@code b} to {@code out}: by reference where {@code out} takes it so, else copied as any write. */
    static void write(OutputStream out, byte[] b) throws IOException {
        if (out instanceof SharedWrites shared) {
            shared.writeShared(b);
        } else {
            out.write(b, 0, b.length);
        }
    }
}
