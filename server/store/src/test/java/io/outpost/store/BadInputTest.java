package io.outpost.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every kind of bad input gives a typed error with a clear message and leaves the database exactly as it was. */
class BadInputTest {

    @ParameterizedTest
    @EnumSource(Backends.class)
    void badInputIsRejectedAndChangesNothing(Backends backend) throws SQLException {
        try (IovStore store = backend.freshStore("bad_input")) {
            Node sv = store.createFolder("/B/sv", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("i:Int32,s:String255,b:Blob64k,u:UChar"), "", true);
            Node mv = store.createFolder("/B/mv", Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("i:Int32"), "", true);
            store.store(sv, List.of(new NewIov(1, 100, ValidityKey.MAX, 1, "x", new byte[] {1}, (short) 1)));
            store.store(mv, List.of(new NewIov(1, 100, 200, 1).withUserTag("LOCKED-TAG", false)));
            store.setTagLock("LOCKED-TAG", TagLock.LOCKED);
            String before = dump(store);

            expect(store, before, StoreException.Kind.INVALID_KEY, "must be lower than until",
                    () -> store.store(sv, List.of(new NewIov(1, 300, 300, 1, "x", null, (short) 0))));
            expect(store, before, StoreException.Kind.INVALID_KEY, "negative",
                    () -> store.store(sv, List.of(new NewIov(1, -5, 10, 1, "x", null, (short) 0))));
            expect(store, before, StoreException.Kind.INVALID_PAYLOAD, "field 'i'",
                    () -> store.store(sv, List.of(new NewIov(2, 10, 20, "not a number", "x", null, (short) 0))));
            expect(store, before, StoreException.Kind.INVALID_PAYLOAD, "out of range for UChar",
                    () -> store.store(sv, List.of(new NewIov(2, 10, 20, 1, "x", null, 300))));
            expect(store, before, StoreException.Kind.INVALID_PAYLOAD, "over the 255-byte limit",
                    () -> store.store(sv, List.of(new NewIov(2, 10, 20, 1, "é".repeat(128), null, (short) 0))));
            expect(store, before, StoreException.Kind.INVALID_PAYLOAD, "over the 65535-byte limit",
                    () -> store.store(sv, List.of(new NewIov(2, 10, 20, 1, "x", new byte[65536], (short) 0))));
            expect(store, before, StoreException.Kind.INVALID_PAYLOAD, "has 2 values",
                    () -> store.store(sv, List.of(new NewIov(2, 10, 20, 1, "x"))));
            // a good object followed by an overlapping one: the whole batch is refused
            expect(store, before, StoreException.Kind.OVERLAP, "overlaps",
                    () -> store.store(sv, List.of(new NewIov(3, 10, 20, 1, "x", null, (short) 0),
                            new NewIov(1, 50, 150, 1, "x", null, (short) 0))));
            expect(store, before, StoreException.Kind.TAG_LOCKED, "locked",
                    () -> store.store(mv, List.of(new NewIov(2, 0, 10, 7), new NewIov(1, 300, 400, 1).withUserTag("LOCKED-TAG", false))));
            expect(store, before, StoreException.Kind.FOLDER_IS_SINGLE_VERSION, "single-version",
                    () -> store.store(sv, List.of(new NewIov(1, 10, 20, 1, "x", null, (short) 0).withUserTag("T", false))));
            expect(store, before, StoreException.Kind.FOLDER_NOT_FOUND, "no folder",
                    () -> store.folder("/B/none"));
            expect(store, before, StoreException.Kind.TAG_NOT_FOUND, "no tag",
                    () -> store.count(mv, 0, 10, ChannelSelection.all(), "NO-SUCH-TAG"));
            expect(store, before, StoreException.Kind.CHANNEL_NOT_FOUND, "no channel named",
                    () -> store.browse(sv, 0, 10, ChannelSelection.named("nope"), null, iov -> { }));
            expect(store, before, StoreException.Kind.OBJECT_NOT_FOUND, "no IOV valid",
                    () -> store.findObject(sv, 5, 1, null));
            expect(store, before, StoreException.Kind.INVALID_KEY, "is empty",
                    () -> store.count(sv, 20, 10, ChannelSelection.all(), null));
            expect(store, before, StoreException.Kind.ALREADY_EXISTS, "already exists",
                    () -> store.createFolder("/B/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("i:Int32"), "", true));
            expect(store, before, StoreException.Kind.ALREADY_EXISTS, "already exists",
                    () -> store.tagCurrentHead(mv, "LOCKED-TAG", ""));
            expect(store, before, StoreException.Kind.INVALID_ARGUMENT, "path",
                    () -> store.createFolderSet("no/leading/slash", "", true));
        }
    }

    private static void expect(IovStore store, String before, StoreException.Kind kind, String message,
                               ThrowingCallable call) throws SQLException {
        assertThatThrownBy(call).isInstanceOf(StoreException.class)
                .hasMessageContaining(message)
                .extracting(e -> ((StoreException) e).kind()).isEqualTo(kind);
        assertThat(dump(store)).as("database after a refused " + kind).isEqualTo(before);
    }

    /** Every row of every table, in a stable order. */
    static String dump(IovStore store) throws SQLException {
        try (Connection c = store.database().writePool().getConnection()) {
            List<String> tables = new ArrayList<>();
            DatabaseMetaData md = c.getMetaData();
            // the current database only: on MariaDB a null catalog means every database of the server
            try (ResultSet rs = md.getTables(c.getCatalog(), null, "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    String t = rs.getString("TABLE_NAME");
                    if (t.toUpperCase().startsWith("OUTPOST_") && !t.toUpperCase().contains("SCHEMA_HISTORY")) {
                        tables.add(t);
                    }
                }
            }
            tables.sort(String::compareToIgnoreCase);
            StringBuilder b = new StringBuilder();
            for (String t : tables) {
                b.append("== ").append(t.toUpperCase()).append('\n');
                List<String> rows = new ArrayList<>();
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + t)) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        StringBuilder r = new StringBuilder();
                        for (int i = 1; i <= n; i++) {
                            Object v = rs.getObject(i);
                            r.append(v instanceof byte[] bytes ? java.util.Arrays.toString(bytes) : String.valueOf(v)).append('|');
                        }
                        rows.add(r.toString());
                    }
                }
                rows.sort(String::compareTo);
                rows.forEach(r -> b.append(r).append('\n'));
            }
            c.rollback();
            return b.toString();
        }
    }
}
