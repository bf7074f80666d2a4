package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The visitors find every query block that the field walk finds, with a sub-select in each clause where SQL allows
 * one: a clause the visitor adapters skipped would let a cartesian product or an unbounded IOV read through there.
 */
class QueryBlocksTest {
    /** Parses on threads of this test class, shut down after it. */
    @AutoClose
    private static final ExecutorService THREADS = SqlParser.newThreads();
    private static final SqlParser PARSER = new SqlParser(THREADS);
    private static final String SUB = "(SELECT MAX(s.X) FROM OUTPOST_NODES s, OUTPOST_TAGS t WHERE s.A = t.A)";

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT " + SUB + " FROM DUAL",
            "SELECT 1 FROM DUAL WHERE 1 = " + SUB,
            "SELECT 1 FROM DUAL WHERE EXISTS " + SUB,
            "SELECT 1 FROM DUAL WHERE 1 IN " + SUB,
            "SELECT 1 FROM DUAL WHERE 1 = ANY " + SUB,
            "SELECT 1 FROM DUAL WHERE 1 BETWEEN " + SUB + " AND 2",
            "SELECT COUNT(*) FROM DUAL GROUP BY " + SUB,
            "SELECT COUNT(*) FROM DUAL GROUP BY 1 HAVING COUNT(*) > " + SUB,
            "SELECT 1 FROM DUAL ORDER BY " + SUB,
            "SELECT 1 FROM " + SUB + " d",
            "SELECT 1 FROM DUAL a JOIN DUAL b ON a.X = " + SUB,
            "SELECT CASE WHEN 1 = " + SUB + " THEN 1 ELSE " + SUB + " END FROM DUAL",
            "SELECT COALESCE(" + SUB + ", 0) FROM DUAL",
            "SELECT MAX(X) OVER (PARTITION BY " + SUB + " ORDER BY " + SUB + ") FROM DUAL",
            "SELECT CAST(" + SUB + " AS INT) FROM DUAL",
            "SELECT -" + SUB + " FROM DUAL",
            "SELECT 1 FROM DUAL UNION ALL SELECT 2 FROM (SELECT 1 FROM DUAL UNION SELECT " + SUB + " FROM DUAL) u",
            "SELECT 1 FROM (SELECT 1 FROM DUAL UNION SELECT 2 FROM DUAL ORDER BY 1) u",
            "(SELECT 1 FROM DUAL) ORDER BY " + SUB,
            "SELECT 1 FROM DUAL FETCH FIRST " + SUB + " ROWS ONLY",
            "SELECT 1 FROM DUAL LIMIT " + SUB,
            "SELECT 1 FROM DUAL OFFSET " + SUB + " ROWS",
            "SELECT 1 FROM DUAL WHERE NOT (1 = " + SUB + " OR 2 = " + SUB + ")",
            "SELECT 1 FROM DUAL WHERE X LIKE " + SUB,
            "SELECT 1 FROM DUAL WHERE " + SUB + " IS NULL",
            "SELECT (1 + " + SUB + ") * 2 FROM DUAL",
    })
    void visitorsFindEveryBlockTheWalkFinds(String sql) throws Exception {
        Select select = PARSER.parseSelect(sql);
        List<Object> walked = new ArrayList<>();
        ParseTreeWalk.walk(select, node -> {
            if (node instanceof PlainSelect) {
                walked.add(node);
            }
            return node;
        });
        List<PlainSelect> visited = QueryBlocks.of(select);
        assertThat(visited).as(sql).containsExactlyInAnyOrderElementsOf(walked.stream().map(PlainSelect.class::cast).toList());
        assertThat(visited).as(sql).doesNotHaveDuplicates().hasSizeGreaterThan(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a.X = b.Y", "a.X = " + SUB + " AND b.Y > 1", "a.X BETWEEN b.Y AND (b.Z + 1)",
            "COALESCE(a.X, 0) = CAST(b.Y AS INT)"})
    void conditionColumnsAreThoseOutsideSubSelects(String condition) throws Exception {
        PlainSelect s = (PlainSelect) PARSER.parseSelect("SELECT 1 FROM DUAL a, DUAL b WHERE " + condition);
        List<String> names = QueryBlocks.columnsOf(s.getWhere()).stream().map(Column::getFullyQualifiedName).toList();
        assertThat(names).isNotEmpty().allMatch(n -> n.startsWith("a.") || n.startsWith("b."));
    }
}
