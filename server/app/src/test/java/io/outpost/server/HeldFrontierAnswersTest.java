package io.outpost.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.P1Codec;
import io.outpost.server.support.RunningService;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * COOL's IOV reads through Frontier answered from held rows are byte-identical to the database's answers: two
 * services on one database, one answering from held rows (the default) and one from the database
 * ({@code outpost.rows.enabled=false}), are sent the same random COOL statements (at-time reads with and without the
 * channel table, browses from a key, channel selections, column choices, quoted and unquoted names, hints, zip
 * levels) over random single-version histories, with writes between requests; every response body must be the same
 * bytes with the same Last-Modified and Cache-Control, and a difference names the statement (with the seed). Columns whose text each database writes its own
 * way (Double) go to the database on both services, and are compared all the same.
 */
class HeldFrontierAnswersTest {
    private static final String FRONTIER = "/Outpost/Frontier/type=frontier_request:1:DEFAULT&encoding=";
    private static final String SPEC = "s:String255,n:Int32,b:Bool,bl:Blob64k,l:Int64,u:UChar,t:String4k";
    private static final int CHANNELS = 12;

    private record Folder(Node node, List<String> payloadColumns) {
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void heldAnswersAreTheDatabasesBytes(Backends backend) throws Exception {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        DatabaseConfig cfg = backend.freshConfig("held_frontier");
        // each service takes a table set's Last-Modified when first asked and keeps it for the whole test, so that
        // both give the same one whatever the timing (a kept time expiring between the two requests would differ)
        String validate = "--outpost.frontier.contexts.Outpost.settings.ValidateLastModifiedSeconds=3600";
        String[] user = switch (backend) {
            case SQLITE -> new String[] {validate};
            case POSTGRESQL -> new String[] {validate, "--outpost.database.user=postgres"};
            case MARIADB -> new String[] {validate, "--outpost.database.user=root"};
        };
        try (IovStore loader = IovStore.open(cfg)) {
            List<Folder> folders = new ArrayList<>();
            folders.add(new Folder(loader.createFolder("/HELD/a", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse(SPEC), "", true), List.of("S", "N", "B", "BL", "L", "U", "T")));
            folders.add(new Folder(loader.createFolder("/HELD/b", Versioning.SINGLE_VERSION, KeyType.RUN_LUMI,
                    PayloadSpec.parse("x:UInt63,v:Double"), "", true), List.of("X", "V")));
            folders.add(new Folder(loader.createFolder("/HELD/mv", Versioning.MULTI_VERSION, KeyType.TIME,
                    PayloadSpec.parse("s:String255"), "", true), List.of("S")));
            for (Folder f : folders) {
                loader.createChannel(f.node(), CHANNELS + 5, "empty", "a channel without IOVs");
            }
            long[] nextSince = new long[CHANNELS];
            for (int i = 0; i < 4; i++) {
                write(loader, folders, r, nextSince);
            }
            try (RunningService held = RunningService.start(cfg.jdbcUrl(), user);
                 RunningService database = RunningService.start(cfg.jdbcUrl(), concat(user, "--outpost.rows.enabled=false"))) {
                double heldBefore = heldAnswers(held);
                int compared = 0;
                for (int i = 0; i < 160; i++) {
                    if (i % 16 == 15) {
                        write(loader, folders, r, nextSince); // a write between requests: both must see it
                    }
                    Folder f = folders.get(r.nextInt(2)); // the single-version folders (see below for the other)
                    String sql = statement(r, f, nextSince);
                    String path = FRONTIER + (r.nextInt(4) == 0 ? "BLOB" : "BLOBzip" + r.nextInt(10)) + "&p1="
                            + P1Codec.encode(sql);
                    HttpResponse<byte[]> fromDatabase = response(database, path);
                    HttpResponse<byte[]> fromHeld = response(held, path);
                    assertThat(new String(fromHeld.body(), StandardCharsets.ISO_8859_1))
                            .as("seed %d, %s: %s", seed, backend, sql)
                            .isEqualTo(new String(fromDatabase.body(), StandardCharsets.ISO_8859_1))
                            .contains("error=\"0\"");
                    for (String h : List.of("Last-Modified", "Cache-Control")) {
                        assertThat(fromHeld.headers().firstValue(h)).as("%s of seed %d, %s: %s", h, seed, backend, sql)
                                .isEqualTo(fromDatabase.headers().firstValue(h));
                    }
                    compared++;
                }
                assertThat(compared).isEqualTo(160);
                // a multi-version folder's table holds hidden rows too, some at the same since as a visible one, so
                // COOL's ORDER BY leaves the database's order open: not held, the database answers
                double heldNow = heldAnswers(held);
                assertThat(body(held, FRONTIER + "BLOBzip5&p1=" + P1Codec.encode(statement(r, folders.get(2), nextSince))))
                        .asString(StandardCharsets.ISO_8859_1).contains("error=\"0\"");
                assertThat(heldAnswers(held)).as("a multi-version folder is not answered from held rows").isEqualTo(heldNow);
                assertThat(heldAnswers(held) - heldBefore).as("answers from held rows (seed %d)", seed)
                        .isGreaterThan(40);
                assertThat(heldAnswers(database)).as("the database service never answers from held rows").isZero();
                // the held rows count Frontier's reads apart: the load tests subtract the native ones from cache loads
                assertThat(held.metric("outpost_rows_answers_total", java.util.regex.Pattern.compile("api=\"frontier\"")))
                        .isGreaterThanOrEqualTo(heldAnswers(held) - heldBefore);
                assertThat(held.metric("outpost_rows_answers_total", java.util.regex.Pattern.compile("api=\"native\"")))
                        .as("no native read in this test").isZero();
                assertThat(database.metric("outpost_frontier_answers_total",
                        java.util.regex.Pattern.compile("source=\"database\""))).isPositive();
            }
        }
    }

