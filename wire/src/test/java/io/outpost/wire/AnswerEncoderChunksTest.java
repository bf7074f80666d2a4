package io.outpost.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Answers larger than one compression chunk, and pooled compressors reused from one answer to the next. */
class AnswerEncoderChunksTest {

    @ParameterizedTest
    @EnumSource(Codec.class)
    void multiChunkAnswersDecodeToEveryRowAndPooledContextsGiveIdenticalBytes(Codec codec) throws Exception {
        List<Column> cols = List.of(new Column("channel", ColumnType.UINT32), new Column("since", ColumnType.UINT63),
                new Column("until", ColumnType.UINT63), new Column("s", ColumnType.STRING4K));
        Random rnd = new Random(7);
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            StringBuilder s = new StringBuilder();
            for (int k = 0; k < 200; k++) {
                s.append((char) ('a' + rnd.nextInt(26)));
            }
            rows.add(new Object[] {(long) i, (long) i * 10, (long) i * 10 + 10, s.toString()});
        }
        byte[] first = encode(codec, cols, rows);
        byte[] second = encode(codec, cols, rows); // takes the context the first one returned to the pool
        assertThat(second).isEqualTo(first);

        try (AnswerDecoder d = new AnswerDecoder(new ByteArrayInputStream(first), first.length)) {
            AnswerHeader h = d.readHeader();
            assertThat(h.codec()).isEqualTo(codec);
            assertThat(h.schema().columns()).isEqualTo(cols);
            List<Object[]> decoded = new ArrayList<>();
            for (Object[] row = d.nextRow(); row != null; row = d.nextRow()) {
                decoded.add(row);
            }
            assertThat(decoded).hasSameSizeAs(rows);
            for (int i = 0; i < rows.size(); i++) {
                assertThat(decoded.get(i)).as("row %d", i).containsExactly(rows.get(i));
            }
            assertThat(d.isDone()).isTrue();
        }
    }

    private static byte[] encode(Codec codec, List<Column> cols, List<Object[]> rows) {
        AnswerEncoder e = new AnswerEncoder(codec, 1);
        e.begin(AnswerKind.IOVS, "/F", "HEAD", 0, 1, cols);
        rows.forEach(e::row);
        return e.finish();
    }
}
