package io.outpost.frontier.encode;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import org.postgresql.PGResultSetMetaData;

/**
 * Writes one row's column values into a {@link BlobEncoder}, each column read the cheapest way its driver and type
 * allow, chosen once per query. The bytes sent are always those of {@code getString}'s characters' low bytes (as
 * upstream), or the raw bytes of a BLOB; the shortcuts only avoid building a String per value:
 *
 * <ul>
 *   <li>SQLite: {@code getBytes} of any non-BLOB column is SQLite's own text of the value, as {@code getString}
 *       returns it, in UTF-8;</li>
 *   <li>PostgreSQL: {@code getBytes} of a character column is the server's UTF-8 text; an integer column sent
 *       in the text format (statements not prepared on the server, e.g. a new statement each time) is the
 *       server's decimal digits, as {@code getString} returns them, and is passed on unparsed; in the binary
 *       format its raw big-endian bytes ({@code getBytes}) are written as decimal digits.</li>
 * </ul>
 * UTF-8 text is sent as is only when it is ASCII; otherwise the value is read again with {@code getString}.
 */
public final class ColumnValues {
    private enum Read { STRING, BLOB, TEXT_BYTES, DIGITS, INTEGER, BOOLEAN }
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONGS_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INTS_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORTS_BE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    private final Read[] reads;
    /**
     * Per integer column, the previous row's value and, once it came again, its digits: IOV keys repeat from row to
     * row (every channel valid until the same end, often since the same start), and writing digits was a fifth of
     * the reading thread's samples (JFR, docs/benchmarks.md).
     */
    private final long[] lastInteger;
    private final boolean[] hasLast;
    private final byte[][] lastDigits;

    private ColumnValues(Read[] reads) {
        this.reads = reads;
        this.lastInteger = new long[reads.length];
        this.hasLast = new boolean[reads.length];
        this.lastDigits = new byte[reads.length][];
    }

    /**
     * @param binary per column (1-based), whether it is sent as raw bytes (a BLOB)
     */
    public static ColumnValues of(ResultSet rs, boolean[] binary) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        String product = rs.getStatement().getConnection().getMetaData().getDatabaseProductName();
        boolean sqlite = "SQLite".equalsIgnoreCase(product);
        boolean postgres = "PostgreSQL".equalsIgnoreCase(product);
        boolean mariaDb = "MariaDB".equalsIgnoreCase(product) || "MySQL".equalsIgnoreCase(product);
        Read[] reads = new Read[md.getColumnCount() + 1];
        PGResultSetMetaData pg = postgres && md.isWrapperFor(PGResultSetMetaData.class)
                ? md.unwrap(PGResultSetMetaData.class) : null;
        for (int i = 1; i < reads.length; i++) {
            if (binary[i]) {
                reads[i] = Read.BLOB;
            } else if (sqlite) {
                reads[i] = Read.TEXT_BYTES;
            } else if (postgres) {
                reads[i] = switch (md.getColumnType(i)) {
                    case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR -> Read.TEXT_BYTES;
                    case Types.BIGINT, Types.INTEGER, Types.SMALLINT ->
                            pg != null && pg.getFormat(i) == 0 ? Read.DIGITS : Read.INTEGER;
                    case Types.BIT, Types.BOOLEAN -> Read.BOOLEAN; // described as NUMBER(1): 1 or 0, not t or f
                    default -> Read.STRING;
                };
            } else if (mariaDb) {
                reads[i] = switch (md.getColumnType(i)) {
                    case Types.BIT, Types.BOOLEAN -> Read.BOOLEAN; // BOOLEAN is TINYINT(1): 1 or 0, as on PostgreSQL
                    default -> Read.STRING;
                };
            } else {
                reads[i] = Read.STRING;
            }
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
                case INTEGER -> {
                    byte[] b = rs.getBytes(i); // the value as sent, big-endian, without getLong's conversions
                    if (b == null) {
                        enc.writeString(null);
                    } else if (b.length == 8 || b.length == 4 || b.length == 2) {
                        writeInteger(i, binaryInteger(b), enc);
                    } else {
                        writeInteger(i, rs.getLong(i), enc);
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

    /** A PostgreSQL binary {@code int8}, {@code int4} or {@code int2}. */
    static long binaryInteger(byte[] b) {
        return switch (b.length) {
            case 8 -> (long) LONGS_BE.get(b, 0);
            case 4 -> (int) INTS_BE.get(b, 0);
            default -> (short) SHORTS_BE.get(b, 0);
        };
    }

    /** {@code v}'s decimal digits, those of the column's previous value again when it repeats. */
    private void writeInteger(int column, long v, BlobEncoder enc) throws IOException {
        if (hasLast[column] && lastInteger[column] == v) {
            byte[] digits = lastDigits[column];
            if (digits == null) {
                digits = Long.toString(v).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                lastDigits[column] = digits;
            }
            enc.writeBytes(digits);
            return;
        }
        hasLast[column] = true;
        lastInteger[column] = v;
        lastDigits[column] = null;
        enc.writeLong(v);
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
