package io.outpost.store.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.StoreException;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.PayloadSpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The loader's binary batches: whole documents of the wire format, and values that the encoding would narrow are
 * refused before anything is sent. (The service's decoding of them is tested with the write API, server/app.)
 */
class HttpWriterTest {
    private static final PayloadSpec SPEC = PayloadSpec.parse("n:Int32,label:String255");

    @Test
    void aBatchIsOneWholeDocumentWithItsRowCount() {
        byte[] doc = HttpWriter.iovTable("/A/B", List.of(new NewIov(1, 0, 10, 5L, "x"), new NewIov(2, 0, 10, null, null)),
                SPEC);
        assertThat(new String(Arrays.copyOf(doc, 4), StandardCharsets.US_ASCII)).isEqualTo("OUTP");
        ByteBuffer b = ByteBuffer.wrap(doc);
        assertThat(b.get(5)).as("codec zstd").isEqualTo((byte) 2);
        assertThat(16 + b.getLong(8) + 16).isEqualTo(doc.length);
        assertThat(b.getLong(doc.length - 16)).as("trailer row count").isEqualTo(2);
        assertThat(new String(Arrays.copyOfRange(doc, doc.length - 4, doc.length), StandardCharsets.US_ASCII))
                .isEqualTo("PTUO");
    }

    @Test
    void valuesTheEncodingWouldNarrowAreRefused() {
        assertThatThrownBy(() -> HttpWriter.iovTable("/A/B", List.of(new NewIov(1L << 32, 0, 10, 5L, "x")), SPEC))
                .isInstanceOf(StoreException.class).hasMessageContaining("channel 4294967296 is out of range");
        assertThatThrownBy(() -> HttpWriter.iovTable("/A/B", List.of(new NewIov(1, 0, 10, 1L << 40, "x")), SPEC))
                .isInstanceOf(StoreException.class).hasMessageContaining("field 'n'");
        assertThatThrownBy(() -> HttpWriter.iovTable("/A/B", List.of(new NewIov(1, 0, 10, 5L, "x".repeat(300))), SPEC))
                .isInstanceOf(StoreException.class).hasMessageContaining("field 'label'");
    }
}
