package io.outpost.frontier.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which statements run without an estimate because their shape's instances were all estimated far under the limit. */
class SteadyShapesTest {
    private static final double LIMIT = 1000;

    private static String at(long t) {
        return "SELECT S FROM T_IOVS WHERE IOV_SINCE <= " + t + " AND IOV_UNTIL > " + t + " ORDER BY CHANNEL_ID";
    }

    @Test
    void aShapeEarnsStandingAfterFourSteadyEstimatesThenIsEstimatedOnceAnInterval() {
        long[] now = {0};
        SteadyShapes s = new SteadyShapes(() -> now[0]);
        long t = 100;
        for (int i = 0; i < SteadyShapes.EARNED_AFTER; i++) {
            assertThat(s.vouchFor(at(t), List.of())).as("instance %d", i).isFalse();
            s.estimated(at(t++), List.of(), 50, LIMIT);
        }
        long step = SteadyShapes.FOR.toNanos() / 100;
        int estimated = 0;
        for (int i = 0; i < 1000; i++) { // ten intervals, a hundred literals each: the first is the earning's
            if (!s.vouchFor(at(t), List.of())) {
                estimated++;
                s.estimated(at(t), List.of(), 60, LIMIT);
            }
            t++;
            now[0] += step;
        }
        assertThat(estimated).as("one estimate an interval, whatever the literals").isEqualTo(9);
    }

    @Test
    void oneEstimateAboveATenthOfTheLimitOrNoneTakesTheStandingAway() {
        for (double bad : new double[] {LIMIT / SteadyShapes.MARGIN + 1, Double.NaN}) {
            SteadyShapes s = new SteadyShapes();
            for (int i = 0; i < SteadyShapes.EARNED_AFTER; i++) {
                s.estimated(at(i), List.of(), 10, LIMIT);
            }
            assertThat(s.vouchFor(at(99), List.of())).isTrue();
            s.estimated(at(100), List.of(), bad, LIMIT);
            assertThat(s.vouchFor(at(101), List.of())).as("after %s", bad).isFalse();
            for (int i = 0; i < SteadyShapes.EARNED_AFTER - 1; i++) {
                s.estimated(at(200 + i), List.of(), 10, LIMIT);
            }
            assertThat(s.vouchFor(at(300), List.of())).as("earned again only after four in a row").isFalse();
        }
    }

    @Test
    void shapesDifferByTheirTextOutsideIntegersAndByTheirBinds() {
        SteadyShapes s = new SteadyShapes();
        for (int i = 0; i < SteadyShapes.EARNED_AFTER; i++) {
            s.estimated(at(i), List.of("x"), 10, LIMIT);
        }
        assertThat(s.vouchFor(at(7), List.of("x"))).isTrue();
        assertThat(s.vouchFor(at(7), List.of("y"))).as("other binds").isFalse();
        assertThat(s.vouchFor(at(7).replace("ORDER BY CHANNEL_ID", "ORDER BY S"), List.of("x"))).isFalse();
        assertThat(s.vouchFor(at(7).replace("IOV_SINCE <= 7", "IOV_SINCE <= 7.5"), List.of("x")))
                .as("a decimal is not an integer literal").isFalse();
    }

    @Test
    void nanosecondKeysOfNineteenDigitsAreLiteralsOfTheShapeToo() {
        SteadyShapes s = new SteadyShapes();
        long t = 1_700_000_000_000_000_000L;
        for (int i = 0; i < SteadyShapes.EARNED_AFTER; i++) {
            s.estimated(at(t + i), List.of(), 10, LIMIT);
        }
        assertThat(s.vouchFor(at(t + 1_000_000_007L), List.of())).isTrue();
        assertThat(s.vouchFor(at(t).replace("T_IOVS", "U_IOVS"), List.of())).as("another table").isFalse();
    }

    @Test
    void aStatementWithoutIntegerLiteralsIsNeverVouchedForByShape() {
        SteadyShapes s = new SteadyShapes();
        String fixed = "SELECT S FROM T_IOVS ORDER BY CHANNEL_ID";
        for (int i = 0; i < 2 * SteadyShapes.EARNED_AFTER; i++) {
            s.estimated(fixed, List.of(), 10, LIMIT);
        }
        assertThat(s.vouchFor(fixed, List.of())).as("AdmittedEstimates remembers such a statement itself").isFalse();
    }
}
