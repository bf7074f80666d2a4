package io.outpost.frontier.sql;

import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;

/**
 * Recognises COOL's reads of a single-version folder in an admitted statement, exactly as COOL and CORAL write them:
 *
 * <pre>
 * SELECT [hints] I.CHANNEL_ID, I.IOV_SINCE, I.IOV_UNTIL, I.&lt;payload&gt;... FROM [&lt;folder&gt;_CHANNELS C,] &lt;folder&gt;_IOVS I
 * WHERE [I.CHANNEL_ID = C.CHANNEL_ID AND]
 *   I.IOV_SINCE &gt;= COALESCE((SELECT [hints] MAX(I1.IOV_SINCE) FROM &lt;folder&gt;_IOVS I1
 *                           WHERE I1.CHANNEL_ID = C.CHANNEL_ID AND I1.IOV_SINCE &lt;= t1), t1)
 *   [AND I.IOV_SINCE &lt;= t2] [AND I.IOV_UNTIL &gt; t1] [AND CHANNEL_ID comparisons with literals]
 * ORDER BY I.CHANNEL_ID, I.IOV_SINCE
 * </pre>
 * with integer literals (Frontier clients write binds into the text), conditions in any order. With t2 = t1 and
 * {@code IOV_UNTIL > t1} it is the at-time read, without them the browse from t1. Anything else is not a
 * recognised read and is answered by the database as before.
 */
public final class CoolReads {
    /** A bound the statement puts on the IOV table's rows: the column compared, how, and the literal. */
    enum Bound { SINCE_AT_MOST, SINCE_BELOW, UNTIL_ABOVE, UNTIL_AT_LEAST, CHANNEL_IS, CHANNEL_AT_LEAST, CHANNEL_ABOVE,
        CHANNEL_AT_MOST, CHANNEL_BELOW }

    record Condition(Bound bound, long literal) {
    }

    /**
     * A recognised read before its literals are known: the statement it was recognised in may be a shape whose
     * integer literals are sentinels ({@link IntegerLiterals}); {@link #withLiterals} puts the statement's own back,
     * and {@link #read} gives the values.
     *
     * @param probeKey      the COALESCE's default key
     * @param probeBound    the key the MAX(IOV_SINCE) probe is bounded by (the same key in COOL's reads)
     * @param literals      the statement's literals in sentinel order, or null when the literals are the values
     */
    public record Template(String iovTable, boolean joinsChannels, List<String> columns, long probeKey,
                           long probeBound, List<Condition> conditions, List<String> literals) {
        public Template {
            columns = List.copyOf(columns);
            conditions = List.copyOf(conditions);
        }

        /** The same read in a statement of this shape whose literals are {@code values}. */
        Template withLiterals(List<String> values) {
            return new Template(iovTable, joinsChannels, columns, probeKey, probeBound, conditions, values);
        }

        /** The read with its values, or null when they make it something other than COOL's read. */
        public CoolRead read() {
            try {
                long t = value(probeKey);
                if (value(probeBound) != t) {
                    return null;
                }
                long sinceAtMost = Long.MAX_VALUE;
                long untilAfter = Long.MIN_VALUE;
                long first = Long.MIN_VALUE;
                long last = Long.MAX_VALUE;
                for (Condition c : conditions) {
                    long v = value(c.literal());
                    switch (c.bound()) {
                        case SINCE_AT_MOST -> sinceAtMost = Math.min(sinceAtMost, v);
                        case SINCE_BELOW -> sinceAtMost = Math.min(sinceAtMost, Math.subtractExact(v, 1));
                        case UNTIL_ABOVE -> untilAfter = Math.max(untilAfter, v);
                        case UNTIL_AT_LEAST -> untilAfter = Math.max(untilAfter, Math.subtractExact(v, 1));
                        case CHANNEL_IS -> {
                            first = Math.max(first, v);
                            last = Math.min(last, v);
                        }
                        case CHANNEL_AT_LEAST -> first = Math.max(first, v);
                        case CHANNEL_ABOVE -> first = Math.max(first, Math.addExact(v, 1));
                        case CHANNEL_AT_MOST -> last = Math.min(last, v);
                        case CHANNEL_BELOW -> last = Math.min(last, Math.subtractExact(v, 1));
                    }
                }
                return new CoolRead(iovTable, joinsChannels, columns, t, sinceAtMost, untilAfter, first, last);
            } catch (ArithmeticException | NumberFormatException | IndexOutOfBoundsException e) {
                return null; // a literal at the end of the key range: the database answers
            }
        }

        private long value(long literal) {
            return literals == null ? literal : Long.parseLong(literals.get(IntegerLiterals.sentinelIndex(literal)));
        }
    }

