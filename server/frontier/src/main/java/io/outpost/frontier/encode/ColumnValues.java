package io.outpost.frontier.encode;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import org.postgresql.PGResultSetMetaData;
import org.postgresql.PGStatement;

/**
 * Writes one row's column values into a {@link BlobEncoder}, each column read the cheapest way its driver and type
 * allow, chosen once per query. The bytes sent are always those of {@code getString}'s characters' low bytes (as
 * upstream), or the raw bytes of a BLOB; the shortcuts only avoid building a String per value:
 *
 * <ul>
 *   <li>SQLite: {@code getBytes} of any non-BLOB column is SQLite's own text of the value, as {@code getString}
 *       returns it, in UTF-8;</li>
 *   <li>PostgreSQL: {@code getBytes} of a character column is the server's UTF-8 text; an integer column in the
 *       text format ({@link #textFormat}) is the server's decimal digits, as {@code getString} returns them, and is
 *       passed on unparsed.</li>
 * </ul>
 * UTF-8 text is sent as is only when it is ASCII; otherwise the value is read again with {@code getString}.
 */
public final class ColumnValues {
    private enum Read { STRING, BLOB, TEXT_BYTES, DIGITS, BOOLEAN }
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final Read[] reads;

    private ColumnValues(Read[] reads) {
        this.reads = reads;
    }

    /**
     * A PostgreSQL statement whose rows are to come in the text format: it is never prepared on the server. pgjdbc
     * prepares a statement on the server from its fifth execution on a connection and then reads numbers and times in
     * the binary format, where {@code getString} gives Java's text ({@code 3.0}, {@code 1.0E10}) instead of the
     * server's ({@code 3}, {@code 10000000000}): the same query's answer would change after its fourth time. The text
     * format also costs the reader less: integers pass through as the server's digits. No-op for other drivers.
     */
    public static void textFormat(PreparedStatement ps) throws SQLException {
        if (ps.isWrapperFor(PGStatement.class)) {
            ps.unwrap(PGStatement.class).setPrepareThreshold(0);
        }
    }

    /**
     * Rows read with getString (getBytes for a BLOB). Which reading suits a driver is its Frontier dialect's choice
     * ({@code FrontierDialect.columnValues}).
     *
     * @param binary per column (1-based), whether it is sent as raw bytes (a BLOB)
     */
    public static ColumnValues strings(ResultSet rs, boolean[] binary) throws SQLException {
        return build(rs, binary, (md, i) -> Read.STRING);
    }

    /** SQLite: every value's text as the driver's bytes (no String made for ASCII). */
    public static ColumnValues sqlite(ResultSet rs, boolean[] binary) throws SQLException {
        return build(rs, binary, (md, i) -> Read.TEXT_BYTES);
    }

    /** PostgreSQL: texts as bytes, integers in the text format as their digits, booleans as 1 or 0. */
    public static ColumnValues postgres(ResultSet rs, boolean[] binary) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        PGResultSetMetaData pg = meta.isWrapperFor(PGResultSetMetaData.class)
                ? meta.unwrap(PGResultSetMetaData.class) : null;
        return build(rs, binary, (md, i) -> switch (md.getColumnType(i)) {
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR -> Read.TEXT_BYTES;
            // in the binary format (a statement prepared on the server elsewhere than textFormat) getString
            // writes the digits
            case Types.BIGINT, Types.INTEGER, Types.SMALLINT ->
                    pg != null && pg.getFormat(i) == 0 ? Read.DIGITS : Read.STRING;
            case Types.BIT, Types.BOOLEAN -> Read.BOOLEAN; // described as NUMBER(1): 1 or 0, not t or f
            default -> Read.STRING;
        });
    }

    /** MariaDB: booleans as 1 or 0 (BOOLEAN is TINYINT(1)), as on PostgreSQL. */
    public static ColumnValues mariaDb(ResultSet rs, boolean[] binary) throws SQLException {
        return build(rs, binary, (md, i) -> switch (md.getColumnType(i)) {
            case Types.BIT, Types.BOOLEAN -> Read.BOOLEAN;
            default -> Read.STRING;
        });
    }

    @FunctionalInterface
    private interface ReadOf {
        Read of(ResultSetMetaData md, int column) throws SQLException;
    }

    private static ColumnValues build(ResultSet rs, boolean[] binary, ReadOf readOf) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        Read[] reads = new Read[md.getColumnCount() + 1];
        for (int i = 1; i < reads.length; i++) {
            reads[i] = binary[i] ? Read.BLOB : readOf.of(md, i);
        }
        return new ColumnValues(reads);
    }

    /** The current row's values, in column order (no end-of-record marker). */
    public void writeRow(ResultSet rs, BlobEncoder enc) throws SQLException, IOException {
        for (int i = 1; i < reads.length; i++) {
            switch (reads[i]) {
                case BLOB -> enc.writeBytes(rs.getBytes(i));
                case TEXT_BYTES -> {
                    byte[] b = rs.getBytes(i);
                    if (b == null || isAscii(b)) {
                        enc.writeBytes(b);
                    } else {
                        enc.writeString(rs.getString(i));
                    }
                }
                case DIGITS -> {
                    byte[] b = rs.getBytes(i);
                    if (b == null) {
                        enc.writeString(null);
                    } else {
                        enc.writeBytes(b);
                    }
                }
                case BOOLEAN -> {
                    boolean v = rs.getBoolean(i);
                    enc.writeString(rs.wasNull() ? null : v ? "1" : "0");
                }
                case STRING -> enc.writeString(rs.getString(i));
            }
        }
    }

    /** Eight bytes a step: no byte of an ASCII text has its top bit set. */
    static boolean isAscii(byte[] b) {
        int i = 0;
        for (; i + 8 <= b.length; i += 8) {
            if (((long) LONGS.get(b, i) & 0x8080808080808080L) != 0) {
                return false;
            }
        }
        for (; i < b.length; i++) {
            if (b[i] < 0) {
                return false;
            }
        }
        return true;
    }
}
