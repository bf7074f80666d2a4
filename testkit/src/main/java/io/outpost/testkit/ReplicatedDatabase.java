package io.outpost.testkit;

import java.sql.SQLException;

/** A primary and a replica that follows it, started by a test ({@link ReplicatedPostgres}, {@link ReplicatedMariaDb}). */
public interface ReplicatedDatabase extends AutoCloseable {
    /** The JDBC URL of {@code database} on the primary. */
    String primaryUrl(String database);

    /** The JDBC URL of {@code database} on the replica. */
    String replicaUrl(String database);

    /** The user with every privilege on both servers (no password). */
    String user();

    /** Creates {@code name} on the primary (the replica follows). */
    void createDatabase(String name) throws SQLException;

    /** The replica stops applying what the primary writes (it still receives it). */
    void pauseReplication() throws SQLException;

    /** The replica applies what it received and follows again. */
    void resumeReplication() throws SQLException;

    @Override
    void close();
}
