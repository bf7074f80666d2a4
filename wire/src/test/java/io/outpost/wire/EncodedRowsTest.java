package io.outpost.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Rows encoded once and appended in slices give an answer byte for byte the same as the rows encoded one by one. */
class EncodedRowsTest {
    private static final List<Column> COLUMNS = List.of(new Column("channel", ColumnType.UINT32),
            new Column("since", ColumnType.UINT63), new Column("until", ColumnType.UINT63),
            new Column("b", ColumnType.BOOL), new Column("c", ColumnType.UCHAR), new Column("i16", ColumnType.INT16),
            new Column("i32", ColumnType.INT32), new Column("i64", ColumnType.INT64),
            new Column("f", ColumnType.FLOAT), new Column("d", ColumnType.DOUBLE),
            new Column("s", ColumnType.STRING4K), new Column("blob", ColumnType.BLOB64K));

    @ParameterizedTest
    @EnumSource(Codec.class)
    void slicesOfEncodedRowsGiveTheBytesOfRowByRowEncoding(Codec codec) {
        Random rnd = new Random(11);
        // around one compression chunk (128 KB, ~90-byte rows) and well past it, and small answers
        int[] counts = {0, 1, 2, 500, 1400, 1450, 1500, 3000, 10_000};
        for (int count : counts) {
            List<Object[]> rows = rows(rnd, count);
            byte[] expected = rowByRow(codec, rows);
            EncodedRows encoded = new EncodedRows(COLUMNS, 16);
            int[] start = new int[count + 1];
            for (int i = 0; i < count; i++) {
                start[i] = encoded.size();
                encoded.add(rows.get(i));
            }
            start[count] = encoded.size();
            byte[] bytes = encoded.toArray();
            for (int attempt = 0; attempt < 6; attempt++) {
                AnswerEncoder e = new AnswerEncoder(codec, 1);
                if (attempt >= 4) { // buffers sized for these rows and this answer, or far too small
                    e.expect(attempt == 4 ? bytes.length : 1, attempt == 4 ? expected.length : 1);
                }
                e.begin(AnswerKind.IOVS, "/F", "HEAD", 0, 1, COLUMNS);
                int r = 0;
                while (r < count) { // slices of 1 row up to all rows, whole rows each
                    int n = attempt == 0 ? count : 1 + rnd.nextInt(attempt == 1 ? 3 : 2000);
                    n = Math.min(n, count - r);
                    e.encodedRows(bytes, start[r], start[r + n] - start[r], n);
                    r += n;
                }
                assertThat(e.finish()).as("%d rows, %s, slicing %d", count, codec, attempt).isEqualTo(expected);
                assertThat(e.rows()).isEqualTo(count);
            }
        }
    }

    /** Rows of every value type, with nulls, random lengths and random bytes (so that compression varies). */
    private static List<Object[]> rows(Random rnd, int count) {
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            StringBuilder s = new StringBuilder();
            for (int k = rnd.nextInt(60); k > 0; k--) {
                s.append((char) (rnd.nextInt(10) == 0 ? 'é' : 'a' + rnd.nextInt(26)));
            }
            byte[] blob = new byte[rnd.nextInt(20)];
            rnd.nextBytes(blob);
            rows.add(new Object[] {(long) i, (long) i * 10, (long) i * 10 + 10, rnd.nextBoolean() ? null : true,
                (long) rnd.nextInt(256), (long) (short) rnd.nextInt(), rnd.nextBoolean() ? null : (long) rnd.nextInt(),
                rnd.nextLong(), 1.5f, rnd.nextDouble(), s.toString(), rnd.nextInt(5) == 0 ? null : blob});
        }
        return rows;
    }

    private static AnswerEncoder begin(Codec codec) {
        AnswerEncoder e = new AnswerEncoder(codec, 1);
        e.begin(AnswerKind.IOVS, "/F", "HEAD", 0, 1, COLUMNS);
        return e;
    }

    private static byte[] rowByRow(Codec codec, List<Object[]> rows) {
        AnswerEncoder e = begin(codec);
        rows.forEach(e::row);
        return e.finish();
    }
}
