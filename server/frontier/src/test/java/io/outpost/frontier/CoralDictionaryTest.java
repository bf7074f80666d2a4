package io.outpost.frontier;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.frontier.protocol.FrontierConfig;
import io.outpost.frontier.sql.DataDictionary;
import io.outpost.frontier.sql.TablePolicy;
import io.outpost.store.IovStore;
import io.outpost.store.db.Database;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import io.outpost.testkit.FrontierDecoder;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The data-dictionary questions CORAL's Frontier plugin asks (coral FrontierAccess Schema.cpp and
 * TableDescriptionProxy.cpp: does a table exist, its columns, primary key, unique constraints, indexes, foreign keys,
 * tablespace; views), pinned here exactly as the plugin sends them (bind values written into the text, a newline
 * appended), answered on SQLite, a real PostgreSQL and a real MariaDB from the database's own catalog in Oracle's
 * shape.
 */
class CoralDictionaryTest {
    private static final Map<Backends, CmsConditionsTest.Fixture> FIXTURES = new EnumMap<>(Backends.class);

    static synchronized CmsConditionsTest.Fixture fixture(Backends b) throws Exception {
        CmsConditionsTest.Fixture f = FIXTURES.get(b);
        if (f == null) {
            Database db = CmsSchema.create(b, "cms_dictionary");
            f = new CmsConditionsTest.Fixture(db, new TestServer(new FrontierServlet(CmsSchema.context("CMS", db))));
            FIXTURES.put(b, f);
        }
        return f;
    }

    @AfterAll
    static void closeAll() throws Exception {
        for (CmsConditionsTest.Fixture f : FIXTURES.values()) {
            f.server().close();
            CmsSchema.drop(f.db());
        }
        FIXTURES.clear();
    }

