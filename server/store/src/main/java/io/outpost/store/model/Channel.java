package io.outpost.store.model;

/** A channel of a folder: its id (UInt32), an optional unique name and a description. */
public record Channel(long id, String name, String description) {
    public static final long MAX_ID = 0xFFFF_FFFFL;
}
