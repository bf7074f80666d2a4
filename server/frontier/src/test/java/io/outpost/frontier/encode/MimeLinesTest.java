package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The stream writes exactly the JDK MIME encoder's text of everything written, however the writes are cut. */
class MimeLinesTest {

    @Test
    void sameTextAsTheMimeEncoderForAnySplitOfTheInput() throws Exception {
        Random r = new Random(17);
        for (int round = 0; round < 300; round++) {
            int len = round < 120 ? round : r.nextInt(200_000);
            byte[] in = new byte[len];
            r.nextBytes(in);
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            MimeLines lines = new MimeLines(sink);
            for (int off = 0; off < len; ) {
                int n = Math.min(len - off, switch (round % 4) {
                    case 0 -> 1;
                    case 1 -> r.nextInt(120);
                    case 2 -> 57 * (1 + r.nextInt(3));
                    default -> r.nextInt(70_000);
                });
                lines.write(in, off, n);
                off += n;
            }
            lines.close();
            lines.close(); // twice: nothing more
            assertThat(sink.toByteArray()).as("round " + round + ", " + len + " bytes")
                    .isEqualTo(MimeLines.MIME.encode(in));
        }
    }

    @Test
    void closeClosesTheStreamBelow() throws Exception {
        boolean[] closed = {false};
        ByteArrayOutputStream sink = new ByteArrayOutputStream() {
            @Override
            public void close() {
                closed[0] = true;
            }
        };
        MimeLines lines = new MimeLines(sink);
        lines.write(new byte[] {1, 2}, 0, 2);
        assertThat(sink.size()).isZero(); // a partial line waits
        lines.close();
        assertThat(new String(sink.toByteArray(), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("AQI=");
        assertThat(closed[0]).isTrue();
    }
}
