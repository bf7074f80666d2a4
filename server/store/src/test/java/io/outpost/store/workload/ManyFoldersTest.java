package io.outpost.store.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.store.IovStore;
import io.outpost.store.globaltag.FolderChoice;
import io.outpost.store.globaltag.GlobalTags;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.Node;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The many-folder data set at a small scale: mixed folders, each filled as described, and the global tag over half. */
class ManyFoldersTest {

    @Test
    void foldersOfEveryKindAndAGlobalTagOverTheTaggedHalf() {
        try (IovStore store = Backends.SQLITE.freshStore("many_folders")) {
            List<Node> folders = new ManyFolders(store, 1).populate(0.2, i -> { });
            assertThat(folders).hasSize(20);
            assertThat(folders).extracting(Node::versioning).contains(Versioning.SINGLE_VERSION, Versioning.MULTI_VERSION);
            assertThat(folders).extracting(Node::keyType).contains(KeyType.TIME, KeyType.RUN_LUMI);
            for (int i = 0; i < folders.size(); i++) {
                Node f = folders.get(i);
                assertThat(f.path()).isEqualTo(ManyFolders.path(i, 20));
                // every channel has one object at the start of the second IOV
                long t = ManyFolders.since(f.keyType(), 1);
                assertThat(store.findObjects(f, t, ChannelSelection.all(), null)).hasSize(ManyFolders.channels(i));
                long rows = store.count(f, 0, Long.MAX_VALUE, ChannelSelection.all(), null);
                assertThat(rows).isEqualTo((long) ManyFolders.channels(i) * ManyFolders.iovsPerChannel(i));
            }
            List<FolderChoice> choices = new GlobalTags(store).resolve(ManyFolders.GLOBAL_TAG, ManyFolders.TAGGED);
            assertThat(choices).hasSize(10);
            for (FolderChoice c : choices) {
                int i = Integer.parseInt(c.folder().path().substring(c.folder().path().lastIndexOf('F') + 1));
                assertThat(c.tagName()).isEqualTo(c.folder().isMultiVersion() ? ManyFolders.tagOf(i) : "HEAD");
            }
        }
    }
}
