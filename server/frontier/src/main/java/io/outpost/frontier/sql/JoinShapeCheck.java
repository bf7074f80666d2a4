package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Rejects the shapes of SELECT that make a database do work out of all proportion to the request: more tables
 * in one FROM clause than allowed, and cartesian products (tables of one FROM clause that no join condition
 * connects). Runs on the tree of a statement that {@link AllowList} has admitted (see {@link SqlGuard.TreeCheck}).
 *
 * <p>Two tables count as joined when an ON or WHERE conjunct compares a column of one with a column of the other
 * (=, &lt;, &lt;=, &gt;, &gt;=, LIKE, BETWEEN...; not &lt;&gt;, and not a condition inside an OR), or by USING/NATURAL.
 * Columns must be qualified with their table or alias for a condition to join; COOL's SQL always qualifies them.
 */
public final class JoinShapeCheck {
    private final int maxTables;
    private final boolean rejectCartesian;

    public JoinShapeCheck(int maxTables, boolean rejectCartesian) {
        this.maxTables = maxTables;
        this.rejectCartesian = rejectCartesian;
    }

    /** Throws a FrontierException naming the problem; never anything else. */
    public void check(Select statement) throws FrontierException {
        if (maxTables == 0 && !rejectCartesian) {
            return;
        }
        try {
            for (PlainSelect s : QueryBlocks.of(statement)) {
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
                int first = -1;
                for (Column col : QueryBlocks.columnsOf(conjunct)) {
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
                || e instanceof LikeExpression;
    }

    private static int itemOf(List<FromItem> items, Column col) {
        Table t = col.getTable();
        if (t == null || t.getName() == null) {
            return -1;
        }
        String q = Identifiers.upper(t.getName());
        for (int i = 0; i < items.size(); i++) {
            FromItem item = items.get(i);
            if (item.getAlias() != null && item.getAlias().getName() != null) {
                if (Identifiers.upper(item.getAlias().getName()).equals(q)) {
                    return i;
                }
            } else if (item instanceof Table table && Identifiers.upper(table.getName()).equals(q)) {
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

    private static int find(int[] parent, int i) {
        while (parent[i] != i) {
            i = parent[i];
        }
        return i;
    }

    private static void union(int[] parent, int a, int b) {
        parent[find(parent, a)] = find(parent, b);
    }
}
