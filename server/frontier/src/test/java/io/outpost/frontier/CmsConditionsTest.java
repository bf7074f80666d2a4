package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.db.Database;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.FrontierDecoder;
import io.outpost.testkit.RawHttp;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CMS conditions through the Frontier endpoint: the CMS CondDB v2 schema on SQLite, a real PostgreSQL and MariaDB, a context
 * with the {@code cms-conddb-v2} profile, and the exact statements a CMSSW job sends through CORAL's Frontier plugin
 * (CondCore/CondDB builds them with CORAL queries; CORAL quotes the names, qualifies tables with the owner, and
 * writes bind values into the text), answered in the upstream wire format over real HTTP.
 */
class CmsConditionsTest {
    record Fixture(Database db, TestServer server) {
    }

    private static final Map<Backends, Fixture> FIXTURES = new EnumMap<>(Backends.class);

    static synchronized Fixture fixture(Backends b) throws Exception {
        Fixture f = FIXTURES.get(b);
        if (f == null) {
            Database db = CmsSchema.create(b, "cms_conditions");
            f = new Fixture(db, new TestServer(new FrontierServlet(CmsSchema.context("CMS", db)),
                    new FrontierServlet(new FrontierContext("Cool", db))));
            FIXTURES.put(b, f);
        }
        return f;
    }

    @AfterAll
    static void closeAll() throws Exception {
        for (Fixture f : FIXTURES.values()) {
            f.server().close();
            CmsSchema.drop(f.db());
        }
        FIXTURES.clear();
    }

    // The statements of CondCore/CondDB (GTSchema.cc, IOVSchema.cc) as CORAL's Frontier plugin sends them.