    /** A batch of IOVs in random channels of every folder: open-ended ones, closed ones with gaps, NULLs. */
    private static void write(IovStore store, List<Folder> folders, Random r, long[] nextSince) {
        for (Folder f : folders) {
            List<NewIov> batch = new ArrayList<>();
            for (int ch = 0; ch < CHANNELS; ch++) {
                if (r.nextInt(3) == 0) {
                    continue;
                }
                long since = nextSince[ch] + r.nextInt(50);
                long until = r.nextInt(3) == 0 ? since + 1 + r.nextInt(30) : ValidityKey.MAX;
                batch.add(new NewIov(ch, since, until, values(f, r)));
            }
            try {
                store.store(f.node(), batch);
                if (!batch.isEmpty() && r.nextBoolean()) {
                    // again at the since of an IOV just stored: COOL's single-version rules decide what stays
                    NewIov again = batch.get(r.nextInt(batch.size()));
                    store.store(f.node(), List.of(new NewIov(again.channelId(), again.since(),
                            r.nextBoolean() ? ValidityKey.MAX : again.since() + 1 + r.nextInt(40), values(f, r))));
                }
            } catch (StoreException e) {
                // a random batch COOL would refuse (e.g. before an existing IOV): nothing stored, nothing to compare
            }
        }
        for (int ch = 0; ch < CHANNELS; ch++) {
            nextSince[ch] += 60;
        }
    }

    private static Object[] values(Folder f, Random r) {
        return switch (f.payloadColumns().size()) {
            case 7 -> new Object[] {r.nextInt(5) == 0 ? null : "s" + r.nextInt(1000) + (r.nextBoolean() ? " é<&>" : ""),
                r.nextInt(), r.nextBoolean(), r.nextInt(6) == 0 ? null : bytes(r), r.nextLong(), (short) r.nextInt(256),
                r.nextInt(4) == 0 ? "" : "text " + r.nextInt()};
            case 2 -> new Object[] {r.nextLong(Long.MAX_VALUE), r.nextDouble() * 1e10};
            default -> new Object[] {"mv" + r.nextInt(100)};
        };
    }

    private static byte[] bytes(Random r) {
        byte[] b = new byte[r.nextInt(20)];
        r.nextBytes(b);
        return b;
    }

