package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.FrontierDecoder;
import io.outpost.testkit.SquidProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What CORAL's FrontierAccess plugin sends when COOL or a user of CORAL reads a default context
 * ({@code frontier://(serverurl=…/Outpost)/OUTPOST}, no configuration): the schema check (ALL_USERS), listTables,
 * each table's description, keys and indexes, schema-qualified quoted data queries and ROWNUM-limited ones, as
 * FrontierAccess writes them (Session.cpp, Schema.cpp, TableDescriptionProxy.cpp, QueryDefinition.cpp; binds written
 * into the text). A folder holds every COOL storage type with random values at their extremes; for every column of
 * every table, the C++ type CORAL picks from the dictionary must equal the one it picks from the data answer, and
 * hold every stored value.
 */
class CoralReadsTest {
    private static final String OWNER = "OUTPOST";
    private static final String ALL_TYPES = "b:Bool,uc:UChar,i16:Int16,u16:UInt16,i32:Int32,u32:UInt32,u63:UInt63,"
            + "i64:Int64,f:Float,d:Double,s:String255,s4:String4k,s64:String64k,bl:Blob64k";

    record Fixture(IovStore store, Node folder, Node mv, CmsConditionsTest.Fixture http) {
    }

    private static final Map<Backends, Fixture> FIXTURES = new EnumMap<>(Backends.class);

    static synchronized Fixture fixture(Backends b) throws Exception {
        Fixture f = FIXTURES.get(b);
        if (f == null) {
            DatabaseConfig cfg = b.freshConfig("coral_reads");
            IovStore store = IovStore.open(cfg);
            Node folder = store.createFolder("/CORAL/AllTypes", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse(ALL_TYPES), "every storage type", true);
            Node mv = store.createFolder("/CORAL/Calib", Versioning.MULTI_VERSION, KeyType.RUN_LUMI,
                    PayloadSpec.parse("mean:Float,current:Double"), "run-lumi calibration", true);
            long seed = System.nanoTime();
            System.out.println("CoralReadsTest seed " + seed);
            Random r = new Random(seed);
            List<NewIov> iovs = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                iovs.add(new NewIov(r.nextInt(4), 1767225600000000000L + i * 1_000_000_000L, ValidityKey.MAX, values(r, i)));
            }
            store.store(folder, iovs);
            List<NewIov> calib = new ArrayList<>();
            for (int run = 300; run < 310; run++) {
                calib.add(new NewIov(1, ((long) run << 32), ValidityKey.MAX, r.nextFloat() * 100, r.nextFloat()));
            }
            store.store(mv, calib);
            TestServer server = new TestServer(new FrontierServlet(new FrontierContext("Outpost", store.database())));
            f = new Fixture(store, folder, mv, new CmsConditionsTest.Fixture(store.database(), server));
            FIXTURES.put(b, f);
        }
        return f;
    }

    /** One payload: the first rows hold each type's extremes, the rest random values. */
    private static Object[] values(Random r, int i) {
        return switch (i) {
            case 0 -> new Object[] {true, (short) 255, Short.MAX_VALUE, 65535, Integer.MAX_VALUE, 4294967295L,
                Long.MAX_VALUE, Long.MIN_VALUE, Float.MAX_VALUE, Double.MAX_VALUE, "x", "y", "z", new byte[] {1}};
            case 1 -> new Object[] {false, (short) 0, (short) -32767, 0, Integer.MIN_VALUE, 0L, 0L, Long.MAX_VALUE,
                -Float.MIN_VALUE, -Double.MIN_VALUE, "", "", "", new byte[0]};
            default -> new Object[] {r.nextBoolean(), (short) r.nextInt(256), (short) (r.nextInt(65535) - 32767),
                r.nextInt(65536), r.nextInt(), r.nextLong(1L << 32), r.nextLong(Long.MAX_VALUE), r.nextLong(),
                r.nextFloat() * 1e30f, r.nextDouble() * 1e300, "s" + r.nextInt(), "t" + r.nextInt(), null,
                new byte[] {(byte) r.nextInt()}};
        };
    }

    @AfterAll
    static void closeAll() throws Exception {
        for (Fixture f : FIXTURES.values()) {
            f.http().server().close();
            f.store().close();
        }
        FIXTURES.clear();
    }

    private static FrontierDecoder.Payload ask(Backends b, String sql) throws Exception {
        FrontierDecoder.Payload p = CmsConditionsTest.ask(fixture(b).http(), "Outpost", sql + "\n");
        assertThat(p.error()).as("%s -> %s", sql, p.message()).isFalse();
        return p;
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void theSchemaExistsAsTheDictionaryNamesIt(Backends b) throws Exception {
        assertThat(ask(b, "SELECT USERNAME FROM ALL_USERS WHERE USERNAME='OUTPOST'").data())
                .containsExactly(List.of(OWNER));
        assertThat(ask(b, "SELECT USERNAME FROM ALL_USERS WHERE USERNAME='OTHER'").data()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void everyColumnOfEveryTableReadsWithTheTypeItsDescriptionGives(Backends b) throws Exception {
        Fixture f = fixture(b);
        Map<String, List<String>> tables = new LinkedHashMap<>();
        for (List<String> row : ask(b, "SELECT TABLE_NAME, COLUMN_NAME FROM ALL_TAB_COLUMNS WHERE OWNER='OUTPOST' "
                + "ORDER BY TABLE_NAME, COLUMN_ID").data()) {
            tables.computeIfAbsent(row.get(0), k -> new ArrayList<>()).add(row.get(1));
        }
        String iovs = f.folder().iovTable().toUpperCase(Locale.ROOT);
        assertThat(tables).containsKeys("OUTPOST_NODES", "OUTPOST_TAGS", iovs, f.mv().iovTable().toUpperCase(Locale.ROOT),
                f.mv().iov2TagTable().toUpperCase(Locale.ROOT));
        int checkedValues = 0;
        for (String table : tables.keySet()) {
            Map<String, String> described = new LinkedHashMap<>();
            for (List<String> c : ask(b, "SELECT COLUMN_ID, COLUMN_NAME, NULLABLE, DATA_TYPE, DATA_LENGTH, DATA_PRECISION, "
                    + "CHAR_LENGTH, DATA_SCALE      FROM ALL_TAB_COLUMNS      WHERE OWNER='OUTPOST' AND TABLE_NAME='"
                    + table + "' ORDER BY COLUMN_ID").data()) {
                described.put(c.get(1), CoralTypes.fromDictionary(c.get(3), c.get(4), c.get(5), c.get(7)));
            }
            assertThat(described.keySet()).as(table).containsExactlyElementsOf(tables.get(table));
            // Query.cpp's wildcard query on a table: schema-qualified and quoted, the table aliased by its name
            FrontierDecoder.Payload data = ask(b, "SELECT * FROM \"OUTPOST\".\"" + table + "\" \"" + table + "\"");
            assertThat(data.columns()).as(table).containsExactlyElementsOf(described.keySet());
            for (int i = 0; i < data.columns().size(); i++) {
                String column = data.columns().get(i);
                String cpp = described.get(column);
                assertThat(CoralTypes.fromSqlType(data.types().get(i))).as("%s.%s answered as %s", table, column,
                        data.types().get(i)).isEqualTo(cpp);
                for (List<String> row : data.data()) {
                    assertThat(CoralTypes.holds(cpp, row.get(i))).as("%s.%s = %s in %s", table, column, row.get(i), cpp)
                            .isTrue();
                    checkedValues++;
                }
            }
        }
        assertThat(checkedValues).isGreaterThan(40 * 14);
        assertThat(ask(b, "SELECT \"" + iovs + "\".\"IOV_SINCE\", \"" + iovs + "\".\"U63\" FROM \"OUTPOST\".\"" + iovs
                + "\" \"" + iovs + "\" WHERE \"" + iovs + "\".\"IOV_SINCE\" = 1767225600000000000").data())
                .containsExactly(List.of("1767225600000000000", Long.toString(Long.MAX_VALUE)));
        // the floats' text holds every bit (MariaDB prints a FLOAT with 6 digits unless told otherwise)
        List<String> extremes = ask(b, "SELECT \"" + iovs + "\".\"F\", \"" + iovs + "\".\"D\" FROM \"OUTPOST\".\"" + iovs
                + "\" \"" + iovs + "\" WHERE \"" + iovs + "\".\"IOV_SINCE\" = 1767225600000000000").data().get(0);
        assertThat(Float.parseFloat(extremes.get(0))).isEqualTo(Float.MAX_VALUE);
        assertThat(Double.parseDouble(extremes.get(1))).isEqualTo(Double.MAX_VALUE);
        // a bound key (always text in Frontier) compares exactly, also one nanosecond off
        String byKey = "SELECT \"" + iovs + "\".\"IOV_SINCE\" FROM \"OUTPOST\".\"" + iovs + "\" \"" + iovs + "\" WHERE \""
                + iovs + "\".\"IOV_SINCE\" = ? AND \"" + iovs + "\".\"CHANNEL_ID\" >= ?";
        assertThat(ask(b, byKey + ":1767225600000000000:0").data()).containsExactly(List.of("1767225600000000000"));
        assertThat(ask(b, byKey + ":1767225600000000001:0").data()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void folderListAsCoolReadsIt(Backends b) throws Exception {
        assertThat(ask(b, "SELECT \"NODE_FULLPATH\" FROM \"OUTPOST\".\"OUTPOST_NODES\" \"OUTPOST_NODES\" "
                + "WHERE \"NODE_ISLEAF\" = 1 ORDER BY \"NODE_FULLPATH\"").data())
                .containsExactly(List.of("/CORAL/AllTypes"), List.of("/CORAL/Calib"));
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void rownumLimitedQueries(Backends b) throws Exception {
        String t = fixture(b).mv().iovTable().toUpperCase(Locale.ROOT);
        String q = "SELECT \"" + t + "\".\"OBJECT_ID\" AS \"OBJECT_ID\", \"" + t + "\".\"IOV_SINCE\" AS \"IOV_SINCE\" "
                + "FROM \"OUTPOST\".\"" + t + "\" \"" + t + "\" ORDER BY \"" + t + "\".\"IOV_SINCE\" DESC, \"" + t + "\".\"OBJECT_ID\"";
        List<List<String>> all = ask(b, q).data();
        assertThat(all).hasSizeGreaterThanOrEqualTo(10); // each new IOV also splits the one before
        assertThat(ask(b, "SELECT * FROM (" + q + ") WHERE ROWNUM < 4").data()).isEqualTo(all.subList(0, 3));
        assertThat(ask(b, "SELECT \"OBJECT_ID\", \"IOV_SINCE\" FROM (SELECT ROWNUM ROW#, \"OBJECT_ID\", \"IOV_SINCE\" FROM ("
                + q + ") ) WHERE ROW# BETWEEN 3 AND 7").data()).isEqualTo(all.subList(2, 7));
    }

    /** A CORAL session through a site Squid, as {@code (proxyurl=…)} in the connection string sends it. */
    @ParameterizedTest
    @EnumSource(Backends.class)
    void throughSquidTheSameAnswersAndTheSecondIsAHit(Backends b) throws Exception {
        Assumptions.assumeTrue(SquidProcess.installed(), SquidProcess.NOT_INSTALLED);
        Fixture f = fixture(b);
        String iovs = f.folder().iovTable().toUpperCase(Locale.ROOT);
        List<String> session = List.of("SELECT USERNAME FROM ALL_USERS WHERE USERNAME='OUTPOST'",
                "SELECT TABLE_NAME, COLUMN_NAME FROM ALL_TAB_COLUMNS WHERE OWNER='OUTPOST' ORDER BY TABLE_NAME, COLUMN_ID",
                "SELECT COLUMN_ID, COLUMN_NAME, NULLABLE, DATA_TYPE, DATA_LENGTH, DATA_PRECISION, CHAR_LENGTH, DATA_SCALE"
                        + "      FROM ALL_TAB_COLUMNS      WHERE OWNER='OUTPOST' AND TABLE_NAME='" + iovs
                        + "' ORDER BY COLUMN_ID",
                "SELECT * FROM (SELECT * FROM \"OUTPOST\".\"" + iovs + "\" \"" + iovs + "\" ORDER BY \"" + iovs
                        + "\".\"OBJECT_ID\") WHERE ROWNUM < 11");
        // under target/ (not a private temporary folder): Squid runs as its own user when the tests run as root
        Path dir = Path.of("target", "squid-coral-" + b.name().toLowerCase(Locale.ROOT)).toAbsolutePath();
        try (SquidProcess squid = SquidProcess.startStandalone(dir, "coral-site", 64)) {
            HttpClient client = squid.client();
            for (String sql : session) {
                FrontierDecoder.Payload direct = ask(b, sql);
                String url = "http://127.0.0.1:" + f.http().server().port()
                        + FrontierRequests.path("Outpost", "BLOBzip5", Map.of(), sql + "\n");
                byte[] first = null;
                for (int i = 0; i < 2; i++) {
                    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
                    req.header("X-Frontier-Id", FrontierRequests.clientHeaders().get("X-Frontier-Id"));
                    HttpResponse<byte[]> r = client.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
                    assertThat(r.statusCode()).isEqualTo(200);
                    FrontierDecoder.Payload viaSquid = FrontierDecoder.decode(r.body()).only();
                    assertThat(viaSquid.error()).as("%s -> %s", sql, viaSquid.message()).isFalse();
                    assertThat(viaSquid.types()).isEqualTo(direct.types());
                    assertThat(viaSquid.data()).isEqualTo(direct.data());
                    if (first == null) {
                        first = r.body();
                    } else {
                        assertThat(r.body()).isEqualTo(first);
                        assertThat(r.headers().firstValue("X-Cache").orElse("")).as(sql).startsWith("HIT");
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void uniqueConstraintsUnderTheirDeclaredNames(Backends b) throws Exception {
        String unique = CoralDictionaryTest.UNIQUE.replace("CMS_CONDITIONS", OWNER).replace("'IOV'", "'OUTPOST_NODES'");
        assertThat(ask(b, unique.strip()).data()).containsExactly(
                List.of("OUTPOST_NODES_FULLPATH_UK", "NODE_FULLPATH", "OUTPOST_DATA"));
        String channels = fixture(b).folder().channelTable().toUpperCase(Locale.ROOT);
        assertThat(ask(b, CoralDictionaryTest.UNIQUE.replace("CMS_CONDITIONS", OWNER)
                .replace("'IOV'", "'" + channels + "'").strip()).data())
                .containsExactly(List.of(channels + "_NAME_UK", "CHANNEL_NAME", "OUTPOST_DATA"));
        // the indexes CORAL lists leave out those backing the primary key and the unique constraints
        assertThat(ask(b, CoralDictionaryTest.INDEXES.replace("CMS_CONDITIONS", OWNER)
                .replace("'IOV'", "'OUTPOST_NODES'").strip()).data()).isEmpty();
        assertThat(ask(b, CoralDictionaryTest.PRIMARY_KEY.replace("CMS_CONDITIONS", OWNER)
                .replace("'IOV'", "'OUTPOST_TAGS'").strip()).data())
                .containsExactly(List.of("NODE_ID", "OUTPOST_DATA"), List.of("TAG_ID", "OUTPOST_DATA"));
    }
}