    static final String GLOBAL_TAG = "SELECT \"GLOBAL_TAG\".\"VALIDITY\", \"GLOBAL_TAG\".\"DESCRIPTION\", "
            + "\"GLOBAL_TAG\".\"RELEASE\", \"GLOBAL_TAG\".\"SNAPSHOT_TIME\" FROM \"CMS_CONDITIONS\".\"GLOBAL_TAG\" "
            + "\"GLOBAL_TAG\" WHERE \"GLOBAL_TAG\".\"NAME\" = 'GT_2024_v2' \n";
    static final String GLOBAL_TAG_MAP = "SELECT \"GLOBAL_TAG_MAP\".\"RECORD\", \"GLOBAL_TAG_MAP\".\"LABEL\", "
            + "\"GLOBAL_TAG_MAP\".\"TAG_NAME\" FROM \"CMS_CONDITIONS\".\"GLOBAL_TAG_MAP\" \"GLOBAL_TAG_MAP\" WHERE "
            + "\"GLOBAL_TAG_MAP\".\"GLOBAL_TAG_NAME\" = 'GT_2024_v2'  ORDER BY \"GLOBAL_TAG_MAP\".\"RECORD\", "
            + "\"GLOBAL_TAG_MAP\".\"LABEL\"\n";
    static final String TAG = "SELECT \"TAG\".\"TIME_TYPE\", \"TAG\".\"OBJECT_TYPE\", \"TAG\".\"SYNCHRONIZATION\", "
            + "\"TAG\".\"END_OF_VALIDITY\", \"TAG\".\"DESCRIPTION\", \"TAG\".\"LAST_VALIDATED_TIME\" FROM "
            + "\"CMS_CONDITIONS\".\"TAG\" \"TAG\" WHERE \"TAG\".\"NAME\" = 'BeamSpot_v1' \n";
    static final String IOV_GROUPS = "SELECT DISTINCT MIN(\"IOV\".\"SINCE\") FROM \"CMS_CONDITIONS\".\"IOV\" \"IOV\" "
            + "WHERE \"IOV\".\"TAG_NAME\" = 'BeamSpot_v1'  GROUP BY CAST(\"IOV\".\"SINCE\"/1000 AS INT)*1000 "
            + "ORDER BY MIN(\"IOV\".\"SINCE\")\n";
    static final String IOVS_IN_GROUP = "SELECT \"IOV\".\"SINCE\", \"IOV\".\"PAYLOAD_HASH\" FROM "
            + "\"CMS_CONDITIONS\".\"IOV\" \"IOV\" WHERE \"IOV\".\"TAG_NAME\" = 'BeamSpot_v1'  AND \"IOV\".\"SINCE\" >= "
            + "1000  AND \"IOV\".\"SINCE\" < 3000  ORDER BY \"IOV\".\"SINCE\", \"IOV\".\"INSERTION_TIME\" DESC\n";
    static final String IOVS_SNAPSHOT = "SELECT \"IOV\".\"SINCE\", \"IOV\".\"PAYLOAD_HASH\" FROM "
            + "\"CMS_CONDITIONS\".\"IOV\" \"IOV\" WHERE \"IOV\".\"TAG_NAME\" = 'BeamSpot_v1'  AND "
            + "\"IOV\".\"INSERTION_TIME\" <= TO_TIMESTAMP('2024-02-01 00:00:00','YYYY-MM-DD HH24:MI:SS.FF')  "
            + "ORDER BY \"IOV\".\"SINCE\", \"IOV\".\"INSERTION_TIME\" DESC\n";
    static final String LAST_IOV = "SELECT \"IOV\".\"SINCE\", \"IOV\".\"PAYLOAD_HASH\" FROM \"CMS_CONDITIONS\".\"IOV\" "
            + "\"IOV\" WHERE \"IOV\".\"TAG_NAME\" = 'LumiCorr_v1'  ORDER BY \"IOV\".\"SINCE\" DESC, "
            + "\"IOV\".\"INSERTION_TIME\" DESC\n";
    static final String IOV_COUNT = "SELECT COUNT(*) FROM \"CMS_CONDITIONS\".\"IOV\" \"IOV\" WHERE "
            + "\"IOV\".\"TAG_NAME\" = 'BeamSpot_v1' \n";
    static final String PAYLOAD = "SELECT \"PAYLOAD\".\"DATA\", \"PAYLOAD\".\"STREAMER_INFO\", "
            + "\"PAYLOAD\".\"OBJECT_TYPE\" FROM \"CMS_CONDITIONS\".\"PAYLOAD\" \"PAYLOAD\" WHERE \"PAYLOAD\".\"HASH\" = '"
            + CmsSchema.H2 + "' \n";

    static FrontierDecoder.Payload ask(Fixture f, String context, String sql) throws Exception {
        String target = FrontierRequests.path(context, "BLOBzip5", Map.of(), sql);
        try (RawHttp r = RawHttp.send(f.server().port(), target, "HTTP/1.0", FrontierRequests.clientHeaders())) {
            assertThat(r.status).isEqualTo(200);
            return FrontierDecoder.decode(r.body()).only();
        }
    }

