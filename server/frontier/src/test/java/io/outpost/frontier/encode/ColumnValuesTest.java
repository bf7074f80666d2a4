package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.sql.FrontierDialect;
import io.outpost.frontier.sql.FrontierDialects;
import io.outpost.store.IovStore;
import io.outpost.store.testing.Backends;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The per-column shortcuts send exactly the bytes of the plain {@code getString} (low byte per char) encoding. */
class ColumnValuesTest {

    @ParameterizedTest
    @EnumSource(Backends.class)
    void shortcutsSendTheSameBytesAsGetString(Backends b) throws Exception {
        try (IovStore store = IovStore.open(b.freshConfig("column_values"))) {
            try (Connection c = store.database().writePool().getConnection()) {
                c.setAutoCommit(true);
                try (Statement st = c.createStatement()) {
                    st.execute("CREATE TABLE cv (id BIGINT, n INTEGER, s SMALLINT, v VARCHAR(100), t TEXT, ch CHAR(3), "
                            + "r REAL, d NUMERIC(12,3), bl " + switch (b) {
                                case SQLITE -> "BLOB";
                                case POSTGRESQL -> "BYTEA";
                                case MARIADB -> "LONGBLOB";
                            } + ")");
                }
                Object[][] rows = {
                    {0L, 0, 0, "", "", "abc", 0.0, "0.000", new byte[0]},
                    {Long.MAX_VALUE, Integer.MAX_VALUE, 32767, "plain ascii", "x", "a", 1.5, "123456789.125", new byte[] {1, -1}},
                    {Long.MIN_VALUE, Integer.MIN_VALUE, -32768, "caf\u00e9 \u20ac \u0101", "\u00ff", "\u00e9", -2.25e-7, "-1.5", new byte[] {0}},
                    {-1L, -10, -9, "line\nbreak\ttab\u0001ctl", "very " + "long ".repeat(3000), "zz", 1e30, "42", null},
                    {null, null, null, null, null, null, null, null, null},
                    {-1L, -10, -9, "a", "b", "c", 2.0, "1", null},
                    {-1L, -10, -9, "a", "b", "c", 2.0, "1", null},
                    {-2L, -10, 9, "a", "b", "c", 2.0, "1", null},
                };
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO cv VALUES (?,?,?,?,?,?,?,?,?)")) {
                    for (Object[] row : rows) {
                        for (int i = 0; i < row.length; i++) {
                            if (i == 7 && row[i] != null) {
                                ps.setBigDecimal(i + 1, new java.math.BigDecimal((String) row[i]));
                            } else {
                                ps.setObject(i + 1, row[i]);
                            }
                        }
                        ps.executeUpdate();
                    }
                }
                if (b == Backends.SQLITE) {
                    // SQLite columns take any type: text in an integer column, an integer in a text column
                    try (Statement st = c.createStatement()) {
                        st.execute("INSERT INTO cv (id, n, v, r) VALUES ('not a number', 3.75, 17, 'text')");
                    }
                }
                String sql = "SELECT id, n, s, v, t, ch, r, d, bl FROM cv";
                // several times: PostgreSQL switches to binary transfer after a few executions (which changes what
                // its getString returns for some types, so both encodings read the same rows of one execution)
                for (int run = 0; run < 7; run++) {
                    byte[][] both = encodeBoth(c, FrontierDialects.of(store.database().dialect()), sql);
                    assertThat(both[0]).as("run " + run).isEqualTo(both[1]);
                    assertThat(both[0].length).isGreaterThan(15_000);
                }
            }
        }
    }

    @Test
    void asciiCheckFindsAHighByteAtEveryPosition() {
        for (int len = 0; len <= 24; len++) {
            byte[] b = new byte[len];
            java.util.Arrays.fill(b, (byte) 'x');
            assertThat(ColumnValues.isAscii(b)).as("length " + len).isTrue();
            for (int at = 0; at < len; at++) {
                b[at] = (byte) 0xC3;
                assertThat(ColumnValues.isAscii(b)).as("length %d, high byte at %d", len, at).isFalse();
                b[at] = (byte) 0x7F;
                assertThat(ColumnValues.isAscii(b)).isTrue();
                b[at] = 'x';
            }
        }
    }

    /** The record stream of the query's rows by {@link ColumnValues}, and by getString/getBytes only. */
    private static byte[][] encodeBoth(Connection c, FrontierDialect dialect, String sql) throws Exception {
        ByteArrayOutputStream fast = new ByteArrayOutputStream();
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery();
             BlobEncoder a = new BlobEncoder(fast, -1); BlobEncoder b = new BlobEncoder(plain, -1)) {
            int n = rs.getMetaData().getColumnCount();
            boolean[] binary = new boolean[n + 1];
            binary[n] = true;
            ColumnValues values = dialect.columnValues(rs, binary);
            while (rs.next()) {
                values.writeRow(rs, a);
                a.writeEOR();
                for (int i = 1; i <= n; i++) {
                    if (binary[i]) {
                        b.writeBytes(rs.getBytes(i));
                    } else {
                        b.writeString(rs.getString(i));
                    }
                }
                b.writeEOR();
            }
            a.close();
            b.close();
        }
        return new byte[][] {fast.toByteArray(), plain.toByteArray()};
    }
}
