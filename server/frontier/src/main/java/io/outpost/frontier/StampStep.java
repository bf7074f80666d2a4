package io.outpost.frontier;

import io.outpost.frontier.sql.FrontierDialect;
import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.answers.PostgresPrelude;
import io.outpost.frontier.cost.QueryCostGuard;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Reads the stamp of the tables an answer that can be kept reads (their sequence rows), which says whether a kept
 * answer is still current. On PostgreSQL, in a transaction where nothing ran yet, the stamp comes with the
 * {@link PostgresPrelude} (and the cost estimate when one is wanted) in the query's own snapshot; when no estimate
 * is wanted and no identical request is known, the computation is claimed now and the stamp comes in the query's
 * own round trip.
 */
final class StampStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private final FrontierAnswers answers;
    private final QueryCostGuard cost;
    private final PayloadEnds ends;
    private final boolean prelude;
    private final int timeoutSeconds;

    StampStep(FrontierAnswers answers, QueryCostGuard cost, PayloadEnds ends, FrontierDialect dialect,
              FrontierConfig config) {
        this.answers = answers;
        this.cost = cost;
        this.ends = ends;
        this.prelude = dialect.stampsWithPrelude();
        this.timeoutSeconds = config.statementTimeoutSeconds();
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        Payload p = w.payload;
        w.stampTables = answers.stampTables(p.tables());
        if (w.stampTables == null) {
            return next.proceed(w);
        }
        Connection c = w.connection();
        boolean preludeFirst = prelude && w.freshTransaction && !autoCommit(c); // the query then shares the snapshot
        boolean costed = true;
        if (preludeFirst) {
            costed = cost.wantsEstimate(p.sql(), p.binds());
            w.flight = costed ? null : answers.claim(w.key());
            w.stampWithQuery = w.flight != null;
        }
        if (w.stampWithQuery) {
            return next.proceed(w);
        }
        try {
            if (preludeFirst) {
                w.prelude = PostgresPrelude.run(c, w.stampTables, costed ? p.sql() : null, p.binds(), timeoutSeconds);
                w.stamp = w.prelude.stamp();
            } else {
                w.stamp = FrontierAnswers.stamp(c, w.stampTables, timeoutSeconds);
            }
        } catch (SQLException e) {
            w.prelude = null; // the query is costed on its own, as without the prelude
            if (PayloadEnds.refused(e, w)) {
                return ends.keptOrRefused(w, e);
            }
            w.stamp = null; // not kept: the query itself reports what is wrong
            DatabaseReads.rollback(c); // PostgreSQL refuses further statements in a failed transaction
        }
        return next.proceed(w);
    }

    /** True unless the connection says it runs in a transaction; the stamp is then read on its own. */
    private static boolean autoCommit(Connection c) {
        try {
            return c.getAutoCommit();
        } catch (SQLException e) {
            return true; // the stamp read on its own reports the connection's state
        }
    }
}
