package io.outpost.store;

import io.outpost.store.db.BrowseSpec;
import io.outpost.store.db.Database;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.db.Layer;
import io.outpost.store.db.SysTime;
import io.outpost.store.export.SnapshotCoverage;
import io.outpost.store.model.Channel;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.Tag;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.Versioning;
import io.outpost.store.read.IovReader;
import io.outpost.store.read.Metadata;
import io.outpost.store.read.TagResolver;
import io.outpost.store.schema.SchemaManager;
import io.outpost.store.write.IovWriter;
import io.outpost.store.write.NodeWriter;
import io.outpost.store.write.TagWriter;
import io.outpost.store.write.ValidityTruncator;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The conditions store: COOL's folder/channel/tag/IOV model over one {@link Database}. Reads use the read-only
 * pool and stream rows; every write runs in one transaction on the writer pool and either happens whole or
 * leaves the database exactly as it was.
 */
public final class IovStore implements AutoCloseable {
    private final Database db;
    private final Metadata meta;
    private final TagResolver tags;
    private final IovReader reader;
    private final NodeWriter nodeWriter;
    private final TagWriter tagWriter;
    private final IovWriter iovWriter;
    private final ValidityTruncator truncator;
    private final Clock clock;
    /**
     * Non-null when the database is an offline snapshot: reads are checked against it, writes refused. Replaced by
     * {@link #reloadSnapshotCoverage()} when a sync changed what the snapshot holds.
     */
    private volatile SnapshotCoverage coverage;

    public IovStore(Database db) {
        this(db, Clock.systemUTC());
    }

    public IovStore(Database db, Clock clock) {
        this.db = db;
        this.clock = clock;
        this.meta = new Metadata(db.prefix());
        this.tags = new TagResolver(meta);
        this.reader = new IovReader(db.dialect(), db.statementTimeoutSeconds());
        SchemaManager schema = new SchemaManager(db);
        this.nodeWriter = new NodeWriter(db, meta, schema);
        this.tagWriter = new TagWriter(db, meta);
        this.iovWriter = new IovWriter(db.dialect(), reader, tagWriter);
        this.truncator = new ValidityTruncator(db.dialect(), reader);
        this.coverage = loadCoverage(db);
    }

