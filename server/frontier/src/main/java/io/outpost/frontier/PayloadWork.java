package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.encode.BlobEncoder;
import java.sql.Connection;

/**
 * One payload on its way through the payload steps, as a value: each step hands the next what it found (the zip
 * level, the stamp plan, the copy for waiting requests, the encoder, the rows read), and whether the answer may be
 * kept comes back with the outcome ({@link PayloadOutcome.Sent#keep}).
 *
 * @param level   the zip level of the payload's encoding
 * @param plan    how the answer is tied to its tables' stamp (null until {@link StampStep})
 * @param tee     the copy of the response kept for the identical requests that wait, or null
 * @param encoder the encoder of the payload's records (null until {@link EncodeStep})
 * @param rows    what the query gave (null until {@link ExecuteStep})
 */
record PayloadWork(FrontierExchange exchange, Payload payload, int level, StampPlan plan, AnswerTee tee,
                   BlobEncoder encoder, ReadRows rows) {

    /** The rows a query gave, and the tables' stamp read in its snapshot with it ({@link StampPlan.WithQuery}). */
    record ReadRows(int count, String stampWithQuery) {
    }

    PayloadWork(FrontierExchange exchange, Payload payload) {
        this(exchange, payload, 0, null, null, null, null);
    }

    PayloadWork atLevel(int zipLevel) {
        return new PayloadWork(exchange, payload, zipLevel, plan, tee, encoder, rows);
    }

    PayloadWork planned(StampPlan stampPlan) {
        return new PayloadWork(exchange, payload, level, stampPlan, tee, encoder, rows);
    }

    PayloadWork copiedTo(AnswerTee copy) {
        return new PayloadWork(exchange, payload, level, plan, copy, encoder, rows);
    }

    PayloadWork encodedBy(BlobEncoder enc) {
        return new PayloadWork(exchange, payload, level, plan, tee, enc, rows);
    }

    PayloadWork read(ReadRows read) {
        return new PayloadWork(exchange, payload, level, plan, tee, encoder, read);
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
