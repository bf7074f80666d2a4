package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.support.RunningService;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What deploy/ relies on, against the real service started as the Helm chart starts it (actuator on a management
 * port of its own, health probe groups on): the kubelet's probes and Prometheus, which come from the pod network and
 * not from loopback, reach health and metrics there; and every metric the Grafana dashboard
 * (deploy/grafana/outpost.json) queries is in the service's /actuator/prometheus.
 */
class KubernetesDeploymentTest {
    private static final Path DASHBOARD = Path.of("../../deploy/grafana/outpost.json");
    /** Another loopback address: not in outpost.management.addresses (127.0.0.1, ::1), like a pod's address. */
    private static final String POD_NETWORK_ADDRESS = "127.0.0.2";
    private static RunningService svc;
    private static HttpClient fromPodNetwork;
    private static int managementPort;

    @BeforeAll
    static void start() throws Exception {
        svc = RunningService.startSqliteDemo("--management.server.port=0",
                "--management.endpoint.health.probes.enabled=true", "--server.shutdown=graceful");
        managementPort = Integer.parseInt(svc.context().getEnvironment().getProperty("local.management.port"));
        fromPodNetwork = HttpClient.newBuilder().localAddress(InetAddress.getByName(POD_NETWORK_ADDRESS))
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() {
        if (svc != null) {
            svc.close();
        }
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return fromPodNetwork.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void probesAndPrometheusAnswerThePodNetworkOnTheManagementPortOnly() throws Exception {
        HttpResponse<String> liveness = get(managementPort, "/actuator/health/liveness");
        assertThat(liveness.statusCode()).isEqualTo(200);
        assertThat(liveness.body()).contains("\"status\":\"UP\"");
        HttpResponse<String> readiness = get(managementPort, "/actuator/health/readiness");
        assertThat(readiness.statusCode()).isEqualTo(200);
        assertThat(readiness.body()).contains("\"status\":\"UP\"");
        HttpResponse<String> prometheus = get(managementPort, "/actuator/prometheus");
        assertThat(prometheus.statusCode()).isEqualTo(200);
        assertThat(prometheus.body()).contains("outpost_cache_loads_total");
        // the service port, which the Squid and so the jobs reach, has no actuator beyond the status
        assertThat(get(svc.port(), "/actuator/prometheus").statusCode()).isEqualTo(404);
        assertThat(get(svc.port(), "/actuator/health/liveness").statusCode()).isEqualTo(404);
    }

    @Test
    void everyMetricTheDashboardQueriesIsExported() throws Exception {
        Set<String> queried = dashboardMetricNames(JsonMapper.builder().build().readTree(Files.readString(DASHBOARD)));
        // what the dashboard is for: request rates, hit ratio, refusals by reason, pools, held rows, staleness
        assertThat(queried).contains("outpost_requests_seconds_count", "outpost_cache_hits_total",
                "outpost_frontier_requests_total", "outpost_connections_closed_total", "hikaricp_connections_pending",
                "outpost_rows_bytes", "outpost_catalog_age_seconds");

        // a native answer computed, then served from memory, a Frontier query: meters registered on first use exist
        String answer = "/v1/json/at/HEAD/1/all/DEMO/Calo/Pedestals";
        assertThat(svc.get(answer).statusCode()).isEqualTo(200);
        assertThat(svc.get(answer).statusCode()).isEqualTo(200);
        String sql = "SELECT NODE_FULLPATH FROM OUTPOST_NODES WHERE NODE_ISLEAF = 1 ORDER BY NODE_FULLPATH";
        assertThat(svc.get("/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOB&p1="
                + io.outpost.frontier.protocol.P1Codec.encode(sql), "X-Frontier-Id", "outpost-test 1.0").statusCode())
                .isEqualTo(200);

        Set<String> exported = exportedMetricNames(get(managementPort, "/actuator/prometheus").body());
        Set<String> missing = new TreeSet<>(queried);
        missing.removeAll(exported);
        assertThat(missing).as("metrics the dashboard queries that /actuator/prometheus does not export").isEmpty();
    }

    @Test
    void metricNamesAreFoundInPromql() {
        assertThat(metricNames("sum by (outcome) (rate(outpost_frontier_requests_total{job=~\"$job\", "
                + "outcome=~\"busy|x\"}[$__rate_interval])) / clamp_min(sum(rate(b_total[5m])), 1e-9)"))
                .containsExactlyInAnyOrder("outpost_frontier_requests_total", "b_total");
        assertThat(metricNames("label_values(outpost_cache_loads_total{job=~\"$job\"}, instance)"))
                .containsExactly("outpost_cache_loads_total");
        assertThat(metricNames("max by (pool) (a) and on(pool) c offset 5m")).containsExactlyInAnyOrder("a", "c");
    }

    /** The metric names in every panel's queries and in the template variables' queries. */
    static Set<String> dashboardMetricNames(JsonNode dashboard) {
        Set<String> names = new TreeSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                names.addAll(metricNames(target.path("expr").asString("")));
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("type").asString("").equals("query")) {
                JsonNode q = variable.path("query");
                names.addAll(metricNames(q.isObject() ? q.path("query").asString("") : q.asString("")));
            }
        }
        return names;
    }

    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)");
    private static final Pattern TOKEN = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*(\\s*\\()?");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan");

    /** Names of the series a PromQL expression (or a Grafana label_values query) reads. */
    static Set<String> metricNames(String promql) {
        Set<String> names = new TreeSet<>();
        Matcher lv = LABEL_VALUES.matcher(promql);
        if (lv.find()) {
            names.add(lv.group(1));
            return names;
        }
        String s = promql.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"") // strings (regexes of label matchers)
                .replaceAll("\\{[^}]*}", " ") // label matchers
                .replaceAll("\\[[^]]*]", " ") // ranges, with Grafana's $__rate_interval
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ") // label lists
                .replaceAll("\\$\\{?\\w+}?", " ") // Grafana variables
                .replaceAll("\\b\\d[\\w.+-]*", " "); // numbers (1e-9) and durations (5m)
        Matcher m = TOKEN.matcher(s);
        while (m.find()) {
            String token = m.group().replaceAll("[\\s(]", "");
            if (m.group(1) == null && !KEYWORDS.contains(token.toLowerCase())) {
                names.add(token);
            }
        }
        return names;
    }

    /** Names of the samples in a Prometheus text exposition. */
    static Set<String> exportedMetricNames(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }
}
