package io.outpost.frontier.cost;

import io.outpost.frontier.sql.SqlGuard;
import java.util.Map;

/**
 * Limits on what one Frontier request may cost the database, beyond what {@link SqlGuard} allows syntactically.
 *
 * @param maxJoinTables        tables (or sub-selects) one SELECT may read in its FROM clause; 0 = no limit
 * @param rejectCartesian      reject a SELECT whose tables are not all joined by some condition
 * @param maxEstimatedCost     reject a query whose plan cost, as estimated by the database (EXPLAIN on PostgreSQL
 *                             and Oracle, in the database's own units), exceeds this; 0 = do not ask
 * @param maxRequestsPerClient concurrent requests of one client (its address: ClientConcurrencyLimit) beyond which the answer
 *                             is 503; 0 = no limit
 * @param maxParseMillisPerRequest parse time one request may use over all its statements; once spent, its remaining
 *                             statements are refused unparsed (one statement still has the parser's own timeout)
 */
public record QueryCostLimits(int maxJoinTables, boolean rejectCartesian, double maxEstimatedCost,
                              int maxRequestsPerClient, long maxParseMillisPerRequest) {
    /** 5 s: COOL's statements take well under a millisecond each, even on a loaded machine. */
    public static final long DEFAULT_PARSE_MILLIS_PER_REQUEST = 5_000;

    public QueryCostLimits {
        if (maxJoinTables < 0 || maxEstimatedCost < 0 || maxRequestsPerClient < 0 || Double.isNaN(maxEstimatedCost)
                || maxParseMillisPerRequest < 1) {
            throw new IllegalArgumentException("negative limit in Frontier query cost configuration");
        }
    }

    /** The default parse time per request. */
    public QueryCostLimits(int maxJoinTables, boolean rejectCartesian, double maxEstimatedCost, int maxRequestsPerClient) {
        this(maxJoinTables, rejectCartesian, maxEstimatedCost, maxRequestsPerClient, DEFAULT_PARSE_MILLIS_PER_REQUEST);
    }

    /**
     * Defaults: at most 4 tables per SELECT (COOL's own queries join at most 3), no cartesian products, plan cost
     * at most 10 million (a full scan of a 10-million-row IOV table costs a few hundred thousand on PostgreSQL),
     * 8 concurrent requests per client, 5 s of parsing per request.
     */
    public static QueryCostLimits defaults() {
        return new QueryCostLimits(4, true, 1e7, 8);
    }

    /** No limits: the behaviour before the cost guard existed. */
    public static QueryCostLimits none() {
        return new QueryCostLimits(0, false, 0, 0);
    }

    /**
     * Reads MaxJoinTables, RejectCartesianProducts, MaxQueryCost, MaxRequestsPerClient and MaxParseMillisPerRequest;
     * missing keys keep the defaults.
     */
    public static QueryCostLimits fromProperties(Map<String, String> p) {
        QueryCostLimits d = defaults();
        return new QueryCostLimits(
                intValue(p, "MaxJoinTables", d.maxJoinTables()),
                Boolean.parseBoolean(p.getOrDefault("RejectCartesianProducts", String.valueOf(d.rejectCartesian())).trim()),
                p.get("MaxQueryCost") == null || p.get("MaxQueryCost").isBlank() ? d.maxEstimatedCost()
                        : Double.parseDouble(p.get("MaxQueryCost").trim()),
                intValue(p, "MaxRequestsPerClient", d.maxRequestsPerClient()),
                intValue(p, "MaxParseMillisPerRequest", (int) d.maxParseMillisPerRequest()));
    }

    private static int intValue(Map<String, String> p, String key, int def) {
        String v = p.get(key);
        return v == null || v.isBlank() ? def : Integer.parseInt(v.trim());
    }
}
