package io.outpost.server.rows;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.outpost.server.query.QueryService;
import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.model.ChannelOrder;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.TempDirs;
import io.outpost.wire.EncodedRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.util.unit.DataSize;

/**
 * Held rows answer exactly what the database answers: random SV and MV histories (overlapping MV stores, a user
 * tag, a standard tag), random keys, ranges, channel selections and every order, on SQLite, PostgreSQL and MariaDB; a write
 * is seen at once (the stamp is read per use); a folder over budget is not held; concurrent users build once.
 */
class RowStoreTest {
    private static final long MAXK = ValidityKey.MAX;

    private static RowStore rowStore(IovStore store, String maxSize, SimpleMeterRegistry registry) {
        return rowStore(store, maxSize, Duration.ofHours(1), registry);
    }

    private static RowStore rowStore(IovStore store, String maxSize, Duration tooBigRetry, SimpleMeterRegistry registry) {
        return new RowStore(store, new RowStoreProperties(true, DataSize.parse(maxSize), 0.5, tooBigRetry, true, true), registry);
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void heldRowsEqualTheDatabaseForEveryLayerQueryAndOrder(Backends backend) {
        Random rnd = new Random(42);
        try (IovStore store = backend.freshStore("rows_eq")) {
            Node sv = store.createFolder("/R/sv", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("v:Int32,s:String255"), "", true);
            Node mv = store.createFolder("/R/mv", Versioning.MULTI_VERSION, KeyType.TIME,
                    PayloadSpec.parse("v:Int32,s:String255"), "", true);
            for (int ch = 0; ch < 8; ch++) {
                store.createChannel(sv, ch, "sv" + ch, "");
                store.createChannel(mv, ch, "mv" + ch, "");
            }
            int value = 0;
            for (int ch = 0; ch < 7; ch++) { // channel 7 stays empty
                List<NewIov> batch = new ArrayList<>();
                long s = rnd.nextInt(5);
                for (int i = 0; i < 20; i++) {
                    long u = i == 19 && ch % 2 == 0 ? MAXK : s + 1 + rnd.nextInt(10);
                    batch.add(new NewIov(ch, s, u, value++, "r" + rnd.nextInt(1000)));
                    s = u + rnd.nextInt(3); // gaps
                }
                store.store(sv, batch);
            }
            for (int step = 0; step < 40; step++) {
                long ch = rnd.nextInt(7);
                long s = rnd.nextInt(150);
                long u = rnd.nextInt(5) == 0 ? MAXK : s + 1 + rnd.nextInt(30);
                NewIov o = new NewIov(ch, s, u, value++, "m" + step);
                store.store(mv, List.of(step % 5 == 0 ? o.withUserTag("UT", false) : o));
                if (step == 25) {
                    store.tagCurrentHead(mv, "STD-1", "");
                }
            }
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, "64MB", registry);
            compare(store, rows, sv, "HEAD", rnd);
            compare(store, rows, mv, "HEAD", rnd);
            compare(store, rows, mv, "UT", rnd);
            compare(store, rows, mv, "STD-1", rnd);
            assertThat(registry.counter("outpost.rows.builds").count()).as("one build per layer").isEqualTo(4);
        }
    }

    private static void compare(IovStore store, RowStore rows, Node folder, String tag, Random rnd) {
        RowStore.State state = rows.state(folder, tag);
        HeldRows held = rows.rows(folder, state);
        assertThat(held).as("%s %s held", folder.path(), tag).isNotNull();
        for (int q = 0; q < 150; q++) {
            long t1 = rnd.nextInt(10) == 0 ? 0 : rnd.nextInt(220);
            long t2 = rnd.nextInt(6) == 0 ? MAXK : rnd.nextInt(3) == 0 ? t1 : t1 + rnd.nextInt(60);
            ChannelSelection sel = switch (rnd.nextInt(4)) {
                case 0 -> ChannelSelection.all();
                case 1 -> ChannelSelection.channel(rnd.nextInt(9));
                case 2 -> ChannelSelection.ranges(List.of(new ChannelSelection.Range(0, rnd.nextInt(3)),
                        new ChannelSelection.Range(4, 4 + rnd.nextInt(4))));
                default -> ChannelSelection.named((folder.isMultiVersion() ? "mv" : "sv") + rnd.nextInt(8));
            };
            sel = sel.withOrder(ChannelOrder.values()[rnd.nextInt(4)]);
            List<String> fromDb = new ArrayList<>();
            IovStore.ReadResult r = store.read(folder, tag, t1, t2, sel,
                    iov -> fromDb.add(row(iov.channelId(), iov.since(), iov.until(), iov.payload())), true);
            List<String> fromMemory = new ArrayList<>();
            held.browse(t1, t2, sel, (ch, i) -> {
                fromMemory.add(row(ch, held.since(i), held.until(i), held.payload(i)));
                assertThat(encodedRow(held, i)).as("row %d's wire form", i).isEqualTo(encoded(folder, ch, held, i));
            });
            String what = folder.path() + " " + tag + " [" + t1 + ", " + t2 + "] " + sel;
            assertThat(fromMemory).as(what).isEqualTo(fromDb);
            assertThat(held.count(t1, t2, sel)).as("count " + what).isEqualTo(fromDb.size());
            assertThat(held.selectedChannels(sel)).as("selected channels " + what).isEqualTo(r.selectedChannels());
        }
    }

