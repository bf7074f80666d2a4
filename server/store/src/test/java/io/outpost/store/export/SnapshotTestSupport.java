package io.outpost.store.export;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.schema.SchemaManager;
import io.outpost.testkit.MariaDbServer;
import io.outpost.testkit.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Random conditions histories for snapshot tests: a folder tree with single- and multi-version folders, user tags,
 * standard tags and a global tag on the root folderset reaching some folders through folderset tags.
 */
public final class SnapshotTestSupport {
    public static final String GT = "GT-1";
    public static final int CHANNELS = 4;
    public static final long MAXK = ValidityKey.MAX;
    public static final PayloadSpec SPEC = PayloadSpec.parse("v:Int32,s:String255,d:Double,b:Bool");

    private SnapshotTestSupport() {
    }

    public enum Backend { SQLITE, POSTGRESQL, MARIADB }

    public static DatabaseConfig config(Backend b, Path dir, String name) {
        return switch (b) {
            case SQLITE -> DatabaseConfig.of("jdbc:sqlite:" + dir.resolve(name + ".db"));
            case POSTGRESQL -> DatabaseConfig.of(PostgresServer.shared().createDatabase(name), "postgres", "");
            case MARIADB -> DatabaseConfig.of(MariaDbServer.shared().createDatabase(name), "root", "");
        };
    }

    /** The source's folders: two reached by the global tag (a standard and a user tag), one not, one SV. */
    public static final String[] MV = {"/A/B/mv1", "/A/mv2", "/A/B/mv3"};
    public static final String SV = "/A/sv";

    public static void createTree(IovStore s) {
        for (String p : MV) {
            s.createFolder(p, Versioning.MULTI_VERSION, KeyType.RUN_LUMI, SPEC, "", true);
        }
        s.createFolder(SV, Versioning.SINGLE_VERSION, KeyType.TIME, SPEC, "", true);
        for (String p : List.of(MV[0], MV[1], MV[2], SV)) {
            s.createChannel(s.folder(p), 7, "named7", "a named channel");
        }
    }

    /**
     * After the first export: the global tag's B-TAG now also reaches mv3 through a new tag of its HEAD, and a new
     * folder /A/added appears with one IOV from {@code k1}.
     */
    public static void tagMv3AndAddAFolder(IovStore source, long k1) {
        source.store(source.folder("/A/B/mv3"), List.of(new NewIov(0, k1, k1 + 3, 8, "mv3", 0.25, false)));
        source.tagCurrentHead(source.folder("/A/B/mv3"), "MV3-NOW", "");
        source.createTagRelation("B-TAG", "MV3-NOW");
        Node added = source.createFolder("/A/added", Versioning.SINGLE_VERSION, KeyType.TIME, SPEC, "", false);
        source.store(added, List.of(new NewIov(2, k1, k1 + 5, 9, "new", 0.5, true)));
    }

    /** Random writes: MV stores (HEAD and user tags), SV appends, standard tags; never touches locked tags. */
    public static void randomWrites(IovStore s, Random rnd, int steps, int[] counter) {
        for (int step = 0; step < steps; step++) {
            int op = rnd.nextInt(10);
            if (op < 6) {
                Node f = s.folder(MV[rnd.nextInt(MV.length)]);
                List<NewIov> batch = new ArrayList<>();
                String tag = rnd.nextInt(3) == 0 ? "U-" + f.name() : null;
                boolean only = tag != null && rnd.nextBoolean();
                for (int i = 0, n = 1 + rnd.nextInt(4); i < n; i++) {
                    long since = rnd.nextInt(100);
                    long until = rnd.nextInt(5) == 0 ? MAXK : since + 1 + rnd.nextInt(20);
                    NewIov o = new NewIov(rnd.nextInt(CHANNELS), since, until, payload(rnd, counter));
                    batch.add(tag == null ? o : o.withUserTag(tag, only));
                }
                try {
                    s.store(f, batch);
                } catch (StoreException e) {
                    if (e.kind() != StoreException.Kind.TAG_LOCKED) {
                        throw e;
                    }
                }
            } else if (op < 8) {
                Node f = s.folder(SV);
                long since = 100L * (counter[0] + 1);
                s.store(f, List.of(new NewIov(rnd.nextInt(CHANNELS), since / 10, MAXK, payload(rnd, counter))));
            } else {
                Node f = s.folder(MV[rnd.nextInt(MV.length)]);
                try {
                    s.tagCurrentHead(f, "T" + (counter[1]++) + "-" + f.name(), "");
                } catch (StoreException e) {
                    if (e.kind() != StoreException.Kind.TAG_NOT_CREATED) { // an empty HEAD is not tagged
                        throw e;
                    }
                }
            }
        }
    }

