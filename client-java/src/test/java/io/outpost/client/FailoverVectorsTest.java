package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.outpost.client.testing.HostileServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The shared failover vectors (testdata/failover): each case's servers and proxies, scripted request by request by
 * failover_server.py on real sockets. The client's events, in the vectors' vocabulary, must be exactly the expected
 * trace, as the C++ and Python clients' are.
 */
class FailoverVectorsTest {
    private static final Path DIR = HostileServer.TESTDATA.resolve("failover");
    private static final JsonNode DOC = new ObjectMapper().readTree(DIR.resolve("cases.json").toFile());

    @BeforeAll
    static void python() {
        assumeTrue(HostileServer.pythonAvailable(), "the failover fixture needs python3");
    }

    static Stream<String> cases() {
        List<String> names = new ArrayList<>();
        DOC.get("cases").forEach(c -> names.add(c.get("name").stringValue()));
        return names.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theTraceIsTheExpectedOne(String name) throws Exception {
        JsonNode c = null;
        for (JsonNode each : DOC.get("cases")) {
            if (each.get("name").stringValue().equals(name)) {
                c = each;
            }
        }
        Process fixture = new ProcessBuilder("python3", DIR.resolve("failover_server.py").toString(), "--case", name)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (Writer control = new java.io.OutputStreamWriter(fixture.getOutputStream(), StandardCharsets.US_ASCII)) {
            BufferedReader said = new BufferedReader(new InputStreamReader(fixture.getInputStream(),
                    StandardCharsets.US_ASCII));
            String ports = said.readLine();
            assertThat(ports).startsWith("PORTS ");
            Map<String, String> urls = new LinkedHashMap<>();
            Map<Integer, String> names = new HashMap<>();
            for (String word : ports.substring(6).split(" ")) {
                String[] kv = word.split("=");
                urls.put(kv[0], "http://127.0.0.1:" + kv[1]);
                names.put(Integer.parseInt(kv[1]), kv[0]);
            }
            StringBuilder spec = new StringBuilder();
            c.get("servers").forEach(s -> spec.append("(serverurl=").append(urls.get(s.stringValue())).append(')'));
            c.get("proxies").forEach(p -> spec.append("(proxyurl=").append(urls.get(p.stringValue())).append(')'));
            Map<String, String> keys = new LinkedHashMap<>();
            DOC.get("base_config").properties().forEach(e -> keys.put(e.getKey(), e.getValue().stringValue()));
            c.get("config").properties().forEach(e -> keys.put(e.getKey(), e.getValue().stringValue()));
            keys.forEach((k, v) -> spec.append('(').append(k).append('=').append(v).append(')'));

            List<ClientEvent> events = new CopyOnWriteArrayList<>();
            List<Duration> sleeps = new CopyOnWriteArrayList<>();
            AtomicLong now = new AtomicLong(1_000_000_000_000L);
            try (OutpostClient client = OutpostClient.builder(ClientConfig.parse(spec.toString()))
                    .eventListener(events::add).ticker(now::get).sleeper(sleeps::add).build()) {
                int i = 0;
                for (JsonNode req : c.get("requests")) {
                    now.addAndGet(TimeUnit.SECONDS.toNanos(req.has("advance") ? req.get("advance").asLong() : 0));
                    control.write("request " + i + "\n");
                    control.flush();
                    assertThat(said.readLine()).isEqualTo("ready " + i);
                    events.clear();
                    String result = req.get("result").stringValue();
                    if (result.equals("answer")) {
                        assertThat(client.fetch(Paths.nodes()).rows()).hasSize(2);
                    } else {
                        OutpostException.Kind kind = result.equals("not-found") ? OutpostException.Kind.NOT_FOUND
                                : OutpostException.Kind.UNAVAILABLE;
                        assertThatThrownBy(() -> client.fetch(Paths.nodes())).isInstanceOf(OutpostException.class)
                                .satisfies(e -> assertThat(((OutpostException) e).kind()).isEqualTo(kind));
                    }
                    List<String> expected = new ArrayList<>();
                    req.get("trace").forEach(t -> expected.add(t.stringValue()));
                    assertThat(trace(events, names)).as("request " + i).containsExactlyElementsOf(expected);
                    i++;
                }
            }
            assertThat(sleeps).as("backoff=0: no pass waits, whatever Retry-After says")
                    .allSatisfy(d -> assertThat(d).isZero());
        } finally {
            if (!fixture.waitFor(10, TimeUnit.SECONDS)) {
                fixture.destroyForcibly();
            }
        }
    }

    /** The events in the vectors' words (testdata/failover/README.md). */
    static List<String> trace(List<ClientEvent> events, Map<Integer, String> names) {
        List<String> out = new ArrayList<>();
        for (ClientEvent e : events) {
            switch (e) {
                case ClientEvent.AttemptStarted s -> out.add("attempt route=" + route(s.route(), names) + " refresh="
                        + switch (s.refresh()) {
                            case NONE -> "plain";
                            case SOFT -> "soft";
                            case HARD -> "hard";
                        });
                case ClientEvent.AttemptFailed f -> out.add("failed route=" + route(f.route(), names) + " reason="
                        + words(f.reason()) + (f.reason() == ClientEvent.Reason.SERVER_ERROR
                        || f.reason() == ClientEvent.Reason.REQUEST_ERROR ? " status=" + f.status() : "")
                        + " next=" + words(f.decision()));
                case ClientEvent.AttemptSucceeded s -> out.add("answer route=" + route(s.route(), names));
                case ClientEvent.Backoff b -> out.add("backoff pass=" + b.pass());
                case ClientEvent.GaveUp g -> out.add("give-up");
                case ClientEvent.CacheHit h -> {
                }
            }
        }
        return out;
    }

    private static String route(Route r, Map<Integer, String> names) {
        String server = names.get(r.server().port());
        return r.isDirect() ? server : names.get(r.proxy().port()) + ">" + server;
    }

    private static String words(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
