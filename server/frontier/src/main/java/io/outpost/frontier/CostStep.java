package io.outpost.frontier;

import io.outpost.frontier.cost.QueryCostGuard;
import io.outpost.frontier.protocol.FrontierException;
import java.io.IOException;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses a query the database estimates above MaxQueryCost, before it runs; only queries about to run get here
 * (answers served from memory are not costed). An estimate read by the prelude is used as it is; a prelude without
 * one, or a query claimed to run with its prelude, was admitted without an estimate when the plan was made.
 */
final class CostStep implements StepChain.Step<PayloadWork, PayloadOutcome> {
    private static final Logger LOG = LoggerFactory.getLogger(CostStep.class);
    private final QueryCostGuard cost;
    private final PayloadEnds ends;
    private final String contextName;
    private final int timeoutSeconds;

    CostStep(QueryCostGuard cost, PayloadEnds ends, FrontierContext context) {
        this.cost = cost;
        this.ends = ends;
        this.contextName = context.name();
        this.timeoutSeconds = context.config().statementTimeoutSeconds();
    }

    @Override
    public PayloadOutcome handle(PayloadWork w, StepChain<PayloadWork, PayloadOutcome> next) throws IOException {
        Payload p = w.payload();
        try {
            switch (w.plan()) {
                case StampPlan.Prelude pre when pre.read().cost() != null ->
                        cost.check(p.sql(), p.binds(), pre.read().cost());
                case StampPlan.Prelude pre -> {
                }
                case StampPlan.WithQuery q -> {
                }
                case StampPlan.ReadBefore r -> estimate(w);
                case StampPlan.NotKept n -> estimate(w);
            }
        } catch (FrontierException e) {
            return ends.error(w, e.getMessage(), "");
        }
        return next.proceed(w);
    }

    /** The database's cost estimate against the configured limit. */
    private void estimate(PayloadWork w) throws FrontierException {
        try {
            cost.checkEstimate(w.connection(), w.payload().sql(), w.payload().binds(), timeoutSeconds);
        } catch (SQLException e) {
            // a statement the database cannot plan fails again when it runs, and is reported as usual from there
            LOG.debug("{} no cost estimate: {}", contextName, e.toString());
            DatabaseReads.rollback(w.connection());
            w.exchange().transactionFresh(true);
        }
    }
}
