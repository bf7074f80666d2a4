package io.outpost.frontier;

import io.outpost.frontier.answers.FrontierAnswers;
import io.outpost.frontier.answers.PostgresPrelude;
import io.outpost.frontier.answers.TableStamp;
import io.outpost.frontier.cost.QueryCostGuard;
import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.frontier.sql.FrontierDialect;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

/**
 * Decides how the payload's answer is tied to the stamp of the tables it reads (their sequence rows), which says
 * whether a kept answer is still current, and reads the stamp accordingly: the {@link StampPlan} the later steps
 * follow. On PostgreSQL, in a transaction where nothing ran yet, the stamp comes with the {@link PostgresPrelude}
 * (and the cost estimate when one is wanted) in the query's own snapshot; when no estimate is wanted, no identical
 * request is known and the tables' time is not due for Last-Modified, the computation is claimed now and the stamp
 * comes in the query's own round trip. Elsewhere it is read on its own before the query.
 */
final class StampStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private static final StampPlan NOT_KEPT = new StampPlan.NotKept();
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
        Payload p = w.payload();
        Set<String> tables = answers.stampTables(p.tables());
        if (tables == null) {
            return next.proceed(w.planned(NOT_KEPT));
        }
        Connection c = w.connection();
        FrontierExchange x = w.exchange();
        StampPlan plan;
        try {
            plan = prelude && x.transactionFresh() && !autoCommit(c) ? inQuerySnapshot(w, tables) : readBefore(w, tables);
        } catch (SQLException e) {
            if (PayloadEnds.refused(e, w)) {
                return ends.keptOrRefused(w, e);
            }
            // not kept: the query itself reports what is wrong (costed on its own, as without a prelude)
            DatabaseReads.rollback(c); // PostgreSQL refuses further statements in a failed transaction
            x.transactionFresh(true);
            plan = NOT_KEPT;
        }
        return next.proceed(w.planned(plan));
    }

    /** The stamp read in the query's snapshot: claimed now and read with the query, or read by the prelude. */
    private StampPlan inQuerySnapshot(PayloadWork w, Set<String> tables) throws SQLException {
        Payload p = w.payload();
        boolean costed = cost.wantsEstimate(p.sql(), p.binds());
        // the tables' time for Last-Modified comes with a stamp read before the query only
        if (!costed && !LastModifiedStep.due(w.exchange(), p)) {
            FrontierAnswers.Flight claimed = answers.claim(w.key());
            if (claimed != null) {
                return new StampPlan.WithQuery(tables, claimed);
            }
        }
        PostgresPrelude.Result read = PostgresPrelude.run(w.connection(), tables, costed ? p.sql() : null, p.binds(),
                timeoutSeconds);
        w.exchange().transactionFresh(false);
        return new StampPlan.Prelude(tables, read);
    }

    /** The stamp read on its own; read again after the query to keep the answer. */
    private StampPlan readBefore(PayloadWork w, Set<String> tables) throws SQLException {
        TableStamp stamp = FrontierAnswers.read(w.connection(), tables, timeoutSeconds);
        w.exchange().transactionFresh(false);
        return stamp.text() == null ? NOT_KEPT : new StampPlan.ReadBefore(tables, stamp);
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
