package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.HostileServer;
import io.outpost.client.testing.InProcessService;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every case of the shared hostile-server fixture (testdata/hostile) against the library (maxanswerbytes 32 MiB) and
 * against the CLI with the default maxanswerbytes in a JVM of 256 MB heap (an answer buffered without bound would
 * end it with OutOfMemoryError, not the expected error):
 * each ends with the expected failure kind and detail, the CLI with exit code 5 (every route failed), well within
 * 60 s and 1 GB of resident memory. The man in the middle relays to a real service signing with the published test key, so the client verifies
 * with the test key the replayed vector was signed with too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileServerTest {
    private static final Path SIGNATURES = HostileServer.TESTDATA.resolve("signatures");
    private static final long MAX_ANSWER = 32L << 20;
    /** 2026-01-01T05:00:00Z, inside the demo's hourly pedestals, as in the attack that was reported. */
    private static final String AT = "2026-01-01T05:00:00Z";
    private static final long AT_NS = 1767243600L * 1_000_000_000L;

    private InProcessService service;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(HostileServer.pythonAvailable(), "python3 is needed to run testdata/hostile");
        service = InProcessService.start(null, "--outpost.signing.key-file=" + SIGNATURES.resolve("test-2026.key.pem"),
                "--outpost.signing.key-id=test-2026");
    }

    @AfterAll
    void stop() {
        if (service != null) {
            service.close();
        }
    }

    /** The configuration of a job that asks {@code servers} in order, verifying with the test key. */
    private static String config(boolean signed, String... servers) {
        StringBuilder sb = new StringBuilder();
        for (String s : servers) {
            sb.append("(serverurl=").append(s).append(')');
        }
        if (signed) {
            sb.append("(security=sig)(verifykey=test-2026:").append(SIGNATURES.resolve("test-2026.pub.pem")).append(')');
        }
        return sb.append("(retries=0)(maxanswerbytes=").append(MAX_ANSWER).append(")(attempttimeoutsecs=5)")
                .append("(readtimeoutsecs=10)(connecttimeoutsecs=5)").toString();
    }

    @ParameterizedTest(name = "{0}, security=sig {1}")
    @CsvSource(delimiter = '|', textBlock = """
            endless                   | true  | UNSIGNED  | has no signature
            endless                   | false | CORRUPT   | bad magic
            chunked-forever           | true  | UNSIGNED  | has no signature
            chunked-forever           | false | CORRUPT   | bad magic
            oversized                 | true  | CORRUPT   | larger than maxanswerbytes
            oversized                 | false | CORRUPT   | larger than maxanswerbytes
            drip                      | true  | UNSIGNED  | has no signature
            drip                      | false | TIMEOUT   | attempttimeout
            big-headers               | true  | CORRUPT   | headers are too large
            big-headers               | false | CORRUPT   | headers are too large
            truncated                 | true  | UNSIGNED  | has no signature
            truncated                 | false | CORRUPT   | bad magic
            redirect-other-key        | true  | UNSIGNED  | has no signature
            replay                    | true  | UNSIGNED  | does not verify
            signed-redirect-elsewhere | true  | UNSIGNED  | does not verify
            """)
    void theLibraryEndsEveryCaseWithItsErrorKind(String name, boolean signed, OutpostException.Kind kind,
                                                  String detail) throws Exception {
        try (HostileServer hostile = HostileServer.start(name, service.url())) {
            List<ClientEvent> events = new CopyOnWriteArrayList<>();
            long start = System.nanoTime();
            try (OutpostClient c = OutpostClient.builder(ClientConfig.parse(config(signed, hostile.url())))
                    .eventListener(events::add).build()) {
                assertThatThrownBy(() -> c.objectsAt("/DEMO/Calo/Pedestals", OutpostClient.HEAD,
                        ChannelSelection.channel(1), AT_NS)).isInstanceOf(OutpostException.class)
                        .satisfies(e -> assertThat(((OutpostException) e).kind())
                                .isEqualTo(OutpostException.Kind.UNAVAILABLE));
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
            List<ClientEvent.AttemptFailed> failed = events.stream()
                    .filter(e -> e instanceof ClientEvent.AttemptFailed).map(e -> (ClientEvent.AttemptFailed) e)
                    .toList();
            assertThat(failed).isNotEmpty().allSatisfy(f -> {
                assertThat(f.kind()).as(f.detail()).isEqualTo(kind);
                assertThat(f.detail()).contains(detail);
            });
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"redirect-other-key", "replay", "signed-redirect-elsewhere"})
    void withAnHonestServerNextTheAnswerIsTheOneAskedFor(String name) throws Exception {
        try (HostileServer hostile = HostileServer.start(name, service.url());
             OutpostClient c = OutpostClient.create(ClientConfig.parse(config(true, hostile.url(), service.url())
                     + "(cachewindow=0)"))) {
            List<Iov> found = c.objectsAt("/DEMO/Calo/Pedestals", OutpostClient.HEAD, ChannelSelection.channel(1),
                    AT_NS);
            assertThat(found).hasSize(1);
            assertThat(found.get(0).since()).isLessThanOrEqualTo(AT_NS);
            assertThat(found.get(0).until()).isGreaterThan(AT_NS);
        }
    }

    /** Keeps the largest VmHWM (peak resident set) of {@code p} seen while it runs, read every 50 ms. */
    private static void sampleHighWaterMark(Process p, java.util.concurrent.atomic.AtomicLong peakKb) {
        Path status = Path.of("/proc", Long.toString(p.pid()), "status");
        while (p.isAlive()) {
            try {
                for (String line : java.nio.file.Files.readAllLines(status)) {
                    if (line.startsWith("VmHWM:")) {
                        peakKb.accumulateAndGet(Long.parseLong(line.replaceAll("[^0-9]", "")), Math::max);
                    }
                }
                p.waitFor(50, TimeUnit.MILLISECONDS);
            } catch (java.io.IOException e) {
                return; // the process has just ended
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @ParameterizedTest(name = "{0}, security=sig {1}")
    @CsvSource(delimiter = '|', textBlock = """
            endless                   | true  | has no signature           | 6
            chunked-forever           | true  | has no signature           | 6
            chunked-forever           | false | bad magic                  | 6
            oversized                 | true  | larger than maxanswerbytes | 6
            drip                      | true  | has no signature           | 6
            big-headers               | true  | headers are too large      | 6
            truncated                 | true  | has no signature           | 6
            redirect-other-key        | true  | refused                    | 6
            replay                    | true  | does not verify            | 6
            signed-redirect-elsewhere | true  | does not verify            | 6
            endless                   | false | bad magic                  | 6
            drip                      | false | attempttimeout             | 5
            """)
    void theCliInASmallHeapEndsEveryCaseWithItsExitCode(String name, boolean signed, String detail, int exit) throws Exception {
        try (HostileServer hostile = HostileServer.start(name, service.url())) {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-cp", System.getProperty("java.class.path"), "io.outpost.client.cli.OutpostCli",
                    "--config", config(signed, hostile.url()).replace("(maxanswerbytes=" + MAX_ANSWER + ")", ""), "find", "/DEMO/Calo/Pedestals", AT, "-c", "1",
                    "--no-align"));
            long start = System.nanoTime();
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            java.util.concurrent.atomic.AtomicLong peakKb = new java.util.concurrent.atomic.AtomicLong();
            Thread sampler = Thread.ofVirtual().start(() -> sampleHighWaterMark(p, peakKb));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Thread reader = Thread.ofVirtual().start(() -> {
                try (InputStream in = p.getInputStream()) {
                    in.transferTo(out);
                } catch (java.io.IOException e) {
                    // the process ended
                }
            });
            boolean ended = p.waitFor(60, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            reader.join(5000);
            sampler.join(5000);
            String text = out.toString(StandardCharsets.UTF_8);
            assertThat(ended).as("ended within 60 s: " + text).isTrue();
            assertThat(text).doesNotContain("OutOfMemoryError");
            assertThat(p.exitValue()).as(text).isEqualTo(exit); // 6: an answer on every route, none usable
            assertThat(text).contains(detail);
            assertThat(peakKb.get()).as("peak resident memory (VmHWM), KB").isBetween(1L, 1L << 20);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
        }
    }
}
