package io.outpost.frontier.encode;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Buffers handed back are taken again; small ones and those beyond the capacity are left to the collector. */
class HeldBuffersTest {

    @Test
    void grownBuffersAreTakenAgainUpToTheCapacity() {
        HeldBuffers held = new HeldBuffers(2);
        byte[] a = new byte[HeldBuffers.MIN_KEPT];
        byte[] b = new byte[2 * HeldBuffers.MIN_KEPT];
        held.give(a);
        held.give(b);
        held.give(new byte[HeldBuffers.MIN_KEPT]);
        assertThat(held.spares()).isEqualTo(2);
        assertThat(held.take(16)).isSameAs(a);
        assertThat(held.take(16)).isSameAs(b);
        assertThat(held.take(16)).as("none left: a new one of the start size").hasSize(16);
    }

    @Test
    void smallBuffersAndNullAreNotKept() {
        HeldBuffers held = new HeldBuffers(4);
        held.give(new byte[HeldBuffers.MIN_KEPT - 1]);
        held.give(null);
        assertThat(held.spares()).isZero();
    }
}
