package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** Which tables and columns a context admits, from its settings; and SqlGuard applying it. */
class TablePolicyTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    @Test
    void coolIsTheDefaultWithTheTablePrefix() {
        TablePolicy p = TablePolicy.fromProperties(Map.of(), "OUTPOST_");
        assertThat(p.allowsTable("OUTPOST_NODES")).isTrue();
        assertThat(p.allowsTable("OUTPOST_F0007_IOVS")).isTrue();
        assertThat(p.allowsTable("OUTPOST_F007_IOVS")).isFalse();
        assertThat(p.allowsTable("OTHER_NODES")).isFalse();
        assertThat(p.allowsTable("FLYWAY_SCHEMA_HISTORY")).isFalse();
        assertThat(p.restrictsColumns()).isFalse();
    }

    @Test
    void cmsProfileListsTablesAndColumns() {
        TablePolicy p = TablePolicy.fromProperties(Map.of("Profile", "cms-conddb-v2"), "OUTPOST_");
        assertThat(p.allowsTable("IOV")).isTrue();
        assertThat(p.allowsTable("TAG_LOG")).isFalse();
        assertThat(p.allowsTable("OUTPOST_NODES")).isFalse();
        assertThat(p.columnsOf("PAYLOAD")).contains("HASH", "DATA", "STREAMER_INFO");
    }

    @Test
    void ownTablesPatternsAndColumns() {
        TablePolicy p = TablePolicy.fromProperties(Map.of("Tables", "{prefix}RUNS, LUMI_[A-Z]+",
                "Columns", "OUTPOST_RUNS.RUN, outpost_runs.start_time, LUMI_SECTIONS.*"), "OUTPOST_");
        assertThat(p.allowsTable("OUTPOST_RUNS")).isTrue();
        assertThat(p.allowsTable("LUMI_SECTIONS")).isTrue();
        assertThat(p.allowsTable("LUMI_1")).isFalse();
        assertThat(p.columnsOf("OUTPOST_RUNS")).containsExactly("RUN", "START_TIME");
        assertThat(p.columnsOf("LUMI_SECTIONS")).isNull();
    }

    @Test
    void badSettingsSayWhatIsWrong() {
        assertThatThrownBy(() -> TablePolicy.fromProperties(Map.of("Profile", "lhcb"), ""))
                .hasMessageContaining("unknown Frontier Profile 'lhcb'");
        assertThatThrownBy(() -> TablePolicy.fromProperties(Map.of("Tables", "A(B"), ""))
                .hasMessageContaining("bad table pattern 'A(B'");
        assertThatThrownBy(() -> TablePolicy.fromProperties(Map.of("Tables", "A", "Columns", "NOCOLUMN"), ""))
                .hasMessageContaining("use TABLE.COLUMN");
        assertThatThrownBy(() -> TablePolicy.fromProperties(Map.of("Columns", "A.B"), ""))
                .hasMessageContaining("Columns needs Tables");
        assertThatThrownBy(() -> TablePolicy.fromProperties(Map.of("Tables", " , "), ""))
                .hasMessageContaining("at least one allowed table");
    }

    @Test
    void guardChecksColumnsThroughAliasesAndSelectNames() throws Exception {
        TablePolicy p = TablePolicy.of("test", "T,U", "T.A,T.B", "");
        SqlGuard g = new SqlGuard(null, FrontierDialects.SQLITE, p, PARSER);
        assertThat(g.check("SELECT X.A, X.B AS Z FROM T X WHERE X.A > 1 ORDER BY Z").tables()).containsExactly("T");
        assertThat(g.check("SELECT COUNT(*) FROM T").sql()).contains("COUNT(*)");
        assertThat(g.check("SELECT U.ANYTHING FROM U").tables()).containsExactly("U");
        assertThatThrownBy(() -> g.check("SELECT X.C FROM T X")).hasMessageContaining("column X.C is not allowed");
        assertThatThrownBy(() -> g.check("SELECT C FROM T")).hasMessageContaining("column C is not allowed");
        assertThatThrownBy(() -> g.check("SELECT * FROM T")).hasMessageContaining("name the columns");
        assertThatThrownBy(() -> g.check("SELECT A FROM V")).hasMessageContaining("table V is not allowed");
    }

    @Test
    void translationsForCmsStatements() throws Exception {
        TablePolicy p = TablePolicy.cmsCondDbV2();
        String sql = "SELECT MIN(\"IOV\".\"SINCE\") FROM \"CMS_CONDITIONS\".\"IOV\" \"IOV\" WHERE \"IOV\".\"INSERTION_TIME\""
                + " <= TO_TIMESTAMP('2024-02-01 00:00:00','YYYY-MM-DD HH24:MI:SS.FF') GROUP BY CAST(\"IOV\".\"SINCE\"/1000 AS INT)";
        String pg = new SqlGuard("CMS_CONDITIONS", FrontierDialects.POSTGRESQL, p, PARSER).check(sql).sql();
        assertThat(pg).contains("CAST('2024-02-01 00:00:00' AS TIMESTAMP)").contains("AS BIGINT)").doesNotContain("\"");
        String lite = new SqlGuard("CMS_CONDITIONS", FrontierDialects.SQLITE, p, PARSER).check(sql).sql();
        assertThat(lite).contains("<= '2024-02-01 00:00:00'").contains("AS INT)");
        // an Oracle context runs the statement as received
        assertThat(new SqlGuard("CMS_CONDITIONS", FrontierDialects.ORACLE, p, PARSER).check(sql).sql()).isEqualTo(sql);
    }
}