    /** Schema::readTableColumns("") — existsTable and listTables read every table's columns at once. */
    static final String ALL_COLUMNS = "SELECT TABLE_NAME, COLUMN_NAME FROM ALL_TAB_COLUMNS WHERE OWNER='CMS_CONDITIONS' "
            + "ORDER BY TABLE_NAME, COLUMN_ID\n";
    /** Schema::readTableColumns(table) — existsTable of a table missing from the first answer. */
    static final String TABLE_COLUMNS = "SELECT TABLE_NAME, COLUMN_NAME FROM ALL_TAB_COLUMNS WHERE OWNER='CMS_CONDITIONS' "
            + "AND TABLE_NAME='TAG_LOG' ORDER BY TABLE_NAME, COLUMN_ID\n";
    /** Schema::existsView. */
    static final String EXISTS_VIEW = "SELECT AO.OBJECT_NAME FROM ALL_OBJECTS AO, ALL_VIEWS AV WHERE "
            + "AO.OWNER='CMS_CONDITIONS' AND AO.OBJECT_NAME='IOV' AND AO.OBJECT_NAME = AV.VIEW_NAME\n";
    /** Schema::readViewsFromDataDictionary. */
    static final String VIEWS = "SELECT VIEW_NAME FROM ALL_VIEWS WHERE OWNER='CMS_CONDITIONS'\n";
    /** TableDescriptionProxy::readColumnDescription (a C++ string continued over lines: the spaces stay). */
    static final String DESCRIBE = "SELECT COLUMN_ID, COLUMN_NAME, NULLABLE, DATA_TYPE, DATA_LENGTH, DATA_PRECISION, "
            + "CHAR_LENGTH, DATA_SCALE      FROM ALL_TAB_COLUMNS      WHERE OWNER='CMS_CONDITIONS' AND TABLE_NAME='IOV' "
            + "ORDER BY COLUMN_ID\n";
    /** TableDescriptionProxy::refreshConstraints. */
    static final String UNIQUE = "SELECT ALL_CONSTRAINTS.CONSTRAINT_NAME AS CONSTRAINT_NAME, ALL_CONS_COLUMNS.COLUMN_NAME "
            + "AS COLUMN_NAME, ALL_INDEXES.TABLESPACE_NAME AS TABLESPACE_NAME FROM ALL_CONSTRAINTS, ALL_CONS_COLUMNS, "
            + "ALL_INDEXES WHERE ALL_CONSTRAINTS.OWNER = 'CMS_CONDITIONS' AND ALL_CONSTRAINTS.TABLE_NAME = 'IOV' AND "
            + "ALL_CONSTRAINTS.CONSTRAINT_TYPE = 'U' AND ALL_CONS_COLUMNS.OWNER = ALL_CONSTRAINTS.OWNER AND "
            + "ALL_CONS_COLUMNS.TABLE_NAME = ALL_CONSTRAINTS.TABLE_NAME AND ALL_INDEXES.OWNER = ALL_CONSTRAINTS.OWNER AND "
            + "ALL_INDEXES.TABLE_NAME = ALL_CONSTRAINTS.TABLE_NAME AND ALL_CONS_COLUMNS.CONSTRAINT_NAME = "
            + "ALL_CONSTRAINTS.CONSTRAINT_NAME AND ALL_INDEXES.INDEX_NAME = ALL_CONS_COLUMNS.CONSTRAINT_NAME ORDER BY "
            + "ALL_CONSTRAINTS.CONSTRAINT_NAME, ALL_CONS_COLUMNS.POSITION\n";
    /** TableDescriptionProxy::refreshPrimaryKeyInfo. */
    static final String PRIMARY_KEY = "SELECT B.COLUMN_NAME AS COLUMN_NAME, C.TABLESPACE_NAME AS TABLESPACE_NAME FROM "
            + "ALL_CONSTRAINTS A, ALL_CONS_COLUMNS B, ALL_INDEXES C WHERE A.OWNER='CMS_CONDITIONS' AND A.TABLE_NAME='IOV' "
            + "AND A.CONSTRAINT_TYPE = 'P' AND B.OWNER = A.OWNER AND B.TABLE_NAME = A.TABLE_NAME AND B.CONSTRAINT_NAME = "
            + "A.CONSTRAINT_NAME AND B.CONSTRAINT_NAME = C.INDEX_NAME AND C.OWNER = B.OWNER AND C.TABLE_NAME = "
            + "B.TABLE_NAME ORDER BY B.POSITION\n";
    /** TableDescriptionProxy::refreshIndexInfo. */
    static final String INDEXES = "SELECT A.INDEX_NAME AS INDEX_NAME, A.UNIQUENESS AS UNIQUENESS, A.TABLESPACE_NAME AS "
            + "TABLESPACE_NAME,  B.COLUMN_NAME AS COLUMN_NAME FROM ALL_INDEXES A, ALL_IND_COLUMNS B WHERE A.OWNER "
            + "='CMS_CONDITIONS' AND A.TABLE_NAME ='IOV' AND A.INDEX_NAME = B.INDEX_NAME AND B.INDEX_OWNER = A.OWNER AND "
            + "B.TABLE_NAME = A.TABLE_NAME AND A.INDEX_NAME NOT IN ( SELECT CONSTRAINT_NAME FROM ALL_CONSTRAINTS WHERE "
            + "OWNER = A.OWNER AND TABLE_NAME = A.TABLE_NAME AND ( CONSTRAINT_TYPE = 'P' OR CONSTRAINT_TYPE = 'U' ) ) "
            + "ORDER BY A.INDEX_NAME, B.COLUMN_POSITION\n";
    /** TableDescriptionProxy::refreshForeignKeyInfo. */
    static final String FOREIGN_KEYS = "SELECT A.CONSTRAINT_NAME AS FK_NAME, B.TABLE_NAME AS REF_TABLE, C.COLUMN_NAME AS "
            + "FK_COL, D.COLUMN_NAME AS REF_COL FROM (SELECT CONSTRAINT_NAME, R_CONSTRAINT_NAME FROM ALL_CONSTRAINTS WHERE "
            + "OWNER='CMS_CONDITIONS' AND TABLE_NAME ='IOV' AND CONSTRAINT_TYPE='R') A, (SELECT TABLE_NAME, "
            + "CONSTRAINT_NAME FROM ALL_CONSTRAINTS WHERE OWNER='CMS_CONDITIONS') B, (SELECT COLUMN_NAME, "
            + "CONSTRAINT_NAME, POSITION FROM ALL_CONS_COLUMNS WHERE OWNER='CMS_CONDITIONS' AND TABLE_NAME='IOV' ORDER BY "
            + "POSITION) C, (SELECT COLUMN_NAME, CONSTRAINT_NAME, TABLE_NAME, POSITION FROM ALL_CONS_COLUMNS WHERE "
            + "OWNER='CMS_CONDITIONS') D WHERE A.R_CONSTRAINT_NAME = B.CONSTRAINT_NAME AND A.CONSTRAINT_NAME = "
            + "C.CONSTRAINT_NAME AND B.CONSTRAINT_NAME = D.CONSTRAINT_NAME AND C.POSITION = D.POSITION ORDER BY FK_NAME, "
            + "D.POSITION\n";
    /** TableDescriptionProxy::tableSpaceName. */
    static final String TABLESPACE = "SELECT TABLESPACE_NAME FROM ALL_TABLES WHERE OWNER='CMS_CONDITIONS' AND "
            + "TABLE_NAME='IOV'\n";

