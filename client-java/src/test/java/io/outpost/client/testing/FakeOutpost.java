package io.outpost.client.testing;

import io.outpost.wire.AnswerKind;
import io.outpost.wire.Column;
import io.outpost.wire.ColumnType;
import io.outpost.client.testing.FakeServer.Reply;
import io.outpost.client.testing.FakeServer.Request;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory Outpost origin for tests: folder {@code /A/Time} (time keys) and {@code /A/Run} (run-lumi keys),
 * each with channels 0..9 and back-to-back IOVs of {@link #STEP} keys from 0 to {@link #END}; payload
 * {@code value Double = channel * 1000 + since / STEP} and {@code label String}. Serves the native API paths.
 */
public final class FakeOutpost implements FakeServer.Handler {
    public static final long STEP = 100;
    public static final long END = 10_000;
    public static final int CHANNELS = 10;
    public static final List<Column> PAYLOAD = List.of(new Column("value", ColumnType.DOUBLE),
            new Column("label", ColumnType.STRING255));

    /** Answer the next N requests with 503. */
    public final AtomicInteger fail503 = new AtomicInteger();
    /** Cache-Control of answers. */
    public volatile String cacheControl = "public, max-age=60";
    /** The Age header to add (as if a cache had it), or null. */
    public volatile String age;

    @Override
    public Reply handle(Request r) {
        if (fail503.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return Reply.of(503, "busy".getBytes());
        }
        String[] p = r.path().split("/");
        // "", v1, bin, what, ...
        if (p.length < 4 || !p[1].equals("v1") || !p[2].equals("bin")) {
            return notFound(r);
        }
        try {
            return switch (p[3]) {
                case "nodes" -> ok(nodes());
                case "channels" -> folderOk(r, join(p, 4), this::channels);
                case "at" -> at(r, p);
                case "browse" -> browse(p);
                case "count" -> count(p);
                case "tags" -> ok(tags(join(p, 4)));
                case "tag" -> ok(tag(p[4], folder(join(p, 5))));
                default -> notFound(r);
            };
        } catch (IllegalArgumentException e) {
            return Reply.of(404, ("{\"title\":\"" + e.getMessage() + "\"}").getBytes(StandardCharsets.UTF_8),
                    "Content-Type", "application/problem+json");
        }
    }

    public static Object[] row(long channel, long since) {
        return new Object[] {channel, since, since + STEP, channel * 1000.0 + since / STEP, "c" + channel + "@" + since};
    }

    private Reply at(Request r, String[] p) {
        long t = Long.parseLong(p[5]);
        String folder = folder(join(p, 7));
        List<Object[]> rows = new ArrayList<>();
        for (int c = 0; c < CHANNELS; c++) {
            if (selected(p[6], c) && t < END) {
                rows.add(row(c, t - t % STEP));
            }
        }
        long since = t - t % STEP;
        byte[] body = WireEncoder.iovs(folder, p[4], PAYLOAD).encode(rows);
        return Reply.of(200, body, "Cache-Control", cacheControl, "X-Outpost-Valid-Since", "" + since,
                "X-Outpost-Valid-Until", "" + (since + STEP));
    }

    private Reply browse(String[] p) {
        long t1 = Long.parseLong(p[5]);
        long t2 = Long.parseLong(p[6]);
        String folder = folder(join(p, 9));
        return ok(WireEncoder.iovs(folder, p[4], PAYLOAD).encode(browseRows(p[7], t1, t2)));
    }

    private Reply count(String[] p) {
        String folder = folder(join(p, 8));
        long n = browseRows(p[7], Long.parseLong(p[5]), Long.parseLong(p[6])).size();
        return ok(new WireEncoder(AnswerKind.COUNT, folder, p[4], 0, 0, List.of(new Column("count",
                ColumnType.UINT63))).encode(List.<Object[]>of(new Object[] {n})));
    }

    public static List<Object[]> browseRows(String channels, long t1, long t2) {
        List<Object[]> rows = new ArrayList<>();
        for (int c = 0; c < CHANNELS; c++) {
            if (!selected(channels, c)) {
                continue;
            }
            for (long s = 0; s < END; s += STEP) {
                if (s <= t2 && s + STEP > t1) {
                    rows.add(row(c, s));
                }
            }
        }
        return rows;
    }

    private static boolean selected(String sel, long c) {
        if (sel.equals("all")) {
            return true;
        }
        if (sel.startsWith("name:")) {
            return sel.equals("name:c" + c);
        }
        for (String part : sel.split(",")) {
            String[] r = part.split("-");
            long a = Long.parseLong(r[0]);
            long b = r.length > 1 ? Long.parseLong(r[1]) : a;
            if (c >= a && c <= b) {
                return true;
            }
        }
        return false;
    }

    private static byte[] nodes() {
        List<Column> cols = List.of(new Column("path", ColumnType.STRING255), new Column("folder", ColumnType.BOOL),
                new Column("versioning", ColumnType.STRING255), new Column("keyType", ColumnType.STRING255),
                new Column("payloadSpec", ColumnType.STRING4K), new Column("description", ColumnType.STRING4K));
        return new WireEncoder(AnswerKind.NODES, "", "", 0, 0, cols).encode(List.of(
                new Object[] {"/A", false, null, null, "", "folderset"},
                new Object[] {"/A/Time", true, "SV", "time", "value:Double,label:String255", "time folder"},
                new Object[] {"/A/Run", true, "MV", "run-lumi", "value:Double,label:String255", "run folder"}));
    }

    private byte[] channels(String folder) {
        List<Column> cols = List.of(new Column("channel", ColumnType.UINT32), new Column("name", ColumnType.STRING255),
                new Column("description", ColumnType.STRING255));
        List<Object[]> rows = new ArrayList<>();
        for (long c = 0; c < CHANNELS; c++) {
            rows.add(new Object[] {c, "c" + c, null});
        }
        return new WireEncoder(AnswerKind.CHANNELS, folder, "", 0, 0, cols).encode(rows);
    }

    private static byte[] tags(String node) {
        if (!node.equals("/A") && !node.equals("/A/Time") && !node.equals("/A/Run")) {
            throw new IllegalArgumentException("no node " + node);
        }
        List<Column> cols = List.of(new Column("name", ColumnType.STRING255), new Column("node", ColumnType.STRING255),
                new Column("kind", ColumnType.STRING255), new Column("lock", ColumnType.STRING255),
                new Column("description", ColumnType.STRING4K), new Column("insertionTime", ColumnType.STRING255));
        return new WireEncoder(AnswerKind.TAGS, node, "", 0, 0, cols).encode(List.<Object[]>of(
                new Object[] {"T-1", node, "standard", "locked", "first", "2026-01-01T00:00:00Z"}));
    }

    private static byte[] tag(String tag, String folder) {
        List<Column> cols = List.of(new Column("name", ColumnType.STRING255), new Column("node", ColumnType.STRING255),
                new Column("kind", ColumnType.STRING255), new Column("lock", ColumnType.STRING255),
                new Column("description", ColumnType.STRING4K), new Column("insertionTime", ColumnType.STRING255));
        return new WireEncoder(AnswerKind.TAG, folder, tag, 0, 0, cols).encode(List.<Object[]>of(
                new Object[] {tag + "-resolved", folder, "standard", "locked", null, "2026-01-01T00:00:00Z"}));
    }

    private static String folder(String f) {
        if (!f.equals("/A/Time") && !f.equals("/A/Run")) {
            throw new IllegalArgumentException("no folder " + f);
        }
        return f;
    }

    private Reply folderOk(Request r, String folder, java.util.function.Function<String, byte[]> body) {
        return ok(body.apply(folder(folder)));
    }

    private Reply ok(byte[] body) {
        return age == null ? Reply.of(200, body, "Cache-Control", cacheControl)
                : Reply.of(200, body, "Cache-Control", cacheControl, "Age", age);
    }

    private static Reply notFound(Request r) {
        return Reply.of(404, ("{\"title\":\"Not Found\",\"detail\":\"" + r.path() + "\"}").getBytes(),
                "Content-Type", "application/problem+json");
    }

    private static String join(String[] p, int from) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < p.length; i++) {
            sb.append('/').append(p[i]);
        }
        return sb.toString();
    }
}
