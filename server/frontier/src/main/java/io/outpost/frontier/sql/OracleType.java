package io.outpost.frontier.sql;

import java.sql.Types;
import java.util.Locale;

/** Oracle's DATA_TYPE, DATA_LENGTH, DATA_PRECISION, DATA_SCALE, CHAR_LENGTH for a JDBC column. */
record OracleType(String name, int length, Integer precision, Integer scale, int charLength) {
    static OracleType of(int jdbcType, String typeName, int size, int digits) {
        String t = typeName == null ? "" : typeName.toUpperCase(Locale.ROOT);
        if (t.contains("TIMESTAMP")) {
            return new OracleType("TIMESTAMP(6)", 11, null, 6, 0);
        }
        if (t.equals("DATE")) {
            return new OracleType("DATE", 7, null, null, 0);
        }
        if (t.contains("BLOB") || t.equals("BYTEA")) {
            return new OracleType("BLOB", 4000, null, null, 0);
        }
        if (t.contains("CLOB") || t.equals("TEXT")) {
            return new OracleType("CLOB", 4000, null, null, 0);
        }
        // SQLite reports every integer type as INTEGER: its declared name tells the width
        if (t.equals("BIGINT") || t.equals("INT8")) {
            return number(20, 0);
        }
        if (t.equals("SMALLINT") || t.equals("INT2")) {
            return number(5, 0);
        }
        return switch (jdbcType) {
            case Types.BIGINT -> number(20, 0);
            case Types.INTEGER -> number(10, 0);
            case Types.SMALLINT -> number(5, 0);
            case Types.TINYINT -> number(3, 0);
            case Types.BIT, Types.BOOLEAN -> number(1, 0);
            case Types.NUMERIC, Types.DECIMAL -> size > 0 && size <= 38 ? number(size, Math.max(digits, 0))
                    : new OracleType("NUMBER", 22, null, null, 0);
            case Types.REAL -> new OracleType("BINARY_FLOAT", 4, null, null, 0);
            case Types.FLOAT, Types.DOUBLE -> new OracleType("BINARY_DOUBLE", 8, null, null, 0);
            case Types.CHAR, Types.NCHAR -> new OracleType("CHAR", bounded(size), null, null, bounded(size));
            case Types.BLOB, Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY -> new OracleType("BLOB", 4000, null,
                    null, 0);
            case Types.DATE -> new OracleType("DATE", 7, null, null, 0);
            case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> new OracleType("TIMESTAMP(6)", 11, null, 6, 0);
            default -> new OracleType("VARCHAR2", bounded(size), null, null, bounded(size));
        };
    }

    static OracleType binaryDouble() {
        return new OracleType("BINARY_DOUBLE", 8, null, null, 0);
    }

    static OracleType number(int precision, int scale) {
        return new OracleType("NUMBER", 22, precision, scale, 0);
    }

    /** Unbounded or unknown string sizes are reported as Oracle's VARCHAR2 maximum. */
    private static int bounded(int size) {
        return size > 0 && size <= 4000 ? size : 4000;
    }
}
