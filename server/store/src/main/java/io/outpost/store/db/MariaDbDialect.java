package io.outpost.store.db;

import io.outpost.store.model.StorageType;

/**
 * MariaDB (and MySQL 8, which speaks the same SQL here): InnoDB tables in utf8mb4 with binary collation, signed
 * BIGINT keys (the model keeps every key within 0 … 2^63-1, and signed columns spare MariaDB's unsigned-overflow
 * errors in arithmetic), COOL's unsigned payload types as UNSIGNED columns. Batched inserts go out as one
 * COM_STMT_BULK_EXECUTE per batch (Connector/J's default), so the SQL text is constant per batch.
 *
 * <p>The browse query: MariaDB has no LATERAL, and a range on IOV_SINCE whose bound comes from a correlated
 * subquery is not used as an index range, only as a filter over the whole channel. But within a layer intervals
 * never overlap, so the rows of [t1, t2] are exactly the one row whose since is the channel's {@code MAX(since ≤ t1)}
 * (found by an equality lookup on (CHANNEL_ID, IOV_SINCE)) and the rows with t1 &lt; since ≤ t2 (a range with
 * constant bounds). The two parts are a UNION ALL, each driven by the channels ({@code STRAIGHT_JOIN}); the plans
 * are in docs/schema.md.
 */
public final class MariaDbDialect extends Dialect {

    @Override
    public String name() {
        return "mariadb";
    }

    @Override
    public String integerType() {
        return "INT";
    }

    @Override
    public String bigintType() {
        return "BIGINT";
    }

    @Override
    public String stringType(int length) {
        return "VARCHAR(" + length + ")";
    }

    @Override
    public String typeOf(StorageType type) {
        return switch (type) {
            case BOOL -> "BOOLEAN";
            case UCHAR -> "TINYINT UNSIGNED";
            case INT16 -> "SMALLINT";
            case UINT16 -> "SMALLINT UNSIGNED";
            case INT32 -> "INT";
            case UINT32 -> "INT UNSIGNED";
            case UINT63 -> "BIGINT UNSIGNED";
            case INT64 -> "BIGINT";
            case FLOAT -> "FLOAT";
            case DOUBLE -> "DOUBLE";
            case STRING255 -> "VARCHAR(255)";
            // TEXT, not VARCHAR(4000): a row's VARCHARs share 64 KB, and 4000 utf8mb4 characters take 16 KB each
            case STRING4K, STRING64K -> "TEXT";
            case STRING16M -> "MEDIUMTEXT";
            case BLOB64K -> "BLOB";
            case BLOB16M -> "MEDIUMBLOB";
        };
    }

    @Override
    public Sql browse(BrowseSpec spec, boolean count) {
        return CoalesceMaxBrowse.build(spec, count, "STRAIGHT_JOIN ", ", ", "");
    }

    @Override
    public String insertChannelIfMissingSql(String channelTable) {
        // not INSERT IGNORE, which would also turn other errors into warnings
        return "INSERT INTO " + channelTable + " (CHANNEL_ID, LAST_OBJECT_ID, HAS_NEW_DATA) VALUES (?, 0, 0)"
                + " ON DUPLICATE KEY UPDATE CHANNEL_ID = CHANNEL_ID";
    }

    @Override
    public String tableOptions() {
        return " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";
    }

    /**
     * Connector/J sends every batched INSERT with the bulk protocol, which the server refuses for INSERT ... SELECT;
     * those (the remnants a multi-version write copies) run one by one.
     */
    @Override
    public boolean batchesInsertSelect() {
        return false;
    }

    /** MariaDB commits the open transaction before every CREATE TABLE. */
    @Override
    public boolean transactionalDdl() {
        return false;
    }
}
