package io.outpost.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.cli.LoaderCli;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

/**
 * A padded spelling of a name reaches nothing, on every backend and at every entry of the store. MariaDB's
 * utf8mb4_bin is PAD SPACE ('ch0' = 'ch0 '), so each case below once read, truncated or wrote the other object
 * there while SQLite and PostgreSQL answered "not found"; the name columns are now NO PAD binary.
 */
class ExactNamesTest {
    private static final long MAXK = ValidityKey.MAX;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Backends.class)
    void paddedSpellingsReachNothing(Backends backend) throws Exception {
        var config = backend.freshConfig("exact_names");
        try (IovStore store = IovStore.open(config)) {
            Node sv = store.createFolder("/det/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", true);
            Node f = store.createFolder("/det/f", Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"),
                    "", false);
            store.createChannel(sv, 0, "ch0", "");
            store.store(sv, List.of(new NewIov(0, 10, MAXK, 1)));
            store.store(f, List.of(new NewIov(0, 10, MAXK, 2)));
            store.tagCurrentHead(f, "T1", "");
            store.createTagRelation(f, "D1", "T1");
            new GlobalTags(store).create("GT", "", Map.of("/det/f", "T1"));
            String before = BadInputTest.dump(store);

            // reads and truncation with channel 'ch0 '
            assertThat(outcome(() -> store.count(sv, 0, MAXK, ChannelSelection.named("ch0 "), null)))
                    .isEqualTo(StoreException.Kind.CHANNEL_NOT_FOUND);
            assertThat(outcome(() -> store.browse(sv, 0, MAXK, ChannelSelection.named("ch0 "), null, iov -> { })))
                    .isEqualTo(StoreException.Kind.CHANNEL_NOT_FOUND);
            assertThat(outcome(() -> store.truncateValidity(sv, 20, ChannelSelection.named("ch0 "))))
                    .isEqualTo(StoreException.Kind.CHANNEL_NOT_FOUND);
            // creating channel 'ch0 ' is refused by the name rule, not taken for ch0
            assertThat(message(() -> store.createChannel(sv, 1, "ch0 ", "")))
                    .isEqualTo("INVALID_ARGUMENT: channel name 'ch0 ' ends with white space (U+0020): names are stored"
                            + " and compared exactly as written, so one that could be read two ways is refused");
            // tag 'T1 ', folderset tag 'D1 ', global tag 'GT '
            assertThat(outcome(() -> store.count(f, 0, MAXK, ChannelSelection.all(), "T1 ")))
                    .isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThat(outcome(() -> store.resolveTag(f, "D1 "))).isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThat(outcome(() -> store.count(f, 0, MAXK, ChannelSelection.all(), "D1 ")))
                    .isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThat(outcome(() -> new GlobalTags(store).resolve("GT "))).isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThat(outcome(() -> store.tag("T1 "))).isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            // folder '/det/f ' and folderset '/det '
            assertThat(outcome(() -> store.folder("/det/f "))).isEqualTo(StoreException.Kind.FOLDER_NOT_FOUND);
            assertThat(outcome(() -> store.node("/det "))).isEqualTo(StoreException.Kind.FOLDER_NOT_FOUND);
            // writes under padded names are refused, never written into the other object
            assertThat(outcome(() -> store.store(f, List.of(new NewIov(0, 20, 30, 3).withUserTag("T1 ", true)))))
                    .isEqualTo(StoreException.Kind.INVALID_ARGUMENT);
            assertThat(outcome(() -> store.tagCurrentHead(f, "T1 ", ""))).isEqualTo(StoreException.Kind.INVALID_ARGUMENT);
            assertThat(outcome(() -> store.createTagRelation(f, "D1 ", "T1"))).isEqualTo(StoreException.Kind.INVALID_ARGUMENT);
            assertThat(outcome(() -> new GlobalTags(store).create("GT ", "", Map.of("/det/f", "T1"))))
                    .isEqualTo(StoreException.Kind.INVALID_ARGUMENT);
            assertThat(outcome(() -> new GlobalTags(store).create("GT2", "", Map.of("/det/f", "T1 "))))
                    .isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThat(outcome(() -> store.setTagLock("T1 ", TagLock.LOCKED))).isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThat(outcome(() -> store.setTagLock(f, "T1 ", TagLock.LOCKED)))
                    .isEqualTo(StoreException.Kind.INVALID_ARGUMENT);
            assertThat(outcome(() -> new GlobalTags(store).lock("GT ", TagLock.LOCKED)))
                    .isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThat(outcome(() -> store.deleteTag(f, "T1 "))).isEqualTo(StoreException.Kind.INVALID_ARGUMENT);
            assertThat(outcome(() -> store.createTagRelation("D1 ", "T1"))).isEqualTo(StoreException.Kind.INVALID_ARGUMENT);
            assertThat(outcome(() -> store.createFolder("/det/f ", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("v:Int32"), "", false))).isEqualTo(StoreException.Kind.INVALID_ARGUMENT);
            assertThat(outcome(() -> store.createFolderSet("/det ", "", false))).isEqualTo(StoreException.Kind.INVALID_ARGUMENT);
            // SQL sent straight to the database, as a Frontier client's COOL statements are, compares exactly too
            assertThat(rawCount(store, "SELECT COUNT(*) FROM " + sv.channelTable() + " WHERE CHANNEL_NAME = 'ch0 '")).isZero();
            assertThat(rawCount(store, "SELECT COUNT(*) FROM " + sv.channelTable() + " WHERE CHANNEL_NAME = 'ch0'")).isOne();
            String p = store.database().prefix();
            assertThat(rawCount(store, "SELECT COUNT(*) FROM " + p + "TAGS WHERE TAG_NAME = 'T1 '")).isZero();
            assertThat(rawCount(store, "SELECT COUNT(*) FROM " + p + "NODES WHERE NODE_FULLPATH = '/det/f '")).isZero();
            assertThat(rawCount(store, "SELECT COUNT(*) FROM " + p + "NODES WHERE NODE_FULLPATH = '/det '")).isZero();

            assertThat(BadInputTest.dump(store)).as("nothing was written anywhere").isEqualTo(before);
            List<Iov> rows = new ArrayList<>();
            store.browse(sv, 0, MAXK, ChannelSelection.named("ch0"), null, rows::add);
            assertThat(rows).singleElement().satisfies(r -> assertThat(r.until()).isEqualTo(MAXK));
        }

        // the loader: 'load "/N/F " file.csv' finds no folder (exit 3) and stores nothing into /N/F
        String[] db = loaderDatabase(config);
        assertThat(loader(db, "create-folder", "/N/F", "--payload", "v:Int32", "--parents")).isZero();
        Path csv = dir.resolve("rows.csv");
        Files.writeString(csv, "channel,since,until,v\n0,0,10,1\n");
        StringWriter err = new StringWriter();
        assertThat(loader(db, err, "load", "/N/F ", csv.toString())).isEqualTo(3);
        assertThat(err.toString()).contains("no folder '/N/F '");
        assertThat(loader(db, err, "create-folder", "/N/F ", "--payload", "v:Int32")).isEqualTo(2);
        assertThat(err.toString()).contains("node path '/N/F ' ends with white space");
        try (IovStore store = IovStore.open(config)) {
            assertThat(store.count(store.folder("/N/F"), 0, MAXK, ChannelSelection.all(), null)).isZero();
            assertThat(store.listNodes()).extracting(Node::path).containsExactly("/", "/N", "/N/F", "/det", "/det/f", "/det/sv");
        }
    }

    private static long rawCount(IovStore store, String sql) throws SQLException {
        try (Connection c = store.database().readPool().getConnection();
             PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            long n = rs.getLong(1);
            c.rollback();
            return n;
        }
    }

    private static String[] loaderDatabase(io.outpost.store.db.DatabaseConfig config) {
        List<String> args = new ArrayList<>(List.of("--url", config.jdbcUrl()));
        if (config.user() != null) {
            args.addAll(List.of("--user", config.user()));
        }
        return args.toArray(String[]::new);
    }

    private static int loader(String[] db, String... args) {
        return loader(db, new StringWriter(), args);
    }

    private static int loader(String[] db, StringWriter err, String... args) {
        CommandLine cl = LoaderCli.configure(new CommandLine(new LoaderCli()));
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter()));
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(db));
        return cl.execute(all.toArray(String[]::new));
    }

    static StoreException.Kind outcome(Runnable call) {
        try {
            call.run();
            return null;
        } catch (StoreException e) {
            return e.kind();
        }
    }

    private static String message(Runnable call) {
        try {
            call.run();
            return null;
        } catch (StoreException e) {
            return e.kind() + ": " + e.getMessage();
        }
    }
}
