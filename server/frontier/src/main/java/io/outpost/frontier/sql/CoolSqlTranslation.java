package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.OracleHint;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.create.table.ColDataType;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;

/**
 * Rewrites a statement that {@link AllowList} admitted from COOL's Oracle SQL into PostgreSQL's, SQLite's or
 * MariaDB's, in place: hints go, quoted upper-case names lose their quotes (Oracle folds unquoted names to upper
 * case, the targets to lower case), the context's own schema is dropped, DUAL becomes a one-row sub-select, NVL
 * becomes COALESCE, TO_CHAR/TO_NUMBER/TO_TIMESTAMP become casts, and CAST(.. AS INT) becomes BIGINT on
 * PostgreSQL; what MariaDB reads differently besides is {@link MariaDbSql}'s (see docs/frontier.md for the exact
 * list).
 */
final class CoolSqlTranslation {
    private final String schemaName;
    private final FrontierDialect dialect;

    /**
     * @param schemaName the context's schema (upper-case), dropped from qualified names, or null
     * @param dialect    the database's rules (one that does not run COOL's SQL as sent)
     */
    CoolSqlTranslation(String schemaName, FrontierDialect dialect) {
        if (dialect.runsCoolSqlAsSent()) {
            throw new IllegalArgumentException("Oracle runs COOL's SQL as sent");
        }
        this.schemaName = schemaName;
        this.dialect = dialect;
    }

    /** Translates {@code select} (changing it) and returns its text in the target's dialect. */
    String translate(Select select) throws FrontierException {
        return ParseTreeWalk.walk(select, new Rewrite()).toString();
    }

    private final class Rewrite implements ParseTreeWalk.Step {
        /** Tables that qualify a column: renamed, never replaced. */
        private final Set<Object> qualifiers = Collections.newSetFromMap(new IdentityHashMap<>());

        @Override
        public Object visit(Object node) throws FrontierException {
            Object own = dialect.rewrite(node);
            if (own != null) {
                return own;
            }
            return switch (node) {
                case OracleHint h -> null;
                case Column c -> {
                    c.setColumnName(unquote(c.getColumnName()));
                    if (c.getTable() != null) {
                        qualifier(c.getTable());
                    }
                    yield c;
                }
                case AllTableColumns a -> {
                    if (a.getTable() != null) {
                        qualifier(a.getTable());
                    }
                    yield a;
                }
                case Alias a -> {
                    a.setName(unquote(a.getName()));
                    yield a;
                }
                case Table t when !qualifiers.contains(t) -> table(t);
                case CastExpression ce when dialect.widensIntCasts() && ce.getColDataType() != null
                        && Set.of("INT", "INTEGER").contains(ce.getColDataType().getDataType().toUpperCase(Locale.ROOT)) -> {
                    // Oracle's INT is NUMBER(38); PostgreSQL's is 32 bits (CMS groups 64-bit keys with CAST(.. AS INT))
                    ce.setColDataType(new ColDataType("BIGINT"));
                    yield ce;
                }
                case Function f -> function(f);
                default -> node;
            };
        }

        private void qualifier(Table t) {
            qualifiers.add(t);
            List<String> parts = t.getNameParts();
            if (parts != null) {
                for (int i = 0; i < parts.size(); i++) {
                    if (parts.get(i) != null) {
                        parts.set(i, unquote(parts.get(i)));
                    }
                }
            }
            // COOL qualifies columns with aliases only; a schema-qualified column loses its schema with its table.
            if (schemaName != null && t.getSchemaName() != null && schemaName.equals(Identifiers.upper(t.getSchemaName()))) {
                t.setSchemaName(null);
            }
        }

        private Object table(Table t) {
            String upper = Identifiers.upper(t.getName());
            boolean qualified = t.getSchemaName() != null;
            if (upper.equals("DUAL") && !qualified) {
                return dual(t.getAlias());
            }
            Table plain = new Table(!qualified && DataDictionary.VIEWS.contains(upper) ? upper : unquote(t.getName()));
            plain.setAlias(t.getAlias());
            return plain;
        }

        /** {@code (SELECT 'X' AS DUMMY) DUAL}: Oracle's one-row table. */
        private Object dual(Alias alias) {
            PlainSelect one = new PlainSelect().addSelectItem(new StringValue("X"), new Alias("DUMMY"));
            ParenthesedSelect sub = new ParenthesedSelect().withSelect(one);
            sub.setAlias(alias == null ? new Alias("DUAL", false) : alias);
            return sub;
        }

        private Object function(Function f) throws FrontierException {
            String name = Identifiers.upper(f.getName());
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
                        return cast((Expression) params.get(0), dialect.castType(name));
                    }
                    if (!dialect.formatsToChar()) {
                        throw new FrontierException("SQL rejected: TO_CHAR with a format is not supported on SQLite");
                    }
                }
                case "TO_TIMESTAMP" -> {
                    // CORAL binds timestamps as TO_TIMESTAMP('YYYY-MM-DD HH:MM:SS[.F]', 'YYYY-MM-DD HH24:MI:SS.FF')
                    if (n < 1 || n > 2) {
                        throw new FrontierException("SQL rejected: TO_TIMESTAMP takes 1 or 2 arguments");
                    }
                    Expression text = (Expression) params.get(0);
                    String type = dialect.castType(name);
                    return type == null ? text : cast(text, type);
                }
                case "TO_NUMBER" -> {
                    if (n != 1) {
                        throw new FrontierException("SQL rejected: TO_NUMBER with a format is not supported");
                    }
                    return cast((Expression) params.get(0), dialect.castType(name));
                }
                default -> {
                }
            }
            return f;
        }

        private static CastExpression cast(Expression arg, String type) {
            return new CastExpression("CAST", arg, type);
        }

        /** A quoted upper-case name unquoted (on MariaDB: every name in backticks, see {@link MariaDbSql}). */
        private String unquote(String id) {
            return dialect.identifier(id);
        }
    }
}
