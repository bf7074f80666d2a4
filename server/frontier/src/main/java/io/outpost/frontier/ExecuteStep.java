package io.outpost.frontier;

import io.outpost.frontier.encode.BlobEncoder;
import java.io.IOException;
import java.sql.SQLException;

/**
 * Runs the payload's query into the encoder and completes the encoding. A failure of the query is the payload's
 * error, or the whole request's 503 when the database became unreachable before anything was sent.
 */
final class ExecuteStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private final DatabaseReads reads;
    private final PayloadEnds ends;

    ExecuteStep(DatabaseReads reads, PayloadEnds ends) {
        this.reads = reads;
        this.ends = ends;
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        Payload p = w.payload;
        BlobEncoder enc = w.encoder;
        try {
            if (w.stampWithQuery) {
                DatabaseReads.StampedRows r = reads.queryWithPrelude(w.connection(), p, enc, w.out(), w.stampTables);
                w.rows = r.rows();
                w.flight = w.flight.at(r.stamp());
            } else {
                w.rows = reads.query(w.connection(), p, enc, w.out(), w.prelude != null);
            }
            enc.close();
            ends.answeredFrom(FrontierMetrics.DATABASE);
        } catch (SQLException e) {
            closeQuietly(enc);
            if (PayloadEnds.refused(e, w)) {
                return new PayloadOutcome.Unavailable(PayloadEnds.oneLine(e.getMessage()));
            }
            String what = p.tables().isEmpty() ? "The query" : "While querying " + p.tables() + ": the query";
            return ends.error(w, ends.databaseFailure(w, what, e), "md5=\"" + enc.md5Hex() + "\"");
        } catch (IOException | RuntimeException e) {
            closeQuietly(enc); // the client went away or the driver failed: end the encoder's work all the same
            throw e;
        }
        return next.proceed(w);
    }

    private static void closeQuietly(BlobEncoder enc) {
        try {
            enc.close();
        } catch (IOException | RuntimeException e) {
            // already failing
        }
    }
}
