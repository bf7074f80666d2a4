package io.outpost.frontier.sql;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Oracle's data-dictionary views for PostgreSQL, MariaDB and SQLite contexts. CORAL's Frontier plugin asks Oracle's
 * catalog whether a table exists and what its columns, keys and indexes are ({@code ALL_TAB_COLUMNS}, {@code ALL_CONSTRAINTS}
 * ...). This class reads the real catalog of the context's database through JDBC metadata, keeps only the tables the
 * context's {@link TablePolicy} admits, and puts them in Oracle's shape (upper-case names, Oracle type names, owner =
 * the context's schema name) into an in-memory SQLite database, where the statement then runs as written.
 */
public final class DataDictionary {
    /** The views answered, with their columns (SQLite DDL). */
    static final Map<String, String> DDL = new LinkedHashMap<>();

    static {
        DDL.put("ALL_TABLES", "OWNER VARCHAR, TABLE_NAME VARCHAR, TABLESPACE_NAME VARCHAR");
        DDL.put("ALL_TAB_COLUMNS", "OWNER VARCHAR, TABLE_NAME VARCHAR, COLUMN_NAME VARCHAR, COLUMN_ID INTEGER, "
                + "NULLABLE VARCHAR, DATA_TYPE VARCHAR, DATA_LENGTH INTEGER, DATA_PRECISION INTEGER, DATA_SCALE INTEGER, "
                + "CHAR_LENGTH INTEGER");
        DDL.put("ALL_OBJECTS", "OWNER VARCHAR, OBJECT_NAME VARCHAR, OBJECT_TYPE VARCHAR");
        DDL.put("ALL_VIEWS", "OWNER VARCHAR, VIEW_NAME VARCHAR, TEXT VARCHAR");
        DDL.put("ALL_CONSTRAINTS", "OWNER VARCHAR, CONSTRAINT_NAME VARCHAR, CONSTRAINT_TYPE VARCHAR, TABLE_NAME VARCHAR, "
                + "R_OWNER VARCHAR, R_CONSTRAINT_NAME VARCHAR, INDEX_NAME VARCHAR");
        DDL.put("ALL_CONS_COLUMNS", "OWNER VARCHAR, CONSTRAINT_NAME VARCHAR, TABLE_NAME VARCHAR, COLUMN_NAME VARCHAR, "
                + "POSITION INTEGER");
        DDL.put("ALL_INDEXES", "OWNER VARCHAR, INDEX_NAME VARCHAR, TABLE_OWNER VARCHAR, TABLE_NAME VARCHAR, "
                + "UNIQUENESS VARCHAR, TABLESPACE_NAME VARCHAR");
        DDL.put("ALL_USERS", "USERNAME VARCHAR, USER_ID INTEGER, CREATED VARCHAR");
        DDL.put("ALL_IND_COLUMNS", "INDEX_OWNER VARCHAR, INDEX_NAME VARCHAR, TABLE_OWNER VARCHAR, TABLE_NAME VARCHAR, "
                + "COLUMN_NAME VARCHAR, COLUMN_POSITION INTEGER");
    }

    /** The names of the views, for {@link SqlGuard}. */
    static final Set<String> VIEWS = Set.copyOf(DDL.keySet());

    /** Oracle puts every table in a tablespace; ours are all reported in this one. */
    public static final String TABLESPACE = "OUTPOST_DATA";

    private DataDictionary() {
    }

    /**
     * An in-memory SQLite database holding the dictionary views for the tables of {@code source} (a database of
     * {@code dialect}) that {@code policy} admits, owned by {@code owner}. The caller closes it.
     */
    public static Connection snapshot(Connection source, FrontierDialect dialect, TablePolicy policy, String owner,
                                      ColumnTypes types) throws SQLException {
        AdmittedSchema schema = AdmittedSchema.read(source, dialect, policy, types);
        Connection mem = DriverManager.getConnection("jdbc:sqlite::memory:");
        try {
            try (Statement st = mem.createStatement()) {
                for (var e : DDL.entrySet()) {
                    st.execute("CREATE TABLE " + e.getKey() + " (" + e.getValue() + ")");
                }
            }
            mem.setAutoCommit(false);
            write(schema, mem, owner);
            mem.commit();
            return mem;
        } catch (SQLException | RuntimeException e) {
            mem.close();
            throw e;
        }
    }

    /** Fills the views with the catalog, in Oracle's shape. */
    static void write(AdmittedSchema schema, Connection mem, String owner) throws SQLException {
        Map<String, String> pkNames = new HashMap<>();
        for (AdmittedSchema.TableInfo t : schema.tables()) {
            if (t.pkName() != null) {
                pkNames.put(t.name(), t.pkName());
            }
        }
        try (PreparedStatement tabs = mem.prepareStatement("INSERT INTO ALL_TABLES VALUES (?,?,?)");
             PreparedStatement objs = mem.prepareStatement("INSERT INTO ALL_OBJECTS VALUES (?,?,?)");
             PreparedStatement vws = mem.prepareStatement("INSERT INTO ALL_VIEWS VALUES (?,?,?)");
             PreparedStatement cols = mem.prepareStatement("INSERT INTO ALL_TAB_COLUMNS VALUES (?,?,?,?,?,?,?,?,?,?)");
             PreparedStatement cons = mem.prepareStatement("INSERT INTO ALL_CONSTRAINTS VALUES (?,?,?,?,?,?,?)");
             PreparedStatement consCols = mem.prepareStatement("INSERT INTO ALL_CONS_COLUMNS VALUES (?,?,?,?,?)");
             PreparedStatement idx = mem.prepareStatement("INSERT INTO ALL_INDEXES VALUES (?,?,?,?,?,?)");
             PreparedStatement idxCols = mem.prepareStatement("INSERT INTO ALL_IND_COLUMNS VALUES (?,?,?,?,?,?)");
             PreparedStatement users = mem.prepareStatement("INSERT INTO ALL_USERS VALUES (?,?,?)")) {
            exec(users, owner, 1, null); // the one schema a context has: CORAL's ISession::schema(owner) finds it
            for (AdmittedSchema.TableInfo t : schema.tables()) {
                exec(objs, owner, t.name(), t.view() ? "VIEW" : "TABLE");
                if (t.view()) {
                    exec(vws, owner, t.name(), t.viewText());
                } else {
                    exec(tabs, owner, t.name(), TABLESPACE);
                }
                for (AdmittedSchema.ColumnInfo c : t.columns()) {
                    OracleType o = c.type();
                    exec(cols, owner, t.name(), c.name(), c.position(), c.nullable() ? "Y" : "N", o.name(),
                            o.length(), o.precision(), o.scale(), o.charLength());
                }
                if (t.pkName() != null) {
                    exec(cons, owner, t.pkName(), "P", t.name(), null, null, t.pkName());
                    position(consCols, owner, t.pkName(), t.name(), t.pkColumns());
                }
                for (AdmittedSchema.IndexInfo u : t.uniques()) {
                    exec(cons, owner, u.name(), "U", t.name(), null, null, u.name());
                    position(consCols, owner, u.name(), t.name(), u.columns());
                }
                for (AdmittedSchema.IndexInfo i : t.indexes()) {
                    exec(idx, owner, i.name(), owner, t.name(), i.unique() ? "UNIQUE" : "NONUNIQUE", TABLESPACE);
                    for (int k = 0; k < i.columns().size(); k++) {
                        exec(idxCols, owner, i.name(), owner, t.name(), i.columns().get(k), k + 1);
                    }
                }
                for (AdmittedSchema.ForeignKey f : t.foreignKeys()) {
                    exec(cons, owner, f.name(), "R", t.name(), owner, pkNames.get(f.refTable()), null);
                    position(consCols, owner, f.name(), t.name(), f.columns());
                }
            }
        }
    }

    private static void position(PreparedStatement ps, String owner, String constraint, String table,
                                 List<String> columns) throws SQLException {
        for (int k = 0; k < columns.size(); k++) {
            exec(ps, owner, constraint, table, columns.get(k), k + 1);
        }
    }

    private static void exec(PreparedStatement ps, Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            ps.setObject(i + 1, values[i]);
        }
        ps.executeUpdate();
    }
}