    /** Read from the primary: a read replica may not have replayed the latest migrations yet when the store opens. */
    private static SnapshotCoverage loadCoverage(Database db) {
        try (Connection c = db.writePool().getConnection()) {
            try {
                return SnapshotCoverage.load(c, db.prefix());
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            throw Failures.translate(e);
        }
    }

    /** What this offline snapshot covers, or null when the database is not a snapshot. */
    public SnapshotCoverage snapshotCoverage() {
        return coverage;
    }

    /**
     * Re-reads the coverage of an offline snapshot (a sync may have added folders or changed their layer); does
     * nothing on an ordinary database, which never becomes a snapshot.
     */
    public void reloadSnapshotCoverage() {
        if (coverage != null) {
            SnapshotCoverage now = loadCoverage(db);
            if (now != null) {
                coverage = now;
            }
        }
    }

    /**
     * Fails with NOT_COVERED when this database is an offline snapshot that does not hold a read of [t1, t2] in
     * {@code folder} and {@code tag}; does nothing for an ordinary database. For callers that read through their
     * own paths (the service's held rows); the store's own reads check by themselves.
     */
    public void requireCovered(Node folder, String tag, long t1, long t2) {
        checkCovered(folder, tag, t1, t2);
    }

    private void checkCovered(Node folder, String tag, long t1, long t2) {
        SnapshotCoverage cov = coverage;
        if (cov != null) {
            cov.checkTag(folder, tag);
            cov.checkRange(folder, t1, t2);
        }
    }

    /** Opens the database, applies pending migrations and returns a store that owns the database. */
    public static IovStore open(DatabaseConfig config) {
        Database db = Database.open(config);
        try {
            new SchemaManager(db).migrate();
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
        return new IovStore(db);
    }

    public Database database() {
        return db;
    }

    // ---------------------------------------------------------------- reads

    public List<Node> listNodes() {
        return read(c -> meta.nodes(c));
    }

    public Node node(String path) {
        return read(c -> {
            Node n = meta.findNode(c, path);
            if (n == null) {
                throw new StoreException(StoreException.Kind.FOLDER_NOT_FOUND, "no folder or folderset '" + path + "'");
            }
            return n;
        });
    }

    public Node folder(String path) {
        return read(c -> meta.folder(c, path));
    }

    public List<Channel> channels(Node folder) {
        return read(c -> meta.channels(c, folder));
    }

    public List<Tag> tags(Node node) {
        return read(c -> meta.tags(c, node));
    }

    public Tag tag(String name) {
        return read(c -> {
            Tag t = meta.findTag(c, name);
            if (t == null) {
                throw new StoreException(StoreException.Kind.TAG_NOT_FOUND, "no tag '" + name + "'");
            }
            return t;
        });
    }

    /** The folder's own tag that {@code tagName} (possibly a tag of a parent folderset) resolves to. */
    public Tag resolveTag(Node folder, String tagName) {
        return read(c -> tags.resolve(c, folder, tagName));
    }

    /** The layer a read of {@code folder} with {@code tag} uses (validates the tag). */
    public Layer layer(Node folder, String tag) {
        SnapshotCoverage cov = coverage;
        if (cov != null) {
            cov.checkTag(folder, tag);
        }
        return read(c -> tags.layer(c, folder, tag));
    }

    /** Streams every IOV overlapping the closed range [t1, t2] in the selected channels. Returns the row count. */
    public long browse(Node folder, long t1, long t2, ChannelSelection sel, String tag, IovReader.IovConsumer out) {
        checkCovered(folder, tag, t1, t2);
        return read(c -> {
            BrowseSpec spec = IovReader.spec(folder, tags.layer(c, folder, tag), t1, t2, sel);
            checkNamedChannel(c, folder, spec.channels());
            return reader.browse(c, spec, out);
        });
    }

    /**
     * What a resolved read found: the rows streamed, the folder's own tag it read (null for the HEAD), and the
     * number of channels the selection covers (-1 unless asked for).
     */
    public record ReadResult(long rows, Tag tag, long selectedChannels) {
    }

    /**
     * One read transaction for a whole query: resolves the tag, checks a named channel, streams the browse (or
     * counts it when {@code out} is null, returning the count as rows), and optionally counts the selected
     * channels. The service's hot path for IOV queries.
     */
    public ReadResult read(Node folder, String tag, long t1, long t2, ChannelSelection sel, IovReader.IovConsumer out,
                           boolean countChannels) {
        checkCovered(folder, tag, t1, t2);
        return read(c -> read(c, folder, tag, t1, t2, sel, out, countChannels));
    }

    /**
     * The same read inside the caller's read transaction ({@link #read(Work)}): many folders' reads then share one
     * connection and one transaction (the first snapshot of a global tag reads thousands of folders).
     */
    public ReadResult read(Connection c, Node folder, String tag, long t1, long t2, ChannelSelection sel,
                           IovReader.IovConsumer out, boolean countChannels) throws SQLException {
        checkCovered(folder, tag, t1, t2);
        TagResolver.ReadLayer resolved = tags.forRead(c, folder, tag);
        BrowseSpec spec = IovReader.spec(folder, resolved.layer(), t1, t2, sel);
        checkNamedChannel(c, folder, spec.channels());
        long rows = out == null ? reader.count(c, spec) : reader.browse(c, spec, out);
        long selected = -1;
        if (countChannels) {
            var sql = spec.channelCountSql();
            try (var ps = c.prepareStatement(sql.text())) {
                sql.bindTo(ps);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    selected = rs.getLong(1);
                }
            }
        }
        return new ReadResult(rows, resolved.tag(), selected);
    }

    /**
     * Around key {@code t} in the layer {@code tag} reads: the latest until at or before t and the earliest since
     * after t ({@link IovReader#neighbours}), inside the caller's read transaction.
     */
    public long[] neighbours(Connection c, Node folder, String tag, long t) throws SQLException {
        return reader.neighbours(c, folder, tags.forRead(c, folder, tag).layer(), t);
    }

    /** {@link #neighbours(Connection, Node, String, long)} in a read transaction of its own. */
    public long[] neighbours(Node folder, String tag, long t) {
        return read(c -> neighbours(c, folder, tag, t));
    }

    /** Like {@link #browse} with an already resolved layer (one less lookup on hot paths). */
    public long browse(BrowseSpec spec, IovReader.IovConsumer out) {
        SnapshotCoverage cov = coverage;
        if (cov != null) {
            cov.checkRange(spec.folder(), spec.t1(), spec.t2());
        }
        return read(c -> reader.browse(c, spec, out));
    }

    /** The number of rows {@link #browse} would stream; an unknown channel name is CHANNEL_NOT_FOUND, as there. */
    public long count(Node folder, long t1, long t2, ChannelSelection sel, String tag) {
        checkCovered(folder, tag, t1, t2);
        return read(c -> {
            BrowseSpec spec = IovReader.spec(folder, tags.layer(c, folder, tag), t1, t2, sel);
            checkNamedChannel(c, folder, spec.channels());
            return reader.count(c, spec);
        });
    }

    public long count(BrowseSpec spec) {
        SnapshotCoverage cov = coverage;
        if (cov != null) {
            cov.checkRange(spec.folder(), spec.t1(), spec.t2());
        }
        return read(c -> reader.count(c, spec));
    }

    /** The objects valid at {@code t}: at most one per selected channel. */
    public List<Iov> findObjects(Node folder, long t, ChannelSelection sel, String tag) {
        List<Iov> out = new ArrayList<>();
        browse(folder, t, t, sel, tag, out::add);
        return out;
    }

    /** The one object valid at {@code t} in a channel, or OBJECT_NOT_FOUND. */
    public Iov findObject(Node folder, long t, long channel, String tag) {
        List<Iov> found = findObjects(folder, t, ChannelSelection.channel(channel), tag);
        if (found.isEmpty()) {
            throw new StoreException(StoreException.Kind.OBJECT_NOT_FOUND, "no IOV valid at " + t + " in channel "
                    + channel + " of '" + folder.path() + "'" + (TagResolver.isHead(tag) ? "" : " in tag '" + tag + "'"));
        }
        return found.get(0);
    }

    /** The folder's modification stamp (changes with every write and tag change); see Metadata. */
    public String modificationStamp(Node folder) {
        return read(c -> meta.modificationStamp(c, folder));
    }

    /**
     * The modification stamps of many folders, by path, read in one transaction and a few statements: a poll of
     * every folder costs one connection, one transaction and one statement per {@link Metadata#STAMPS_PER_QUERY}
     * folders, not one of each per folder (10,000 folders poll every few seconds).
     */
    public java.util.Map<String, String> modificationStamps(List<Node> folders) {
        return read(c -> meta.modificationStamps(c, folders));
    }

    /** As {@link #modificationStamps(List)}, inside the caller's read transaction. */
    public java.util.Map<String, String> modificationStamps(Connection c, List<Node> folders) throws SQLException {
        return meta.modificationStamps(c, folders);
    }

    private void checkNamedChannel(Connection c, Node folder, ChannelSelection sel) throws SQLException {
        if (sel.name() != null && meta.findChannel(c, folder, sel.name()) == null) {
            throw new StoreException(StoreException.Kind.CHANNEL_NOT_FOUND, "no channel named '" + sel.name()
                    + "' in '" + folder.path() + "'");
        }
    }

    // ---------------------------------------------------------------- writes

    public Node createFolderSet(String path, String description, boolean createParents) {
        return write(c -> nodeWriter.createFolderSet(c, path, description, createParents, now()));
    }

    public Node createFolder(String path, Versioning versioning, KeyType keyType, PayloadSpec spec, String description,
                             boolean createParents) {
        return write(c -> nodeWriter.createFolder(c, path, versioning, keyType, spec, description, createParents, now()));
    }

    public Channel createChannel(Node folder, long id, String name, String description) {
        return write(c -> nodeWriter.createChannel(c, folder, id, name, description));
    }

    /** Stores a batch of objects, all or nothing, with COOL's checks. */
    public void store(Node folder, List<NewIov> objects) {
        if (objects.isEmpty()) {
            return;
        }
        List<NewIov> checked = IovWriter.validate(folder, objects);
        write(c -> {
            iovWriter.store(c, folder, checked, now());
            return null;
        });
    }

    public Tag tagCurrentHead(Node folder, String tag, String description) {
        return write(c -> tagWriter.tagCurrentHead(c, folder, tag, description, now()));
    }

    public Tag tagHeadAsOfDate(Node folder, String tag, Instant asOf, String description) {
        return write(c -> tagWriter.tagHeadAsOfDate(c, folder, tag, description, SysTime.format(asOf), now()));
    }

    /** Sets the lock status of a tag found by its name alone (it belongs to one node). */
    public Tag setTagLock(String tag, TagLock lock) {
        Tag t = tag(tag);
        if (t != null && t.nodeId() == node("/").id()) {
            // a global tag: locking freezes it, unlocking lifts the freeze (GlobalTags.lock)
            new io.outpost.store.globaltag.GlobalTags(this).lock(tag, lock, "write API");
            return tag(tag);
        }
        return write(c -> tagWriter.setLock(c, tag, lock));
    }

    /** COOL's setTagLockStatus on a node: TAG_NOT_FOUND unless {@code tag} is one of {@code node}'s own tags. */
    public Tag setTagLock(Node node, String tag, TagLock lock) {
        return write(c -> tagWriter.setLock(c, node, tag, lock));
    }

    /** Relates an existing tag {@code childTag} (its node is the child node) to {@code parentTag}. */
    public void createTagRelation(String parentTag, String childTag) {
        write(c -> {
            tagWriter.createRelation(c, parentTag, childTag, now());
            return null;
        });
    }

    /**
     * COOL's createTagRelation on {@code childNode}: relates its tag {@code childTag} to {@code parentTag}, a tag
     * of the parent folderset, creating either tag if missing (a new child tag of a folder is empty until
     * tagCurrentHead fills it). A global tag is built this way from the root down.
     */
    public void createTagRelation(Node childNode, String parentTag, String childTag) {
        write(c -> {
            tagWriter.createRelation(c, childNode, parentTag, childTag, now());
            return null;
        });
    }

    /**
     * COOL's deleteTag: removes a folder tag's IOVs (snapshot or user-tag layer) and the tag itself unless a
     * tag relation still uses it. Refused (TAG_LOCKED) for a locked or partially locked tag. Returns whether the
     * tag's name was freed.
     */
    public boolean deleteTag(Node folder, String tag) {
        return write(c -> tagWriter.deleteTag(c, folder, tag, now()));
    }

    /**
     * COOL's truncateObjectValidity (single-version folders): the open-ended IOVs valid at {@code until} in the
     * selected channels end there. Returns how many were truncated; refused whole if one valid there is closed.
     */
    public int truncateValidity(Node folder, long until, ChannelSelection sel) {
        return write(c -> {
            checkNamedChannel(c, folder, sel);
            return truncator.truncate(c, folder, until, sel, now());
        });
    }

    private String now() {
        return SysTime.now(clock);
    }

    // ---------------------------------------------------------------- transactions

    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Work that runs inside another write's transaction, seeing that write's result. */
    @FunctionalInterface
    public interface Companion {
        void run(Connection c, Object result) throws SQLException;
    }

    private final ThreadLocal<Companion> companion = new ThreadLocal<>();

    /**
     * Calls {@code operation} (one call of a write method of this store) so that {@code alsoCommit} runs in the
     * same transaction just before it commits: a record of the write (an audit row, an idempotency key) is then
     * committed together with the write or not at all. If the operation writes nothing, neither does the companion.
     */
    public <T> T writeTogether(Companion alsoCommit, java.util.function.Supplier<T> operation) {
        companion.set(alsoCommit);
        try {
            return operation.get();
        } finally {
            companion.remove();
        }
    }

    /** Runs read work on a read-only connection. */
    public <T> T read(Work<T> work) {
        try (Connection c = db.readPool().getConnection()) {
            try {
                return work.run(c);
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            throw Failures.translate(e);
        }
    }

    /** Runs write work in one transaction: committed whole, or rolled back whole on any failure. */
    public <T> T write(Work<T> work) {
        SnapshotCoverage cov = coverage;
        if (cov != null) {
            throw new StoreException(StoreException.Kind.READ_ONLY, "this database is an offline snapshot (global tag '"
                    + cov.globalTag() + "', " + cov.describeRanges()
                    + "): it is read-only; write to the source database and sync the snapshot");
        }
        try (Connection c = db.writePool().getConnection()) {
            try {
                db.dialect().beginWrite(c, db.prefix());
                T result = work.run(c);
                Companion also = companion.get();
                if (also != null) {
                    companion.remove();
                    also.run(c, result);
                }
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw Failures.translate(e);
        }
    }

    @Override
    public void close() {
        db.close();
    }
}