    private static final String CHANNEL_ID = "CHANNEL_ID";
    private static final String SINCE = "IOV_SINCE";
    private static final String UNTIL = "IOV_UNTIL";

    private CoolReads() {
    }

    /** The read {@code select} is, with its literals' values, or null when it is not one of the recognised shapes. */
    public static CoolRead recognise(Select select) {
        Template t = template(select);
        return t == null ? null : t.read();
    }

    /** The read {@code select} is, or null when it is not one of the recognised shapes. */
    static Template template(Select select) {
        try {
            return select instanceof PlainSelect p && plain(p) ? new Shape(p).read() : null;
        } catch (NotRecognised e) {
            return null;
        }
    }

    /** No clause beyond SELECT, FROM, WHERE and ORDER BY. */
    private static boolean plain(PlainSelect p) {
        return p.getDistinct() == null && p.getGroupBy() == null && p.getHaving() == null && p.getLimit() == null
                && p.getOffset() == null && p.getFetch() == null && p.getTop() == null && p.getFirst() == null
                && p.getSkip() == null && p.getOracleHierarchical() == null && p.getWithItemsList() == null
                && p.getIntoTables() == null && p.getForMode() == null && p.getWindowDefinitions() == null
                && p.getLateralViews() == null && p.getQualify() == null && p.getWhere() != null;
    }

    private static final class NotRecognised extends Exception {
        NotRecognised() {
            super(null, null, false, false);
        }
    }

    private static final NotRecognised NO = new NotRecognised();

    private static final class Shape {
        private final PlainSelect select;
        private String iovTable;
        private String iovAlias;
        private String channelAlias;
        private long[] probe;
        private final List<Condition> conditions = new ArrayList<>();
        private boolean joined;

        Shape(PlainSelect select) {
            this.select = select;
        }

        Template read() throws NotRecognised {
            tables();
            List<String> columns = columns();
            for (Expression e : JoinShapeCheck.conjuncts(select.getWhere(), new ArrayList<>())) {
                condition(e);
            }
            if (probe == null || channelAlias != null && !joined) {
                throw NO;
            }
            order();
            return new Template(iovTable, channelAlias != null, columns, probe[0], probe[1], conditions, null);
        }

        /** {@code <folder>_IOVS I} alone, or after {@code <folder>_CHANNELS C} in a comma join. */
        private void tables() throws NotRecognised {
            List<Join> joins = select.getJoins();
            if (joins == null || joins.isEmpty()) {
                iovTable = iovTable(select.getFromItem());
                iovAlias = alias(select.getFromItem());
                return;
            }
            if (joins.size() != 1 || !joins.get(0).isSimple() || joins.get(0).getOnExpressions() != null
                    && !joins.get(0).getOnExpressions().isEmpty()) {
                throw NO;
            }
            FromItem channels = select.getFromItem();
            FromItem iovs = joins.get(0).getFromItem();
            iovTable = iovTable(iovs);
            iovAlias = alias(iovs);
            if (!(channels instanceof Table c) || c.getName() == null
                    || !Identifiers.upper(c.getName()).equals(folderPrefix() + "_CHANNELS")
                    || !sameSchema(c, (Table) iovs)) {
                throw NO;
            }
            channelAlias = alias(channels);
            if (channelAlias.equals(iovAlias)) {
                throw NO;
            }
        }

        private String folderPrefix() {
            return iovTable.substring(0, iovTable.length() - "_IOVS".length());
        }

        private static boolean sameSchema(Table a, Table b) {
            String x = a.getSchemaName() == null ? null : Identifiers.upper(a.getSchemaName());
            String y = b.getSchemaName() == null ? null : Identifiers.upper(b.getSchemaName());
            return x == null ? y == null : x.equals(y);
        }

        private static String iovTable(FromItem item) throws NotRecognised {
            if (!(item instanceof Table t) || t.getName() == null) {
                throw NO;
            }
            String name = Identifiers.upper(t.getName());
            if (!name.endsWith("_IOVS") || name.length() == "_IOVS".length()) {
                throw NO;
            }
            return name;
        }

