package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.frontier.protocol.FrontierException;
import java.util.concurrent.ExecutorService;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.UserVariable;
import net.sf.jsqlparser.statement.select.PlainSelect;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The clauses the allow-list finds through the tree's typed accessors, and its refusal of node classes it does not know. */
class AllowListTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private final SqlGuard pg = new SqlGuard("OUTPOST_", "ATLAS_COOLOFL", FrontierDialects.POSTGRESQL, PARSER);
    private final SqlGuard oracle = new SqlGuard("OUTPOST_", "ATLAS_COOLOFL", FrontierDialects.ORACLE, PARSER);
    private final AllowList allowList = new AllowList(null, false, TablePolicy.cool("OUTPOST_"));

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "select NODE_ID from OUTPOST_NODES for update nowait | FOR UPDATE is not allowed",
            "select NODE_ID from OUTPOST_NODES for update skip locked | FOR UPDATE is not allowed",
            "select NODE_ID from OUTPOST_NODES for update wait 5 | FOR UPDATE",
            "select NODE_ID from OUTPOST_NODES for share | FOR UPDATE is not allowed",
            "select NODE_ID from OUTPOST_NODES for no key update | FOR UPDATE is not allowed",
            "select NODE_ID from OUTPOST_NODES for key share | FOR UPDATE is not allowed",
            "select n.NODE_ID from OUTPOST_NODES n for update of n | FOR UPDATE is not allowed",
            "select 1 from dual union (select NODE_ID from OUTPOST_NODES for update) | FOR UPDATE is not allowed",
            "select NODE_ID from OUTPOST_NODES for xml path('') | FOR clauses are not allowed",
            "select NODE_ID from OUTPOST_NODES for browse | FOR clauses are not allowed",
            "select NODE_ID from OUTPOST_NODES into outfile 'rows.txt' | SELECT INTO is not allowed",
            "select * into newtable from OUTPOST_NODES | SELECT INTO is not allowed",
            "with u as (select 1 from dual) select * from u | WITH clauses are not supported",
            "select n.NODE_ID from OUTPOST_NODES n where n.NODE_ID in (with u as (select 1 from dual) select * from u)"
                    + " | WITH clauses are not supported",
    })
    void refusesForbiddenClauses(String sql, String message) {
        for (SqlGuard g : new SqlGuard[] {pg, oracle}) {
            assertThatThrownBy(() -> g.check(sql)).as(sql).isInstanceOf(FrontierException.class)
                    .hasMessageStartingWith("SQL rejected: ").hasMessageContaining(message);
        }
    }

    @Test
    void refusesNodesItDoesNotKnow() throws Exception {
        assertThatThrownBy(() -> pg.check("select 1 from OUTPOST_NODES connect by prior NODE_ID = PARENT_ID"))
                .hasMessageStartingWith("SQL rejected: ");
        // a node class a JSqlParser upgrade might add: unknown to the allow-list, so refused wherever it sits
        PlainSelect select = (PlainSelect) PARSER.parseSelect("select n.NODE_ID from OUTPOST_NODES n where n.NODE_ID = 1");
        assertThat(allowList.check(select).tables()).containsExactly("OUTPOST_NODES");
        select.setWhere(new FutureExpression());
        assertThatThrownBy(() -> allowList.check(select)).isInstanceOf(FrontierException.class)
                .hasMessageStartingWith("SQL rejected: ").hasMessageContaining("FutureExpression");
        // and a JSqlParser node class left off the known list, wherever it sits
        select.setWhere(new UserVariable("x"));
        assertThatThrownBy(() -> allowList.check(select)).isInstanceOf(FrontierException.class)
                .hasMessage("SQL rejected: UserVariable is not allowed");
    }

    @Test
    void refusesValuesTheWalkCannotLookInto() {
        // MapExpression holds its entries as Map.Entry pairs, which the walk cannot check: refused, not skipped
        assertThatThrownBy(() -> pg.check("select map{1:2} from dual")).isInstanceOf(FrontierException.class)
                .hasMessageStartingWith("SQL rejected: cannot analyse statement");
    }

    @Test
    void readsTablesAndDictionaryViewsWithoutChangingTheTree() throws Exception {
        String sql = "SELECT /*+ INDEX(I) */ NVL(I.\"IOV_UNTIL\", 0) FROM \"OUTPOST_F0001_IOVS\" I, DUAL";
        PlainSelect select = (PlainSelect) PARSER.parseSelect(sql);
        String before = select.toString();
        AllowList.Reads reads = allowList.check(select);
        assertThat(reads.tables()).containsExactly("OUTPOST_F0001_IOVS");
        assertThat(reads.dictionary()).isFalse();
        assertThat(select.toString()).isEqualTo(before);
        assertThat(allowList.check(PARSER.parseSelect("SELECT TABLE_NAME FROM ALL_TABLES")).dictionaryViews())
                .containsExactly("ALL_TABLES");
    }

    /** Stands for a node class that JSqlParser does not have today. */
    private static final class FutureExpression extends NullValue {
    }
}
