package io.outpost.frontier.protocol;

import java.util.List;

/**
 * The SQL of one payload: its {@code p1} decoded, and split by frontier_client's bind-variable rule (a statement
 * with both {@code ?} and {@code :} carries its bind values after it, {@code :}-separated).
 */
public record PayloadSql(String statement, List<String> binds) {

    public static PayloadSql of(FrontierCommand cmd) throws FrontierException {
        String p1 = cmd.param("p1");
        if (p1 == null) {
            throw new FrontierException("Missing p1 parameter");
        }
        String sql = P1Codec.decode(p1);
        if (sql.indexOf(':') >= 0 && sql.indexOf('?') >= 0) {
            String[] tokens = sql.split(":");
            return new PayloadSql(tokens[0], List.of(tokens).subList(1, tokens.length));
        }
        return new PayloadSql(sql, List.of());
    }
}
