package io.outpost.frontier.answers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.IovStore;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The one-round-trip prelude on a real PostgreSQL: its stamp equals the separately read one, its estimate is the
 * planner's, and the query after it reads the stamp's snapshot even when a write commits in between — which is why
 * the servlet keeps such an answer without reading the stamp again.
 */
class PostgresPreludeTest {

    @Test
    void theQueryAfterThePreludeReadsTheStampsSnapshotEvenIfAWriteCommitsInBetween() throws Exception {
        try (IovStore store = Backends.POSTGRESQL.freshStore("prelude")) {
            Node a = folder(store, "/P/a");
            Node b = folder(store, "/P/b");
            Set<String> seqs = new TreeSet<>(List.of(a.iovSeqTable(), b.iovSeqTable()));
            String count = "SELECT COUNT(*) FROM " + a.iovTable() + " WHERE IOV_SINCE >= ?";
            try (Connection c = store.database().readPool().getConnection()) {
                c.setAutoCommit(false);
                String before = FrontierAnswers.stamp(c, seqs, 5);
                c.rollback();

                PostgresPrelude.Result r = PostgresPrelude.run(c, seqs, count, List.of("0"), 5);
                assertThat(r.stamp()).isEqualTo(before).contains(a.iovSeqTable() + "=", b.iovSeqTable() + "=");
                assertThat(r.cost()).isPresent();
                assertThat(r.cost().getAsDouble()).isPositive();

                store.store(a, List.of(new NewIov(1, 50, ValidityKey.MAX, "written meanwhile"))); // commits

                assertThat(count(c, count)).as("the snapshot of the stamp").isEqualTo(3);
                c.rollback();
                assertThat(count(c, count)).as("a new transaction").isEqualTo(4);
                assertThat(FrontierAnswers.stamp(c, seqs, 5)).isNotEqualTo(before);
                c.rollback();
            }
        }
    }

    @Test
    void withTheQueryTheRowsStreamFromTheStampsSnapshotEvenIfAWriteCommitsWhileTheyAreRead() throws Exception {
        try (IovStore store = Backends.POSTGRESQL.freshStore("prelude_with_query")) {
            Node a = folder(store, "/P/a");
            Set<String> seqs = Set.of(a.iovSeqTable());
            String rows = "SELECT CHANNEL_ID FROM " + a.iovTable() + " WHERE IOV_SINCE >= ? ORDER BY CHANNEL_ID, IOV_SINCE";
            try (Connection c = store.database().readPool().getConnection()) {
                c.setAutoCommit(false);
                String before = FrontierAnswers.stamp(c, seqs, 5);
                c.rollback();
                PostgresPrelude.WithQuery q = PostgresPrelude.withQuery(c, seqs, rows, List.of("0"), 1, 1);
                try (PreparedStatement ps = q.statement(); ResultSet rs = q.rows()) {
                    assertThat(q.stamp()).isEqualTo(before);
                    assertThat(rs.next()).isTrue(); // one row a round trip: the others are fetched after the write
                    store.store(a, List.of(new NewIov(3, 50, ValidityKey.MAX, "written meanwhile"))); // commits
                    int n = 1;
                    while (rs.next()) {
                        n++;
                    }
                    assertThat(n).as("the snapshot of the stamp").isEqualTo(3);
                    assertThat(show(c, "statement_timeout")).as("set with the query").isEqualTo("1s");
                }
                c.rollback();
                assertThat(FrontierAnswers.stamp(c, seqs, 5)).isNotEqualTo(before);
                c.rollback();
            }
        }
    }

    @Test
    void withoutAnEstimateAndWithATableWithoutStampRow() throws Exception {
        try (IovStore store = Backends.POSTGRESQL.freshStore("prelude_nostamp")) {
            Node a = folder(store, "/P/a");
            try (Connection c = store.database().readPool().getConnection()) {
                c.setAutoCommit(false);
                PostgresPrelude.Result r = PostgresPrelude.run(c, Set.of(a.iovSeqTable()), null, List.of(), 5);
                assertThat(r.stamp()).startsWith(a.iovSeqTable() + "=");
                assertThat(r.cost()).as("not asked for").isNull();
                c.rollback();
            }
            try (Connection w = store.database().writePool().getConnection()) {
                w.setAutoCommit(false);
                try (PreparedStatement ps = w.prepareStatement("DELETE FROM " + a.iovSeqTable())) {
                    ps.executeUpdate();
                }
                w.commit();
            }
            try (Connection c = store.database().readPool().getConnection()) {
                c.setAutoCommit(false);
                assertThat(PostgresPrelude.run(c, Set.of(a.iovSeqTable()), null, List.of(), 5).stamp()).isNull();
                c.rollback();
            }
        }
    }

    @Test
    void theStatementTimeoutHoldsForTheRestOfTheTransactionAndEndsWithIt() throws Exception {
        try (IovStore store = Backends.POSTGRESQL.freshStore("prelude_timeout")) {
            Node a = folder(store, "/P/a");
            try (Connection c = store.database().readPool().getConnection()) {
                c.setAutoCommit(false);
                String before = show(c, "statement_timeout");
                c.rollback();
                PostgresPrelude.run(c, Set.of(a.iovSeqTable()), null, List.of(), 1);
                assertThat(show(c, "statement_timeout")).isEqualTo("1s");
                long t0 = System.nanoTime();
                assertThatThrownBy(() -> show(c, "pg_sleep(5)", "SELECT "))
                        .isInstanceOfSatisfying(java.sql.SQLException.class,
                                e -> assertThat(e.getSQLState()).as("query_canceled").isEqualTo("57014"));
                assertThat(System.nanoTime() - t0).as("cancelled by the server, not after the sleep")
                        .isLessThan(4_000_000_000L);
                c.rollback();
                assertThat(show(c, "statement_timeout")).as("a new transaction").isEqualTo(before);
                c.rollback();
            }
        }
    }

    private static String show(Connection c, String setting) throws Exception {
        return show(c, setting, "SHOW ");
    }

    private static String show(Connection c, String what, String verb) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(verb + what); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static Node folder(IovStore store, String path) {
        Node f = store.createFolder(path, Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("s:String255"), "",
                true);
        store.store(f, List.of(new NewIov(0, 10, ValidityKey.MAX, "a"), new NewIov(1, 10, ValidityKey.MAX, "b"),
                new NewIov(2, 10, ValidityKey.MAX, "c")));
        return f;
    }

    private static long count(Connection c, String sql) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, 0);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
