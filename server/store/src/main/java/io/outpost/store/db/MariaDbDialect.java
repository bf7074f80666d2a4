package io.outpost.store.db;

import com.zaxxer.hikari.HikariConfig;
import io.outpost.store.model.StorageType;
import io.outpost.store.schema.ExactNameCollation;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.flywaydb.core.api.migration.JavaMigration;

/**
 * MariaDB (and MySQL 8, which speaks the same SQL here): InnoDB tables in utf8mb4 with binary collation (the name
 * columns NO PAD, see {@link #nameType}), signed
 * BIGINT keys (the model keeps every key within 0 … 2^63-1, and signed columns spare MariaDB's unsigned-overflow
 * errors in arithmetic), COOL's unsigned payload types as UNSIGNED columns. Batched inserts go out as one
 * COM_STMT_BULK_EXECUTE per batch (Connector/J's default), so the SQL text is constant per batch.
 *
 * <p>The browse query (plans in docs/schema.md): MariaDB has no LATERAL, and with the channel's id from the driving
 * table it reads a channel's rows by the (layer, CHANNEL_ID) prefix only, so a bound on IOV_SINCE that comes from a
 * correlated subquery filters the whole channel instead of starting an index range. Within a layer intervals never
 * overlap, so the rows of [t1, t2] are (a) per channel the one row whose since is {@code MAX(since ≤ t1)}, and (b)
 * the rows with t1 &lt; since ≤ t2. (a): the MAX of every channel comes from one loose index scan ("Using index for
 * group-by": one index dive per channel), and the row itself from an equality lookup on (CHANNEL_ID, IOV_SINCE).
 * (b), only for a range (t1 &lt; t2): the channel is matched by {@code >= AND <=} and the layer by {@code + 0} (a
 * standard tag's rows through their objects), so no prefix lookup applies and MariaDB plans a range on (CHANNEL_ID, IOV_SINCE) per channel ("Range checked for each
 * record"). An at-time read is (a) alone, in channel order without a sort; a range is (a) UNION ALL (b), sorting
 * only the rows it returns.
 */
public final class MariaDbDialect extends Dialect {
    /** MariaDB's binary collation without trailing-space padding: 'ch0' and 'ch0 ' are two names. */
    public static final String MARIADB_NAME_COLLATION = "utf8mb4_nopad_bin";
    /** MySQL 8's: its utf8mb4_bin pads like MariaDB's, utf8mb4_0900_bin does not. */
    public static final String MYSQL_NAME_COLLATION = "utf8mb4_0900_bin";

    /** The name collation of the server, known once {@link #checkServer} has read its version. */
    private volatile String nameCollation = MARIADB_NAME_COLLATION;

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

    /**
     * A name column compares exactly: the tables' utf8mb4_bin is PAD SPACE, which takes 'ch0 ' for 'ch0' (in
     * Outpost's statements and in Frontier statements sent straight to the database alike).
     */
    @Override
    public String nameType(int length) {
        return "VARCHAR(" + length + ") CHARACTER SET utf8mb4 COLLATE " + nameCollation;
    }