    /** A held row's wire form, as held (built whole or copied by a refresh). */
    private static byte[] encodedRow(HeldRows held, int i) {
        return java.util.Arrays.copyOfRange(held.encodedBytes(), held.encodedStart(i), held.encodedStart(i + 1));
    }

    /** The same row encoded afresh for the folder's answer columns. */
    private static byte[] encoded(Node folder, long channel, HeldRows held, int i) {
        assertThat(held.encodedColumns()).isEqualTo(QueryService.iovColumns(folder));
        EncodedRows e = new EncodedRows(held.encodedColumns(), 64);
        Object[] p = held.payload(i);
        Object[] v = new Object[3 + p.length];
        v[0] = channel;
        v[1] = held.since(i);
        v[2] = held.until(i);
        System.arraycopy(p, 0, v, 3, p.length);
        e.add(v);
        return e.toArray();
    }

    /**
     * Each held row keeps the rest of COOL's IOV row as the database has it: a single-version folder's open IOVs closed
     * in place by later writes and by truncations (seen by the incremental refresh too: no new object), and the
     * HEAD, a user tag and a standard tag of a multi-version folder whose tagged objects a later HEAD write hides
     * (the tag's rows carry its objects' changed NEW_HEAD_ID and LASTMOD_DATE). Rows of one write share their time
     * strings.
     */
    @ParameterizedTest
    @EnumSource(Backends.class)
    void heldRowsKeepTheWholeIovRowAsTheDatabaseHasIt(Backends backend) {
        try (IovStore store = backend.freshStore("rows_cols")) {
            Node sv = store.createFolder("/C/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, "64MB", registry);
            int value = 0;
            for (int step = 0; step < 12; step++) {
                if (step % 4 == 3) {
                    assertThat(store.truncateValidity(sv, 10L * step + 5, ChannelSelection.channel(step % 3)))
                            .as("truncated at step %d", step).isEqualTo(1);
                } else {
                    List<NewIov> batch = new ArrayList<>();
                    for (long ch = 0; ch < 3; ch++) {
                        batch.add(new NewIov(ch, 10L * step + ch, MAXK, value++));
                    }
                    store.store(sv, batch); // closes each channel's open IOV in place
                }
                HeldRows held = rows.rows(sv, rows.state(sv, "HEAD"));
                assertThat(wholeRows(held)).as("step %d", step).isEqualTo(databaseRows(store, sv, "1 = 1", null));
            }
            assertThat(registry.counter("outpost.rows.refreshes").count()).as("refreshed, not built").isEqualTo(11);
            // at 105, the three rows of step 10's write (channels 0 and 1 kept by the last refresh, 2 read again)
            HeldRows last = rows.rows(sv, rows.state(sv, "HEAD"));
            List<Integer> written = new ArrayList<>();
            last.browse(105, 105, ChannelSelection.all(), (ch, r) -> written.add(r));
            assertThat(written).hasSize(3);
            assertThat(last.insertionTime(written.get(0))).as("one write, one string")
                    .isSameAs(last.insertionTime(written.get(1))).isSameAs(last.insertionTime(written.get(2)))
                    .isSameAs(last.lastModDate(written.get(0)));

            Node mv = store.createFolder("/C/mv", Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            for (int step = 0; step < 10; step++) {
                NewIov o = new NewIov(step % 3, 7L * step, step % 4 == 0 ? MAXK : 7L * step + 20, value++);
                store.store(mv, List.of(step % 3 == 0 ? o.withUserTag("UT", true) : o));
            }
            store.tagCurrentHead(mv, "STD", "");
            store.store(mv, List.of(new NewIov(0, 0, MAXK, value++), new NewIov(1, 15, 40, value++)));
            long tag = store.tag("STD").id();
            assertThat(databaseRows(store, mv, "O.NEW_HEAD_ID <> 0 AND T.TAG_ID = " + tag, tag))
                    .as("tagged objects hidden since").isNotEmpty();
            long userTag = store.tag("UT").id();
            assertThat(wholeRows(rows.rows(mv, rows.state(mv, "HEAD"))))
                    .isEqualTo(databaseRows(store, mv, "O.USER_TAG_ID = 0 AND O.NEW_HEAD_ID = 0", null));
            assertThat(wholeRows(rows.rows(mv, rows.state(mv, "UT"))))
                    .isEqualTo(databaseRows(store, mv, "O.USER_TAG_ID = " + userTag + " AND O.NEW_HEAD_ID = 0", null));
            assertThat(wholeRows(rows.rows(mv, rows.state(mv, "STD"))))
                    .isEqualTo(databaseRows(store, mv, "T.TAG_ID = " + tag, tag));
        }
    }

    /** Every held row: channel, interval, then the row's other columns, as text. */
    private static List<String> wholeRows(HeldRows held) {
        List<String> out = new ArrayList<>();
        held.browse(0, MAXK, ChannelSelection.all(), (ch, r) -> out.add(String.join("|", List.of(
                Long.toString(ch), Long.toString(held.since(r)), Long.toString(held.until(r)),
                Long.toString(held.objectId(r)), Long.toString(held.userTagId(r)), held.insertionTime(r),
                String.valueOf(held.lastModDate(r)), Long.toString(held.originalId(r)),
                Long.toString(held.newHeadId(r))))));
        return out;
    }

    /** The same from the folder's IOV table O (joined to its tag table T for {@code tag}), rows filtered by SQL. */
    private static List<String> databaseRows(IovStore store, Node f, String where, Long tag) {
        String from = tag == null ? f.iovTable() + " O" : f.iov2TagTable() + " T JOIN " + f.iovTable()
                + " O ON O.OBJECT_ID = T.OBJECT_ID";
        return store.read(c -> {
            List<String> out = new ArrayList<>();
            try (var ps = c.prepareStatement("SELECT O.CHANNEL_ID, O.IOV_SINCE, O.IOV_UNTIL, O.OBJECT_ID, O.USER_TAG_ID,"
                    + " O.SYS_INSTIME, O.LASTMOD_DATE, O.ORIGINAL_ID, O.NEW_HEAD_ID FROM " + from + " WHERE " + where
                    + " ORDER BY O.CHANNEL_ID, O.IOV_SINCE"); var rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<String> v = new ArrayList<>();
                    for (int i = 1; i <= 9; i++) {
                        v.add(String.valueOf(rs.getString(i)));
                    }
                    out.add(String.join("|", v));
                }
            }
            return out;
        });
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void incrementalRefreshesEqualTheDatabaseAfterEveryWrite(Backends backend) {
        Random rnd = new Random(7);
        try (IovStore store = backend.freshStore("rows_incr")) {
            Node f = store.createFolder("/I/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            long[] next = new long[120];
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, "64MB", registry);
            int value = 0;
            for (int step = 0; step < 30; step++) {
                List<NewIov> batch = new ArrayList<>();
                // now and then every even channel: more ranges than one browse takes, so a full build
                int channels = step % 10 == 9 ? 60 : 1 + rnd.nextInt(4);
                java.util.Set<Long> used = new java.util.HashSet<>();
                for (int k = 0; k < channels; k++) {
                    long ch = channels == 60 ? 2L * k : rnd.nextInt(120);
                    if (!used.add(ch)) {
                        continue;
                    }
                    long s = next[(int) ch] + rnd.nextInt(3);
                    long u = rnd.nextBoolean() ? MAXK : s + 1 + rnd.nextInt(5);
                    next[(int) ch] = u == MAXK ? s + 1 : u;
                    batch.add(new NewIov(ch, s, u, value++));
                }
                store.store(f, batch);
                RowStore.State state = rows.state(f, "HEAD");
                HeldRows held = rows.rows(f, state);
                assertThat(held).isNotNull();
                assertThat(held.generation()).isEqualTo(state.stamp());
                List<String> fromDb = new ArrayList<>();
                store.read(f, "HEAD", 0, MAXK, ChannelSelection.all(),
                        iov -> fromDb.add(row(iov.channelId(), iov.since(), iov.until(), iov.payload())), false);
                List<String> fromMemory = new ArrayList<>();
                held.browse(0, MAXK, ChannelSelection.all(), (ch, i) -> fromMemory.add(row(ch, held.since(i),
                        held.until(i), held.payload(i))));
                assertThat(fromMemory).as("step %d", step).isEqualTo(fromDb);
                assertThat(held.selectedChannels(ChannelSelection.all())).isEqualTo(
                        store.read(f, "HEAD", 0, 0, ChannelSelection.all(), null, true).selectedChannels());
            }
            // the first build and the three 60-range steps read the whole layer; every other step refreshed
            assertThat(registry.counter("outpost.rows.refreshes").count()).isEqualTo(26);
            assertThat(registry.counter("outpost.rows.builds").count()).isEqualTo(30);
        }
    }

    @Test
    void consecutiveChannelIdsBecomeOneRange() {
        assertThat(IncrementalRefresh.ranges(new long[] {1, 2, 3, 7, 9, 10})).containsExactly(
                new ChannelSelection.Range(1, 3), new ChannelSelection.Range(7, 7), new ChannelSelection.Range(9, 10));
        assertThat(IncrementalRefresh.lastObjectId("42@2026-01-01")).isEqualTo(42);
        assertThat(IncrementalRefresh.lastObjectId("none")).isEqualTo(-1);
    }

    private static String row(long channel, long since, long until, Object[] payload) {
        return channel + ":" + since + "-" + until + "=" + List.of(payload);
    }

    @Test
    void aWriteIsSeenAtOnceAndANewStampIsBuiltAgain() throws Exception {
        Path dir = TempDirs.create("outpost-rows");
        try (IovStore store = Backends.SQLITE.freshStore("rows_write")) {
            Node f = store.createFolder("/W/f", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            store.store(f, List.of(new NewIov(1, 0, MAXK, 1)));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, "64MB", registry);
            HeldRows first = rows.rows(f, rows.state(f, "HEAD"));
            assertThat(first.count(0, MAXK, ChannelSelection.all())).isEqualTo(1);
            store.store(f, List.of(new NewIov(1, 100, MAXK, 2)));
            RowStore.State now = rows.state(f, "HEAD");
            assertThat(now.stamp()).isNotEqualTo(first.generation());
            HeldRows second = rows.rows(f, now);
            List<Long> untils = new ArrayList<>();
            second.browse(0, MAXK, ChannelSelection.all(), (ch, i) -> untils.add(second.until(i)));
            assertThat(untils).as("the open IOV was closed by the write, and the new one is there")
                    .containsExactly(100L, MAXK);
            assertThat(registry.counter("outpost.rows.builds").count()).isEqualTo(2);
            // an old state (read before the write) is not answered from the new rows
            assertThat(rows.rows(f, new RowStore.State(first.generation(), now.layer(), null))).isNull();
        } finally {
            Files.deleteIfExists(dir);
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void rowsReadWhileAWriteLandsAreNotKept(Backends backend) {
        try (IovStore store = backend.freshStore("rows_mixed")) {
            Node f = store.createFolder("/M/f", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            store.store(f, List.of(new NewIov(1, 0, MAXK, 1)));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, "64MB", registry);
            RowStore.State before = rows.state(f, "HEAD");
            rows.afterRowsRead = () -> {
                rows.afterRowsRead = () -> { };
                store.store(f, List.of(new NewIov(1, 10, MAXK, 2))); // commits on the write pool, mid-build
            };
            HeldRows during = rows.rows(f, before);
            if (backend != Backends.POSTGRESQL) {
                // one read transaction is one snapshot in SQLite, and in MariaDB's InnoDB (REPEATABLE READ): the
                // build saw exactly the data of the first stamp
                assertThat(during).isNotNull();
                assertThat(during.generation()).isEqualTo(before.stamp());
                assertThat(during.count(0, MAXK, ChannelSelection.all())).isEqualTo(1);
            } else {
                // PostgreSQL reads each statement at its own time: the stamps differ, the rows are not used or kept
                assertThat(during).as("rows of no single stamp are not used").isNull();
            }
            RowStore.State now = rows.state(f, "HEAD");
            assertThat(now.stamp()).isNotEqualTo(before.stamp());
            HeldRows held = rows.rows(f, now);
            assertThat(held).isNotNull();
            assertThat(held.count(0, MAXK, ChannelSelection.all())).isEqualTo(2);
            assertThat(registry.counter("outpost.rows.builds").count()).isEqualTo(2);
            assertThat(registry.counter("outpost.rows.refreshes").count()).as("refreshed only from kept rows")
                    .isEqualTo(backend != Backends.POSTGRESQL ? 1 : 0);
        }
    }

    @Test
    void aFolderOverTheBudgetIsNotHeldAndNotRebuiltAtTheSameStamp() {
        try (IovStore store = Backends.SQLITE.freshStore("rows_big")) {
            Node f = store.createFolder("/B/f", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("s:String4k"),
                    "", true);
            List<NewIov> batch = new ArrayList<>();
            for (int ch = 0; ch < 200; ch++) {
                batch.add(new NewIov(ch, 0, MAXK, "x".repeat(1000)));
            }
            store.store(f, batch);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, "100KB", registry); // 50 KB per folder: 200 KB of strings do not fit
            assertThat(rows.rows(f, rows.state(f, "HEAD"))).isNull();
            assertThat(rows.rows(f, rows.state(f, "HEAD"))).isNull();
            assertThat(registry.counter("outpost.rows.too.big").count()).isEqualTo(1);
            assertThat(registry.counter("outpost.rows.builds").count()).isEqualTo(1);
        }
    }

    /** 200 channels of one 1,000-character IOV: about 240 KB of rows, over a 100 KB budget's 50 KB per folder. */
    private static Node bigMultiVersionFolder(IovStore store) {
        Node f = store.createFolder("/B/mv", Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("s:String4k"),
                "", true);
        List<NewIov> batch = new ArrayList<>();
        for (int ch = 0; ch < 200; ch++) {
            batch.add(new NewIov(ch, 0, 1000, "x".repeat(1000)));
        }
        store.store(f, batch);
        return f;
    }

    @Test
    void aLayerPushedOutForRoomIsLeftToTheDatabaseInsteadOfBuiltAgainAndAgain() {
        try (IovStore store = Backends.SQLITE.freshStore("rows_room")) {
            List<Node> folders = new ArrayList<>();
            for (int f = 0; f < 3; f++) {
                Node n = store.createFolder("/ROOM/f" + f, Versioning.SINGLE_VERSION, KeyType.TIME,
                        PayloadSpec.parse("s:String255"), "", true);
                List<NewIov> batch = new ArrayList<>();
                for (int ch = 0; ch < 200; ch++) {
                    batch.add(new NewIov(ch, 0, MAXK, "x".repeat(100) + ch));
                }
                store.store(n, batch);
                folders.add(n);
            }
            SimpleMeterRegistry sizing = new SimpleMeterRegistry();
            RowStore measure = rowStore(store, "64MB", sizing);
            assertThat(measure.rows(folders.get(0), measure.state(folders.get(0), "HEAD"))).isNotNull();
            long layer = (long) sizing.get("outpost.rows.bytes").gauge().value();
            assertThat(layer).isPositive();

            // room for two of the three layers: reading them in turn pushes one out every time
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, (layer * 5 / 2) + "B", registry);
            int held = 0;
            for (int round = 0; round < 6; round++) {
                for (Node f : folders) {
                    if (rows.rows(f, rows.state(f, "HEAD")) != null) {
                        held++;
                    }
                }
            }
            assertThat(registry.counter("outpost.rows.builds").count())
                    .as("each layer read once, not once per turn").isEqualTo(3);
            assertThat(registry.counter("outpost.rows.resting").count()).as("reads left to the database").isPositive();
            assertThat(held).as("the layers that fit keep answering").isGreaterThanOrEqualTo(2 * 6);
        }
    }

    @Test
    void aLayerFoundTooBigIsNotReadAgainAfterWrites() {
        try (IovStore store = Backends.SQLITE.freshStore("rows_big_writes")) {
            Node f = bigMultiVersionFolder(store);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, "100KB", registry);
            assertThat(rows.rows(f, rows.state(f, "HEAD"))).isNull();
            for (int w = 0; w < 5; w++) {
                store.store(f, List.of(new NewIov(w, 1000 + w, 2000, "new")));
                RowStore.State now = rows.state(f, "HEAD");
                assertThat(rows.rows(f, now)).as("after write %d", w).isNull();
            }
            assertThat(registry.counter("outpost.rows.builds").count()).as("one read of the layer").isEqualTo(1);
            assertThat(registry.counter("outpost.rows.too.big").count()).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void aSingleVersionLayerWithMoreRowsThanTheBudgetIsNeverRead(Backends backend) {
        try (IovStore store = backend.freshStore("rows_big_count")) {
            Node f = store.createFolder("/B/count", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            List<NewIov> batch = new ArrayList<>();
            for (int ch = 0; ch < 1000; ch++) { // 1,000 rows cost at least 56 KB: over 50 KB per folder
                batch.add(new NewIov(ch, 0, MAXK, ch));
            }
            store.store(f, batch);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, "100KB", registry);
            for (int w = 0; w < 3; w++) {
                assertThat(rows.rows(f, rows.state(f, "HEAD"))).isNull();
                store.store(f, List.of(new NewIov(w, 100 + w, MAXK, -w)));
            }
            assertThat(registry.counter("outpost.rows.builds").count()).isZero();
            assertThat(registry.counter("outpost.rows.too.big").count()).isEqualTo(1);
        }
    }

    @Test
    void aTooBigVerdictIsCheckedAgainInTheBackgroundWhileRequestsReadTheDatabase() throws Exception {
        try (IovStore store = Backends.SQLITE.freshStore("rows_big_recheck")) {
            Node f = bigMultiVersionFolder(store);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, "100KB", Duration.ZERO, registry);
            assertThat(rows.rows(f, rows.state(f, "HEAD"))).isNull();
            List<NewIov> cover = new ArrayList<>();
            for (int ch = 0; ch < 200; ch++) {
                cover.add(new NewIov(ch, 0, MAXK, "y")); // hides every big IOV in the head: the layer now fits
            }
            store.store(f, cover);
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            rows.afterRowsRead = () -> {
                entered.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            RowStore.State now = rows.state(f, "HEAD");
            // a request never waits for the re-check (a wait would last the 60 s statement timeout)
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                assertThat(rows.rows(f, now)).isNull();
                assertThat(entered.await(15, TimeUnit.SECONDS)).as("the re-check started").isTrue();
                assertThat(rows.rows(f, now)).as("while the re-check reads").isNull();
            });
            release.countDown();
            rows.lastRecheck.get(60, TimeUnit.SECONDS);
            HeldRows held = rows.rows(f, now);
            assertThat(held).as("held once it fits").isNotNull();
            assertThat(held.count(0, MAXK, ChannelSelection.all())).isEqualTo(200);
            assertThat(registry.counter("outpost.rows.builds").count()).isEqualTo(2);
            assertThat(registry.counter("outpost.rows.too.big").count()).isEqualTo(1);
        }
    }

    @Test
    void concurrentUsersOfAColdFolderBuildItOnce() throws Exception {
        try (IovStore store = Backends.POSTGRESQL.freshStore("rows_sf")) {
            Node f = store.createFolder("/S/f", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            List<NewIov> batch = new ArrayList<>();
            for (int ch = 0; ch < 5000; ch++) {
                batch.add(new NewIov(ch, 0, MAXK, ch));
            }
            store.store(f, batch);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RowStore rows = rowStore(store, "64MB", registry);
            int n = 16;
            ExecutorService pool = Executors.newFixedThreadPool(n);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Long>> counts = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    counts.add(pool.submit(() -> {
                        go.await();
                        HeldRows h = rows.rows(f, rows.state(f, "HEAD"));
                        return h == null ? -1L : h.count(0, MAXK, ChannelSelection.all());
                    }));
                }
                go.countDown();
                for (Future<Long> c : counts) {
                    assertThat(c.get(60, TimeUnit.SECONDS)).isEqualTo(5000L);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(registry.counter("outpost.rows.builds").count()).isEqualTo(1);
            assertThat(registry.counter("outpost.rows.answers", "api", "native").count()).isEqualTo(n);
        }
    }

    @Test
    void tagErrorsComeFromTheStateRead() {
        try (IovStore store = Backends.SQLITE.freshStore("rows_tag")) {
            Node f = store.createFolder("/T/f", Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            RowStore rows = rowStore(store, "1MB", new SimpleMeterRegistry());
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> rows.state(f, "NOPE"))
                    .isInstanceOf(StoreException.class);
        }
    }
}
