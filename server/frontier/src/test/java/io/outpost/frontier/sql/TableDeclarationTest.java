package io.outpost.frontier.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TableDeclarationTest {
    @Test
    void columnsWithKeywordNamesMultiWordTypesAndConstraints() {
        TableDeclaration t = TableDeclaration.parse("CREATE TABLE OUTPOST_F0005_IOVS (OBJECT_ID BIGINT NOT NULL "
                + "PRIMARY KEY, CURRENT DOUBLE PRECISION, LABEL VARCHAR(4000), OK BOOLEAN, \"Mixed\" TEXT,\n"
                + "CONSTRAINT OUTPOST_F0005_IOVS_UK UNIQUE (CURRENT, LABEL), UNIQUE (OK))");
        assertThat(t.table()).isEqualTo("OUTPOST_F0005_IOVS");
        assertThat(t.columns()).extracting(c -> c[0] + " " + c[1]).containsExactly("OBJECT_ID BIGINT",
                "CURRENT DOUBLE PRECISION", "LABEL VARCHAR(4000)", "OK BOOLEAN", "MIXED TEXT");
        assertThat(t.uniques()).containsExactly(new TableDeclaration.Unique("OUTPOST_F0005_IOVS_UK",
                List.of("CURRENT", "LABEL")), new TableDeclaration.Unique(null, List.of("OK")));
    }

    @Test
    void notACreateTable() {
        assertThat(TableDeclaration.parse("CREATE INDEX X ON T (A)")).isNull();
    }
}
