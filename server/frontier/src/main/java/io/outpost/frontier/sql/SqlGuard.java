package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;
import java.util.Locale;
import java.util.Set;
import net.sf.jsqlparser.statement.select.Select;

/**
 * The SQL checks of one Frontier context, over a single parse of each statement: {@link AllowList} decides what may
 * run (a single SELECT of the context's tables, see {@link TablePolicy}, or on PostgreSQL, MariaDB and SQLite contexts
 * of Oracle data-dictionary views answered by {@link DataDictionary}), {@link CoolSqlTranslation} rewrites COOL's
 * Oracle SQL for PostgreSQL, SQLite and MariaDB, and further checks of the caller (the join shape) see the same tree.
 */
public final class SqlGuard {

    /**
     * The outcome: SQL to execute, and the tables read (upper-case, unqualified, without {@code DUAL}). With
     * {@code dictionary}, the tables are Oracle data-dictionary views and the SQL is SQLite's, to run on
     * {@link DataDictionary}'s snapshot of the catalog. {@code coolRead}: the statement is one of COOL's IOV reads
     * ({@link CoolReads}), which may be answered from rows held in memory; null otherwise ({@link
     * CoolReadTemplate#read} gives its values).
     */
    public record Checked(String sql, Set<String> tables, boolean dictionary, CoolReadTemplate coolRead) {
        public Checked(String sql, Set<String> tables, boolean dictionary) {
            this(sql, tables, dictionary, null);
        }

        public Checked(String sql, Set<String> tables) {
            this(sql, tables, false);
        }
    }

    /** A further check of an admitted statement's tree, as it will run (translated). */
    @FunctionalInterface
    public interface TreeCheck {
        void check(Select statement) throws FrontierException;
    }

    private final SqlParser parser;
    private final AllowList allowList;
    private final CoolSqlTranslation translation;
    /** Dictionary views are answered from an in-memory SQLite snapshot of the catalog, whatever the target. */
    private final CoolSqlTranslation dictionaryTranslation;

    /** A guard admitting COOL's tables with this prefix (the default policy). */
    public SqlGuard(String prefix, String schemaName, FrontierDialect dialect, SqlParser parser) {
        this(schemaName, dialect, TablePolicy.cool(prefix), parser);
    }

    public SqlGuard(String schemaName, FrontierDialect dialect, TablePolicy policy, SqlParser parser) {
        String schema = schemaName == null ? null : schemaName.toUpperCase(Locale.ROOT);
        this.parser = parser;
        this.allowList = new AllowList(schema, dialect.runsCoolSqlAsSent(), policy);
        this.translation = dialect.runsCoolSqlAsSent() ? null : new CoolSqlTranslation(schema, dialect);
        this.dictionaryTranslation = new CoolSqlTranslation(schema, FrontierDialects.SQLITE);
    }

    /** Validates (and for PostgreSQL/SQLite/MariaDB translates) one statement. Never throws anything but FrontierException. */
    public Checked check(String sql) throws FrontierException {
        return check(sql, statement -> { });
    }

    /** As {@link #check(String)}, then runs {@code more} on the admitted statement's translated tree. */
    public Checked check(String sql, TreeCheck more) throws FrontierException {
        Select parsed = parser.parseSelect(sql);
        try {
            Select select = translation == null ? parsed : RownumLimit.unwrap(parsed);
            AllowList.Reads reads = allowList.check(select);
            Checked checked;
            if (reads.dictionary()) {
                checked = new Checked(dictionaryTranslation.translate(select), reads.dictionaryViews(), true);
            } else if (translation == null) {
                checked = new Checked(sql, reads.tables()); // Oracle runs the statement as sent
            } else {
                CoolReadTemplate read = CoolReads.template(select); // before the translation rewrites the tree
                checked = new Checked(translation.translate(select), reads.tables(), false, read);
            }
            more.check(select);
            return checked;
        } catch (RuntimeException | StackOverflowError e) {
            throw new FrontierException("SQL rejected: cannot analyse statement", e);
        }
    }
}
