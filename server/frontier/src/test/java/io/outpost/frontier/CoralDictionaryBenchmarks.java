package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.db.Database;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.FrontierDecoder;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a CORAL data-dictionary statement costs next to an ordinary CMS conditions statement through the Frontier
 * endpoint (real HTTP, BLOBzip5, nothing cached in Outpost): the dictionary is read from the catalog and filled into
 * an in-memory database for every statement. Interleaved, side by side, in one run. Run with
 * {@code ./mvnw -Pbenchmark test -pl server/frontier -Dtest=CoralDictionaryBenchmarks}.
 */
@Tag("benchmark")
class CoralDictionaryBenchmarks {
    private static final int WARMUP = 50;
    private static final int RUNS = 300;

    @ParameterizedTest
    @EnumSource(Backends.class)
    void dictionaryStatementsVersusConditionsStatements(Backends b) throws Exception {
        Database db = CmsSchema.create(b, "cms_bench");
        try (TestServer server = new TestServer(new FrontierServlet(CmsSchema.context("CMS", db)))) {
            CmsConditionsTest.Fixture f = new CmsConditionsTest.Fixture(db, server);
            String[] names = {"IOVs of a tag (CMS)", "payload by hash (CMS)", "all columns (ALL_TAB_COLUMNS)",
                "describe a table (ALL_TAB_COLUMNS)", "foreign keys (ALL_CONSTRAINTS x4)"};
            String[] sql = {CmsConditionsTest.IOVS_IN_GROUP, CmsConditionsTest.PAYLOAD, CoralDictionaryTest.ALL_COLUMNS,
                CoralDictionaryTest.DESCRIBE, CoralDictionaryTest.FOREIGN_KEYS};
            long[][] nanos = new long[sql.length][RUNS];
            for (int i = 0; i < WARMUP + RUNS; i++) {
                for (int q = 0; q < sql.length; q++) {
                    long t0 = System.nanoTime();
                    FrontierDecoder.Payload p = CmsConditionsTest.ask(f, "CMS", sql[q]);
                    long t = System.nanoTime() - t0;
                    assertThat(p.error()).isFalse();
                    if (i >= WARMUP) {
                        nanos[q][i - WARMUP] = t;
                    }
                }
            }
            double base = median(nanos[0]);
            System.out.printf("%nCoral dictionary vs conditions statements, %s, %d runs each, interleaved%n", b, RUNS);
            for (int q = 0; q < sql.length; q++) {
                double m = median(nanos[q]);
                System.out.printf("  %-38s median %6.2f ms   %5.1fx the IOV statement%n", names[q], m / 1e6, m / base);
            }
        } finally {
            CmsSchema.drop(db);
        }
    }

    private static double median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
