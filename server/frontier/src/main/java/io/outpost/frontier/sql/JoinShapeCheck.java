package io.outpost.frontier.sql;

import io.outpost.frontier.FrontierException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statements;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Rejects the shapes of SELECT that make a database do work out of all proportion to the request: more tables
 * in one FROM clause than allowed, and cartesian products (tables of one FROM clause that no join condition
 * connects). Runs on SQL that {@link SqlGuard} has already accepted.
 *
 * <p>Two tables count as joined when an ON or WHERE conjunct compares a column of one with a column of the other
 * (=, &lt;, &lt;=, &gt;, &gt;=, LIKE, BETWEEN...; not &lt;&gt;, and not a condition inside an OR), or by USING/NATURAL.
 * Columns must be qualified with their table or alias for a condition to join; COOL's SQL always qualifies them.
 */
public final class JoinShapeCheck {
    private static final ExecutorService PARSER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "frontier-cost-parser");
        t.setDaemon(true);
        return t;
    });
    private static final Map<Class<?>, List<Field>> FIELDS = new ConcurrentHashMap<>();

    private final int maxTables;
    private final boolean rejectCartesian;

    public JoinShapeCheck(int maxTables, boolean rejectCartesian) {
        this.maxTables = maxTables;
        this.rejectCartesian = rejectCartesian;
    }

    /** Throws a FrontierException naming the problem; never anything else. */
    public void check(String sql) throws FrontierException {
        if (maxTables == 0 && !rejectCartesian) {
            return;
        }
        Statements statements;
        try {
            statements = CCJSqlParserUtil.parseStatements(sql, PARSER,
                    p -> p.withTimeOut(5000).withAllowedNestingDepth(64));
        } catch (JSQLParserException e) {
            throw new FrontierException("SQL rejected: cannot analyse the statement's joins");
        }
        try {
            List<PlainSelect> selects = new ArrayList<>();
            collect(statements, PlainSelect.class, selects, true, Collections.newSetFromMap(new IdentityHashMap<>()));
            for (PlainSelect s : selects) {
                checkSelect(s);
            }
        } catch (RuntimeException | StackOverflowError e) {
            throw new FrontierException("SQL rejected: cannot analyse the statement's joins ("
                    + e.getClass().getSimpleName() + ")");
        }
    }

    private void checkSelect(PlainSelect s) throws FrontierException {
        if (s.getFromItem() == null) {
            return;
        }
        List<FromItem> items = new ArrayList<>();
        items.add(s.getFromItem());
        List<Join> joins = s.getJoins() == null ? List.of() : s.getJoins();
        for (Join j : joins) {
            items.add(j.getFromItem());
        }
        for (FromItem item : items) {
            if (item instanceof ParenthesedFromItem p && p.getJoins() != null && !p.getJoins().isEmpty()) {
                throw new FrontierException("SQL rejected: parenthesised joins are not supported; list the tables"
                        + " in one FROM clause");
            }
        }
        if (maxTables > 0 && items.size() > maxTables) {
            throw new FrontierException("SQL rejected: a SELECT may read at most " + maxTables
                    + " tables (MaxJoinTables), this one reads " + items.size());
        }
        if (!rejectCartesian || items.size() < 2) {
            return;
        }
        int[] parent = new int[items.size()];
        for (int i = 0; i < parent.length; i++) {
            parent[i] = i;
        }
        List<Expression> conditions = new ArrayList<>();
        if (s.getWhere() != null) {
            conditions.add(s.getWhere());
        }
        for (int i = 0; i < joins.size(); i++) {
            Join j = joins.get(i);
            if (j.isNatural() || j.getUsingColumns() != null && !j.getUsingColumns().isEmpty()) {
                union(parent, i + 1, i);
            }
            if (j.getOnExpressions() != null) {
                conditions.addAll(j.getOnExpressions());
            }
        }
        for (Expression c : conditions) {
            for (Expression conjunct : conjuncts(c, new ArrayList<>())) {
                if (!joins(conjunct)) {
                    continue;
                }
                List<Column> columns = new ArrayList<>();
                collect(conjunct, Column.class, columns, false, Collections.newSetFromMap(new IdentityHashMap<>()));
                int first = -1;
                for (Column col : columns) {
                    int at = itemOf(items, col);
                    if (at < 0) {
                        continue;
                    }
                    if (first < 0) {
                        first = at;
                    } else {
                        union(parent, first, at);
                    }
                }
            }
        }
        for (int i = 1; i < items.size(); i++) {
            if (find(parent, i) != find(parent, 0)) {
                throw new FrontierException("SQL rejected: cartesian product: " + describe(items.get(i))
                        + " is not joined to " + describe(items.get(0))
                        + " by any condition (compare columns qualified with their table or alias)");
            }
        }
    }

    /** The parts of {@code e} joined by AND (parentheses looked through), added to {@code out}; null adds nothing. */
    static List<Expression> conjuncts(Expression e, List<Expression> out) {
        if (e instanceof AndExpression and) {
            conjuncts(and.getLeftExpression(), out);
            conjuncts(and.getRightExpression(), out);
        } else if (e instanceof ParenthesedExpressionList<?> p && p.size() == 1 && p.get(0) instanceof Expression inner) {
            conjuncts(inner, out);
        } else if (e != null) {
            out.add(e);
        }
        return out;
    }

    /** Only comparisons restrict rows: a condition inside OR, or a not-equal, can leave the product whole. */
    private static boolean joins(Expression e) {
        return e instanceof ComparisonOperator && !(e instanceof NotEqualsTo) || e instanceof Between
                || e instanceof net.sf.jsqlparser.expression.operators.relational.LikeExpression;
    }

    private static int itemOf(List<FromItem> items, Column col) {
        Table t = col.getTable();
        if (t == null || t.getName() == null) {
            return -1;
        }
        String q = strip(t.getName());
        for (int i = 0; i < items.size(); i++) {
            FromItem item = items.get(i);
            if (item.getAlias() != null && item.getAlias().getName() != null) {
                if (strip(item.getAlias().getName()).equals(q)) {
                    return i;
                }
            } else if (item instanceof Table table && strip(table.getName()).equals(q)) {
                return i;
            }
        }
        return -1;
    }

    private static String describe(FromItem item) {
        if (item instanceof Table t) {
            return t.getName() + (t.getAlias() == null ? "" : " " + t.getAlias().getName());
        }
        return item.getAlias() == null ? "a sub-select" : "sub-select " + item.getAlias().getName();
    }

    private static String strip(String id) {
        String s = id.length() >= 2 && id.startsWith("\"") && id.endsWith("\"") ? id.substring(1, id.length() - 1) : id;
        return s.toUpperCase(Locale.ROOT);
    }

    private static int find(int[] parent, int i) {
        while (parent[i] != i) {
            i = parent[i];
        }
        return i;
    }

    private static void union(int[] parent, int a, int b) {
        parent[find(parent, a)] = find(parent, b);
    }

    /** Every parse-tree node of {@code type} under {@code node}; into sub-selects only when asked. */
    private static <T> void collect(Object node, Class<T> type, List<T> out, boolean intoSelects, Set<Object> seen) {
        if (node == null || !seen.add(node)) {
            return;
        }
        if (type.isInstance(node)) {
            out.add(type.cast(node));
        }
        if (!intoSelects && node instanceof Select) {
            return;
        }
        if (node instanceof Iterable<?> list) {
            for (Object e : list) {
                if (e != null && isNode(e)) {
                    collect(e, type, out, intoSelects, seen);
                }
            }
        }
        for (Field f : fields(node.getClass())) {
            Object v;
            try {
                v = f.get(node);
            } catch (IllegalAccessException e) {
                continue;
            }
            if (v instanceof Iterable<?> list) {
                for (Object e : list) {
                    if (e != null && isNode(e)) {
                        collect(e, type, out, intoSelects, seen);
                    }
                }
            } else if (v != null && isNode(v)) {
                collect(v, type, out, intoSelects, seen);
            }
        }
    }

    private static boolean isNode(Object v) {
        String n = v.getClass().getName();
        return n.startsWith("net.sf.jsqlparser.") && !n.startsWith("net.sf.jsqlparser.parser.") && !(v instanceof Enum<?>);
    }

    private static List<Field> fields(Class<?> c) {
        return FIELDS.computeIfAbsent(c, k -> {
            List<Field> out = new ArrayList<>();
            for (Class<?> x = k; x != null && x.getName().startsWith("net.sf.jsqlparser."); x = x.getSuperclass()) {
                for (Field f : x.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.isSynthetic() || f.getType().isPrimitive()
                            || f.getType() == String.class || f.getType().getName().startsWith("net.sf.jsqlparser.parser.")) {
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
