package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;

/** How one payload ended, which decides how the request goes on. */
sealed interface PayloadOutcome {
    /**
     * Its records and quality element were sent: on to the next payload. {@code keep} is the computed answer to keep
     * for others at the stamp of the data it was read from, or null.
     */
    record Sent(FrontierAnswers.Encoded keep) implements PayloadOutcome {
    }

    /**
     * It ended with an error; the request stops there. {@code globalError} is set when the error could no longer be
     * told in the headers (the response was already committed), or null.
     */
    record Failed(String globalError) implements PayloadOutcome {
    }

    /** Its tables did not change since the client's If-Modified-Since: the whole answer is 304. */
    record NotModified() implements PayloadOutcome {
    }

    /** The database could not be reached before anything was sent: the whole answer is 503. */
    record Unavailable(String reason) implements PayloadOutcome {
    }
}
