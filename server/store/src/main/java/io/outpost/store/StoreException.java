package io.outpost.store;

/**
 * Every failure the store reports to its callers. The {@link Kind} decides how a caller reacts
 * (the HTTP layer maps it to a status once); the message says what was wrong in words a user can act on.
 */
public class StoreException extends RuntimeException {

    /** What went wrong, grouped by how a caller should react. */
    public enum Kind {
        FOLDER_NOT_FOUND(Category.NOT_FOUND),
        CHANNEL_NOT_FOUND(Category.NOT_FOUND),
        /** COOL's TagNotFound: no such tag, not in this node, or (reads) a tag on a single-version folder. */
        TAG_NOT_FOUND(Category.NOT_FOUND),
        OBJECT_NOT_FOUND(Category.NOT_FOUND),
        /** An offline snapshot was asked about a folder, key range or layer it does not hold. */
        NOT_COVERED(Category.NOT_FOUND),
        /** COOL's NodeRelationNotFound: the tag's node is not this node or one of its ancestors. */
        NODE_RELATION_NOT_FOUND(Category.NOT_FOUND),
        /** COOL's TagRelationNotFound: a tag on the way down has no child tag for the next node. */
        TAG_RELATION_NOT_FOUND(Category.NOT_FOUND),
        INVALID_KEY(Category.BAD_INPUT),
        INVALID_PAYLOAD(Category.BAD_INPUT),
        INVALID_ARGUMENT(Category.BAD_INPUT),
        /** COOL's ReservedHeadTag: HEAD (or "") named where a real tag is needed. */
        RESERVED_HEAD_TAG(Category.BAD_INPUT),
        /** COOL's FolderIsSingleVersion: tagging or versioning asked of a single-version folder. */
        FOLDER_IS_SINGLE_VERSION(Category.BAD_INPUT),
        /** COOL's InvalidTagRelation: root node, a tag related to itself, or a tag of another node. */
        INVALID_TAG_RELATION(Category.BAD_INPUT),
        OVERLAP(Category.CONFLICT),
        /** COOL's TagIsLocked. */
        TAG_LOCKED(Category.CONFLICT),
        /** COOL's NodeExists / TagExists / ChannelExists. */
        ALREADY_EXISTS(Category.CONFLICT),
        /** A write to an offline snapshot, which is read-only. */
        READ_ONLY(Category.CONFLICT),
        /** COOL's TagRelationExists: the parent tag already has a child tag in this node. */
        TAG_RELATION_EXISTS(Category.CONFLICT),
        /** COOL's "tag not created: no IOVs in the tag": tagging an empty HEAD. */
        TAG_NOT_CREATED(Category.CONFLICT),
        DATABASE(Category.UNAVAILABLE);

        private final Category category;

        Kind(Category category) {
            this.category = category;
        }

        public Category category() {
            return category;
        }
    }

    /** Coarse grouping: not found, the caller's input is wrong, a conflict with stored data, the database failed. */
    public enum Category { NOT_FOUND, BAD_INPUT, CONFLICT, UNAVAILABLE }

    private final Kind kind;

    public StoreException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public StoreException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    public static StoreException badKey(String message) {
        return new StoreException(Kind.INVALID_KEY, message);
    }

    public static StoreException badArgument(String message) {
        return new StoreException(Kind.INVALID_ARGUMENT, message);
    }
}
