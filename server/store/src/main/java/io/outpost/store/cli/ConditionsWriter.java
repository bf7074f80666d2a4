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

    /** Stores one batch, all or nothing. */
    void store(String folder, List<NewIov> batch);

    /** Tags the HEAD of a folder now ({@code asOf} null) or as it was at {@code asOf}. */
    void tag(String folder, String tag, Instant asOf, String description);

    void lock(String tag, TagLock lock);

    void relate(String parent, String child);

    /** One line per node, as {@code list} prints them. */
    List<String> list();

    @Override
    void close();
}
