package io.outpost.frontier.sql;

import io.outpost.frontier.FrontierException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.OracleHint;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Parses Frontier SQL with JSqlParser and accepts only a single SELECT reading the context's own tables (its
 * {@link TablePolicy}: table patterns and column lists from the configuration, COOL's by default), with functions
 * from an allow-list. On PostgreSQL and SQLite contexts it also admits Oracle data-dictionary views
 * ({@link DataDictionary}), answered from the database's own catalog. For PostgreSQL and SQLite contexts it also translates COOL's Oracle SQL (see
 * docs/frontier.md for the exact list of constructs).
 *
 * <p>The checks walk every node of the parse tree reflectively rather than through JSqlParser's visitors, so no
 * clause (ORDER BY, HAVING, a window, a nested sub-select...) can be skipped by a visitor that does not descend
 * into it.
 */
public final class SqlGuard {

    /**
     * The outcome: SQL to execute, and the tables read (upper-case, unqualified, without {@code DUAL}). With
     * {@code dictionary}, the tables are Oracle data-dictionary views and the SQL is SQLite's, to run on
     * {@link DataDictionary}'s snapshot of the catalog.
     */
    public record Checked(String sql, Set<String> tables, boolean dictionary) {
        public Checked(String sql, Set<String> tables) {
            this(sql, tables, false);
        }
    }

    public enum Target { ORACLE, POSTGRESQL, SQLITE }

    /** Functions a Frontier query may call (case-insensitive, unqualified names only). */
    public static final Set<String> ALLOWED_FUNCTIONS = Set.of("COALESCE", "NVL", "MAX", "MIN", "COUNT", "SUM", "AVG",
            "TO_CHAR", "TO_NUMBER", "SUBSTR", "SUBSTRING", "LENGTH", "UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM", "ABS",
            "ROUND", "FLOOR", "CEIL", "MOD", "REPLACE", "NULLIF", "TO_TIMESTAMP");