    private static Object[] payload(Random rnd, int[] counter) {
        int v = counter[0]++;
        return new Object[] {v, "s" + v + (rnd.nextBoolean() ? "é" : ""), rnd.nextDouble(), rnd.nextBoolean()};
    }

    /**
     * The global tag: GT (root) -> A-TAG (/A) -> B-TAG (/A/B) -> a standard tag of mv1, and A-TAG -> mv2's user tag.
     * mv3 is not reached (read as its HEAD); makes sure the tags exist first.
     */
    public static void createGlobalTag(IovStore s, Random rnd, int[] counter) {
        Node mv1 = s.folder("/A/B/mv1");
        Node mv2 = s.folder("/A/mv2");
        String std = "GTCHILD-" + (counter[1]++);
        s.store(mv1, List.of(new NewIov(3, 1, 90, payload(rnd, counter)))); // never an empty HEAD to tag
        s.tagCurrentHead(mv1, std, "");
        s.store(mv2, List.of(new NewIov(0, 5, 15, payload(rnd, counter)).withUserTag("U-mv2", true)));
        s.createTagRelation("B-TAG", std);
        s.createTagRelation("A-TAG", "B-TAG");
        s.createTagRelation("A-TAG", "U-mv2");
        s.createTagRelation(GT, "A-TAG");
        if (rnd.nextBoolean()) {
            s.setTagLock(std, TagLock.LOCKED);
        }
    }

    /** What a read returned, as comparable text (objects, validity, insertion times and every payload value). */
    public static List<String> browse(IovStore s, Node f, long t1, long t2, ChannelSelection sel, String tag) {
        List<String> out = new ArrayList<>();
        s.browse(f, t1, t2, sel, tag, iov -> out.add(text(iov)));
        return out;
    }

    public static String text(Iov iov) {
        return iov.channelId() + ":" + iov.since() + "-" + iov.until() + "#" + iov.objectId() + "@" + iov.insertionTime()
                + Arrays.deepToString(iov.payload());
    }

    public static ChannelSelection randomSelection(Random rnd) {
        return switch (rnd.nextInt(5)) {
            case 0 -> ChannelSelection.all();
            case 1 -> ChannelSelection.channel(rnd.nextInt(CHANNELS));
            case 2 -> ChannelSelection.range(1, 2);
            case 3 -> ChannelSelection.named("named7");
            default -> ChannelSelection.ranges(List.of(new ChannelSelection.Range(0, 0), new ChannelSelection.Range(2, 7)));
        };
    }

    /**
     * Every row of every table of the database except the migration history, and the export times. For a folder
     * copied in a locked tag (which sync never copies again), the HEAD's bookkeeping columns are left out: they
     * may have moved in the source since, without changing anything a read of the tag sees.
     */
    public static List<String> dump(Database db) throws SQLException {
        List<String> out = new ArrayList<>();
        List<String> bookkeeping = List.of("LASTMOD_DATE", "NEW_HEAD_ID", "LAST_OBJECT_ID", "CURRENT_VALUE",
                "SOURCE_GENERATION", "EXPORTED_AT");
        try (Connection c = db.readPool().getConnection()) {
            List<String> locked = new ArrayList<>();
            for (CoverageRow r : SnapshotCoverage.rows(c, db.prefix())) {
                if (r.tagLocked()) {
                    locked.add(db.prefix() + String.format("F%04d", r.nodeId()));
                    locked.add(db.prefix() + "SNAPSHOT_COVERAGE");
                }
            }
            List<String> tables = new ArrayList<>();
            // the current database only: on MariaDB a null catalog means every database of the server
            try (ResultSet rs = c.getMetaData().getTables(c.getCatalog(), null, "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    String t = rs.getString("TABLE_NAME").toUpperCase(java.util.Locale.ROOT);
                    if (t.startsWith(db.prefix()) && !t.endsWith("SCHEMA_HISTORY")) {
                        tables.add(t);
                    }
                }
            }
            tables.sort(null);
            for (String t : tables) {
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + t)) {
                    ResultSetMetaData md = rs.getMetaData();
                    List<String> rows = new ArrayList<>();
                    while (rs.next()) {
                        StringBuilder row = new StringBuilder(t).append(':');
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            String col = md.getColumnName(i).toUpperCase(java.util.Locale.ROOT);
                            boolean skip = col.equals("EXPORTED_AT") || bookkeeping.contains(col)
                                    && locked.stream().anyMatch(t::startsWith);
                            if (!skip) {
                                Object v = rs.getObject(i);
                                row.append(v instanceof byte[] b ? Arrays.toString(b) : String.valueOf(v)).append('|');
                            }
                        }
                        rows.add(row.toString());
                    }
                    rows.sort(null);
                    out.addAll(rows);
                }
            }
            c.rollback();
        }
        return out;
    }

    public static Database openMigrated(DatabaseConfig config) {
        Database db = Database.open(config);
        new SchemaManager(db).migrate();
        return db;
    }
}
