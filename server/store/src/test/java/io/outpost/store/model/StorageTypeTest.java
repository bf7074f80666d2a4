package io.outpost.store.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.wire.ColumnType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** COOL's storage types and the wire format's column types are the same list: each field has one wire type. */
class StorageTypeTest {

    @ParameterizedTest
    @EnumSource(StorageType.class)
    void everyStorageTypeHasTheWireTypeOfTheSameName(StorageType t) {
        assertThat(t.columnType().wireName()).isEqualTo(t.coolName());
        assertThat(t.columnType().code()).isEqualTo(t.ordinal());
    }

    @Test
    void everyWireTypeIsAStorageType() {
        assertThat(StorageType.values()).hasSameSizeAs(ColumnType.values());
    }

    /** NaN and infinities would not read back on every backend: every writer (loader, write API) refuses them. */
    @Test
    void nanAndInfinitiesAreRefusedAsFloatAndDouble() {
        for (StorageType t : new StorageType[] {StorageType.FLOAT, StorageType.DOUBLE}) {
            for (double d : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> t.coerce(d)).as(t + " " + d)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NaN and infinities");
            }
            assertThat(t.coerce(-0.0)).as(t.name()).isNotNull();
        }
        assertThat(StorageType.DOUBLE.coerce(Double.MAX_VALUE)).isEqualTo(Double.MAX_VALUE);
    }
}
