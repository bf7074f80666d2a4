package io.outpost.store.globaltag;

import io.outpost.store.model.TagLock;

/** A global tag: a tag of the root folderset {@code /}, COOL's convention for a consistent set of folder tags. */
public record GlobalTag(String name, String description, TagLock lock, String insertionTime) {
}
