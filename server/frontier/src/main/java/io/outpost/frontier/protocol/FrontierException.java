package io.outpost.frontier.protocol;

/** A failure reported to the client (as a payload or global error) with a message meant for humans. */
public class FrontierException extends Exception {
    public FrontierException(String message) {
        super(message);
    }

    public FrontierException(String message, Throwable cause) {
        super(message, cause);
    }
}
