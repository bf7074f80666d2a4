package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;

/**
 * What may run: a single SELECT, built only of {@link KnownNodes}, without locking, INTO or WITH, reading only the
 * context's tables (and their listed columns, see {@link TablePolicy}) or, on PostgreSQL, MariaDB and SQLite
 * contexts, only Oracle data-dictionary views ({@link DataDictionary}), and calling only {@link #ALLOWED_FUNCTIONS}.
 * Looks at the tree without changing it.
 */
final class AllowList {

    /** The tables a statement reads (upper-case, unqualified, without DUAL), or the dictionary views it reads. */
    record Reads(Set<String> tables, Set<String> dictionaryViews) {
        boolean dictionary() {
            return !dictionaryViews.isEmpty();
        }
    }

    /** Functions a Frontier query may call (case-insensitive, unqualified names only). */
    static final Set<String> ALLOWED_FUNCTIONS = Set.of("COALESCE", "NVL", "MAX", "MIN", "COUNT", "SUM", "AVG",
            "TO_CHAR", "TO_NUMBER", "SUBSTR", "SUBSTRING", "LENGTH", "UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM", "ABS",
            "ROUND", "FLOOR", "CEIL", "MOD", "REPLACE", "NULLIF", "TO_TIMESTAMP");

    private final String schemaName;
    private final boolean oracle;
    private final TablePolicy policy;

    /**
     * @param schemaName the only schema a table may be qualified with (upper-case), or null
     * @param oracle     whether the statement runs on Oracle, where dictionary views are the database's own
     */
    AllowList(String schemaName, boolean oracle, TablePolicy policy) {
        this.schemaName = schemaName;
        this.oracle = oracle;
        this.policy = policy;
    }

    Reads check(Select select) throws FrontierException {
        Visit v = new Visit();
        ParseTreeWalk.walk(select, v);
        if (!v.dictionaryViews.isEmpty()) {
            if (!v.tables.isEmpty()) {
                throw new FrontierException("SQL rejected: data-dictionary views cannot be read together with tables "
                        + v.tables);
            }
            return new Reads(Set.of(), Collections.unmodifiableSet(v.dictionaryViews));
        }
        v.checkColumns();
        return new Reads(Collections.unmodifiableSet(v.tables), Set.of());
    }

    /** The clauses no Frontier query may carry, read through the tree's typed accessors. */
    private static void forbiddenClauses(Select s) throws FrontierException {
        if (s.getForMode() != null || s.getForUpdateTable() != null || s.getForUpdate() != null
                || s.getForUpdateTables() != null && !s.getForUpdateTables().isEmpty() || s.isSkipLocked()
                || s.isNoWait()) {
            throw new FrontierException("SQL rejected: FOR UPDATE is not allowed");
        }
        if (s.getWait() != null) {
            throw new FrontierException("SQL rejected: FOR UPDATE WAIT is not allowed");
        }
        if (s.getForClause() != null) {
            throw new FrontierException("SQL rejected: FOR clauses are not allowed");
        }
        if (s.getWithItemsList() != null && !s.getWithItemsList().isEmpty()) {
            throw new FrontierException("SQL rejected: WITH clauses are not supported");
        }
        if (s instanceof PlainSelect p) {
            if (p.getIntoTables() != null && !p.getIntoTables().isEmpty() || p.getIntoTempTable() != null
                    || p.getMySqlSelectIntoClause() != null) {
                throw new FrontierException("SQL rejected: SELECT INTO is not allowed");
            }
            if (p.getForXmlPath() != null) {
                throw new FrontierException("SQL rejected: FOR clauses are not allowed");
            }
        }
    }

    /** One walk over the tree, collecting what it reads. */
    private final class Visit implements ParseTreeWalk.Step {
        final Set<String> tables = new LinkedHashSet<>();
        final Set<String> dictionaryViews = new LinkedHashSet<>();
        /** Column references (qualifier or null, name), upper-case, for the column lists of the policy. */
        final List<String[]> columnRefs = new ArrayList<>();
        final Set<String> selectAliases = new HashSet<>();
        final Map<String, String> tableAliases = new HashMap<>();
        /** Tables that only qualify a column, and stars that are a function's argument (COUNT(*)). */
        final Set<Object> qualifiers = Collections.newSetFromMap(new IdentityHashMap<>());
        final Set<Object> starsInFunctions = Collections.newSetFromMap(new IdentityHashMap<>());
        boolean star;

