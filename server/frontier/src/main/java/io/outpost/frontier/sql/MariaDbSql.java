package io.outpost.frontier.sql;

import io.outpost.frontier.protocol.FrontierException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.arithmetic.Concat;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.statement.create.table.ColDataType;

/**
 * What MariaDB (and MySQL) read differently from Oracle, beyond what {@link CoolSqlTranslation} changes for every
 * target: a double-quoted name is a string there, and many names are reserved words (so every name goes into
 * backticks), {@code ||} is OR (so it
 * becomes CONCAT_WS), a backslash in a string literal is an escape (so it is written as {@code CHAR(92)}, which
 * reads the same whatever the server's {@code sql_mode}), LENGTH counts bytes (CHAR_LENGTH counts characters, as Oracle's
 * LENGTH), and the cast types have MariaDB's names. Each method returns the node to put in the slot, or null when the
 * node is not one MariaDB reads differently.
 */
final class MariaDbSql {
    private MariaDbSql() {
    }

    /**
     * A name as MariaDB must read it to mean what Oracle reads: in backticks, so that no name is taken for one of
     * MariaDB's reserved words (CMS's {@code RELEASE}, the alias {@code DUAL}); unquoted names upper-cased first, as
     * Oracle folds them (MariaDB compares table names and aliases case-sensitively, and the tables are upper-case).
     */
    static String identifier(String id) {
        if (id == null || id.isEmpty() || id.startsWith("`")) {
            return id;
        }
        String name = id.length() >= 2 && id.startsWith("\"") && id.endsWith("\"")
                ? id.substring(1, id.length() - 1).replace("\"\"", "\"") : id.toUpperCase(Locale.ROOT);
        return "`" + name.replace("`", "``") + "`";
    }

    /** The MariaDB form of {@code node}, or null to keep it. */
    static Object rewrite(Object node) throws FrontierException {
        return switch (node) {
            // Oracle's 'a' || NULL is 'a': CONCAT_WS skips NULLs where CONCAT would answer NULL
            case Concat c -> new Function("CONCAT_WS", new StringValue(""), c.getLeftExpression(),
                    c.getRightExpression());
            case StringValue s when s.getValue().indexOf('\\') >= 0 -> withoutBackslashes(s);
            case CastExpression ce when ce.getColDataType() != null -> {
                String type = ce.getColDataType().getDataType().toUpperCase(Locale.ROOT);
                // Oracle's INT holds 38 digits: SIGNED is MariaDB's 64-bit cast (CMS groups 64-bit keys with it)
                if (Set.of("INT", "INTEGER").contains(type)) {
                    ce.setColDataType(new ColDataType("SIGNED"));
                } else if (Set.of("VARCHAR", "VARCHAR2", "TEXT").contains(type)) {
                    ce.setColDataType(new ColDataType("CHAR"));
                }
                yield ce;
            }
            case Function f when "LENGTH".equals(Identifiers.upper(f.getName())) -> {
                f.setName("CHAR_LENGTH");
                yield f;
            }
            default -> null;
        };
    }

    /** The SQL type {@code TO_CHAR(x)}, {@code TO_NUMBER(x)} and {@code TO_TIMESTAMP(x)} cast to on MariaDB. */
    static String castType(String oracleFunction) {
        return switch (oracleFunction) {
            case "TO_CHAR" -> "CHAR";
            case "TO_NUMBER" -> "DOUBLE"; // MariaDB's DECIMAL would cut to the precision named in the cast
            case "TO_TIMESTAMP" -> "DATETIME(6)";
            default -> throw new IllegalArgumentException(oracleFunction);
        };
    }

    /** {@code 'a\b'} as {@code CONCAT('a', CAST(CHAR(92) AS CHAR), 'b')}: the same text in every sql_mode. */
    private static Expression withoutBackslashes(StringValue s) {
        List<Expression> parts = new ArrayList<>();
        String[] pieces = s.getValue().split("\\\\", -1);
        for (int i = 0; i < pieces.length; i++) {
            if (i > 0) {
                // CHAR(92) alone is a binary string; the cast makes it text in the connection's character set
                parts.add(new CastExpression("CAST", new Function("CHAR", new LongValue(92)), "CHAR"));
            }
            if (!pieces[i].isEmpty()) {
                parts.add(new StringValue(pieces[i]));
            }
        }
        return new Function("CONCAT", new ExpressionList<>(parts));
    }
}
