package io.outpost.store.globaltag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Global tags on each backend: created from folder=tag choices, resolved for every folder, locked, refused whole. */
class GlobalTagsTest {

    private static Node mv(IovStore store, String path) {
        Node f = store.createFolder(path, Versioning.MULTI_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"), "", true);
        store.store(f, List.of(new NewIov(0, 0, ValidityKey.MAX, 1)));
        return f;
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void createResolvesEveryFolderThroughFoldersetTagsAndHeadElsewhere(Backends backend) {
        try (IovStore store = backend.freshStore("gt_create")) {
            Node a = mv(store, "/DET/Calo/A");
            Node b = mv(store, "/DET/Calo/B");
            Node c = mv(store, "/DET/Muon/C");
            Node top = mv(store, "/TOP");
            store.createFolder("/DET/sv", Versioning.SINGLE_VERSION, KeyType.TIME, PayloadSpec.parse("v:Int32"), "", true);
            store.tagCurrentHead(a, "A-1", "");
            store.tagCurrentHead(b, "B-1", "");
            store.tagCurrentHead(c, "C-1", "");
            store.tagCurrentHead(top, "TOP-1", "");
            Map<String, String> choices = new LinkedHashMap<>();
            choices.put("/DET/Calo/A", "A-1");
            choices.put("/DET/Calo/B", "B-1");
            choices.put("/TOP", "TOP-1");
            GlobalTags gts = new GlobalTags(store);
            GlobalTag gt = gts.create("GT-1", "first", choices);
            assertThat(gt.description()).isEqualTo("first");

            assertThat(gts.list()).extracting(GlobalTag::name).containsExactly("GT-1");
            assertThat(gts.resolve("GT-1")).extracting(x -> x.folder().path(), FolderChoice::tagName).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("/DET/Calo/A", "A-1"),
                    org.assertj.core.groups.Tuple.tuple("/DET/Calo/B", "B-1"),
                    org.assertj.core.groups.Tuple.tuple("/DET/Muon/C", "HEAD"),
                    org.assertj.core.groups.Tuple.tuple("/DET/sv", "HEAD"),
                    org.assertj.core.groups.Tuple.tuple("/TOP", "TOP-1"));
            assertThat(gts.resolve("GT-1", "/DET/Calo")).hasSize(2);
            // the store's own per-folder resolution agrees, through the folderset tags GT-1.DET and GT-1.DET.Calo
            assertThat(store.resolveTag(a, "GT-1").name()).isEqualTo("A-1");
            assertThat(store.tag("GT-1.DET.Calo").nodeId()).isEqualTo(store.node("/DET/Calo").id());
            assertThat(store.tag("GT-1.DET").nodeId()).isEqualTo(store.node("/DET").id());
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void badChoicesWriteNothing(Backends backend) {
        try (IovStore store = backend.freshStore("gt_bad")) {
            Node a = mv(store, "/X/A");
            Node b = mv(store, "/X/B");
            store.tagCurrentHead(a, "A-1", "");
            store.tagCurrentHead(b, "B-1", "");
            GlobalTags gts = new GlobalTags(store);
            Map<String, String> wrongFolder = new LinkedHashMap<>();
            wrongFolder.put("/X/A", "A-1");
            wrongFolder.put("/X/B", "A-1");
            assertThatThrownBy(() -> gts.create("GT", "", wrongFolder)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("is not a tag of the folder '/X/B'");
            assertThatThrownBy(() -> gts.create("GT", "", Map.of("/X/A", "NOPE"))).isInstanceOf(StoreException.class)
                    .extracting("kind").isEqualTo(StoreException.Kind.TAG_NOT_FOUND);
            assertThatThrownBy(() -> gts.create("A-1", "", Map.of("/X/A", "A-1"))).isInstanceOf(StoreException.class)
                    .extracting("kind").isEqualTo(StoreException.Kind.ALREADY_EXISTS);
            assertThatThrownBy(() -> gts.create("GT", "", Map.of())).isInstanceOf(StoreException.class);
            // nothing of the refused attempts was kept: no global tag, no folderset tag
            assertThat(gts.list()).isEmpty();
            assertThat(store.tags(store.node("/X"))).isEmpty();
            // a name the rule needs that is already taken is refused, saying which
            store.createTagRelation("GT.X", "B-1");
            assertThatThrownBy(() -> gts.create("GT", "", Map.of("/X/A", "A-1"))).isInstanceOf(StoreException.class)
                    .hasMessageContaining("'GT.X'");
            assertThatThrownBy(() -> gts.resolve("GT.X")).isInstanceOf(StoreException.class)
                    .hasMessageContaining("not a global tag");
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void lockReachesEveryTagOfTheGlobalTag(Backends backend) {
        try (IovStore store = backend.freshStore("gt_lock")) {
            Node a = mv(store, "/L/M/A");
            Node b = mv(store, "/L/B");
            store.tagCurrentHead(a, "A-1", "");
            store.tagCurrentHead(b, "B-1", "");
            GlobalTags gts = new GlobalTags(store);
            Map<String, String> choices = new LinkedHashMap<>();
            choices.put("/L/M/A", "A-1");
            choices.put("/L/B", "B-1");
            gts.create("GT-L", "", choices);
            String before = store.modificationStamp(a);
            assertThat(gts.lock("GT-L", TagLock.LOCKED).lock()).isEqualTo(TagLock.LOCKED);
            for (String t : List.of("GT-L", "GT-L.L", "GT-L.L.M", "A-1", "B-1")) {
                assertThat(store.tag(t).lock()).as(t).isEqualTo(TagLock.LOCKED);
            }
            assertThat(store.modificationStamp(a)).as("locking changes what reads say about the tag")
                    .isNotEqualTo(before);
            gts.lock("GT-L", TagLock.UNLOCKED);
            assertThat(store.tag("A-1").lock()).isEqualTo(TagLock.UNLOCKED);
        }
    }
}
