package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.FrontierException;
import io.outpost.frontier.protocol.P1Codec;
import io.outpost.frontier.sql.FrontierDialects;
import io.outpost.frontier.sql.SqlGuard;
import io.outpost.frontier.sql.SqlParser;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated inputs for the p1 decoder and the SQL validator (bounded, fixed seed): the only failure
 * either may report is a FrontierException with a message; nothing else may escape.
 */
class FuzzTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private static final List<String> SEEDS = List.of(
            "select 1 from dual",
            "SELECT /*+ QB_NAME(MAIN) */ \"I3\".\"CHANNEL_ID\" FROM OUTPOST_F0001_IOVS \"I3\" WHERE I3.IOV_SINCE <= 5 ORDER BY 1",
            "select NVL(MAX(IOV_SINCE), 0) from OUTPOST_F0002_IOVS where CHANNEL_ID in (1,2,3) group by CHANNEL_ID having count(*) > 1",
            "select * from OUTPOST_NODES n, OUTPOST_TAGS t where n.NODE_ID = t.NODE_ID and t.TAG_NAME like 'A%'",
            "select a from OUTPOST_F0001_CHANNELS union all select b from OUTPOST_F0001_IOVS");
    private static final String ALPHABET = " ()'\",.;*=<>!-+/|:?@$#%&_0123456789abcdefghijklmnopqrstuvwxyzSELCTFROMWHEUNIDAYdual\n\t";

    @Test
    void validatorNeverThrowsAnythingElse() {
        Random r = new Random(42);
        SqlGuard[] guards = {new SqlGuard("OUTPOST_", null, FrontierDialects.POSTGRESQL, PARSER),
                new SqlGuard("OUTPOST_", null, FrontierDialects.SQLITE, PARSER), new SqlGuard("OUTPOST_", null, FrontierDialects.ORACLE, PARSER)};
        int accepted = 0;
        int rejected = 0;
        for (int i = 0; i < 600; i++) {
            String s = mutate(r, SEEDS.get(r.nextInt(SEEDS.size())));
            for (SqlGuard g : guards) {
                try {
                    g.check(s);
                    accepted++;
                } catch (FrontierException e) {
                    assertThat(e.getMessage()).startsWith("SQL rejected: ");
                    rejected++;
                }
            }
        }
        assertThat(accepted).isPositive();
        assertThat(rejected).isPositive();
    }

    @Test
    void decoderNeverThrowsAnythingElse() {
        Random r = new Random(7);
        int ok = 0;
        for (int i = 0; i < 2000; i++) {
            String p1 = P1Codec.encode(SEEDS.get(r.nextInt(SEEDS.size())));
            String m = switch (r.nextInt(4)) {
                case 0 -> p1.substring(0, r.nextInt(p1.length() + 1));
                case 1 -> flip(r, p1);
                case 2 -> randomString(r, r.nextInt(80), "ABCDEFabcdef0123456789.-_=+/%&");
                default -> p1;
            };
            try {
                assertThat(P1Codec.decode(m)).isNotNull();
                ok++;
            } catch (FrontierException e) {
                assertThat(e.getMessage()).isNotBlank();
            }
        }
        assertThat(ok).isPositive();
    }

    private static String flip(Random r, String s) {
        char[] c = s.toCharArray();
        for (int k = 0; k < 1 + r.nextInt(3); k++) {
            c[r.nextInt(c.length)] = "ABCxyz019.-_".charAt(r.nextInt(12));
        }
        return new String(c);
    }

    private static String mutate(Random r, String s) {
        StringBuilder b = new StringBuilder(s);
        int n = r.nextInt(4);
        for (int k = 0; k < n && b.length() > 0; k++) {
            int pos = r.nextInt(b.length());
            switch (r.nextInt(4)) {
                case 0 -> b.deleteCharAt(pos);
                case 1 -> b.insert(pos, ALPHABET.charAt(r.nextInt(ALPHABET.length())));
                case 2 -> b.insert(pos, List.of(" for update", "; drop table x", " pg_sleep(1)", " from users", "(", ")",
                        " union select 1", "'", "/*", "*/", " dbms_lock.sleep(1) ").get(r.nextInt(11)));
                default -> b.setCharAt(pos, ALPHABET.charAt(r.nextInt(ALPHABET.length())));
            }
        }
        return r.nextInt(20) == 0 ? randomString(r, r.nextInt(60), ALPHABET) : b.toString();
    }

    private static String randomString(Random r, int n, String alphabet) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return b.toString();
    }
}
