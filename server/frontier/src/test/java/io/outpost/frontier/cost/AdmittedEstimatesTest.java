package io.outpost.frontier.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A just-admitted statement is admitted again only with the same bind values; others are estimated. */
class AdmittedEstimatesTest {

    @Test
    void onlyTheSameStatementWithTheSameBindsIsRemembered() {
        AdmittedEstimates a = new AdmittedEstimates();
        List<String> binds = Arrays.asList("1", null);
        assertThat(a.recentlyAdmitted("SELECT 1 FROM T WHERE A = ? AND B = ?", binds)).isFalse();
        a.admit("SELECT 1 FROM T WHERE A = ? AND B = ?", binds);
        assertThat(a.recentlyAdmitted("SELECT 1 FROM T WHERE A = ? AND B = ?", Arrays.asList("1", null))).isTrue();
        assertThat(a.recentlyAdmitted("SELECT 1 FROM T WHERE A = ? AND B = ?", Arrays.asList("1", "null"))).isFalse();
        assertThat(a.recentlyAdmitted("SELECT 1 FROM T WHERE A = ? AND B = ?", List.of("2", "x"))).isFalse();
        assertThat(a.recentlyAdmitted("SELECT 2 FROM T WHERE A = ? AND B = ?", binds)).isFalse();
    }

    @Test
    void hugeStatementsAreNotRemembered() {
        AdmittedEstimates a = new AdmittedEstimates();
        String sql = "SELECT 1 FROM T WHERE A IN (" + "1,".repeat(40_000) + "1)";
        a.admit(sql, List.of());
        assertThat(a.recentlyAdmitted(sql, List.of())).isFalse();
    }
}
