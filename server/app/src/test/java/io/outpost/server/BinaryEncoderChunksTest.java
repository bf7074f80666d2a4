package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.encode.BinaryEncoder;
import io.outpost.server.encode.Column;
import io.outpost.client.AnswerKind;
import io.outpost.server.support.WireDecoder;
import io.outpost.store.model.StorageType;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Answers larger than one compression chunk, and pooled compressors reused from one answer to the next. */
class BinaryEncoderChunksTest {

    @ParameterizedTest
    @EnumSource(BinaryEncoder.Codec.class)
    void multiChunkAnswersDecodeToEveryRowAndPooledContextsGiveIdenticalBytes(BinaryEncoder.Codec codec) throws Exception {
        List<Column> cols = List.of(new Column("channel", StorageType.UINT32), new Column("since", StorageType.UINT63),
                new Column("until", StorageType.UINT63), new Column("s", StorageType.STRING4K));
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
        WireDecoder.Table t = WireDecoder.decode(first);
        assertThat(t.rows()).hasSize(rows.size());
        assertThat(t.rows().get(2999).get(3)).isEqualTo(rows.get(2999)[3]);
        assertThat(t.rows().get(0).get(3)).isEqualTo(rows.get(0)[3]);
    }

    private static byte[] encode(BinaryEncoder.Codec codec, List<Column> cols, List<Object[]> rows) {
        BinaryEncoder e = new BinaryEncoder(codec, 1);
        e.begin(AnswerKind.IOVS, "/F", "HEAD", 0, 1, cols);
        rows.forEach(e::row);
        return e.finish();
    }
}