        @Override
        public Object visit(Object node) throws FrontierException {
            if (!KnownNodes.isKnown(node)) {
                throw new FrontierException("SQL rejected: " + node.getClass().getSimpleName() + " is not allowed");
            }
            switch (node) {
                case Select s -> forbiddenClauses(s);
                case Column c -> {
                    String qualifier = c.getTable() == null || c.getTable().getName() == null ? null
                            : Identifiers.upper(c.getTable().getName());
                    columnRefs.add(new String[] {qualifier, Identifiers.upper(c.getColumnName())});
                    if (c.getTable() != null) {
                        qualifiers.add(c.getTable());
                    }
                }
                case AllTableColumns a -> {
                    star = true;
                    if (a.getTable() != null) {
                        qualifiers.add(a.getTable());
                    }
                }
                case AllColumns a when !starsInFunctions.contains(a) -> star = true;
                case SelectItem<?> si when si.getAlias() != null -> selectAliases.add(Identifiers.upper(si.getAlias().getName()));
                case Table t when !qualifiers.contains(t) -> table(t);
                case AnalyticExpression a -> checkFunctionName(a.getName());
                case Function f -> function(f);
                default -> {
                }
            }
            return node;
        }

        private void table(Table t) throws FrontierException {
            if (t.getNameParts().stream().anyMatch(x -> x != null && x.contains("@"))) {
                throw new FrontierException("SQL rejected: database links are not allowed");
            }
            String upper = Identifiers.upper(t.getName());
            String schema = t.getSchemaName() == null ? null : Identifiers.upper(t.getSchemaName());
            if (t.getDatabaseName() != null && !t.getDatabaseName().isEmpty() && t.getNameParts().size() > 2) {
                throw new FrontierException("SQL rejected: table " + t.getFullyQualifiedName() + " is not allowed");
            }
            if (schema != null && !schema.equals(schemaName)) {
                throw new FrontierException("SQL rejected: table " + t.getFullyQualifiedName()
                        + " is not allowed (only tables of this context)");
            }
            if (upper.equals("DUAL") && schema == null) {
                return;
            }
            if (!oracle && schema == null && DataDictionary.VIEWS.contains(upper)) {
                dictionaryViews.add(upper);
                return;
            }
            if (!policy.allowsTable(upper)) {
                throw new FrontierException("SQL rejected: table " + t.getFullyQualifiedName()
                        + " is not allowed (only tables of this context)");
            }
            tables.add(upper);
            tableAliases.put(upper, upper);
            Alias alias = t.getAlias();
            if (alias != null && alias.getName() != null) {
                tableAliases.put(Identifiers.upper(alias.getName()), upper);
            }
        }

        private void function(Function f) throws FrontierException {
            if (f.getParameters() != null) {
                for (Object param : f.getParameters()) {
                    if (param instanceof AllColumns) {
                        starsInFunctions.add(param);
                    }
                }
            }
            List<String> parts = f.getMultipartName();
            if (parts != null && parts.size() > 1) {
                throw new FrontierException("SQL rejected: function " + f.getName() + " is not allowed");
            }
            checkFunctionName(f.getName());
            if (f.getNamedParameters() != null || f.getChainedParameters() != null) {
                throw new FrontierException("SQL rejected: unsupported call syntax for " + f.getName());
            }
        }

        private void checkFunctionName(String name) throws FrontierException {
            if (name == null || !ALLOWED_FUNCTIONS.contains(Identifiers.upper(name))) {
                throw new FrontierException("SQL rejected: function " + name + " is not allowed");
            }
        }

        /** A table with a column list may be read only through its listed columns (and never with *). */
        void checkColumns() throws FrontierException {
            if (!policy.restrictsColumns() || tables.stream().allMatch(t -> policy.columnsOf(t) == null)) {
                return;
            }
            if (star) {
                throw new FrontierException("SQL rejected: name the columns instead of * (tables " + tables
                        + " have column lists)");
            }
            for (String[] ref : columnRefs) {
                String name = ref[1];
                if (ref[0] == null && selectAliases.contains(name)) {
                    continue;
                }
                String table = ref[0] == null ? null : tableAliases.getOrDefault(ref[0], ref[0]);
                boolean ok = false;
                if (table != null && tables.contains(table)) {
                    Set<String> allowed = policy.columnsOf(table);
                    ok = allowed == null || allowed.contains(name);
                } else {
                    for (String t : tables) {
                        Set<String> allowed = policy.columnsOf(t);
                        ok |= allowed == null || allowed.contains(name);
                    }
                }
                if (!ok) {
                    throw new FrontierException("SQL rejected: column " + (ref[0] == null ? "" : ref[0] + ".") + name
                            + " is not allowed (only the columns this context lists)");
                }
            }
        }
    }
}
