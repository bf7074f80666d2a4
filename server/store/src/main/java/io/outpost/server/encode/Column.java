package io.outpost.server.encode;

import io.outpost.store.model.StorageType;

/** A column of an answer table: name and storage type (docs/wire-format.md). */
public record Column(String name, StorageType type) {
}