    /** The NO PAD binary collation of a server reporting this version string (MariaDB's or MySQL 8's). */
    public static String nameCollationOf(String reportedVersion) {
        return reportedVersion.contains("MariaDB") ? MARIADB_NAME_COLLATION : MYSQL_NAME_COLLATION;
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

    /**
     * A FLOAT read as DOUBLE: in the text protocol MariaDB prints a FLOAT with six significant digits, a DOUBLE with
     * all it needs, and a float widened to double is exact (the driver's getFloat then parses it back to the float).
     */
    @Override
    public String selectPayload(String qualified, String column, StorageType type) {
        return type == StorageType.FLOAT ? "CAST(" + qualified + " AS DOUBLE) AS " + column : qualified;
    }

    @Override
    public Sql browse(BrowseSpec spec, boolean count) {
        Sql sql = new Sql();
        boolean range = spec.t1() != spec.t2();
        if (count) {
            sql.append("SELECT COUNT(*) FROM (");
        } else if (range) {
            sql.append("SELECT * FROM (");
        }
        boundRows(sql, spec);
        if (range) {
            sql.append(" UNION ALL ");
            rowsAfter(sql, spec);
        }
        if (count) {
            sql.append(") S");
        } else if (range) {
            sql.append(") U ORDER BY ").append(spec.order().orderBy().replace("I3.", ""));
        } else {
            // at most one row per channel, and the channels are read in key order: no sort
            sql.append(" ORDER BY ").append(spec.order().orderBy().startsWith("I3.CHANNEL_ID")
                    ? "C2.CHANNEL_ID" : spec.order().orderBy());
        }
        return sql;
    }

    /** (a) Per channel the row valid at t1: since = MAX(since ≤ t1) from a loose index scan, until &gt; t1. */
    private void boundRows(Sql sql, BrowseSpec spec) {
        String x = spec.layerTable();
        String groupIndex = groupIndex(spec);
        sql.append("SELECT STRAIGHT_JOIN ");
        spec.appendColumns(sql, this);
        sql.append(" FROM ").append(spec.folder().channelTable()).append(" C2 FORCE INDEX (PRIMARY) JOIN (SELECT ");
        sql.append("I1.CHANNEL_ID, MAX(I1.IOV_SINCE) AS LO FROM ").append(x).append(" I1 FORCE INDEX (")
                .append(groupIndex).append(") WHERE I1.IOV_SINCE <= ").bind(spec.t1());
        spec.layer().appendFilter(sql, "I1");
        // ORDER BY NULL: the groups are joined by key, so MariaDB need not sort them
        sql.append(" GROUP BY ").append(groupColumns(spec)).append("I1.CHANNEL_ID ORDER BY NULL) B")
                .append(" ON B.CHANNEL_ID = C2.CHANNEL_ID");
        sql.append(" JOIN ").append(x).append(" I3 FORCE INDEX (").append(groupIndex)
                .append(") ON I3.CHANNEL_ID = C2.CHANNEL_ID AND I3.IOV_SINCE = B.LO");
        spec.layer().appendFilter(sql, "I3");
        sql.append(" AND I3.IOV_UNTIL > ").bind(spec.t1());
        joinPayloadRow(sql, spec);
        sql.append(" WHERE 1 = 1");
        spec.appendChannelFilter(sql);
    }

    /** (b) The rows starting inside (t1, t2], read by a per-channel range on (CHANNEL_ID, IOV_SINCE). */
    private void rowsAfter(Sql sql, BrowseSpec spec) {
        sql.append("SELECT STRAIGHT_JOIN ");
        spec.appendColumns(sql, this);
        sql.append(" FROM ").append(spec.folder().channelTable()).append(" C2");
        if (spec.layer().kind() == Layer.Kind.STANDARD_TAG) {
            // IOV2TAG has no index leading with CHANNEL_ID: range over the folder's objects, then the tag's rows of
            // them by primary key (a tag row keeps its object's since)
            sql.append(" JOIN ").append(spec.folder().iovTable()).append(" I4");
            perChannelRange(sql, spec, "I4");
            sql.append(" JOIN ").append(spec.folder().iov2TagTable()).append(" I3 ON I3.TAG_ID = ")
                    .bind(spec.layer().id()).append(" AND I3.OBJECT_ID = I4.OBJECT_ID");
        } else {
            sql.append(" JOIN ").append(spec.layerTable()).append(" I3");
            perChannelRange(sql, spec, "I3");
            if (spec.layer().kind() == Layer.Kind.USER_TAG) {
                // + 0: a constant layer id would let MariaDB prefer a prefix lookup of the whole layer
                sql.append(" AND I3.USER_TAG_ID + 0 = ").bind(spec.layer().id()).append(" AND I3.NEW_HEAD_ID + 0 = 0");
            }
        }
        sql.append(" WHERE 1 = 1");
        spec.appendChannelFilter(sql);
    }

    /** {@code >= AND <=} instead of {@code =}: no prefix lookup, so MariaDB plans a range per channel. */
    private static void perChannelRange(Sql sql, BrowseSpec spec, String a) {
        sql.append(" ON ").append(a).append(".CHANNEL_ID >= C2.CHANNEL_ID AND ").append(a)
                .append(".CHANNEL_ID <= C2.CHANNEL_ID AND ").append(a).append(".IOV_SINCE > ").bind(spec.t1())
                .append(" AND ").append(a).append(".IOV_SINCE <= ").bind(spec.t2());
    }

    private static void joinPayloadRow(Sql sql, BrowseSpec spec) {
        if (spec.joinsPayloadRow()) {
            sql.append(" JOIN ").append(spec.folder().iovTable()).append(" I4 ON I4.OBJECT_ID = I3.OBJECT_ID");
        }
    }

    /** The index whose leading columns are the layer's constants, then CHANNEL_ID, IOV_SINCE (schema/SchemaManager). */
    private static String groupIndex(BrowseSpec spec) {
        String iovs = spec.folder().iovTable();
        return switch (spec.layer().kind()) {
            case SINGLE_VERSION -> iovs + "_CSU_3INDX";
            case USER_TAG -> iovs + "_UTAG_5INDX";
            case STANDARD_TAG -> spec.folder().iov2TagTable() + "_4INDX";
        };
    }

    /** The layer's constant columns, which the loose index scan needs in GROUP BY before CHANNEL_ID. */
    private static String groupColumns(BrowseSpec spec) {
        return switch (spec.layer().kind()) {
            case SINGLE_VERSION -> "";
            case USER_TAG -> "I1.USER_TAG_ID, I1.NEW_HEAD_ID, ";
            case STANDARD_TAG -> "I1.TAG_ID, ";
        };
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

    /**
     * MariaDB 10.6 or newer, or MySQL 8.0 or newer: older servers lack the plans and the utf8mb4 defaults the
     * statements rely on (only MariaDB 10.11 is tested; see docs/operations.md).
     */
    @Override
    public void checkServer(java.sql.Connection c) throws java.sql.SQLException {
        String version = c.getMetaData().getDatabaseProductVersion();
        String unsupported = unsupportedVersion(version);
        if (unsupported != null) {
            throw new DatabaseUnusableException(unsupported, null);
        }
        nameCollation = nameCollationOf(version);
    }

    /** Why a server of this version string cannot be used, or null if it can. */
    static String unsupportedVersion(String reported) {
        // older MariaDB servers report "5.5.5-" before their version, for old replication clients
        String version = reported.startsWith("5.5.5-") ? reported.substring(6) : reported;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(\\d+)\\.(\\d+)").matcher(version);
        if (!m.find()) {
            return "cannot read the server version '" + version + "': Outpost needs MariaDB 10.6+ or MySQL 8.0+";
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        boolean mariaDb = version.contains("MariaDB");
        boolean ok = mariaDb ? major > 10 || major == 10 && minor >= 6 : major >= 8;
        return ok ? null : (mariaDb ? "MariaDB " : "MySQL ") + version.split("-")[0]
                + " is not supported: Outpost needs MariaDB 10.6 or newer, or MySQL 8.0 or newer";
    }

    /** MariaDB commits the open transaction before every CREATE TABLE. */
    @Override
    public boolean transactionalDdl() {
        return false;
    }

    /** Connector/J for MariaDB takes milliseconds. */
    @Override
    void networkTimeouts(HikariConfig h, long connectSeconds, Duration socket) {
        h.addDataSourceProperty("connectTimeout", Long.toString(connectSeconds * 1000));
        h.addDataSourceProperty("tcpKeepAlive", "true");
        if (socket != null) {
            h.addDataSourceProperty("socketTimeout", Long.toString(socket.toMillis()));
        }
    }

    /**
     * Connector/J sends only batched INSERTs as one bulk command by default, UPDATEs one by one; the writers batch
     * UPDATEs too (channel flags, closed IOVs, last-object pointers) and never read per-row counts. Saves a seventh
     * of the bulk loader's CPU (docs/decisions.md)
     */
    @Override
    void bulkOptions(HikariConfig h) {
        h.addDataSourceProperty("useBulkStmts", "true");
    }

    /** A replica's SQL thread waits for the primary's binary-log GTID position: no polling needed. */
    @Override
    public boolean awaitReplica(Database db, long waitMillis) throws SQLException {
        if (db.readConfig() == db.config()) {
            return true; // reads go to the primary itself
        }
        String position;
        try (Connection c = db.writePool().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT @@gtid_binlog_pos")) {
            rs.next();
            position = rs.getString(1);
            c.rollback();
        }
        try (Connection c = db.readPool().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT MASTER_GTID_WAIT(?, ?)")) {
            ps.setString(1, position);
            ps.setDouble(2, waitMillis / 1000.0);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                boolean done = rs.getInt(1) == 0;
                c.rollback();
                return done;
            }
        }
    }

    /** Every folder's name columns made exact (3.1, and 5.1 for the frozen global tags' names). */
    @Override
    public List<JavaMigration> javaMigrations() {
        return List.of(ExactNameCollation.names(), ExactNameCollation.frozenGlobalTags());
    }
}
