package io.outpost.frontier.sql;

import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.Offset;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;

/**
 * CORAL's row limit ({@code IQuery::limitReturnedRows}) as LIMIT/OFFSET for PostgreSQL, MariaDB and SQLite, which have no
 * ROWNUM. CORAL wraps its query in one of two shapes (FrontierAccess QueryDefinition):
 * <pre>
 * SELECT * FROM (q) WHERE ROWNUM &lt; n+1
 * SELECT "A", "B" FROM (SELECT ROWNUM ROW#, "A", "B" FROM (q) ) WHERE ROW# BETWEEN o+1 AND o+n
 * </pre>
 * Both become {@code q LIMIT n [OFFSET o]}; any other use of ROWNUM is left as it is.
 */
final class RownumLimit {
    private RownumLimit() {
    }

    /** {@code select} without CORAL's ROWNUM wrapper, or {@code select} itself. */
    static Select unwrap(Select select) {
        if (!(select instanceof PlainSelect outer) || outer.getJoins() != null && !outer.getJoins().isEmpty()
                || outer.getOrderByElements() != null || outer.getGroupBy() != null || outer.getLimit() != null
                || outer.getOffset() != null || outer.getDistinct() != null
                || !(outer.getFromItem() instanceof ParenthesedSelect from)) {
            return select;
        }
        if (outer.getWhere() instanceof ComparisonOperator cmp && isColumn(cmp.getLeftExpression(), "ROWNUM")
                && isStar(outer) && cmp.getRightExpression() instanceof LongValue bound
                && (cmp instanceof MinorThan || cmp instanceof MinorThanEquals)) {
            long rows = bound.getValue() - (cmp instanceof MinorThan ? 1 : 0);
            return limited(from.getSelect(), Math.max(rows, 0), 0);
        }
        if (outer.getWhere() instanceof Between between && !between.isNot()
                && isColumn(between.getLeftExpression(), "ROW#")
                && between.getBetweenExpressionStart() instanceof LongValue first
                && between.getBetweenExpressionEnd() instanceof LongValue last
                && from.getSelect() instanceof PlainSelect numbered && numbered.getWhere() == null
                && numbered.getJoins() == null && numbered.getSelectItems().size() == outer.getSelectItems().size() + 1
                && isRowNumber(numbered.getSelectItems().get(0))
                && numbered.getFromItem() instanceof ParenthesedSelect inner) {
            long offset = Math.max(first.getValue() - 1, 0);
            return limited(inner.getSelect(), Math.max(last.getValue() - offset, 0), offset);
        }
        return select;
    }

    /** {@code q} with the limit, on {@code q} itself when it has none yet (keeping its ORDER BY), else around it. */
    private static Select limited(Select q, long rows, long offset) {
        PlainSelect target;
        if (q instanceof PlainSelect p && p.getLimit() == null && p.getOffset() == null && p.getFetch() == null) {
            target = p;
        } else {
            target = new PlainSelect().addSelectItem(new AllColumns());
            ParenthesedSelect sub = new ParenthesedSelect().withSelect(q);
            sub.setAlias(new Alias("ROWNUM_LIMITED", false));
            target.setFromItem(sub);
        }
        target.setLimit(new Limit().withRowCount(new LongValue(rows)));
        if (offset > 0) {
            target.setOffset(new Offset().withOffset(new LongValue(offset)));
        }
        return target;
    }

    private static boolean isStar(PlainSelect p) {
        return p.getSelectItems().size() == 1 && p.getSelectItems().get(0).getExpression() instanceof AllColumns;
    }

    private static boolean isRowNumber(SelectItem<?> item) {
        return isColumn(item.getExpression(), "ROWNUM") && item.getAlias() != null
                && Identifiers.upper(item.getAlias().getName()).equals("ROW#");
    }

    private static boolean isColumn(Expression e, String name) {
        return e instanceof Column c && (c.getTable() == null || c.getTable().getName() == null)
                && Identifiers.upper(c.getColumnName()).equals(name);
    }
}