    private static final Pattern SIMPLE_UPPER = Pattern.compile("\"[A-Z_][A-Z0-9_$#]*\"");
    /** Fields of parse-tree nodes that must be empty: locking, SELECT INTO, WITH. */
    private static final Map<String, String> FORBIDDEN_FIELDS = Map.of(
            "forMode", "FOR UPDATE is not allowed", "forUpdate", "FOR UPDATE is not allowed",
            "forUpdateTable", "FOR UPDATE is not allowed", "forUpdateTables", "FOR UPDATE is not allowed",
            "forClause", "FOR clauses are not allowed", "intoTables", "SELECT INTO is not allowed",
            "intoTempTable", "SELECT INTO is not allowed", "mySqlSelectIntoClause", "SELECT INTO is not allowed",
            "withItemsList", "WITH clauses are not supported", "wait", "FOR UPDATE WAIT is not allowed");
    /** Node classes that are never acceptable, by simple name. */
    private static final Set<String> FORBIDDEN_NODES = Set.of("NextValExpression", "TableFunction", "Values",
            "UserVariable", "JsonFunction", "JsonAggregateFunction", "JsonTableFunction", "XmlTableFunction",
            "XmlSerializeExpr", "TranscodingFunction", "FullTextSearch", "OracleHierarchicalExpression",
            "OracleNamedFunctionParameter", "LateralView", "FromQuery", "PipeOperator", "TableStatement",
            "MySQLGroupConcat", "VariableAssignment", "ConnectByRootOperator", "ConnectByPriorOperator");
    private static final ExecutorService PARSER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "frontier-sql-parser");
        t.setDaemon(true);
        return t;
    });
    private static final Map<Class<?>, List<Field>> FIELDS = new ConcurrentHashMap<>();

    private final String prefix;
    private final String schemaName;
    private final Target target;
    private final TablePolicy policy;

    /** A guard admitting COOL's tables with this prefix (the default policy). */
    public SqlGuard(String prefix, String schemaName, Target target) {
        this(prefix, schemaName, target, TablePolicy.cool(prefix));
    }

    public SqlGuard(String prefix, String schemaName, Target target, TablePolicy policy) {
        this.prefix = prefix.toUpperCase(Locale.ROOT);
        this.schemaName = schemaName == null ? null : schemaName.toUpperCase(Locale.ROOT);
        this.target = target;
        this.policy = policy;
    }

    public static Target targetFor(String dialectName) {
        return switch (dialectName) {
            case "oracle" -> Target.ORACLE;
            case "postgresql" -> Target.POSTGRESQL;
            default -> Target.SQLITE;
        };
    }

    /** True if {@code upperName} is one of the context's own tables. */
    public boolean isContextTable(String upperName) {
        return policy.allowsTable(upperName);
    }

    /** Validates (and for PostgreSQL/SQLite translates) one statement. Never throws anything but FrontierException. */
    public Checked check(String sql) throws FrontierException {
        try {
            return doCheck(sql);
        } catch (FrontierException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError e) {
            throw new FrontierException("SQL rejected: cannot analyse statement (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    private Checked doCheck(String sql) throws FrontierException {
        if (sql == null || sql.isBlank()) {
            throw new FrontierException("SQL rejected: empty statement");
        }
        Statements statements;
        try {
            statements = CCJSqlParserUtil.parseStatements(sql, PARSER,
                    p -> p.withTimeOut(5000).withAllowedNestingDepth(64));
        } catch (JSQLParserException e) {
            throw new FrontierException("SQL rejected: syntax error or unsupported statement: " + firstLine(e));
        }
        if (statements == null || statements.isEmpty()) {
            throw new FrontierException("SQL rejected: empty statement");
        }
        if (statements.size() != 1) {
            throw new FrontierException("SQL rejected: only a single statement is allowed");
        }
        Statement st = statements.get(0);
        if (!(st instanceof Select select)) {
            throw new FrontierException("SQL rejected: only SELECT is allowed, not "
                    + st.getClass().getSimpleName().toUpperCase(Locale.ROOT));
        }
        Walk walk = new Walk();
        Object root = walk.visit(select);
        walk.walk(root);
        if (!walk.dictionaryViews.isEmpty()) {
            if (!walk.tables.isEmpty()) {
                throw new FrontierException("SQL rejected: data-dictionary views cannot be read together with tables "
                        + walk.tables);
            }
            if (target != Target.SQLITE) {
                // the snapshot of the catalog is an in-memory SQLite database: translate for SQLite
                return new SqlGuard(prefix, schemaName, Target.SQLITE, policy).doCheck(sql);
            }
            return new Checked(root.toString(), Collections.unmodifiableSet(walk.dictionaryViews), true);
        }
        walk.checkColumns();
        String out = target == Target.ORACLE ? sql : root.toString();
        return new Checked(out, Collections.unmodifiableSet(walk.tables));
    }

    private static String firstLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip();
        if (e.getCause() != null && e.getCause().getMessage() != null) {
            m = e.getCause().getMessage().strip();
        }
        int nl = m.indexOf('\n');
        m = nl > 0 ? m.substring(0, nl) : m;
        return m.length() > 200 ? m.substring(0, 200) + "..." : m;
    }

    /** Depth-first walk over the parse tree, checking and rewriting each node in place. */
    private final class Walk {
        final Set<String> tables = new LinkedHashSet<>();
        final Set<String> dictionaryViews = new LinkedHashSet<>();
        /** Column references (qualifier or null, name), upper-case, for the column lists of the policy. */
        final List<String[]> columnRefs = new ArrayList<>();
        final Set<String> selectAliases = new java.util.HashSet<>();
        final Map<String, String> tableAliases = new java.util.HashMap<>();
        final Set<Object> starsInFunctions = Collections.newSetFromMap(new IdentityHashMap<>());
        boolean star;
        final Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        final Set<Object> qualifiers = Collections.newSetFromMap(new IdentityHashMap<>());
        int nodes;

        void walk(Object node) throws FrontierException {
            if (node == null || !seen.add(node)) {
                return;
            }
            if (++nodes > 100_000) {
                throw new FrontierException("SQL rejected: statement too complex");
            }
            for (Field f : fields(node.getClass())) {
                Object v;
                try {
                    v = f.get(node);
                } catch (IllegalAccessException e) {
                    throw new FrontierException("SQL rejected: cannot analyse statement");
                }
                if (v == null) {
                    continue;
                }
                String forbidden = FORBIDDEN_FIELDS.get(f.getName());
                if (forbidden != null && !(v instanceof List<?> l && l.isEmpty()) && !(v instanceof Boolean b && !b)) {
                    throw new FrontierException("SQL rejected: " + forbidden);
                }
                if (v instanceof List<?> list) {
                    walkList(list);
                } else if (isNode(v)) {
                    Object r = visit(v);
                    if (r != v) {
                        if (Modifier.isFinal(f.getModifiers())) {
                            throw new FrontierException("SQL rejected: cannot translate " + v);
                        }
                        try {
                            f.set(node, r);
                        } catch (IllegalAccessException e) {
                            throw new FrontierException("SQL rejected: cannot translate " + v);
                        }
                    }
                    walk(r);
                }
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private void walkList(List<?> list) throws FrontierException {
            ListIterator it = list.listIterator();
            while (it.hasNext()) {
                Object e = it.next();
                if (e instanceof List<?> inner) {
                    walkList(inner);
                } else if (isNode(e)) {
                    Object r = visit(e);
                    if (r != e) {
                        it.set(r);
                    }
                    walk(r);
                }
            }
        }

        /** Checks one node and returns it, or its replacement (null removes it, e.g. a hint). */
        Object visit(Object node) throws FrontierException {
            String kind = node.getClass().getSimpleName();
            if (FORBIDDEN_NODES.contains(kind)) {
                throw new FrontierException("SQL rejected: " + kind + " is not allowed");
            }
            if (node instanceof OracleHint) {
                return target == Target.ORACLE ? node : null;
            }
            if (node instanceof Column c) {
                String qualifierName = c.getTable() == null || c.getTable().getName() == null ? null
                        : strip(c.getTable().getName()).toUpperCase(Locale.ROOT);
                columnRefs.add(new String[] {qualifierName, strip(c.getColumnName()).toUpperCase(Locale.ROOT)});
                c.setColumnName(unquote(c.getColumnName()));
                if (c.getTable() != null) {
                    qualifier(c.getTable());
                }
                return node;
            }
            if (node instanceof AllTableColumns a) {
                star = true;
                if (a.getTable() != null) {
                    qualifier(a.getTable());
                }
                return node;
            }
            if (node instanceof AllColumns && !starsInFunctions.contains(node)) {
                star = true;
                return node;
            }
            if (node instanceof net.sf.jsqlparser.statement.select.SelectItem<?> si && si.getAlias() != null) {
                selectAliases.add(strip(si.getAlias().getName()).toUpperCase(Locale.ROOT));
            }
            if (node instanceof Alias a) {
                a.setName(unquote(a.getName()));
                return node;
            }
            if (node instanceof Table t) {
                return qualifiers.contains(t) ? t : table(t);
            }
            if (node instanceof CastExpression ce && target == Target.POSTGRESQL && ce.getColDataType() != null
                    && Set.of("INT", "INTEGER").contains(ce.getColDataType().getDataType().toUpperCase(Locale.ROOT))) {
                // Oracle's INT is NUMBER(38); PostgreSQL's is 32 bits (CMS groups 64-bit keys with CAST(.. AS INT))
                ce.setColDataType(new net.sf.jsqlparser.statement.create.table.ColDataType("BIGINT"));
                return node;
            }
            if (node instanceof AnalyticExpression a) {
                checkFunctionName(a.getName());
                return node;
            }
            if (node instanceof Function f) {
                if (f.getParameters() != null) {
                    for (Object param : f.getParameters()) {
                        if (param instanceof AllColumns) {
                            starsInFunctions.add(param);
                        }
                    }
                }
                return function(f);
            }
            return node;
        }

        /** A table with a column list may be read only through its listed columns (and never with *). */
        void checkColumns() throws FrontierException {
            if (!policy.restrictsColumns()) {
                return;
            }
            boolean anyRestricted = false;
            for (String t : tables) {
                anyRestricted |= policy.columnsOf(t) != null;
            }
            if (!anyRestricted) {
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

        private void qualifier(Table t) {
            qualifiers.add(t);
            seen.add(t);
            if (target != Target.ORACLE) {
                List<String> parts = t.getNameParts();
                if (parts != null) {
                    for (int i = 0; i < parts.size(); i++) {
                        if (parts.get(i) != null) {
                            parts.set(i, unquote(parts.get(i)));
                        }
                    }
                }
                // COOL qualifies columns with aliases only; a schema-qualified column loses its schema with its table.
                if (schemaName != null && t.getSchemaName() != null
                        && schemaName.equals(strip(t.getSchemaName()).toUpperCase(Locale.ROOT))) {
                    t.setSchemaName(null);
                }
            }
        }

        private Object table(Table t) throws FrontierException {
            if (t.getNameParts().stream().anyMatch(x -> x != null && x.contains("@"))) {
                throw new FrontierException("SQL rejected: database links are not allowed");
            }
            String name = strip(t.getName());
            String upper = name.toUpperCase(Locale.ROOT);
            String schema = t.getSchemaName() == null ? null : strip(t.getSchemaName()).toUpperCase(Locale.ROOT);
            if (t.getDatabaseName() != null && !t.getDatabaseName().isEmpty() && t.getNameParts().size() > 2) {
                throw new FrontierException("SQL rejected: table " + t.getFullyQualifiedName() + " is not allowed");
            }
            if (schema != null && !schema.equals(schemaName)) {
                throw new FrontierException("SQL rejected: table " + t.getFullyQualifiedName()
                        + " is not allowed (only tables of this context)");
            }
            if (upper.equals("DUAL") && schema == null) {
                return target == Target.ORACLE ? t : dual(t.getAlias());
            }
            if (target != Target.ORACLE && schema == null && DataDictionary.VIEWS.contains(upper)) {
                dictionaryViews.add(upper);
                Table view = new Table(upper);
                view.setAlias(t.getAlias());
                return view;
            }
            if (!isContextTable(upper)) {
                throw new FrontierException("SQL rejected: table " + t.getFullyQualifiedName()
                        + " is not allowed (only tables of this context)");
            }
            tables.add(upper);
            tableAliases.put(upper, upper);
            if (t.getAlias() != null && t.getAlias().getName() != null) {
                tableAliases.put(strip(t.getAlias().getName()).toUpperCase(Locale.ROOT), upper);
            }
            if (target == Target.ORACLE) {
                return t;
            }
            Table plain = new Table(unquote(t.getName()));
            plain.setAlias(t.getAlias());
            return plain;
        }

        private Object dual(Alias alias) throws FrontierException {
            try {
                PlainSelect ps = (PlainSelect) CCJSqlParserUtil.parse("SELECT * FROM (SELECT 'X' AS DUMMY) DUAL");
                Object sub = ps.getFromItem();
                ((net.sf.jsqlparser.statement.select.FromItem) sub).setAlias(alias == null ? new Alias("DUAL", false) : alias);
                seen.add(sub);
                return sub;
            } catch (JSQLParserException e) {
                throw new FrontierException("SQL rejected: cannot translate DUAL");
            }
        }

        private void checkFunctionName(String name) throws FrontierException {
            if (name == null || !ALLOWED_FUNCTIONS.contains(strip(name).toUpperCase(Locale.ROOT))) {
                throw new FrontierException("SQL rejected: function " + name + " is not allowed");
            }
        }

        private Object function(Function f) throws FrontierException {
            List<String> parts = f.getMultipartName();
            if (parts != null && parts.size() > 1) {
                throw new FrontierException("SQL rejected: function " + f.getName() + " is not allowed");
            }
            checkFunctionName(f.getName());
            if (f.getNamedParameters() != null || f.getChainedParameters() != null) {
                throw new FrontierException("SQL rejected: unsupported call syntax for " + f.getName());
            }
            if (target == Target.ORACLE) {
                return f;
            }
            String name = strip(f.getName()).toUpperCase(Locale.ROOT);
            ExpressionList<?> params = f.getParameters();
            int n = params == null ? 0 : params.size();
            switch (name) {
                case "NVL" -> {
                    if (n != 2) {
                        throw new FrontierException("SQL rejected: NVL takes 2 arguments");
                    }
                    f.setName("COALESCE");
                }
                case "TO_CHAR" -> {
                    if (n == 1) {
                        return cast((Expression) params.get(0), "TEXT");
                    }
                    if (target == Target.SQLITE) {
                        throw new FrontierException("SQL rejected: TO_CHAR with a format is not supported on SQLite");
                    }
                }
                case "TO_TIMESTAMP" -> {
                    // CORAL binds timestamps as TO_TIMESTAMP('YYYY-MM-DD HH:MM:SS[.F]', 'YYYY-MM-DD HH24:MI:SS.FF')
                    if (n < 1 || n > 2) {
                        throw new FrontierException("SQL rejected: TO_TIMESTAMP takes 1 or 2 arguments");
                    }
                    Expression text = (Expression) params.get(0);
                    return target == Target.SQLITE ? text : cast(text, "TIMESTAMP");
                }
                case "TO_NUMBER" -> {
                    if (n != 1) {
                        throw new FrontierException("SQL rejected: TO_NUMBER with a format is not supported");
                    }
                    return cast((Expression) params.get(0), "NUMERIC");
                }
                default -> {
                }
            }
            return f;
        }

        private Object cast(Expression arg, String type) throws FrontierException {
            try {
                CastExpression c = (CastExpression) CCJSqlParserUtil.parseExpression("CAST(X AS " + type + ")");
                c.setLeftExpression(arg);
                return c;
            } catch (JSQLParserException e) {
                throw new FrontierException("SQL rejected: cannot translate cast");
            }
        }

        private String unquote(String id) {
            if (target == Target.ORACLE || id == null) {
                return id;
            }
            return SIMPLE_UPPER.matcher(id).matches() ? id.substring(1, id.length() - 1) : id;
        }
    }

    private static String strip(String id) {
        if (id != null && id.length() >= 2 && (id.startsWith("\"") && id.endsWith("\"")
                || id.startsWith("`") && id.endsWith("`") || id.startsWith("[") && id.endsWith("]"))) {
            return id.substring(1, id.length() - 1);
        }
        return id;
    }

    private static boolean isNode(Object v) {
        return v.getClass().getName().startsWith("net.sf.jsqlparser.")
                && !v.getClass().getName().startsWith("net.sf.jsqlparser.parser.")
                && !(v instanceof Enum<?>);
    }

    private static List<Field> fields(Class<?> c) {
        return FIELDS.computeIfAbsent(c, k -> {
            List<Field> out = new ArrayList<>();
            for (Class<?> x = k; x != null && x.getName().startsWith("net.sf.jsqlparser."); x = x.getSuperclass()) {
                for (Field f : x.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.isSynthetic()) {
                        continue;
                    }
                    Class<?> t = f.getType();
                    if (t.isPrimitive() || t == String.class || t.getName().startsWith("net.sf.jsqlparser.parser.")) {
                        continue;
                    }
                    f.setAccessible(true);
                    out.add(f);
                }
            }
            return out;
        });
    }
}
