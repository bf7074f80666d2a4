package io.outpost.server.config;

import io.outpost.store.db.DatabaseUnusableException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A database that cannot be used stops the start with its one-line reason and what to set, instead of a page of
 * bean-creation stack traces (registered in META-INF/spring.factories).
 */
public class DatabaseStartFailureAnalyzer extends AbstractFailureAnalyzer<DatabaseUnusableException> {
    @Override
    protected FailureAnalysis analyze(Throwable root, DatabaseUnusableException cause) {
        return new FailureAnalysis(cause.getMessage(), "Check outpost.database.url, outpost.database.user and "
                + "outpost.database.password (or OUTPOST_DATABASE_URL, …), and outpost.read-replica.* for a replica; "
                + "see docs/operations.md.", cause);
    }
}
