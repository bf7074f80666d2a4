package io.outpost.frontier.cost;

import io.outpost.frontier.protocol.FrontierException;
import io.outpost.frontier.sql.JoinShapeCheck;
import io.outpost.frontier.sql.FrontierDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import net.sf.jsqlparser.statement.select.Select;

/**
 * The Frontier endpoint's bound on what a request may cost: the shape of its SQL (tables per SELECT, no cartesian
 * products), the database's cost estimate, and how many requests one client may run at once. The statement
 * timeout itself is {@link io.outpost.frontier.protocol.FrontierConfig#statementTimeoutSeconds()}.
 */
public final class QueryCostGuard {
    private final QueryCostLimits limits;
    private final JoinShapeCheck shape;
    private final FrontierDialect dialect;
    private final ClientConcurrencyLimit clients;
    private final AdmittedEstimates admitted = new AdmittedEstimates();
    private final SteadyShapes steady = new SteadyShapes();

    public QueryCostGuard(QueryCostLimits limits, FrontierDialect dialect) {
        this.limits = limits;
        this.shape = new JoinShapeCheck(limits.maxJoinTables(), limits.rejectCartesian());
        this.dialect = dialect;
        this.clients = new ClientConcurrencyLimit(limits.maxRequestsPerClient());
    }

    public QueryCostLimits limits() {
        return limits;
    }

    /** Checks the tree of a statement that SqlGuard admitted, before any database work. */
    public void checkShape(Select statement) throws FrontierException {
        shape.check(statement);
    }

    /**
     * Asks the database for its estimate and rejects the query when it is above the limit; a query admitted in the
     * last {@link AdmittedEstimates#FOR}, or whose shape has standing ({@link SteadyShapes}), is admitted without
     * asking.
     */
    public void checkEstimate(Connection c, String sql, List<String> binds, int timeoutSeconds)
            throws FrontierException, SQLException {
        if (wantsEstimate(sql, binds)) {
            check(sql, binds, dialect.planCost(c, sql, binds, timeoutSeconds));
        }
    }

    /** Whether {@code sql} with {@code binds} must be costed before it runs. */
    public boolean wantsEstimate(String sql, List<String> binds) {
        return limits.maxEstimatedCost() > 0 && !admitted.recentlyAdmitted(sql, binds)
                && !steady.vouchFor(sql, binds);
    }

    /** Admits or refuses a statement by an estimate already made (empty: the database could not tell). */
    public void check(String sql, List<String> binds, OptionalDouble cost) throws FrontierException {
        steady.estimated(sql, binds, cost.orElse(Double.NaN), limits.maxEstimatedCost());
        if (cost.isEmpty() || cost.getAsDouble() <= limits.maxEstimatedCost()) {
            admitted.admit(sql, binds);
        } else {
            throw new FrontierException(String.format(Locale.ROOT,
                    "Query rejected: the database estimates its cost at %.0f, above this server's limit of %.0f"
                            + " (MaxQueryCost); restrict it with conditions on indexed columns", cost.getAsDouble(),
                    limits.maxEstimatedCost()));
        }
    }

    public boolean tryAcquireClient(String client) {
        return clients.tryAcquire(client);
    }

    public void releaseClient(String client) {
        clients.release(client);
    }
}
