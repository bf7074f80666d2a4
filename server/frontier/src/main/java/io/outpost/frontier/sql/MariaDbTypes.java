package io.outpost.frontier.sql;

import java.sql.Types;

/**
 * MariaDB's UNSIGNED integer columns in Oracle's terms. COOL's unsigned payload types are UNSIGNED columns there (a
 * UInt16 is a SMALLINT UNSIGNED), and the driver types them by their width alone, as the signed type of that width,
 * which cannot hold their upper half (CORAL reads a NUMBER(5) into a short). They are described as the next wider
 * signed type, as PostgreSQL stores them: UChar NUMBER(5), UInt16 NUMBER(10), UInt32 and UInt63 NUMBER(20).
 */
public final class MariaDbTypes {
    private MariaDbTypes() {
    }

    /** The NUMBER precision of an unsigned integer column of this JDBC type, or 0 when it is no integer type. */
    public static int unsignedPrecision(int jdbcType) {
        return switch (jdbcType) {
            case Types.TINYINT -> 5;
            case Types.SMALLINT -> 10;
            case Types.INTEGER, Types.BIGINT -> 20;
            default -> 0;
        };
    }

    /** The dictionary type of a column the catalog describes as {@code typeName} (e.g. {@code SMALLINT UNSIGNED}). */
    static OracleType of(int jdbcType, String typeName, int size, int digits) {
        int unsigned = typeName != null && typeName.toUpperCase(java.util.Locale.ROOT).contains("UNSIGNED")
                ? unsignedPrecision(jdbcType) : 0;
        return unsigned > 0 ? OracleType.number(unsigned, 0) : OracleType.of(jdbcType, typeName, size, digits);
    }
}
