package io.outpost.frontier;

import io.outpost.frontier.encode.BlobEncoder;
import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.answers.PostgresPrelude;
import java.sql.Connection;
import java.util.Set;

/**
 * One payload on its way through the payload steps: what each step found for the next (zip level, stamp, flight,
 * prelude, encoder, rows) beside the request's exchange.
 */
final class PayloadWork {
    final FrontierExchange exchange;
    final Payload payload;
    /** The zip level of the payload's encoding. */
    int level;
    /** Nothing has run on the connection yet in this transaction. */
    boolean freshTransaction;
    /** The sequence tables whose stamp an answer to keep is valid for; null when it cannot be kept. */
    Set<String> stampTables;
    /** The tables' stamp read before the query, or null (not kept, not readable, or read with the query). */
    String stamp;
    /** The stamp and estimate read in the query's own snapshot before it runs, or null. */
    PostgresPrelude.Result prelude;
    /** The stamp is read in the query's own round trip ({@link PostgresPrelude#withQuery}). */
    boolean stampWithQuery;
    /** This request's part in the single flight of its answer, or null when the answer is not kept. */
    FrontierAnswers.Flight flight;
    /** The copy of the response kept for the identical requests that wait, or null. */
    AnswerTee tee;
    BlobEncoder encoder;
    int rows;
    /** The answer to keep once the payload is done; null keeps none. */
    FrontierAnswers.Encoded published;

    PayloadWork(FrontierExchange exchange, Payload payload) {
        this.exchange = exchange;
        this.payload = payload;
    }

    ResponseOutput out() {
        return exchange.out;
    }

    Connection connection() {
        return exchange.connection();
    }

    FrontierAnswers.Key key() {
        return new FrontierAnswers.Key(payload.sql(), payload.binds(), level);
    }
}