    static List<List<String>> rows(Backends b, String sql) throws Exception {
        FrontierDecoder.Payload p = CmsConditionsTest.ask(fixture(b), "CMS", sql);
        assertThat(p.error()).as("%s", p.message()).isFalse();
        return p.data();
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void existsTableAndListTablesSeeTheContextsTablesOnly(Backends b) throws Exception {
        List<List<String>> all = rows(b, ALL_COLUMNS);
        assertThat(all.stream().map(r -> r.get(0)).distinct())
                .containsExactly("GLOBAL_TAG", "GLOBAL_TAG_MAP", "IOV", "PAYLOAD", "TAG");
        assertThat(all).contains(List.of("IOV", "TAG_NAME"), List.of("IOV", "SINCE"), List.of("PAYLOAD", "DATA"));
        assertThat(all.stream().filter(r -> r.get(0).equals("IOV")).map(r -> r.get(1)))
                .containsExactly("TAG_NAME", "SINCE", "PAYLOAD_HASH", "INSERTION_TIME");
        assertThat(rows(b, TABLE_COLUMNS)).isEmpty();
        assertThat(rows(b, EXISTS_VIEW)).isEmpty();
        assertThat(rows(b, VIEWS)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void describeColumnsInOraclesTypes(Backends b) throws Exception {
        FrontierDecoder.Payload p = CmsConditionsTest.ask(fixture(b), "CMS", DESCRIBE);
        assertThat(p.columns()).containsExactly("COLUMN_ID", "COLUMN_NAME", "NULLABLE", "DATA_TYPE", "DATA_LENGTH",
                "DATA_PRECISION", "CHAR_LENGTH", "DATA_SCALE");
        String nameLength = b == Backends.MARIADB ? "255" : "4000"; // a key there: see conddb-v2-mariadb.sql
        assertThat(p.data()).containsExactly(
                Arrays.asList("1", "TAG_NAME", "N", "VARCHAR2", nameLength, null, nameLength, null),
                Arrays.asList("2", "SINCE", "N", "NUMBER", "22", "20", "0", "0"),
                Arrays.asList("3", "PAYLOAD_HASH", "N", "VARCHAR2", "40", null, "40", null),
                Arrays.asList("4", "INSERTION_TIME", "N", "TIMESTAMP(6)", "11", null, "0", "6"));
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void keysAndIndexes(Backends b) throws Exception {
        assertThat(rows(b, PRIMARY_KEY)).containsExactly(List.of("TAG_NAME", DataDictionary.TABLESPACE),
                List.of("SINCE", DataDictionary.TABLESPACE), List.of("INSERTION_TIME", DataDictionary.TABLESPACE));
        assertThat(rows(b, UNIQUE)).isEmpty();
        assertThat(rows(b, INDEXES)).isEmpty();
        assertThat(rows(b, FOREIGN_KEYS)).containsExactlyInAnyOrder(
                List.of("PAYLOAD_HASH_FK", "PAYLOAD", "PAYLOAD_HASH", "HASH"),
                List.of("TAG_NAME_FK", "TAG", "TAG_NAME", "NAME"));
        assertThat(rows(b, TABLESPACE)).containsExactly(List.of(DataDictionary.TABLESPACE));
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void coolTablesAndTheirIndexesThroughTheDefaultProfile(Backends b) throws Exception {
        io.outpost.store.db.DatabaseConfig cfg = b.freshConfig("coral_cool");
        try (IovStore store = IovStore.open(cfg)) {
            Node folder = store.createFolder("/A/B", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("x:Int32"), "test", true);
            String iovs = folder.iovTable().toUpperCase(java.util.Locale.ROOT);
            FrontierContext cool = new FrontierContext("Cool", store.database(),
                    FrontierConfig.defaults("Cool").withSchemaName("ATLAS_COOLOFL_TEST"));
            try (TestServer server = new TestServer(new FrontierServlet(cool))) {
                CmsConditionsTest.Fixture f = new CmsConditionsTest.Fixture(store.database(), server);
                FrontierDecoder.Payload tables = CmsConditionsTest.ask(f, "Cool", ALL_COLUMNS.replace("CMS_CONDITIONS",
                        "ATLAS_COOLOFL_TEST"));
                assertThat(tables.error()).as("%s", tables.message()).isFalse();
                // COOL's tables only: no migration history or other tables of the database
                assertThat(tables.data().stream().map(r -> r.get(0)).distinct())
                        .allMatch(t -> t.startsWith("OUTPOST_")).contains("OUTPOST_NODES", iovs);
                FrontierDecoder.Payload idx = CmsConditionsTest.ask(f, "Cool", INDEXES
                        .replace("CMS_CONDITIONS", "ATLAS_COOLOFL_TEST").replace("='IOV'", "='" + iovs + "'"));
                assertThat(idx.error()).as("%s", idx.message()).isFalse();
                assertThat(idx.data()).containsExactly(
                        List.of(iovs + "_CO_2INDX", "NONUNIQUE", DataDictionary.TABLESPACE, "CHANNEL_ID"),
                        List.of(iovs + "_CO_2INDX", "NONUNIQUE", DataDictionary.TABLESPACE, "OBJECT_ID"),
                        List.of(iovs + "_CSU_3INDX", "NONUNIQUE", DataDictionary.TABLESPACE, "CHANNEL_ID"),
                        List.of(iovs + "_CSU_3INDX", "NONUNIQUE", DataDictionary.TABLESPACE, "IOV_SINCE"),
                        List.of(iovs + "_CSU_3INDX", "NONUNIQUE", DataDictionary.TABLESPACE, "IOV_UNTIL"));
            }
        } finally {
            if (cfg.jdbcUrl().startsWith("jdbc:sqlite:")) {
                CmsSchema.deleteTree(java.nio.file.Path.of(cfg.jdbcUrl().substring("jdbc:sqlite:".length())).getParent());
            }
        }
    }

    /** View::refreshDefinition. */
    static final String VIEW_TEXT = "SELECT TEXT FROM ALL_VIEWS WHERE VIEW_NAME='TAG_NAMES' AND OWNER='CMS_CONDITIONS'\n";

    @ParameterizedTest
    @EnumSource(Backends.class)
    void viewsTheirColumnsAndDefinition(Backends b) throws Exception {
        Database db = CmsSchema.create(b, "cms_views");
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(db.config().jdbcUrl(), db.config().user(),
                db.config().password()); java.sql.Statement st = c.createStatement()) {
            st.execute("CREATE VIEW TAG_NAMES AS SELECT NAME, TIME_TYPE FROM TAG");
        }
        Map<String, String> settings = Map.of("Tables", "TAG,TAG_NAMES", "SchemaName", CmsSchema.OWNER);
        FrontierContext ctx = new FrontierContext("Views", db, FrontierConfig.fromProperties("Views", settings), null,
                TablePolicy.fromProperties(settings, db.prefix()));
        try (TestServer server = new TestServer(new FrontierServlet(ctx))) {
            CmsConditionsTest.Fixture f = new CmsConditionsTest.Fixture(db, server);
            assertThat(CmsConditionsTest.ask(f, "Views", VIEWS).data()).containsExactly(List.of("TAG_NAMES"));
            assertThat(CmsConditionsTest.ask(f, "Views", EXISTS_VIEW.replace("'IOV'", "'TAG_NAMES'")).data())
                    .containsExactly(List.of("TAG_NAMES"));
            assertThat(CmsConditionsTest.ask(f, "Views", EXISTS_VIEW).data()).isEmpty();
            assertThat(CmsConditionsTest.ask(f, "Views", ALL_COLUMNS).data()).contains(List.of("TAG_NAMES", "NAME"),
                    List.of("TAG_NAMES", "TIME_TYPE"));
            List<List<String>> text = CmsConditionsTest.ask(f, "Views", VIEW_TEXT).data();
            assertThat(text).hasSize(1);
            assertThat(text.get(0).get(0).toUpperCase(java.util.Locale.ROOT)).startsWith("SELECT").contains("TIME_TYPE")
                    .contains("FROM").doesNotContain("CREATE");
        } finally {
            CmsSchema.drop(db);
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void dictionaryViewsAreNotJoinedWithTablesNorWritable(Backends b) throws Exception {
        FrontierDecoder.Payload mixed = CmsConditionsTest.ask(fixture(b), "CMS",
                "SELECT T.NAME FROM TAG T, ALL_TABLES A WHERE A.TABLE_NAME = 'TAG'\n");
        assertThat(mixed.error()).isTrue();
        assertThat(mixed.message()).contains("data-dictionary views cannot be read together with tables");
        FrontierDecoder.Payload other = CmsConditionsTest.ask(fixture(b), "CMS", "SELECT * FROM SYS.ALL_USERS\n");
        assertThat(other.error()).isTrue();
    }
}
