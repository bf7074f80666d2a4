package io.outpost.store.model;

/** A tag: names are unique database-wide, so a tag belongs to exactly one node. */
public record Tag(long nodeId, long id, String name, String description, TagLock lock, TagKind kind,
                  String insertionTime) {
}
