package io.outpost.frontier;

import io.outpost.frontier.encode.SharedWrites;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The response stream of a request that computes an answer to keep ({@code FrontierAnswers}), remembering what the
 * encoder writes to it (up to the entry limit). An answer written as
 * one shared array (the encoder's whole text) is remembered by reference, not copied.
 */
final class AnswerTee extends OutputStream implements SharedWrites {
    private final OutputStream out;
    private final long maxEntryBytes;
    private ByteArrayOutputStream copy = new ByteArrayOutputStream();
    /** The only thing written so far, when it came by reference. */
    private byte[] shared;

    AnswerTee(OutputStream out, long maxEntryBytes) {
        this.out = out;
        this.maxEntryBytes = maxEntryBytes;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        remember(b, off, len);
    }

    @Override
    public void writeShared(byte[] b) throws IOException {
        SharedWrites.write(out, b);
        if (copy != null && copy.size() == 0 && shared == null && b.length <= maxEntryBytes) {
            shared = b;
        } else {
            remember(b, 0, b.length);
        }
    }

    private void remember(byte[] b, int off, int len) {
        if (shared != null) {
            byte[] first = shared;
            shared = null;
            remember(first, 0, first.length);
        }
        if (copy != null) {
            if (copy.size() + (long) len > maxEntryBytes) {
                copy = null; // too big to keep: still sent, just not remembered
            } else {
                copy.write(b, off, len);
            }
        }
    }

    /** The bytes written, or null if they exceeded the limit. */
    byte[] copy() {
        if (shared != null) {
            return shared;
        }
        return copy == null ? null : copy.toByteArray();
    }

    /**
     * As {@link #copy}, but {@code written} (null: unknown), when it is what was written, is kept instead of a
     * second copy: a compressed text already kept by record content is then held once.
     */
    byte[] copy(byte[] written) {
        if (written != null && (shared == written || shared == null && copy != null && copy.size() == written.length)) {
            return written;
        }
        return copy();
    }
}
