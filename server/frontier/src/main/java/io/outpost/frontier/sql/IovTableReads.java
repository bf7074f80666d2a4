package io.outpost.frontier.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;

/**
 * Which IOV tables ({@code <folder>_IOVS}, {@code <folder>_IOV2TAG}) a checked Frontier SELECT reads, query block by
 * query block, and what the block's top-level AND conditions fix with constants (literals or {@code ?} binds): the
 * key window on IOV_SINCE / IOV_UNTIL and the layer (USER_TAG_ID, TAG_ID). Conditions under OR or NOT, or compared
 * with anything but a constant, fix nothing, so the window is never narrower than what the block can read.
 */
final class IovTableReads {

    /**
     * One IOV table read in one query block.
     *
     * @param from       lowest key a row the block can return is valid at (from IOV_UNTIL &gt; t, IOV_SINCE &gt;= t), or null
     * @param to         highest key a row the block can return starts at (from IOV_SINCE &lt;= t, IOV_UNTIL &lt;= t), or null
     * @param sinceProbe the block is COOL's nested {@code MAX(IOV_SINCE)} probe for the last IOV starting at or
     *                   before t1, which the enclosing browse bounds from below
     * @param visibleOnly the block keeps only visible rows ({@code NEW_HEAD_ID = 0})
     * @param blockTables every table the block reads directly
     */
    record Read(String table, Long from, Long to, Long userTagId, Long tagId, boolean sinceProbe, boolean visibleOnly,
                Set<String> blockTables) {
        boolean isTagTable() {
            return table.endsWith("_IOV2TAG");
        }
    }

    private IovTableReads() {
    }

    static boolean isIovTable(String upperName) {
        return upperName.endsWith("_IOVS") || upperName.endsWith("_IOV2TAG");
    }

    /** The reads of {@code statement} (already admitted by {@link AllowList}), with {@code binds} for its {@code ?}s. */
    static List<Read> of(Select statement, List<String> binds) {
        List<Read> out = new ArrayList<>();
        for (PlainSelect b : QueryBlocks.of(statement)) {
            new Block(b, b != statement, binds).reads(out);
        }
        return out;
    }

    /** One query block: its own tables by alias, and what its AND conditions fix. */
    private static final class Block {
        private final PlainSelect select;
        private final boolean nested;
        private final List<String> binds;
        private final Map<String, String> tables = new LinkedHashMap<>();
        private Long from;
        private Long to;
        private Long userTagId;
        private Long tagId;
        private boolean visibleOnly;

        Block(PlainSelect select, boolean nested, List<String> binds) {
            this.select = select;
            this.nested = nested;
            this.binds = binds;
            addTable(select.getFromItem());
            if (select.getJoins() != null) {
                for (Join j : select.getJoins()) {
                    addTable(j.getFromItem());
                }
            }
        }

        private void addTable(FromItem item) {
            if (item instanceof Table t && t.getName() != null) {
                String name = upper(t.getName());
                tables.putIfAbsent(name, name); // columns may be qualified by the table's name as well as its alias
                if (t.getAlias() != null && t.getAlias().getName() != null) {
                    tables.put(upper(t.getAlias().getName()), name);
                }
            }
        }

        void reads(List<Read> out) {
            if (tables.values().stream().noneMatch(IovTableReads::isIovTable)) {
                return;
            }
            if (select.getWhere() != null) {
                for (Expression e : JoinShapeCheck.conjuncts(select.getWhere(), new ArrayList<>())) {
                    condition(e);
                }
            }
            boolean probe = nested && isSinceProbe();
            Set<String> all = Set.copyOf(tables.values());
            for (String t : new java.util.LinkedHashSet<>(tables.values())) {
                if (isIovTable(t)) {
                    out.add(new Read(t, from, to, userTagId, tagId, probe, visibleOnly, all));
                }
            }
        }

        private boolean isSinceProbe() {
            List<SelectItem<?>> items = select.getSelectItems();
            if (items == null || items.size() != 1 || !(items.get(0).getExpression() instanceof Function f)
                    || !"MAX".equalsIgnoreCase(f.getName()) || f.getParameters() == null || f.getParameters().size() != 1) {
                return false;
            }
            return f.getParameters().get(0) instanceof Column c && "IOV_SINCE".equals(upper(c.getColumnName()));
        }

