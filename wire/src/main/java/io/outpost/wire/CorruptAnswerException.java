package io.outpost.wire;

import java.io.IOException;

/** The answer is not whole (docs/wire-format.md): wrong magic, size, CRC-32, row count, or truncated. */
public final class CorruptAnswerException extends IOException {
    public CorruptAnswerException(String message) {
        super(message);
    }

    public CorruptAnswerException(String message, Throwable cause) {
        super(message, cause);
    }
}
