package io.outpost.store.db;

import io.outpost.store.model.StorageType;

/**
 * SQLite: CROSS JOIN fixes the join order (channels drive a nested loop), and the correlated MAX probe
 * becomes the lower bound of a range scan on the (CHANNEL_ID, IOV_SINCE, IOV_UNTIL) index.
 */
public final class SqliteDialect extends Dialect {

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    public String integerType() {
        return "INTEGER";
    }

    @Override
    public String bigintType() {
        return "INTEGER";
    }

    @Override
    public String stringType(int length) {
        return "TEXT";
    }

    @Override
    public String typeOf(StorageType type) {
        return switch (type) {
            case FLOAT, DOUBLE -> "REAL";
            case STRING255, STRING4K, STRING64K, STRING16M -> "TEXT";
            case BLOB64K, BLOB16M -> "BLOB";
            default -> "INTEGER";
        };
    }

    @Override
    public Sql browse(BrowseSpec spec, boolean count) {
        return CoalesceMaxBrowse.build(this, spec, count, "", " CROSS JOIN ", "");
    }

    @Override
    public String lockSequenceSql(String seqTable) {
        // beginWrite already holds SQLite's database-wide write lock: no row lock needed.
        return "SELECT CURRENT_VALUE FROM " + seqTable + " WHERE SEQUENCE_NAME = ?";
    }

    /**
     * A write as the first statement takes SQLite's write lock (waiting up to the busy timeout) before anything is
     * read, so the transaction can never fail later on a stale read snapshot.
     */
    @Override
    public void beginWrite(java.sql.Connection c, String prefix) throws java.sql.SQLException {
        try (var st = c.createStatement()) {
            st.executeUpdate("UPDATE " + prefix + "DB_ATTRIBUTES SET DB_ATTRIBUTE_VALUE = DB_ATTRIBUTE_VALUE"
                    + " WHERE DB_ATTRIBUTE_NAME = 'SCHEMA_VERSION'");
        }
    }

    @Override
    public String insertChannelIfMissingSql(String channelTable) {
        return "INSERT OR IGNORE INTO " + channelTable + " (CHANNEL_ID, LAST_OBJECT_ID, HAS_NEW_DATA) VALUES (?, 0, 0)";
    }
}
