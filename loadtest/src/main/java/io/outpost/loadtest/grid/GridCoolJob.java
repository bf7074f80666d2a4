package io.outpost.loadtest.grid;

import io.outpost.client.ClientConfig;
import io.outpost.client.Endpoint;
import io.outpost.frontier.protocol.P1Codec;
import io.outpost.loadtest.SnapshotModel;
import io.outpost.testkit.FrontierDecoder;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A job that reads its conditions as COOL does through Frontier: the folders' table names from the node table, then
 * per folder COOL's at-time statement (the single-version shape of {@code queryDefinitionGeneric}, literals pasted
 * in as CORAL's Frontier plugin does), each a GET of the Frontier endpoint. Routes in the Frontier client's order:
 * the first origin through each site Squid, then each origin directly; every route is tried in a round, rounds
 * repeat with the configured backoff up to the configured retries.
 */
final class GridCoolJob {
    private static final String CONTEXT = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOBzip5&p1=";
    private static final String NODES = "SELECT N.NODE_FULLPATH, N.FOLDER_IOVTABLENAME, N.FOLDER_CHANNELTABLENAME "
            + "FROM OUTPOST_NODES N WHERE N.NODE_ISLEAF = 1 ORDER BY N.NODE_FULLPATH";

    private record Route(HttpClient http, Endpoint server) {
    }

    /**
     * Frontier requests the host's COOL jobs run at once: a client host stands for worker nodes whose job slots
     * bound how many jobs read at once. Half the origins' per-client limit ({@link GridDriver#COOL_REQUESTS_PER_HOST}):
     * a request a job gave up on may still run at the origin (Squid completes what a client abandoned). On a machine
     * at load 40 a job took a minute and a host had some 150 jobs reading at once, which a site's worker node does
     * not; the origins refused 234 of their requests.
     */
    static final int REQUESTS_AT_ONCE = GridDriver.COOL_REQUESTS_PER_HOST / 2;

    private final List<Route> routes = new ArrayList<>();
    private final ClientConfig cfg;
    private final Duration timeout;
    private final java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(REQUESTS_AT_ONCE);

    /** The HTTP clients are shared by the host's jobs (connections, not answers: Frontier clients keep none). */
    GridCoolJob(ClientConfig cfg, Duration timeout) {
        this.cfg = cfg;
        this.timeout = timeout;
        Endpoint first = cfg.servers().get(0);
        for (Endpoint p : cfg.proxies()) {
            routes.add(new Route(HttpClient.newBuilder().connectTimeout(cfg.connectTimeout())
                    .proxy(ProxySelector.of(new InetSocketAddress(p.host(), p.port()))).build(), first));
        }
        HttpClient direct = HttpClient.newBuilder().connectTimeout(cfg.connectTimeout()).build();
        for (Endpoint s : cfg.servers()) {
            routes.add(new Route(direct, s));
        }
    }

    /** The SQL COOL sends for an at-time read of all channels of a single-version folder at key t. */
    static String atTime(String iovTable, String channelTable, long t) {
        return "SELECT /*+ QB_NAME(MAIN) */ I3.CHANNEL_ID, I3.IOV_SINCE, I3.IOV_UNTIL, I3.S FROM " + channelTable
                + " C2, " + iovTable + " I3 WHERE I3.CHANNEL_ID = C2.CHANNEL_ID AND I3.IOV_SINCE >= COALESCE(("
                + "SELECT /*+ QB_NAME(MAX1) */ MAX(I1.IOV_SINCE) FROM " + iovTable + " I1 WHERE I1.CHANNEL_ID = "
                + "C2.CHANNEL_ID AND I1.IOV_SINCE <= " + t + "), " + t + ") AND I3.IOV_SINCE <= " + t
                + " AND I3.IOV_UNTIL > " + t + " ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE";
    }

    /**
     * Reads every folder of the model at key t; per folder the variant of its rows (see {@link GridJobs}): "0"
     * before the writer's first append, "1" after it, "x" neither.
     */
    Map<Integer, String> read(SnapshotModel m, long t, AtomicInteger requests) throws Exception {
        Map<String, List<String>> tables = new HashMap<>();
        for (List<String> row : get(NODES, requests)) {
            tables.put(row.get(0), row);
        }
        Map<Integer, String> variants = new HashMap<>();
        for (int f = 0; f < m.folders(); f++) {
            List<String> node = tables.get(m.folder(f));
            if (node == null) {
                throw new IllegalStateException("no node " + m.folder(f));
            }
            List<List<String>> rows = get(atTime(node.get(1), node.get(2), t), requests);
            variants.put(f, matches(m, f, rows, false) ? "0" : matches(m, f, rows, true) ? "1" : "x");
        }
        return variants;
    }

    private static boolean matches(SnapshotModel m, int f, List<List<String>> rows, boolean appended) {
        if (rows.size() != m.channels(f)) {
            return false;
        }
        for (int c = 0; c < rows.size(); c++) {
            List<String> r = rows.get(c);
            if (!r.get(0).equals(Integer.toString(c))
                    || Long.parseLong(r.get(1)) != m.since(c, SnapshotModel.IOVS - 1)
                    || Long.parseLong(r.get(2)) != m.untilAtJobKey(c, appended)
                    || !m.payload(f, c, SnapshotModel.IOVS - 1).equals(r.get(3))) {
                return false;
            }
        }
        return true;
    }

    private List<List<String>> get(String sql, AtomicInteger requests) throws Exception {
        String path = CONTEXT + P1Codec.encode(sql);
        Exception last = null;
        for (int round = 0; round <= cfg.retries(); round++) {
            for (Route r : routes) {
                try {
                    HttpResponse<byte[]> resp;
                    slots.acquire();
                    try {
                        resp = r.http().send(HttpRequest.newBuilder(r.server().resolve(path))
                                .timeout(timeout).header("X-Frontier-Id", "outpost-grid cool-job").build(),
                                HttpResponse.BodyHandlers.ofByteArray());
                    } finally {
                        slots.release();
                    }
                    if (resp.statusCode() != 200) {
                        throw new IllegalStateException("HTTP " + resp.statusCode());
                    }
                    List<List<String>> rows = rows(resp.body());
                    requests.incrementAndGet();
                    return rows;
                } catch (java.io.IOException | IllegalStateException e) {
                    last = e;
                }
            }
            TimeUnit.MILLISECONDS.sleep(cfg.backoffBase().toMillis()); // the client's backoff between rounds
        }
        throw last;
    }

    /**
     * The data rows of a one-payload answer, read with the test kit's Frontier decoder; a payload error or a broken
     * answer is an exception naming it, so that the job tries its next server as the client would.
     */
    private static List<List<String>> rows(byte[] body) {
        FrontierDecoder.Payload payload;
        try {
            payload = FrontierDecoder.decode(body).only();
        } catch (AssertionError e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        if (payload.error()) {
            throw new IllegalStateException("Frontier payload error: " + payload.message());
        }
        return payload.data();
    }
}
