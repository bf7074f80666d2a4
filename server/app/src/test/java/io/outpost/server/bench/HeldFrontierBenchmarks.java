package io.outpost.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.P1Codec;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.read.IovReader;
import io.outpost.store.workload.Workload;
import io.outpost.store.workload.WorkloadGenerator;
import io.outpost.testkit.FrontierDecoder;
import io.outpost.testkit.PostgresServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Frontier at-time reads of likeLuis1iov (10,000 channels, one 50-character IOV each) as grid jobs send them through
 * CORAL (GridCoolJob's statement), every request another key, answered from held rows, against the native API's cold
 * answers from the same held rows and against the same statements answered by the database
 * ({@code outpost.rows.enabled=false}), on one PostgreSQL database, at 1 and 20 connections, slices rotating between
 * the three (docs/benchmarks.md). Every timed answer is checked: status 200 and the bytes of its path's probe answer,
 * whose 10,000 rows were decoded and compared with the store's own browse at that key.
 * {@code -Dbench.jfr=DIR} also records five seconds of each path at one connection with JFR into DIR.
 */
@Tag("benchmark")
class HeldFrontierBenchmarks {
        /** Keys inside likeLuis1iov's IOV that no other benchmark asks. */
    private static final AtomicLong NEXT_KEY = new AtomicLong(95_000_000_000L);
    private static final long KEY_BASE = Workload.T0 / 100_000_000_000L * 100_000_000_000L;
    private static final String FRONTIER = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=BLOBzip5&p1=";

    private record Path(String name, RunningService service, LongFunction<String> url, byte[] expected) {
    }

    @Test
    void frontierFromHeldRowsAgainstNativeAndDatabasePostgres() throws Exception {
        singleVersion("bench_frontier_held", HeldFrontierBenchmarks::statement, GRID_COLUMNS,
                "Frontier at-time likeLuis1iov (10k rows, PostgreSQL)");
    }

    /** The same with COOL's own select list: the whole IOV row, then the payload (RelationalObjectTable's). */
    @Test
    void frontierWholeCoolRowFromHeldRowsAgainstNativeAndDatabasePostgres() throws Exception {
        singleVersion("bench_frontier_held_row", HeldFrontierBenchmarks::coolRowStatement, COOL_ROW_COLUMNS,
                "Frontier at-time likeLuis1iov, COOL's whole IOV row and payload (10k rows, PostgreSQL)");
    }

    /** GridCoolJob's columns, and COOL's own select list of a folder with payload S. */
    private static final List<String> GRID_COLUMNS = List.of("CHANNEL_ID", "IOV_SINCE", "IOV_UNTIL", "S");
    private static final List<String> COOL_ROW_COLUMNS = List.of("OBJECT_ID", "CHANNEL_ID", "IOV_SINCE", "IOV_UNTIL",
            "USER_TAG_ID", "SYS_INSTIME", "LASTMOD_DATE", "ORIGINAL_ID", "NEW_HEAD_ID", "S");

    /** likeLuis1iov read at one key per request with {@code statement}, selecting {@code columns}. */
    private static void singleVersion(String database, java.util.function.BiFunction<Node, Long, String> statement,
                                      List<String> columns, String what) throws Exception {
        String url = PostgresServer.shared().createDatabase(database);
        try (IovStore loader = IovStore.open(io.outpost.store.db.DatabaseConfig.of(url, "postgres", ""))) {
            BenchData.load(loader, false);
        }
        try (var c = java.sql.DriverManager.getConnection(url, "postgres", ""); var st = c.createStatement()) {
            st.execute("VACUUM ANALYZE"); // as after any bulk load
        }
        String[] common = {"--outpost.database.user=postgres", "--outpost.demo-data=false",
            "--logging.level.outpost.access=warn"};
        try (RunningService held = RunningService.start(url, common);
             RunningService fromDatabase = RunningService.start(url, concat(common, "--outpost.rows.enabled=false"))) {
            Node luis = held.bean(IovStore.class).folder(BenchData.LUIS);
            LongFunction<String> frontier = t -> FRONTIER + P1Codec.encode(statement.apply(luis, t));
            LongFunction<String> nativeAt = t -> "/v1/bin/at/HEAD/" + t + "/all" + BenchData.LUIS;
            List<Path> paths = List.of(
                    new Path("native held", held, nativeAt, checkedNative(held, nativeAt)),
                    new Path("Frontier held", held, frontier, checkedFrontier(held, frontier, BenchData.LUIS, null,
                            columns)),
                    new Path("Frontier database", fromDatabase, frontier, checkedFrontier(fromDatabase, frontier,
                            BenchData.LUIS, null, columns)));
            assertThat(paths.get(2).expected()).as("the same bytes from the database").isEqualTo(paths.get(1).expected());
            double heldBefore = held.metric("outpost_frontier_answers_total",
                    java.util.regex.Pattern.compile("source=\"held\""));
            for (Path p : paths) {
                run(p, 20, 3); // warm-up: JIT, pools, the held rows' first build
            }
            assertThat(held.metric("outpost_frontier_answers_total", java.util.regex.Pattern.compile("source=\"held\"")))
                    .as("Frontier answers from held rows").isGreaterThan(heldBefore);
            String jfr = System.getProperty("bench.jfr");
            if (jfr != null) { // a profile of each path at one connection, before the timed slices
                for (Path p : paths) {
                    try (jdk.jfr.Recording rec = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"))) {
                        rec.start();
                        run(p, 1, 5);
                        rec.stop();
                        rec.dump(java.nio.file.Path.of(jfr, database + "-" + p.name().replace(' ', '-') + ".jfr"));
                    }
                }
            }
            compare(paths, what);
        }
    }

    /**
     * likeLuis1iov's rows in a multi-version folder, read in a standard tag as COOL reads one (the tag table, its
     * objects joined for the payload): half the channels written again after the first write, so the IOV table also
     * holds the rows that write hid (their left parts at the same since), then the HEAD tagged. Frontier's tagged
     * statements from held rows against the native API's cold answers in the same tag and against the same
     * statements from the database.
     */
    @Test
    void frontierStandardTagFromHeldRowsAgainstNativeAndDatabasePostgres() throws Exception {
        String url = PostgresServer.shared().createDatabase("bench_frontier_held_tag");
        String folder = "/LOAD/likeLuis1iovTagged";
        String tag = "LUIS_TAGGED";
        try (IovStore loader = IovStore.open(io.outpost.store.db.DatabaseConfig.of(url, "postgres", ""))) {
            Node f = loader.createFolder(folder, Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("s:String255"),
                    "", true);
            WorkloadGenerator gen = new WorkloadGenerator(loader, 7);
            for (int pass = 0; pass < 2; pass++) {
                List<NewIov> rows = new ArrayList<>();
                for (int ch = pass; ch < 10_000; ch += pass + 1) {
                    rows.add(new NewIov(ch, KEY_BASE + pass, ValidityKey.MAX, gen.randomString(50)));
                }
                loader.store(f, rows);
            }
            loader.tagCurrentHead(f, tag, "likeLuis1iov tagged");
        }
        try (var c = java.sql.DriverManager.getConnection(url, "postgres", ""); var st = c.createStatement()) {
            st.execute("VACUUM ANALYZE");
        }
        String[] common = {"--outpost.database.user=postgres", "--outpost.demo-data=false",
            "--logging.level.outpost.access=warn"};
        try (RunningService held = RunningService.start(url, common);
             RunningService database = RunningService.start(url, concat(common, "--outpost.rows.enabled=false"))) {
            IovStore store = held.bean(IovStore.class);
            Node f = store.folder(folder);
            long tagId = store.tag(tag).id();
            LongFunction<String> frontier = t -> FRONTIER + P1Codec.encode(standardTagStatement(f, tagId, t));
            LongFunction<String> nativeAt = t -> "/v1/bin/at/" + tag + "/" + t + "/all" + folder;
            List<Path> paths = List.of(
                    new Path("native held", held, nativeAt, checkedNative(held, nativeAt, folder, tag)),
                    new Path("Frontier held", held, frontier, checkedFrontier(held, frontier, folder, tag)),
                    new Path("Frontier database", database, frontier, checkedFrontier(database, frontier, folder, tag)));
            assertThat(paths.get(2).expected()).as("the same bytes from the database").isEqualTo(paths.get(1).expected());
            java.util.regex.Pattern fromHeld = java.util.regex.Pattern.compile("source=\"held\"");
            double heldBefore = held.metric("outpost_frontier_answers_total", fromHeld);
            for (Path p : paths) {
                run(p, 20, 3); // warm-up: JIT, pools, the held rows' first build
            }
            assertThat(held.metric("outpost_frontier_answers_total", fromHeld)).as("Frontier answers from held rows")
                    .isGreaterThan(heldBefore + 20);
            assertThat(database.metric("outpost_frontier_answers_total", fromHeld)).isZero();
            compare(paths, "Frontier at-time in a standard tag, likeLuis1iov in a multi-version folder (10k rows,"
                    + " PostgreSQL)");
        }
    }

    /** The three paths side by side at 1 and 20 connections, slices rotating between them; reports the ratios. */
    private static void compare(List<Path> paths, String what) throws Exception {
        for (int conns : new int[] {1, 20}) {
            int slices = 3;
            double[][] sum = new double[paths.size()][2];
            for (int slice = 0; slice < slices; slice++) {
                for (int k = 0; k < paths.size(); k++) {
                    int p = (k + slice) % paths.size(); // each slice starts with another path
                    TimedClients.Slice r = run(paths.get(p), conns, 3);
                    sum[p][0] += r.answersPerSecond() / slices;
                    sum[p][1] += r.serviceCpuMsPerAnswer() / slices;
                }
            }
            double toNative = sum[1][0] / sum[0][0];
            double toDatabase = sum[1][0] / sum[2][0];
            ServiceBenchmarks.report(String.format(Locale.ROOT, "%s,"
                    + " %d connection(s), every request another key: held rows %.1f answers/s (%.2f ms service CPU),"
                    + " native held %.1f answers/s (%.2f ms), Frontier from the database %.1f answers/s (%.2f ms);"
                    + " held vs native %.2f (target >= 0.7, %s), held vs database %.2f (target >= 5, %s)", what, conns,
                    sum[1][0], sum[1][1], sum[0][0], sum[0][1], sum[2][0], sum[2][1], toNative,
                    toNative >= 0.7 ? "met" : "NOT met", toDatabase, toDatabase >= 5 ? "met" : "NOT met"));
        }
    }

    /** COOL's at-time read of a standard tag at key t: the tag table's rows, the interval and payload from the objects. */
    static String standardTagStatement(Node folder, long tagId, long t) {
        String tags = folder.iov2TagTable().toUpperCase(Locale.ROOT);
        String iovs = folder.iovTable().toUpperCase(Locale.ROOT);
        String channels = folder.channelTable().toUpperCase(Locale.ROOT);
        return "SELECT /*+ QB_NAME(MAIN) */ I4.CHANNEL_ID, I4.IOV_SINCE, I4.IOV_UNTIL, I4.S FROM " + channels + " C2, "
                + tags + " I3, " + iovs + " I4 WHERE I3.TAG_ID = " + tagId + " AND I3.CHANNEL_ID = C2.CHANNEL_ID AND "
                + "I3.IOV_SINCE >= COALESCE((SELECT /*+ QB_NAME(MAX1) */ MAX(I1.IOV_SINCE) FROM " + tags + " I1 WHERE "
                + "I1.TAG_ID = " + tagId + " AND I1.CHANNEL_ID = C2.CHANNEL_ID AND I1.IOV_SINCE <= " + t + "), " + t
                + ") AND I3.IOV_SINCE <= " + t + " AND I3.IOV_UNTIL > " + t + " AND I4.OBJECT_ID = I3.OBJECT_ID"
                + " ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE";
    }

    /** GridCoolJob's single-version at-time read of the folder at key t, as CORAL sends it. */
    static String statement(Node folder, long t) {
        String iovs = folder.iovTable().toUpperCase(Locale.ROOT);
        String channels = folder.channelTable().toUpperCase(Locale.ROOT);
        return "SELECT /*+ QB_NAME(MAIN) */ I3.CHANNEL_ID, I3.IOV_SINCE, I3.IOV_UNTIL, I3.S FROM " + channels
                + " C2, " + iovs + " I3 WHERE I3.CHANNEL_ID = C2.CHANNEL_ID AND I3.IOV_SINCE >= COALESCE(("
                + "SELECT /*+ QB_NAME(MAX1) */ MAX(I1.IOV_SINCE) FROM " + iovs + " I1 WHERE I1.CHANNEL_ID = "
                + "C2.CHANNEL_ID AND I1.IOV_SINCE <= " + t + "), " + t + ") AND I3.IOV_SINCE <= " + t
                + " AND I3.IOV_UNTIL > " + t + " ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE";
    }

    /** COOL's own at-time read of a single-version folder at key t: the whole IOV row, then the payload. */
    static String coolRowStatement(Node folder, long t) {
        String iovs = folder.iovTable().toUpperCase(Locale.ROOT);
        String channels = folder.channelTable().toUpperCase(Locale.ROOT);
        return "SELECT /*+ QB_NAME(MAIN) */ I3.OBJECT_ID, I3.CHANNEL_ID, I3.IOV_SINCE, I3.IOV_UNTIL, I3.USER_TAG_ID,"
                + " I3.SYS_INSTIME, I3.LASTMOD_DATE, I3.ORIGINAL_ID, I3.NEW_HEAD_ID, I3.S FROM " + channels + " C2, "
                + iovs + " I3 WHERE I3.CHANNEL_ID = C2.CHANNEL_ID AND I3.IOV_SINCE >= COALESCE(("
                + "SELECT /*+ QB_NAME(MAX1) */ MAX(I1.IOV_SINCE) FROM " + iovs + " I1 WHERE I1.CHANNEL_ID = "
                + "C2.CHANNEL_ID AND I1.IOV_SINCE <= " + t + "), " + t + ") AND I3.IOV_SINCE <= " + t
                + " AND I3.IOV_UNTIL > " + t + " ORDER BY I3.CHANNEL_ID, I3.IOV_SINCE";
    }

    /** The store's own rows at key t of a folder layer (tag null: the HEAD), each as text. */
    private static List<List<String>> storeRows(RunningService svc, String folder, String tag, long t) {
        List<List<String>> rows = BenchData.rowsAt(svc.bean(IovStore.class), folder, tag, t);
        assertThat(rows).hasSize(10_000);
        return rows;
    }

    private static byte[] checkedFrontier(RunningService svc, LongFunction<String> url, String folder, String tag)
            throws Exception {
        return checkedFrontier(svc, url, folder, tag, GRID_COLUMNS);
    }

    /**
     * The probe answer of a Frontier path, after checking its 10,000 rows' channel, interval and payload against the
     * store's (and with the whole row, each row's object id and insertion time).
     */
    private static byte[] checkedFrontier(RunningService svc, LongFunction<String> url, String folder, String tag,
                                          List<String> columns) throws Exception {
        long t = nextKey();
        byte[] body = fetch(svc, url.apply(t));
        FrontierDecoder.Payload p = FrontierDecoder.decode(body).only();
        assertThat(p.error()).as(p.message()).isFalse();
        assertThat(p.columns()).containsExactlyElementsOf(columns);
        int[] at = GRID_COLUMNS.stream().mapToInt(columns::indexOf).toArray();
        assertThat(p.data().stream().map(r -> Arrays.stream(at).mapToObj(r::get).toList()).toList())
                .isEqualTo(storeRows(svc, folder, tag, t));
        if (columns.contains("OBJECT_ID")) {
            IovStore store = svc.bean(IovStore.class);
            Node f = store.folder(folder);
            List<List<String>> ids = new ArrayList<>();
            store.browse(IovReader.spec(f, store.layer(f, tag), t, t, ChannelSelection.all()),
                    iov -> ids.add(List.of(String.valueOf(iov.objectId()), iov.insertionTime())));
            int id = columns.indexOf("OBJECT_ID");
            int time = columns.indexOf("SYS_INSTIME");
            assertThat(p.data().stream().map(r -> List.of(r.get(id), r.get(time))).toList()).isEqualTo(ids);
        }
        return body;
    }

    /** The probe answer of the native API, after checking its 10,000 rows against the store's. */
    private static byte[] checkedNative(RunningService svc, LongFunction<String> url) throws Exception {
        return checkedNative(svc, url, BenchData.LUIS, null);
    }

    private static byte[] checkedNative(RunningService svc, LongFunction<String> url, String folder, String tag)
            throws Exception {
        long t = nextKey();
        byte[] body = fetch(svc, url.apply(t));
        io.outpost.server.support.WireDecoder.Table table = io.outpost.server.support.WireDecoder.decode(body);
        assertThat(table.rows().stream().map(r -> r.stream().map(String::valueOf).toList()).toList())
                .isEqualTo(storeRows(svc, folder, tag, t));
        return body;
    }

    private static long nextKey() {
        return KEY_BASE + NEXT_KEY.incrementAndGet();
    }

    private static byte[] fetch(RunningService svc, String path) throws Exception {
        var r = svc.get(path, "X-Frontier-Id", "outpost-bench 1.0");
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        return r.body();
    }

    /**
     * {@code conns} clients, each on a keep-alive connection of its own, asking another key each time for
     * {@code seconds}; any answer other than 200 with the expected bytes fails the benchmark.
     */
    private static TimedClients.Slice run(Path path, int conns, int seconds) throws Exception {
        return TimedClients.run(conns, seconds, (client, end) -> client(path, client, end));
    }

    /**
     * One client's loop on a connection of its own from its own loopback address (a distinct client); returns its
     * answers (every one checked).
     */
    private static long client(Path path, int client, long end) throws IOException {
        byte[] expected = path.expected();
        long answers = 0;
        try (LoopbackClient c = new LoopbackClient(path.service().port(), client)) {
            while (System.nanoTime() < end) {
                String target = path.url().apply(nextKey());
                byte[] body = c.get(target, "outpost-bench 1.0");
                if (c.status() != 200) {
                    throw new AssertionError(path.name() + " " + target + ": status " + c.status());
                }
                if (!Arrays.equals(body, expected)) {
                    throw new AssertionError(path.name() + ": " + body.length + " bytes, not the expected answer");
                }
                answers++;
            }
        }
        return answers;
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
