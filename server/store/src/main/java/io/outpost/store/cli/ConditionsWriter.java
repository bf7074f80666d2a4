package io.outpost.store.cli;

import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.Versioning;
import java.time.Instant;
import java.util.List;

/**
 * What the loader's commands do, by node path: against a database ({@link StoreWriter}) or through a service's
 * write API ({@link HttpWriter}), so every command works the same both ways.
 */
interface ConditionsWriter extends AutoCloseable {
    void createFolderSet(String path, String description, boolean parents);

    /** Returns a line describing what was created. */
    String createFolder(String path, Versioning versioning, KeyType keys, PayloadSpec payload, String description,
                        boolean parents);

    void createChannel(String folder, long id, String name, String description);

    /** The payload specification of a folder (to read files for it); fails for an unknown folder. */
    PayloadSpec payloadSpec(String folder);

    /** What a folder's keys mean (to read the keys of files for it); fails for an unknown folder. */
    KeyType keyType(String folder);

    /**
     * Stores one batch, all or nothing. Returns how many IOVs are now confirmed stored that were not before: this
     * batch's, or (through a service, which uploads one batch while the next is read) the previous batch's.
     */
    int store(String folder, List<NewIov> batch);

    /** Waits until every batch given to {@link #store} is confirmed stored; returns how many IOVs that confirmed. */
    int flush();

    /** Tags the HEAD of a folder now ({@code asOf} null) or as it was at {@code asOf}. */
    void tag(String folder, String tag, Instant asOf, String description);

    /** Sets a tag's lock; {@code node} (may be null) names the node that owns it, checked when given. */
    void lock(String node, String tag, TagLock lock);

    /** Relates {@code child} to {@code parent}; {@code node} (may be null) is the child node, creating tags as COOL does. */
    void relate(String node, String parent, String child);

    /** COOL's deleteTag; returns whether the tag's name was freed. */
    boolean deleteTag(String folder, String tag);

    /** COOL's truncateObjectValidity; {@code channels} as the loader spells them. Returns the IOVs truncated. */
    int truncate(String folder, long until, String channels);

    /** Creates a global tag choosing each folder's tag ({@code globaltag create}); {@code lock}: lock it as well. */
    void createGlobalTag(String name, String description, java.util.Map<String, String> choices, boolean lock);

    /**
     * Sets the lock of a global tag and of every tag it reaches ({@code globaltag lock}); locking freezes what it
     * serves. Returns what to add to the confirmation (what was frozen), or "".
     */
    String lockGlobalTag(String name, TagLock lock);

    /** One line per global tag: name, lock, insertion time, description, tab-separated ({@code globaltag list}). */
    List<String> globalTags();

    /** One line per folder the global tag covers: path, tab, the tag it reads ({@code globaltag resolve}). */
    List<String> resolveGlobalTag(String name);

    /** One line per node, as {@code list} prints them. */
    List<String> list();

    @Override
    void close();
}