        private void condition(Expression e) {
            if (e instanceof Between b && !b.isNot() && b.getLeftExpression() instanceof Column c) {
                Long lo = constant(b.getBetweenExpressionStart());
                Long hi = constant(b.getBetweenExpressionEnd());
                if (lo != null) {
                    bound(c, ">=", lo);
                }
                if (hi != null) {
                    bound(c, "<=", hi);
                }
                return;
            }
            if (!(e instanceof ComparisonOperator op)) {
                return;
            }
            String sign = op.getStringExpression().trim();
            if (op.getLeftExpression() instanceof Column c) {
                Long v = constant(op.getRightExpression());
                if (v != null) {
                    bound(c, sign, v);
                }
            } else if (op.getRightExpression() instanceof Column c) {
                Long v = constant(op.getLeftExpression());
                if (v != null) {
                    bound(c, flip(sign), v);
                }
            }
        }

        /** Narrows the window or fixes the layer for {@code column sign v}, if the column is one of this block's. */
        private void bound(Column c, String sign, long v) {
            String qualifier = c.getTable() == null || c.getTable().getName() == null ? null : upper(c.getTable().getName());
            String table = qualifier == null ? null : tables.get(qualifier);
            if (qualifier != null && (table == null || !isIovTable(table))) {
                return; // a column of another table, or of an enclosing block
            }
            switch (upper(c.getColumnName())) {
                case "IOV_SINCE" -> {
                    switch (sign) {
                        case "=" -> {
                            atLeast(v);
                            atMost(v);
                        }
                        case ">=" -> atLeast(v);
                        case ">" -> atLeast(plus(v, 1));
                        case "<=" -> atMost(v);
                        case "<" -> atMost(plus(v, -1));
                        default -> {
                        }
                    }
                }
                case "IOV_UNTIL" -> {
                    // a row with until u is valid up to u - 1 and starts at u - 1 at the latest
                    switch (sign) {
                        case "=" -> {
                            atLeast(plus(v, -1));
                            atMost(plus(v, -1));
                        }
                        case ">" -> atLeast(v);
                        case ">=" -> atLeast(plus(v, -1));
                        case "<=" -> atMost(plus(v, -1));
                        case "<" -> atMost(plus(v, -2));
                        default -> {
                        }
                    }
                }
                case "USER_TAG_ID" -> {
                    if (sign.equals("=") && (table == null || !table.endsWith("_IOV2TAG"))) {
                        userTagId = v;
                    }
                }
                case "NEW_HEAD_ID" -> {
                    if (sign.equals("=") && v == 0 && (table == null || !table.endsWith("_IOV2TAG"))) {
                        visibleOnly = true;
                    }
                }
                case "TAG_ID" -> {
                    if (sign.equals("=") && (table == null || table.endsWith("_IOV2TAG"))) {
                        tagId = v;
                    }
                }
                default -> {
                }
            }
        }

        private void atLeast(long v) {
            from = from == null ? v : Math.max(from, v);
        }

        private void atMost(long v) {
            to = to == null ? v : Math.min(to, v);
        }

        /** The value of a literal, a numeric string, a {@code ?} bind, or a cast of one; null for anything else. */
        private Long constant(Expression e) {
            if (e instanceof LongValue v) {
                return parse(v.getStringValue());
            }
            if (e instanceof StringValue s) {
                return parse(s.getValue());
            }
            if (e instanceof SignedExpression s && s.getSign() == '-') {
                Long v = constant(s.getExpression());
                return v == null || v == Long.MIN_VALUE ? null : -v;
            }
            if (e instanceof JdbcParameter p && p.getIndex() != null && p.getIndex() >= 1 && p.getIndex() <= binds.size()) {
                return parse(binds.get(p.getIndex() - 1));
            }
            if (e instanceof CastExpression c) {
                return constant(c.getLeftExpression());
            }
            if (e instanceof ParenthesedExpressionList<?> p && p.size() == 1) {
                return constant(p.get(0));
            }
            return null;
        }
    }

    private static String flip(String sign) {
        return switch (sign) {
            case "<" -> ">";
            case "<=" -> ">=";
            case ">" -> "<";
            case ">=" -> "<=";
            default -> sign;
        };
    }

    private static long plus(long v, long d) {
        long r = v + d;
        return ((v ^ r) & (d ^ r)) < 0 ? (d < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
    }

    private static Long parse(String s) {
        if (s == null) {
            return null;
        }
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String upper(String id) {
        String s = id;
        if (s.length() >= 2 && (s.startsWith("\"") && s.endsWith("\"") || s.startsWith("`") && s.endsWith("`"))) {
            s = s.substring(1, s.length() - 1);
        }
        return s.toUpperCase(Locale.ROOT);
    }
}
