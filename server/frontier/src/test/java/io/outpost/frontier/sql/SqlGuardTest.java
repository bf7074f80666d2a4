package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.frontier.protocol.FrontierException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

class SqlGuardTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private final SqlGuard pg = new SqlGuard("OUTPOST_", "ATLAS_COOLOFL", FrontierDialects.POSTGRESQL, PARSER);
    private final SqlGuard sqlite = new SqlGuard("OUTPOST_", null, FrontierDialects.SQLITE, PARSER);
    private final SqlGuard oracle = new SqlGuard("OUTPOST_", "ATLAS_COOLOFL", FrontierDialects.ORACLE, PARSER);

    @Test
    void acceptsCoolSelectsOnContextTables() throws Exception {
        SqlGuard.Checked c = sqlite.check("SELECT \"I3\".\"CHANNEL_ID\", I3.IOV_SINCE FROM OUTPOST_F0001_IOVS \"I3\", "
                + "OUTPOST_F0001_CHANNELS C2 WHERE I3.CHANNEL_ID = C2.CHANNEL_ID ORDER BY \"I3\".\"CHANNEL_ID\"");
        assertThat(c.tables()).containsExactly("OUTPOST_F0001_IOVS", "OUTPOST_F0001_CHANNELS");
        assertThat(c.sql()).doesNotContain("\"");
        assertThat(oracle.check("select 1 from dual").sql()).isEqualTo("select 1 from dual");
        assertThat(oracle.check("select 1 from dual").tables()).isEmpty();
    }

    @Test
    void translatesOracleConstructs() throws Exception {
        String sql = "SELECT /*+ QB_NAME(MAIN) INDEX(@MAIN I3@MAIN (CHANNEL_ID IOV_SINCE)) */ NVL(I3.\"IOV_UNTIL\", 0), "
                + "TO_CHAR(I3.CHANNEL_ID), SUBSTR(I3.S, 1, 2), LENGTH(I3.S) FROM \"ATLAS_COOLOFL\".\"OUTPOST_F0001_IOVS\" I3 "
                + "WHERE I3.IOV_SINCE >= COALESCE((SELECT /*+ QB_NAME(MAX1) */ MAX(I1.IOV_SINCE) FROM OUTPOST_F0001_IOVS I1 "
                + "WHERE I1.CHANNEL_ID = I3.CHANNEL_ID AND I1.IOV_SINCE <= 5), 5) ORDER BY I3.CHANNEL_ID";
        String out = pg.check(sql).sql();
        assertThat(out).doesNotContain("/*", "QB_NAME", "NVL(", "TO_CHAR", "ATLAS_COOLOFL", "\"")
                .contains("COALESCE(I3.IOV_UNTIL, 0)", "CAST(I3.CHANNEL_ID AS TEXT)", "SUBSTR(I3.S, 1, 2)",
                        "FROM OUTPOST_F0001_IOVS I3");
        assertThat(pg.check("select 1 from dual").sql()).isEqualTo("SELECT 1 FROM (SELECT 'X' AS DUMMY) DUAL");
        assertThat(pg.check("select TO_NUMBER('5') from dual").sql()).contains("CAST('5' AS NUMERIC)");
        // Oracle keeps everything as sent
        assertThat(oracle.check(sql).sql()).isEqualTo(sql);
    }

    @Test
    void rejectsEverythingButOneSelectOnContextTables() {
        List<String> bad = List.of(
                "delete from OUTPOST_NODES",
                "insert into OUTPOST_NODES values (1)",
                "update OUTPOST_NODES set NODE_NAME='x'",
                "drop table OUTPOST_NODES",
                "create table x (a int)",
                "alter table OUTPOST_NODES add x int",
                "select 1 from dual; delete from OUTPOST_NODES",
                "select 1 from dual; select 2 from dual",
                "select * from OUTPOST_NODES for update",
                "select pg_sleep(10) from dual",
                "select 1 from dual where pg_sleep(10) is null",
                "select 1 from dual order by pg_sleep(10)",
                "select dbms_lock.sleep(5) from dual",
                "select * from pg_catalog.pg_tables",
                "select * from OTHER_NODES",
                "select * from OUTPOST_SCHEMA_HISTORY",
                "select * from information_schema.tables",
                "select * from OUTPOST_NODES n join secrets s on n.NODE_ID = s.id",
                "select * from (select * from users) u",
                "select (select max(x) from users) from dual",
                "select * from OUTPOST_NODES union select * from users",
                "with u as (select * from users) select * from u",
                "select * into newtable from OUTPOST_NODES",
                "select nextval('s') from dual",
                "select 1 from OUTPOST_NODES@remote",
                "select * from other_schema.OUTPOST_NODES",
                "select row_number() over (order by 1), lo_import('/etc/passwd') from dual",
                "",
                "   ",
                "select");
        for (String s : bad) {
            assertThatThrownBy(() -> pg.check(s)).as(s).isInstanceOf(FrontierException.class)
                    .hasMessageStartingWith("SQL rejected: ");
            assertThatThrownBy(() -> oracle.check(s)).as(s).isInstanceOf(FrontierException.class);
        }
        assertThatThrownBy(() -> pg.check("select pg_sleep(1) from dual")).hasMessageContaining("function pg_sleep is not allowed");
        assertThatThrownBy(() -> pg.check("select * from OUTPOST_NODES for update")).hasMessageContaining("FOR UPDATE");
        assertThatThrownBy(() -> pg.check("select * from users")).hasMessageContaining("table users is not allowed");
        assertThatThrownBy(() -> sqlite.check("select TO_CHAR(1, '999') from dual")).hasMessageContaining("SQLite");
    }
}
