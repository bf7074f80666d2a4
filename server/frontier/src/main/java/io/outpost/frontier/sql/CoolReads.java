package io.outpost.frontier.sql;

import io.outpost.frontier.sql.CoolReadTemplate.Bound;
import io.outpost.frontier.sql.CoolReadTemplate.Condition;
import io.outpost.store.db.Layer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * Recognises COOL's reads of one folder layer in an admitted statement, exactly as COOL and CORAL write them:
 *
 * <pre>
 * SELECT [hints] M.&lt;column&gt;... FROM [&lt;folder&gt;_CHANNELS C,] &lt;X&gt; I [, &lt;folder&gt;_IOVS O]
 * WHERE [I.CHANNEL_ID = C.CHANNEL_ID AND] [L(I) AND] [O.OBJECT_ID = I.OBJECT_ID AND]
 *   I.IOV_SINCE &gt;= COALESCE((SELECT [hints] MAX(I1.IOV_SINCE) FROM &lt;X&gt; I1
 *                           WHERE [L(I1) AND] I1.CHANNEL_ID = C.CHANNEL_ID AND I1.IOV_SINCE &lt;= t1), t1)
 *   [AND I.IOV_SINCE &lt;= t2] [AND I.IOV_UNTIL &gt; t1] [AND CHANNEL_ID comparisons with literals]
 * ORDER BY I.CHANNEL_ID, I.IOV_SINCE
 * </pre>
 * where the layer filter L and the table X are: nothing and {@code <folder>_IOVS} (a single-version folder's rows);
 * {@code USER_TAG_ID = n AND NEW_HEAD_ID = 0} and {@code <folder>_IOVS} (the HEAD, n = 0, or user tag n of a
 * multi-version folder); {@code TAG_ID = n} and {@code <folder>_IOV2TAG} (standard tag n, whose payload COOL reads
 * from the IOV table O joined on OBJECT_ID). The filter is the same in the main block and the probe, so both see only
 * the layer's rows, which never overlap within a channel: (CHANNEL_ID, IOV_SINCE) orders them totally. M is I or O.
 * Integer literals (Frontier clients write binds into the text), conditions in any order. With t2 = t1 and
 * {@code IOV_UNTIL > t1} it is the at-time read, without them the browse from t1. Anything else is not a recognised
 * read and is answered by the database as before.
 */
public final class CoolReads {
    private static final String CHANNEL_ID = "CHANNEL_ID";
    private static final String SINCE = "IOV_SINCE";
    private static final String UNTIL = "IOV_UNTIL";
    private static final String OBJECT_ID = "OBJECT_ID";
    private static final String IOVS = "_IOVS";
    private static final String IOV2TAG = "_IOV2TAG";
    private static final String CHANNELS = "_CHANNELS";
    /** The layer filters on the IOV table (HEAD and user tags) and on the tag table (standard tags). */
    private static final Map<String, Bound> USER_TAG_FILTERS = Map.of("USER_TAG_ID", Bound.USER_TAG_IS,
            "NEW_HEAD_ID", Bound.NEW_HEAD_IS);
    private static final Map<String, Bound> TAG_FILTERS = Map.of("TAG_ID", Bound.TAG_IS);
    private static final Set<Bound> LAYER_FILTERS = EnumSet.of(Bound.USER_TAG_IS, Bound.NEW_HEAD_IS, Bound.TAG_IS,
            Bound.PROBE_USER_TAG_IS, Bound.PROBE_NEW_HEAD_IS, Bound.PROBE_TAG_IS);

    private CoolReads() {
    }

    /** The read {@code select} is, with its literals' values, or null when it is not one of the recognised shapes. */
    public static CoolRead recognise(Select select) {
        CoolReadTemplate t = template(select);
        return t == null ? null : t.read();
    }

    /** The read {@code select} is, or null when it is not one of the recognised shapes. */
    static CoolReadTemplate template(Select select) {
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
        /** The table whose rows are the layer's (IOVS, or IOV2TAG for a standard tag) and its alias. */
        private String layerTable;
        private String layerAlias;
        private String folder;
        private String channelAlias;
        /** A standard tag's objects: the folder's IOV table joined on OBJECT_ID, or null. */
        private String objectAlias;
        private long[] probe;
        private final List<Condition> conditions = new ArrayList<>();
        private boolean joined;
        private boolean objectsJoined;

        Shape(PlainSelect select) {
            this.select = select;
        }

        private boolean tagTable() {
            return layerTable.endsWith(IOV2TAG);
        }

        /** The layer filters this statement's table takes: USER_TAG_ID and NEW_HEAD_ID, or TAG_ID. */
        private Map<String, Bound> filters() {
            return tagTable() ? TAG_FILTERS : USER_TAG_FILTERS;
        }

        CoolReadTemplate read() throws NotRecognised {
            tables();
            List<CoolRead.Selected> columns = columns();
            for (Expression e : JoinShapeCheck.conjuncts(select.getWhere(), new ArrayList<>())) {
                condition(e);
            }
            if (probe == null || channelAlias != null && !joined || objectAlias != null && !objectsJoined) {
                throw NO;
            }
            order();
            return new CoolReadTemplate(folder + IOVS, kind(), channelAlias != null, columns, probe[0], probe[1],
                    conditions, null);
        }

        /**
         * The layer's kind from the filters found: none on the IOV table is a single-version read; both USER_TAG_ID
         * and NEW_HEAD_ID, in the main block and the probe, a user tag's (or the HEAD's); TAG_ID in both on the tag
         * table, a standard tag's. Any other mix is not COOL's read.
         */
        private Layer.Kind kind() throws NotRecognised {
            List<Bound> found = conditions.stream().map(Condition::bound).filter(LAYER_FILTERS::contains).toList();
            if (tagTable()) {
                if (found.size() == 2 && found.contains(Bound.TAG_IS) && found.contains(Bound.PROBE_TAG_IS)) {
                    return Layer.Kind.STANDARD_TAG;
                }
                throw NO;
            }
            if (found.isEmpty()) {
                return Layer.Kind.SINGLE_VERSION;
            }
            if (found.size() == 4 && found.containsAll(List.of(Bound.USER_TAG_IS, Bound.NEW_HEAD_IS,
                    Bound.PROBE_USER_TAG_IS, Bound.PROBE_NEW_HEAD_IS))) {
                return Layer.Kind.USER_TAG;
            }
            throw NO;
        }

        /**
         * The layer's table, with the folder's channel table and (for the tag table) its IOV table beside it in a
         * comma join, in any order; every one of the same folder and schema, each with its own alias.
         */
        private void tables() throws NotRecognised {
            List<Table> tables = new ArrayList<>();
            tables.add(table(select.getFromItem()));
            List<Join> joins = select.getJoins();
            if (joins != null) {
                for (Join j : joins) {
                    if (!j.isSimple() || j.getOnExpressions() != null && !j.getOnExpressions().isEmpty()
                            || j.getUsingColumns() != null && !j.getUsingColumns().isEmpty()) {
                        throw NO;
                    }
                    tables.add(table(j.getFromItem()));
                }
            }
            if (tables.size() > 3) {
                throw NO;
            }
            Table layer = named(tables, IOV2TAG);
            if (layer == null) {
                layer = named(tables, IOVS);
            }
            if (layer == null) {
                throw NO;
            }
            layerTable = Identifiers.upper(layer.getName());
            layerAlias = alias(layer);
            folder = layerTable.substring(0, layerTable.length() - (tagTable() ? IOV2TAG : IOVS).length());
            List<String> aliases = new ArrayList<>(List.of(layerAlias));
            for (Table t : tables) {
                if (t == layer) {
                    continue;
                }
                String name = Identifiers.upper(t.getName());
                String a = alias(t);
                if (!sameSchema(t, layer) || aliases.contains(a)) {
                    throw NO;
                }
                aliases.add(a);
                if (name.equals(folder + CHANNELS) && channelAlias == null) {
                    channelAlias = a;
                } else if (name.equals(folder + IOVS) && tagTable() && objectAlias == null) {
                    objectAlias = a;
                } else {
                    throw NO;
                }
            }
        }

        /** The one table whose name ends with {@code suffix}, or null when none does. */
        private static Table named(List<Table> tables, String suffix) throws NotRecognised {
            Table found = null;
            for (Table t : tables) {
                String name = Identifiers.upper(t.getName());
                if (name.endsWith(suffix) && name.length() > suffix.length()) {
                    if (found != null) {
                        throw NO;
                    }
                    found = t;
                }
            }
            return found;
        }

        private static Table table(FromItem item) throws NotRecognised {
            if (!(item instanceof Table t) || t.getName() == null) {
                throw NO;
            }
            return t;
        }

        private static boolean sameSchema(Table a, Table b) {
            String x = a.getSchemaName() == null ? null : Identifiers.upper(a.getSchemaName());
            String y = b.getSchemaName() == null ? null : Identifiers.upper(b.getSchemaName());
            return x == null ? y == null : x.equals(y);
        }

        /** The name a table's columns are qualified with: its alias, else its own name. */
        private static String alias(FromItem item) throws NotRecognised {
            if (!(item instanceof Table t)) {
                throw NO;
            }
            return t.getAlias() != null && t.getAlias().getName() != null ? Identifiers.upper(t.getAlias().getName())
                    : Identifiers.upper(t.getName());
        }

        /** Plain columns of the layer's table or of a standard tag's objects, without aliases of their own. */
        private List<CoolRead.Selected> columns() throws NotRecognised {
            List<CoolRead.Selected> out = new ArrayList<>();
            for (SelectItem<?> item : select.getSelectItems()) {
                if (item.getAlias() != null || !(item.getExpression() instanceof Column c)) {
                    throw NO;
                }
                String name = Identifiers.upper(c.getColumnName());
                if (name.equals("*")) {
                    throw NO;
                }
                if (ofLayer(c)) {
                    out.add(new CoolRead.Selected(layerTable, name));
                } else if (objectAlias != null && objectAlias.equals(qualifier(c))) {
                    out.add(new CoolRead.Selected(folder + IOVS, name));
                } else {
                    throw NO;
                }
            }
            return out;
        }

        /** A column of the layer's table: qualified with its alias, or unqualified when it is the only table. */
        private boolean ofLayer(Column c) {
            String q = qualifier(c);
            return q == null ? channelAlias == null && objectAlias == null : q.equals(layerAlias);
        }

        private static String qualifier(Column c) {
            Table t = c.getTable();
            if (t == null || t.getName() == null) {
                return null;
            }
            return t.getSchemaName() != null ? "." : Identifiers.upper(t.getName());
        }

        /** {@code name} of the layer's table (or, for CHANNEL_ID, of the joined channel table). */
        private boolean isColumn(Expression e, String name, boolean channelTableToo) {
            if (!(e instanceof Column c) || !Identifiers.upper(c.getColumnName()).equals(name)) {
                return false;
            }
            String q = qualifier(c);
            return ofLayer(c) || channelTableToo && q != null && q.equals(channelAlias);
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
            if (op instanceof EqualsTo && objectAlias != null && isObjectJoin(left, right)) {
                if (objectsJoined) {
                    throw NO;
                }
                objectsJoined = true;
                return;
            }
            if (op instanceof EqualsTo && left instanceof Column c && ofLayer(c)
                    && filters().containsKey(Identifiers.upper(c.getColumnName()))) {
                filter(filters().get(Identifiers.upper(c.getColumnName())), right);
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

        /** A layer filter, at most once per block (the main block's and the probe's are told apart by the bound). */
        private void filter(Bound b, Object literal) throws NotRecognised {
            for (Condition c : conditions) {
                if (c.bound() == b) {
                    throw NO;
                }
            }
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

        /** {@code O.OBJECT_ID = I.OBJECT_ID} either way round: a tag row's object in the IOV table. */
        private boolean isObjectJoin(Expression a, Expression b) {
            return isColumn(a, OBJECT_ID, false) && isObjectId(b) || isColumn(b, OBJECT_ID, false) && isObjectId(a);
        }

        private boolean isObjectId(Expression e) {
            return e instanceof Column c && Identifiers.upper(c.getColumnName()).equals(OBJECT_ID)
                    && objectAlias.equals(qualifier(c));
        }

        /**
         * {@code COALESCE((SELECT MAX(I1.IOV_SINCE) FROM <the layer's table> I1 WHERE [L(I1) AND] I1.CHANNEL_ID =
         * <outer CHANNEL_ID> AND I1.IOV_SINCE <= t), t)}: the default key and the probe's bound; the probe's layer
         * filters are added to the conditions.
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
            Table innerTable = table(inner.getFromItem());
            if (!layerTable.equals(Identifiers.upper(innerTable.getName()))) {
                throw NO;
            }
            String innerAlias = alias(innerTable);
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
                } else if (e instanceof EqualsTo eq && eq.getLeftExpression() instanceof Column c
                        && innerAlias.equals(qualifier(c)) && filters().containsKey(Identifiers.upper(c.getColumnName()))) {
                    filter(probeBound(filters().get(Identifiers.upper(c.getColumnName()))), eq.getRightExpression());
                } else {
                    throw NO;
                }
            }
            if (!correlated || bound == null) {
                throw NO;
            }
            return new long[] {t, bound};
        }

        private static Bound probeBound(Bound main) {
            return switch (main) {
                case USER_TAG_IS -> Bound.PROBE_USER_TAG_IS;
                case NEW_HEAD_IS -> Bound.PROBE_NEW_HEAD_IS;
                case TAG_IS -> Bound.PROBE_TAG_IS;
                default -> throw new IllegalArgumentException(main.name());
            };
        }

        private static boolean innerColumn(Object e, String innerAlias, String name) {
            return e instanceof Column c && Identifiers.upper(c.getColumnName()).equals(name)
                    && innerAlias.equals(qualifier(c));
        }

        /** The enclosing block's CHANNEL_ID (the layer table's or the joined channel table's). */
        private boolean outerChannelId(Expression e, String innerAlias) {
            if (!(e instanceof Column c) || !Identifiers.upper(c.getColumnName()).equals(CHANNEL_ID)) {
                return false;
            }
            String q = qualifier(c);
            return q != null && !q.equals(innerAlias) && (q.equals(layerAlias) || q.equals(channelAlias));
        }

        /** ORDER BY the layer table's (or the joined channel table's) CHANNEL_ID, then its IOV_SINCE, ascending. */
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