    /** One of COOL's reads of the folder at a random key, with random columns, channels, quoting and hints. */
    private static String statement(Random r, Folder f, long[] nextSince) {
        boolean quoted = r.nextBoolean();
        String iovs = name(f.node().iovTable(), quoted);
        String chans = name(f.node().channelTable(), quoted);
        String i3 = name("I3", quoted);
        String c2 = name("C2", quoted);
        String i1 = name("I1", quoted);
        long t = r.nextInt((int) nextSince[0] + 100);
        List<String> columns = new ArrayList<>(List.of("CHANNEL_ID", "IOV_SINCE", "IOV_UNTIL"));
        List<String> payload = new ArrayList<>(f.payloadColumns());
        Collections.shuffle(payload, r);
        columns.addAll(payload.subList(0, r.nextInt(payload.size() + 1)));
        if (r.nextInt(4) == 0) {
            Collections.shuffle(columns, r);
        }
        boolean joinChannels = r.nextInt(3) != 0;
        StringBuilder sql = new StringBuilder("SELECT ");
        if (r.nextBoolean()) {
            sql.append("/*+ QB_NAME(MAIN) INDEX(@MAIN I3@MAIN (CHANNEL_ID IOV_SINCE IOV_UNTIL)) */ ");
        }
        List<String> items = new ArrayList<>();
        for (String c : columns) {
            items.add(i3 + "." + name(c, quoted));
        }
        sql.append(String.join(", ", items)).append(" FROM ");
        sql.append(joinChannels ? chans + " " + c2 + ", " + iovs + " " + i3 : iovs + " " + i3);
        String outer = joinChannels ? c2 : i3;
        List<String> where = new ArrayList<>();
        if (joinChannels) {
            where.add(i3 + "." + name("CHANNEL_ID", quoted) + " = " + c2 + "." + name("CHANNEL_ID", quoted));
        }
        where.add(i3 + "." + name("IOV_SINCE", quoted) + " >= COALESCE((SELECT /*+ QB_NAME(MAX1) */ MAX(" + i1 + "."
                + name("IOV_SINCE", quoted) + ") FROM " + iovs + " " + i1 + " WHERE " + i1 + "."
                + name("CHANNEL_ID", quoted) + " = " + outer + "." + name("CHANNEL_ID", quoted) + " AND " + i1 + "."
                + name("IOV_SINCE", quoted) + " <= " + t + "), " + t + ")");
        switch (r.nextInt(3)) {
            case 0, 1 -> { // at-time
                where.add(i3 + "." + name("IOV_SINCE", quoted) + " <= " + t);
                where.add(i3 + "." + name("IOV_UNTIL", quoted) + " > " + t);
            }
            default -> { // browse from t to t2
                long t2 = t + r.nextInt(200);
                where.add(i3 + "." + name("IOV_SINCE", quoted) + " <= " + t2);
                if (r.nextBoolean()) {
                    where.add(i3 + "." + name("IOV_UNTIL", quoted) + " > " + t);
                }
            }
        }
        String channel = (r.nextBoolean() ? outer : i3) + "." + name("CHANNEL_ID", quoted);
        int lo = r.nextInt(CHANNELS);
        switch (r.nextInt(5)) {
            case 0 -> where.add(channel + " = " + lo);
            case 1 -> where.add(channel + " BETWEEN " + lo + " AND " + (lo + r.nextInt(5)));
            case 2 -> {
                where.add(channel + " >= " + lo);
                where.add(channel + " <= " + (lo + r.nextInt(8)));
            }
            default -> {
            }
        }
        Collections.shuffle(where, r);
        sql.append(" WHERE ").append(String.join(" AND ", where));
        sql.append(" ORDER BY ").append(i3).append('.').append(name("CHANNEL_ID", quoted)).append(", ").append(i3)
                .append('.').append(name("IOV_SINCE", quoted));
        return sql.toString();
    }

    private static String name(String id, boolean quoted) {
        String upper = id.toUpperCase(Locale.ROOT);
        return quoted ? "\"" + upper + "\"" : upper;
    }

    private static byte[] body(RunningService svc, String path) throws Exception {
        return response(svc, path).body();
    }

    private static HttpResponse<byte[]> response(RunningService svc, String path) throws Exception {
        HttpResponse<byte[]> resp = svc.get(path, "X-Frontier-Id", "outpost-test 1.0");
        assertThat(resp.statusCode()).as(path).isEqualTo(200);
        return resp;
    }

    private static double heldAnswers(RunningService svc) throws Exception {
        return svc.metric("outpost_frontier_answers_total", java.util.regex.Pattern.compile("source=\"held\""));
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
