package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * COOL's, CORAL's and CMS's Oracle SQL as the MariaDB target writes it, pinned (the Frontier tests run it on a real
 * MariaDB): every name in backticks, unquoted ones upper-cased as Oracle folds them, the owner dropped.
 */
class MariaDbSqlTest {
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private final SqlGuard mariaDb = new SqlGuard("OUTPOST_", "ATLAS_COOLOFL", FrontierDialects.MARIADB, PARSER);

    private String sql(String oracle) throws Exception {
        return mariaDb.check(oracle).sql();
    }

    @Test
    void coolsBrowseWithHintsNvlAndAnOwner() throws Exception {
        assertThat(sql("SELECT /*+ QB_NAME(MAIN) INDEX(@MAIN I3@MAIN (CHANNEL_ID IOV_SINCE)) */ NVL(I3.\"IOV_UNTIL\", 0), "
                + "TO_CHAR(I3.CHANNEL_ID), SUBSTR(I3.S, 1, 2), LENGTH(i3.S) FROM \"ATLAS_COOLOFL\".\"OUTPOST_F0001_IOVS\" I3 "
                + "WHERE I3.IOV_SINCE >= COALESCE((SELECT /*+ QB_NAME(MAX1) */ MAX(I1.IOV_SINCE) FROM OUTPOST_F0001_IOVS I1 "
                + "WHERE I1.CHANNEL_ID = I3.CHANNEL_ID AND I1.IOV_SINCE <= 5), 5) ORDER BY I3.CHANNEL_ID"))
                .isEqualTo("SELECT COALESCE(`I3`.`IOV_UNTIL`, 0), CAST(`I3`.`CHANNEL_ID` AS CHAR), SUBSTR(`I3`.`S`, 1, 2), "
                        + "CHAR_LENGTH(`I3`.`S`) FROM `OUTPOST_F0001_IOVS` `I3` WHERE `I3`.`IOV_SINCE` >= COALESCE(("
                        + "SELECT MAX(`I1`.`IOV_SINCE`) FROM `OUTPOST_F0001_IOVS` `I1` WHERE `I1`.`CHANNEL_ID` = "
                        + "`I3`.`CHANNEL_ID` AND `I1`.`IOV_SINCE` <= 5), 5) ORDER BY `I3`.`CHANNEL_ID`");
    }

    @Test
    void dualConcatenationBackslashesAndQuotedNames() throws Exception {
        // DUAL is a reserved word in MariaDB: only in backticks can it name the one-row sub-select
        assertThat(sql("select 1 from dual")).isEqualTo("SELECT 1 FROM (SELECT 'X' AS `DUMMY`) `DUAL`");
        // || is OR in MariaDB; a backslash starts an escape there; a name may hold a backtick
        assertThat(sql("select 'a' || NODE_NAME || 'b\\c' AS \"x`y\" from OUTPOST_NODES")).isEqualTo(
                "SELECT CONCAT_WS('', CONCAT_WS('', 'a', `NODE_NAME`), CONCAT('b', CAST(CHAR(92) AS CHAR), 'c')) "
                        + "AS `x``y` FROM `OUTPOST_NODES`");
    }

    @Test
    void coralsRownumLimitAndCmsCasts() throws Exception {
        assertThat(sql("SELECT * FROM ( SELECT \"OUTPOST_NODES\".\"NODE_ID\" FROM \"ATLAS_COOLOFL\".\"OUTPOST_NODES\" "
                + "\"OUTPOST_NODES\" ORDER BY \"OUTPOST_NODES\".\"NODE_ID\" ) WHERE ROWNUM < 6"))
                .isEqualTo("SELECT `OUTPOST_NODES`.`NODE_ID` FROM `OUTPOST_NODES` `OUTPOST_NODES` "
                        + "ORDER BY `OUTPOST_NODES`.`NODE_ID` LIMIT 5");
        assertThat(sql("select TO_NUMBER('5'), TO_TIMESTAMP('2024-02-01 00:00:00','YYYY-MM-DD HH24:MI:SS.FF'), "
                + "CAST(NODE_ID/1000 AS INT) from OUTPOST_NODES"))
                .isEqualTo("SELECT CAST('5' AS DOUBLE), CAST('2024-02-01 00:00:00' AS DATETIME(6)), "
                        + "CAST(`NODE_ID` / 1000 AS SIGNED) FROM `OUTPOST_NODES`");
    }

    @Test
    void anUnknownBackendIsRefused() {
        io.outpost.store.db.Dialect db2 = new io.outpost.store.db.Dialect() {
            @Override
            public String name() {
                return "db2";
            }

            @Override
            public String integerType() {
                return "INTEGER";
            }

            @Override
            public String bigintType() {
                return "BIGINT";
            }

            @Override
            public String stringType(int length) {
                return "VARCHAR(" + length + ")";
            }

            @Override
            public String typeOf(io.outpost.store.model.StorageType type) {
                return "BIGINT";
            }

            @Override
            public io.outpost.store.db.Sql browse(io.outpost.store.db.BrowseSpec spec, boolean count) {
                throw new UnsupportedOperationException();
            }

            @Override
            public String insertChannelIfMissingSql(String channelTable) {
                throw new UnsupportedOperationException();
            }
        };
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> FrontierDialects.of(db2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot serve a db2 database");
        assertThat(FrontierDialects.of(io.outpost.store.db.Dialect.forJdbcUrl("jdbc:mariadb://localhost/x")))
                .isSameAs(FrontierDialects.MARIADB);
    }
}
