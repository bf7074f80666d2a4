package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same rows at the same level give byte-identical compressed answers whatever the load: computed on an idle
 * machine, and again by several answers at once while other threads keep every core busy. Answers held whole and
 * answers too big to hold (streamed through java.util.zip) alike; by igzip where it loads and by java.util.zip. The
 * two libraries' bytes differ, but both inflate to the same record stream.
 */
class SameBytesUnderLoadTest {
    /** About 95 record bytes a row: 10,000 rows are held whole, 30,000 outgrow {@link BlobEncoder#WHOLE_LIMIT}. */
    private static final int HELD_ROWS = 10_000;
    private static final int STREAMED_ROWS = 30_000;

    record Answer(byte[] text, String md5, long fullSize) {
        byte[] compressed() {
            return Base64.getMimeDecoder().decode(text);
        }
    }

    /** likeLuis1iov's rows (channel, since, until, a 50-character string) encoded at {@code level}. */
    static Answer encode(int rows, int level) throws Exception {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        Random r = new Random(3);
        byte[] s = new byte[50];
        try (BlobEncoder enc = new BlobEncoder(sink, level)) {
            for (int ch = 0; ch < rows; ch++) {
                for (int i = 0; i < s.length; i++) {
                    s[i] = (byte) ('!' + r.nextInt(94));
                }
                enc.writeString(Long.toString(ch));
                enc.writeString("0");
                enc.writeString(Long.toString(Long.MAX_VALUE));
                enc.writeString(new String(s, StandardCharsets.US_ASCII));
                enc.writeEOR();
            }
            enc.close();
            return new Answer(sink.toByteArray(), enc.md5Hex(), enc.fullSize());
        }
    }

    @ParameterizedTest
    @CsvSource({"'', 10000", "'', 30000", "jdk, 10000", "jdk, 30000"})
    void theSameRowsGiveTheSameBytesIdleAndWithEveryCoreBusy(String deflate, int rows) throws Exception {
        System.setProperty(AnswerDeflate.PROPERTY, deflate);
        try {
            Answer idle = encode(rows, 5);
            assertThat(idle.fullSize()).as("held whole or streamed, as the case says")
                    .matches(n -> rows == HELD_ROWS ? n < BlobEncoder.WHOLE_LIMIT : n > BlobEncoder.WHOLE_LIMIT);
            int cores = Runtime.getRuntime().availableProcessors();
            AtomicBoolean busy = new AtomicBoolean(true);
            CountDownLatch spinning = new CountDownLatch(2 * cores);
            ExecutorService load = Executors.newFixedThreadPool(2 * cores);
            ExecutorService answers = Executors.newFixedThreadPool(cores + 1);
            try {
                for (int t = 0; t < 2 * cores; t++) {
                    load.execute(() -> {
                        spinning.countDown();
                        long x = 1;
                        while (busy.get()) {
                            x = x * 6364136223846793005L + 1442695040888963407L;
                        }
                        if (x == 42) {
                            System.out.print(""); // keeps the loop from being optimised away
                        }
                    });
                }
                spinning.await();
                List<Future<Answer>> underLoad = new ArrayList<>();
                for (int i = 0; i < cores + 1; i++) {
                    underLoad.add(answers.submit(() -> encode(rows, 5)));
                }
                for (Future<Answer> f : underLoad) {
                    Answer a = f.get();
                    assertThat(a.text()).as("the answer computed under load").isEqualTo(idle.text());
                    assertThat(a.md5()).isEqualTo(idle.md5());
                }
            } finally {
                busy.set(false);
                load.shutdown();
                answers.shutdown();
            }
        } finally {
            System.clearProperty(AnswerDeflate.PROPERTY);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {HELD_ROWS, STREAMED_ROWS})
    void igzipAndJavaUtilZipInflateToTheSameRecordStream(int rows) throws Exception {
        assumeTrue(Igzip.get().isPresent(), "libisal.so.2 not loadable here (not installed, or Java 21)");
        Answer viaIgzip = encode(rows, 5);
        System.setProperty(AnswerDeflate.PROPERTY, "jdk");
        Answer viaJdk;
        try {
            viaJdk = encode(rows, 5);
        } finally {
            System.clearProperty(AnswerDeflate.PROPERTY);
        }
        for (Answer a : List.of(viaIgzip, viaJdk)) {
            assertThat(a.md5()).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(a.compressed())));
        }
        assertThat(viaIgzip.fullSize()).isEqualTo(viaJdk.fullSize());
        byte[] records = ZlibStreams.inflate(viaJdk.compressed(), (int) viaJdk.fullSize());
        assertThat(records).hasSize((int) viaJdk.fullSize());
        assertThat(ZlibStreams.inflate(viaIgzip.compressed(), (int) viaIgzip.fullSize())).isEqualTo(records);
        if (rows == HELD_ROWS) {
            assertThat(viaIgzip.text()).as("compressed by igzip, not java.util.zip").isNotEqualTo(viaJdk.text());
        }
    }
}