        /** The name a table's columns are qualified with: its alias, else its own name. */
        private static String alias(FromItem item) throws NotRecognised {
            if (!(item instanceof Table t)) {
                throw NO;
            }
            return t.getAlias() != null && t.getAlias().getName() != null ? Identifiers.upper(t.getAlias().getName())
                    : Identifiers.upper(t.getName());
        }

        /** Plain columns of the IOV table, without aliases of their own. */
        private List<String> columns() throws NotRecognised {
            List<String> out = new ArrayList<>();
            for (SelectItem<?> item : select.getSelectItems()) {
                if (item.getAlias() != null || !(item.getExpression() instanceof Column c) || !ofIovs(c)) {
                    throw NO;
                }
                String name = Identifiers.upper(c.getColumnName());
                if (name.equals("*")) {
                    throw NO;
                }
                out.add(name);
            }
            return out;
        }

        /** A column of the IOV table: qualified with its alias, or unqualified when it is the only table. */
        private boolean ofIovs(Column c) {
            String q = qualifier(c);
            return q == null ? channelAlias == null : q.equals(iovAlias);
        }

        private static String qualifier(Column c) {
            Table t = c.getTable();
            if (t == null || t.getName() == null) {
                return null;
            }
            return t.getSchemaName() != null ? "." : Identifiers.upper(t.getName());
        }

        /** {@code name} of the IOV table (or, for CHANNEL_ID, of the joined channel table). */
        private boolean isColumn(Expression e, String name, boolean channelTableToo) {
            if (!(e instanceof Column c) || !Identifiers.upper(c.getColumnName()).equals(name)) {
                return false;
            }
            String q = qualifier(c);
            return ofIovs(c) || channelTableToo && q != null && q.equals(channelAlias);
        }

        private void condition(Expression e) throws NotRecognised {
            if (e instanceof Between b) {
                if (b.isNot() || !isColumn(b.getLeftExpression(), CHANNEL_ID, true)) {
                    throw NO;
                }
                bound(Bound.CHANNEL_AT_LEAST, b.getBetweenExpressionStart());
                bound(Bound.CHANNEL_AT_MOST, b.getBetweenExpressionEnd());
                return;
            }
            if (!(e instanceof ComparisonOperator op)) {
                throw NO;
            }
            Expression left = op.getLeftExpression();
            Expression right = op.getRightExpression();
            if (op instanceof EqualsTo && channelAlias != null && isJoin(left, right)) {
                joined = true;
                return;
            }
            if (op instanceof GreaterThanEquals && isColumn(left, SINCE, false) && right instanceof Function f) {
                if (probe != null) {
                    throw NO;
                }
                probe = probe(f);
                return;
            }
            if (isColumn(left, SINCE, false)) {
                switch (op) {
                    case MinorThanEquals m -> bound(Bound.SINCE_AT_MOST, right);
                    case MinorThan m -> bound(Bound.SINCE_BELOW, right);
                    default -> throw NO;
                }
                return;
            }
            if (isColumn(left, UNTIL, false)) {
                switch (op) {
                    case GreaterThan g -> bound(Bound.UNTIL_ABOVE, right);
                    case GreaterThanEquals g -> bound(Bound.UNTIL_AT_LEAST, right);
                    default -> throw NO;
                }
                return;
            }
            if (isColumn(left, CHANNEL_ID, true)) {
                switch (op) {
                    case EqualsTo x -> bound(Bound.CHANNEL_IS, right);
                    case GreaterThanEquals x -> bound(Bound.CHANNEL_AT_LEAST, right);
                    case GreaterThan x -> bound(Bound.CHANNEL_ABOVE, right);
                    case MinorThanEquals x -> bound(Bound.CHANNEL_AT_MOST, right);
                    case MinorThan x -> bound(Bound.CHANNEL_BELOW, right);
                    default -> throw NO;
                }
                return;
            }
            throw NO;
        }

        private void bound(Bound b, Expression literal) throws NotRecognised {
            conditions.add(new Condition(b, literal(literal)));
        }

        /** {@code I.CHANNEL_ID = C.CHANNEL_ID} either way round. */
        private boolean isJoin(Expression a, Expression b) {
            return isColumn(a, CHANNEL_ID, false) && isChannelTableId(b)
                    || isColumn(b, CHANNEL_ID, false) && isChannelTableId(a);
        }

        private boolean isChannelTableId(Expression e) {
            return e instanceof Column c && Identifiers.upper(c.getColumnName()).equals(CHANNEL_ID)
                    && channelAlias != null && channelAlias.equals(qualifier(c));
        }

