package io.outpost.store.db;

import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.StorageType;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;

/** Reads and binds payload values with the JDBC call that fits each storage type. */
public final class Payloads {
    private Payloads() {
    }

    public static Object read(ResultSet rs, int col, StorageType type) throws SQLException {
        Object v = switch (type) {
            case BOOL -> rs.getBoolean(col);
            case UCHAR, INT16 -> rs.getShort(col);
            case UINT16, INT32 -> rs.getInt(col);
            case UINT32, UINT63, INT64 -> rs.getLong(col);
            case FLOAT -> rs.getFloat(col);
            case DOUBLE -> rs.getDouble(col);
            case STRING255, STRING4K, STRING64K, STRING16M -> rs.getString(col);
            case BLOB64K, BLOB16M -> rs.getBytes(col);
        };
        return rs.wasNull() ? null : v;
    }

    public static Object[] readAll(ResultSet rs, int firstCol, PayloadSpec spec) throws SQLException {
        Object[] out = new Object[spec.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = read(rs, firstCol + i, spec.field(i).type());
        }
        return out;
    }

    public static void bind(PreparedStatement ps, int col, StorageType type, Object v) throws SQLException {
        if (v == null) {
            ps.setNull(col, sqlType(type));
            return;
        }
        switch (type) {
            case BOOL -> ps.setBoolean(col, (Boolean) v);
            case UCHAR, INT16 -> ps.setShort(col, (Short) v);
            case UINT16, INT32 -> ps.setInt(col, (Integer) v);
            case UINT32, UINT63, INT64 -> ps.setLong(col, (Long) v);
            // as the double it widens to (exact): a float's shortest text, sent by the text protocol, can lie
            // beyond the float range (MariaDB refuses 3.4028235e38 for Float.MAX_VALUE)
            case FLOAT -> ps.setDouble(col, (Float) v);
            case DOUBLE -> ps.setDouble(col, (Double) v);
            case STRING255, STRING4K, STRING64K, STRING16M -> ps.setString(col, (String) v);
            case BLOB64K, BLOB16M -> ps.setBytes(col, (byte[]) v);
        }
    }

    private static int sqlType(StorageType type) {
        return switch (type) {
            case BOOL -> Types.BOOLEAN;
            case UCHAR, INT16 -> Types.SMALLINT;
            case UINT16, INT32 -> Types.INTEGER;
            case UINT32, UINT63, INT64 -> Types.BIGINT;
            case FLOAT -> Types.REAL;
            case DOUBLE -> Types.DOUBLE;
            case STRING255, STRING4K -> Types.VARCHAR;
            case STRING64K, STRING16M -> Types.LONGVARCHAR;
            case BLOB64K, BLOB16M -> Types.VARBINARY;
        };
    }
}
