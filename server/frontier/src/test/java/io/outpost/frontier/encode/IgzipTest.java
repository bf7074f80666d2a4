package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Answers compressed by ISA-L's igzip inflate to their input, with the header's level class of the level asked for.
 * The cases need the system library (package libisal2, in the packages the {@code outpost} script installs) on Java
 * 22 or later; where both are here, the binding must load: the test class path then holds the jar's Java 22 class
 * (server/frontier/pom.xml), not the Java 21 one that never finds the library.
 */
class IgzipTest {
    /** Where Debian, Ubuntu, Fedora and Alpine install shared libraries. */
    private static final List<String> LIBRARY_DIRS = List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
            "/usr/lib64", "/usr/lib", "/usr/local/lib");

    private static Igzip lib() {
        assumeTrue(Igzip.get().isPresent(), "libisal.so.2 not loadable here (not installed, or Java 21)");
        return Igzip.get().orElseThrow();
    }

    static byte[] randomText(int n, long seed) {
        Random r = new Random(seed);
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('!' + r.nextInt(94));
        }
        return b;
    }

    @Test
    void onJava22WithTheLibraryInstalledTheNativeBindingIsTheOneUsed() {
        assumeTrue(Runtime.version().feature() >= 22, "Java 21 runs the java.util.zip path only");
        boolean installed = LIBRARY_DIRS.stream().map(d -> Path.of(d, "libisal.so.2")).anyMatch(Files::exists);
        assumeTrue(installed, "libisal.so.2 is not installed here (Debian package libisal2)");
        assertThat(Igzip.get()).as("the Java 22 binding loaded the installed library").isPresent();
        assertThat(AnswerDeflate.library(5)).isEqualTo("igzip");
        assertThat(Stream.of(0, 6, 9).map(AnswerDeflate::library)).as("levels igzip does not serve")
                .containsOnly("java.util.zip");
        System.setProperty(AnswerDeflate.PROPERTY, "jdk");
        try {
            assertThat(AnswerDeflate.library(5)).isEqualTo("java.util.zip");
        } finally {
            System.clearProperty(AnswerDeflate.PROPERTY);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void zlibStreamInflatesToTheInputWithTheLevelClassAskedFor(int level) throws Exception {
        byte[] in = randomText(300_000, level);
        byte[] z = lib().zlibCompress(in, in.length, level);
        assertThat(ZlibStreams.inflate(z, in.length)).isEqualTo(in);
        assertThat(z[0]).isEqualTo((byte) 0x78);
        assertThat((z[1] & 0xff) >> 6).isEqualTo(level < 2 ? 0 : 1);
        assertThat(((z[0] & 0xff) << 8 | (z[1] & 0xff)) % 31).isZero();
        byte[] jdk = AnswerDeflate.withJdk(in, in.length, level);
        assertThat(new byte[] {z[0], z[1]}).as("the header java.util.zip writes").containsExactly(jdk[0], jdk[1]);
    }

    @Test
    void incompressibleAndEmptyInputsFitTheirBuffers() throws Exception {
        byte[] noise = new byte[BlobEncoder.WHOLE_LIMIT];
        new Random(7).nextBytes(noise);
        for (int len : new int[] {0, 1, 65_536, 65_537, noise.length}) {
            byte[] z = lib().zlibCompress(noise, len, 5);
            assertThat(ZlibStreams.inflate(z, len)).isEqualTo(java.util.Arrays.copyOf(noise, len));
        }
    }

    @Test
    void keptWorkersServeSmallerAndBiggerInputsInTurnFromManyThreads() throws Exception {
        Igzip lib = lib();
        int[] sizes = {100, 70_000, 5, 1_500_000, 65_536, 65_537, 0, 300_000};
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                int seed = t;
                done.add(pool.submit(() -> {
                    for (int round = 0; round < 3; round++) {
                        for (int size : sizes) {
                            byte[] in = randomText(size, seed * 100 + round);
                            byte[] z = lib.zlibCompress(in, in.length, 1 + round);
                            assertThat(ZlibStreams.inflate(z, in.length)).isEqualTo(in);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