    static FrontierDecoder.Payload ok(Fixture f, String sql) throws Exception {
        FrontierDecoder.Payload p = ask(f, "CMS", sql);
        assertThat(p.error()).as("%s", p.message()).isFalse();
        return p;
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void globalTagAndItsMap(Backends b) throws Exception {
        Fixture f = fixture(b);
        FrontierDecoder.Payload gt = ok(f, GLOBAL_TAG);
        assertThat(gt.columns()).containsExactly("VALIDITY", "DESCRIPTION", "RELEASE", "SNAPSHOT_TIME");
        assertThat(gt.types()).containsExactly("NUMBER(20)", "VARCHAR2", "VARCHAR2", "TIMESTAMP");
        assertThat(gt.data()).hasSize(1);
        assertThat(gt.data().get(0).subList(0, 3)).containsExactly("0", "with new pedestals", "CMSSW_14_0_7");
        assertThat(gt.data().get(0).get(3)).startsWith("2024-07-01 00:00:00");

        FrontierDecoder.Payload map = ok(f, GLOBAL_TAG_MAP);
        assertThat(map.columns()).containsExactly("RECORD", "LABEL", "TAG_NAME");
        assertThat(map.data()).containsExactly(List.of("BeamSpotObjectsRcd", "-", "BeamSpot_v1"),
                List.of("EcalPedestalsRcd", "-", "EcalPedestals_v2"), List.of("LumiCorrectionsRcd", "hlt", "LumiCorr_v1"));
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void tagIovGroupsIovsAndSnapshots(Backends b) throws Exception {
        Fixture f = fixture(b);
        assertThat(ok(f, TAG).data()).containsExactly(List.of("Run", "BeamSpotObjects", "any", "0", "beam spot per run", "0"));
        assertThat(ok(f, IOV_GROUPS).data()).containsExactly(List.of("1"), List.of("1000"), List.of("2500"));
        FrontierDecoder.Payload group = ok(f, IOVS_IN_GROUP);
        assertThat(group.columns()).containsExactly("SINCE", "PAYLOAD_HASH");
        assertThat(group.types()).containsExactly("NUMBER(20)", "VARCHAR2");
        // the newest insertion of since 1000 first: CMSSW keeps the first row of each since
        assertThat(group.data()).containsExactly(List.of("1000", CmsSchema.H2), List.of("1000", CmsSchema.H1),
                List.of("2500", CmsSchema.H1));
        assertThat(ok(f, IOVS_SNAPSHOT).data()).containsExactly(List.of("1", CmsSchema.H1), List.of("1000", CmsSchema.H1));
        assertThat(ok(f, LAST_IOV).data().get(0)).containsExactly(Long.toString((370000L << 32) | 50),
                "4444444444444444444444444444444444444444");
        assertThat(ok(f, IOV_COUNT).data()).containsExactly(List.of("4"));
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void payloadByHashAsBlob(Backends b) throws Exception {
        Fixture f = fixture(b);
        FrontierDecoder.Payload p = ok(f, PAYLOAD);
        assertThat(p.columns()).containsExactly("DATA", "STREAMER_INFO", "OBJECT_TYPE");
        assertThat(p.types()).containsExactly("BLOB", "BLOB", "VARCHAR2");
        List<String> row = p.data().get(0);
        assertThat(HexFormat.of().formatHex(row.get(0).getBytes(StandardCharsets.ISO_8859_1))).isEqualTo("0a0b0c");
        assertThat(row.get(2)).isEqualTo("BeamSpotObjects");
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void theProfileDecidesTablesAndColumns(Backends b) throws Exception {
        Fixture f = fixture(b);
        // a column the profile does not list, a table outside it, SELECT *, and COOL's tables
        FrontierDecoder.Payload hidden = ask(f, "CMS", "SELECT \"TAG\".\"NAME\", \"TAG\".\"SECRET\" FROM "
                + "\"CMS_CONDITIONS\".\"TAG\" \"TAG\"\n");
        assertThat(hidden.error()).isTrue();
        assertThat(hidden.message()).contains("column TAG.SECRET is not allowed");
        assertThat(ask(f, "CMS", "SELECT NAME FROM TAG_LOG\n").message()).contains("table TAG_LOG is not allowed");
        assertThat(ask(f, "CMS", "SELECT * FROM \"CMS_CONDITIONS\".\"TAG\"\n").message()).contains("name the columns");
        assertThat(ask(f, "CMS", "SELECT NODE_ID FROM OUTPOST_NODES\n").message()).contains("is not allowed");
        // the same database in a context with the default (COOL) profile admits none of the CMS tables
        FrontierDecoder.Payload cool = ask(f, "Cool", TAG);
        assertThat(cool.error()).isTrue();
        assertThat(cool.message()).contains("TAG&quot; is not allowed (only tables of this context)");
    }
}
