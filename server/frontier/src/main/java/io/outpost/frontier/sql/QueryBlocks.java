package io.outpost.frontier.sql;

import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.AnyComparisonExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.FromItemVisitorAdapter;
import net.sf.jsqlparser.statement.select.LateralSubSelect;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectVisitorAdapter;
import net.sf.jsqlparser.statement.select.SetOperationList;

/**
 * The query blocks of a statement and the columns of a condition, found through JSqlParser's visitors. The
 * statement has passed {@link AllowList}, so it holds only {@link KnownNodes}; {@code QueryBlocksTest} checks on
 * statements with a sub-select in every clause that the visitors find every block the field walk finds.
 */
final class QueryBlocks {
    private QueryBlocks() {
    }

    /** Every PlainSelect of {@code root}, the root's first, in the order the visitors meet them. */
    static List<PlainSelect> of(Select root) {
        List<PlainSelect> out = new ArrayList<>();
        ExpressionVisitorAdapter<Void> expressions = new ExpressionVisitorAdapter<>() {
            // JSqlParser 5.4's adapter does not look into the sub-select of {@code = ANY (SELECT ...)}
            @Override
            public <S> Void visit(AnyComparisonExpression any, S context) {
                return any.getSelect().accept(getSelectVisitor(), context);
            }
        };
        FromItemVisitorAdapter<Void> fromItems = new FromItemVisitorAdapter<>(expressions) {
            // JSqlParser 5.4's adapter takes every parenthesised FROM select for a PlainSelect (a UNION fails a cast)
            @Override
            public <S> Void visit(ParenthesedSelect select, S context) {
                return select.getSelect().accept(getSelectVisitor(), context);
            }

            @Override
            public <S> Void visit(LateralSubSelect select, S context) {
                return select.getSelect().accept(getSelectVisitor(), context);
            }
        };
        SelectVisitorAdapter<Void> selects = new SelectVisitorAdapter<>(expressions, fromItems) {
            @Override
            public <S> Void visit(PlainSelect select, S context) {
                out.add(select);
                if (select.getLimit() != null) {
                    // the adapter looks into a parenthesised select's LIMIT but not into a plain one's
                    expressions.visitLimit(select.getLimit(), context);
                }
                return super.visit(select, context);
            }
        };
        expressions.setSelectVisitor(selects);
        fromItems.setSelectVisitor(selects);
        root.accept(selects, null);
        return out;
    }

    /** The columns that {@code condition} names itself, not those of its sub-selects. */
    static List<Column> columnsOf(Expression condition) {
        List<Column> out = new ArrayList<>();
        SelectVisitorAdapter<Void> noSelects = new SelectVisitorAdapter<>() {
            @Override
            public <S> Void visit(PlainSelect select, S context) {
                return null;
            }

            @Override
            public <S> Void visit(ParenthesedSelect select, S context) {
                return null;
            }

            @Override
            public <S> Void visit(SetOperationList list, S context) {
                return null;
            }

            @Override
            public <S> Void visit(LateralSubSelect select, S context) {
                return null;
            }
        };
        condition.accept(new ExpressionVisitorAdapter<Void>(noSelects) {
            @Override
            public <S> Void visit(Column column, S context) {
                out.add(column);
                return null;
            }
        }, null);
        return out;
    }
}
