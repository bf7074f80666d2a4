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
}
