package io.outpost.frontier;

import io.outpost.frontier.encode.BlobEncoder;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Runs the payload's query into the encoder (with its prelude when the stamp comes with it) and completes the
 * encoding; the transaction ends with the query. A failure of the query is the payload's error, or the whole
 * request's 503 when the database became unreachable before anything was sent.
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
        Payload p = w.payload();
        BlobEncoder enc = w.encoder();
        Connection c = w.connection();
        PayloadWork.ReadRows read;
        try {
            read = switch (w.plan()) {
                case StampPlan.WithQuery q -> {
                    DatabaseReads.StampedRows r = reads.queryWithPrelude(c, p, enc, w.out(), q.tables());
                    yield new PayloadWork.ReadRows(r.rows(), r.stamp());
                }
                case StampPlan.Prelude pre -> new PayloadWork.ReadRows(reads.query(c, p, enc, w.out(), true), null);
                case StampPlan.ReadBefore r -> new PayloadWork.ReadRows(reads.query(c, p, enc, w.out(), false), null);
                case StampPlan.NotKept n -> new PayloadWork.ReadRows(reads.query(c, p, enc, w.out(), false), null);
            };
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
        } finally {
            w.exchange().transactionFresh(true); // the query's transaction was rolled back (DatabaseReads)
        }
        return next.proceed(w.read(read));
    }

    private static void closeQuietly(BlobEncoder enc) {
        try {
            enc.close();
        } catch (IOException | RuntimeException e) {
            // already failing
        }
    }
}
