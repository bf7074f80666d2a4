package io.outpost.frontier;

import io.outpost.frontier.cost.QueryCostGuard;
import io.outpost.frontier.protocol.FrontierException;
import io.outpost.frontier.sql.CheckedStatements;
import io.outpost.frontier.sql.FrontierDialect;
import io.outpost.frontier.sql.SnapshotQueryCoverage;
import io.outpost.frontier.sql.SqlGuard;
import io.outpost.frontier.sql.SqlParser;
import java.util.List;

/**
 * The checks a payload's SQL passes before it may run, built in this one place: the allow-list guard (with its
 * COOL-SQL translation), the join shape limits, the cache of statements already checked, and, on a context that
 * serves an offline snapshot, what the snapshot holds.
 */
final class StatementChecks {
    private final FrontierContext context;
    private final CheckedStatements checked;
    private final SqlParser parser;
    private volatile SnapshotQueryCoverage snapshotCoverage;

    StatementChecks(FrontierContext context, FrontierDialect dialect, QueryCostGuard cost, SqlParser parser) {
        this.context = context;
        this.parser = parser;
        // On PostgreSQL, MariaDB and SQLite the owner our dictionary reports is the one qualifier CORAL puts on every table;
        // on Oracle the real owner is configured (SchemaName), since Oracle's own dictionary answers there.
        String owner = dialect.runsCoolSqlAsSent() ? context.config().schemaName() : context.dictionaryOwner();
        SqlGuard guard = new SqlGuard(owner, dialect, context.tables(), parser);
        // one parse: the join shape is checked on the tree the guard parsed
        this.checked = new CheckedStatements(statement -> guard.check(statement, cost::checkShape));
        this.snapshotCoverage = SnapshotQueryCoverage.load(context.database());
    }

    /** The statement as it is to run, with the tables it reads; refused with a message for the client. */
    SqlGuard.Checked check(String statement, List<String> binds) throws FrontierException {
        SqlGuard.Checked c = checked.check(statement);
        snapshotCoverage.check(c, binds, parser); // an offline snapshot answers only what it holds exactly
        return c;
    }

    /** Re-reads what an offline snapshot holds after a sync changed it; nothing to do on an ordinary database. */
    void reloadSnapshotCoverage() {
        if (snapshotCoverage.isSnapshot()) {
            SnapshotQueryCoverage now = SnapshotQueryCoverage.load(context.database());
            if (now.isSnapshot()) {
                snapshotCoverage = now;
            }
        }
    }
}