        /**
         * {@code COALESCE((SELECT MAX(I1.IOV_SINCE) FROM <same IOVS> I1 WHERE I1.CHANNEL_ID = <outer CHANNEL_ID>
         * AND I1.IOV_SINCE <= t), t)}: the default key and the probe's bound.
         */
        private long[] probe(Function f) throws NotRecognised {
            ExpressionList<?> args = f.getParameters();
            if (!"COALESCE".equals(Identifiers.upper(f.getName())) && !"NVL".equals(Identifiers.upper(f.getName()))
                    || args == null || args.size() != 2 || !(args.get(0) instanceof ParenthesedSelect sub)
                    || sub.getAlias() != null || !(sub.getSelect() instanceof PlainSelect inner) || !plain(inner)
                    || inner.getJoins() != null && !inner.getJoins().isEmpty()) {
                throw NO;
            }
            long t = literal(args.get(1));
            if (!iovTable.equals(iovTable(inner.getFromItem()))) {
                throw NO;
            }
            String innerAlias = alias(inner.getFromItem());
            List<SelectItem<?>> items = inner.getSelectItems();
            if (items.size() != 1 || items.get(0).getAlias() != null || !(items.get(0).getExpression() instanceof Function max)
                    || !"MAX".equals(Identifiers.upper(max.getName())) || max.isDistinct() || max.getParameters() == null
                    || max.getParameters().size() != 1 || !innerColumn(max.getParameters().get(0), innerAlias, SINCE)) {
                throw NO;
            }
            boolean correlated = false;
            Long bound = null;
            for (Expression e : JoinShapeCheck.conjuncts(inner.getWhere(), new ArrayList<>())) {
                if (e instanceof EqualsTo eq && (innerColumn(eq.getLeftExpression(), innerAlias, CHANNEL_ID)
                        && outerChannelId(eq.getRightExpression(), innerAlias)
                        || innerColumn(eq.getRightExpression(), innerAlias, CHANNEL_ID)
                        && outerChannelId(eq.getLeftExpression(), innerAlias))) {
                    correlated = true;
                } else if (e instanceof MinorThanEquals le && innerColumn(le.getLeftExpression(), innerAlias, SINCE)
                        && bound == null) {
                    bound = literal(le.getRightExpression());
                } else {
                    throw NO;
                }
            }
            if (!correlated || bound == null) {
                throw NO;
            }
            return new long[] {t, bound};
        }

        private static boolean innerColumn(Object e, String innerAlias, String name) {
            return e instanceof Column c && Identifiers.upper(c.getColumnName()).equals(name)
                    && innerAlias.equals(qualifier(c));
        }

        /** The enclosing block's CHANNEL_ID (the IOV table's or the joined channel table's). */
        private boolean outerChannelId(Expression e, String innerAlias) {
            if (!(e instanceof Column c) || !Identifiers.upper(c.getColumnName()).equals(CHANNEL_ID)) {
                return false;
            }
            String q = qualifier(c);
            return q != null && !q.equals(innerAlias) && (q.equals(iovAlias) || q.equals(channelAlias));
        }

        /** ORDER BY the IOV table's (or the joined channel table's) CHANNEL_ID, then its IOV_SINCE, ascending. */
        private void order() throws NotRecognised {
            List<OrderByElement> order = select.getOrderByElements();
            if (order == null || order.size() != 2 || !ascending(order.get(0)) || !ascending(order.get(1))
                    || !isColumn(order.get(0).getExpression(), CHANNEL_ID, true)
                    || !isColumn(order.get(1).getExpression(), SINCE, false)) {
                throw NO;
            }
        }

        private static boolean ascending(OrderByElement o) {
            return o.isAsc() && o.getNullOrdering() == null && !o.isMysqlWithRollup();
        }

        /** An integer literal, possibly negative. */
        private static long literal(Object e) throws NotRecognised {
            if (e instanceof LongValue v) {
                try {
                    return Long.parseLong(v.getStringValue());
                } catch (NumberFormatException tooBig) {
                    throw NO;
                }
            }
            if (e instanceof SignedExpression s && s.getSign() == '-' && s.getExpression() instanceof LongValue v) {
                try {
                    return Long.parseLong("-" + v.getStringValue());
                } catch (NumberFormatException tooBig) {
                    throw NO;
                }
            }
            throw NO;
        }
    }
}
