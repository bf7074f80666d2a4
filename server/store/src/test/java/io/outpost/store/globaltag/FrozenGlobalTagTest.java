package io.outpost.store.globaltag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.IovStore;
import io.outpost.store.StoreException;
import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Locking a global tag freezes what it serves: its folders, each folder's tag, and the HEAD as of the lock for the
 * folders it read at their HEAD. Random writes of every kind after the lock leave every read through it identical.
 */
class FrozenGlobalTagTest {
    private static final String GT = "GT-F";
    private static final PayloadSpec SPEC = PayloadSpec.parse("v:Int32");
    /** Keys the reads are compared at; the single-version folder's closed IOVs cover 0 … 300. */
    private static final long[] MV_KEYS = {0, 5, 50, 99, 100, 150, 250, 1_000, 5_000, ValidityKey.MAX - 1};
    private static final long[] SV_CLOSED_KEYS = {0, 50, 99, 100, 199, 200, 299};

    private static Node mv(IovStore store, String path, int value) {
        Node f = store.createFolder(path, Versioning.MULTI_VERSION, KeyType.TIME, SPEC, "", true);
        store.store(f, List.of(new NewIov(0, 0, 100, value), new NewIov(0, 100, ValidityKey.MAX, value + 1),
                new NewIov(1, 50, ValidityKey.MAX, value + 2)));
        return f;
    }

    /** /DET/A chosen through its tag, /DET/B read at HEAD, /DET/E an empty multi-version HEAD, /DET/S single-version. */
    private static void build(IovStore store) {
        Node a = mv(store, "/DET/A", 10);
        mv(store, "/DET/B", 20);
        mv(store, "/OTHER/C", 30);
        store.createFolder("/DET/E", Versioning.MULTI_VERSION, KeyType.TIME, SPEC, "", true);
        Node s = store.createFolder("/DET/S", Versioning.SINGLE_VERSION, KeyType.TIME, SPEC, "", true);
        store.store(s, List.of(new NewIov(0, 0, 100, 1), new NewIov(0, 100, 300, 2), new NewIov(0, 300,
                ValidityKey.MAX, 3)));
        store.tagCurrentHead(a, "A-1", "");
        Map<String, String> choices = new LinkedHashMap<>();
        choices.put("/DET/A", "A-1");
        new GlobalTags(store).create(GT, "frozen", choices);
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void lockingRecordsFoldersTagsAndHeadsAndRefusesLaterFolders(Backends backend) {
        try (IovStore store = backend.freshStore("gt_freeze")) {
            build(store);
            GlobalTags gts = new GlobalTags(store);
            assertThat(gts.frozenAt(GT)).isNull();
            gts.lock(GT, TagLock.LOCKED, "test");
            assertThat(gts.frozenAt(GT)).isNotNull();
            assertThat(gts.resolve(GT)).extracting(c -> c.folder().path() + "=" + c.tagName()).containsExactly(
                    "/DET/A=A-1", "/DET/B=GT-F.DET.B", "/DET/E=GT-F.DET.E", "/DET/S=HEAD", "/OTHER/C=GT-F.OTHER.C");
            // the HEAD read at the lock is now a locked tag of the folder, reached by the global tag as COOL reads it
            assertThat(store.resolveTag(store.folder("/DET/B"), GT).lock()).isEqualTo(TagLock.LOCKED);
            assertThat(store.findObject(store.folder("/DET/B"), 150, 0, GT).payload()).containsExactly(21);
            store.store(store.folder("/DET/B"), List.of(new NewIov(0, 120, 130, 99)));
            assertThat(store.findObject(store.folder("/DET/B"), 125, 0, GT).payload()).containsExactly(21);
            assertThat(store.findObject(store.folder("/DET/B"), 125, 0, "HEAD").payload()).containsExactly(99);
            // a single-version folder is read at its HEAD through the global tag (it has no tags)
            assertThat(store.findObject(store.folder("/DET/S"), 150, 0, GT).payload()).containsExactly(2);

            // folders created later are not part of it
            mv(store, "/DET/LATER", 40);
            Node laterSv = store.createFolder("/DET/LATER_SV", Versioning.SINGLE_VERSION, KeyType.TIME, SPEC, "", true);
            assertThat(gts.resolve(GT)).hasSize(5);
            assertThatThrownBy(() -> store.findObjects(store.folder("/DET/LATER"), 10, ChannelSelection.all(), GT))
                    .isInstanceOfSatisfying(StoreException.class,
                            e -> assertThat(e.kind()).isEqualTo(StoreException.Kind.TAG_NOT_FOUND))
                    .hasMessageContaining("not part of the global tag 'GT-F'");
            assertThatThrownBy(() -> store.findObjects(laterSv, 10, ChannelSelection.all(), GT))
                    .hasMessageContaining("not part of the global tag 'GT-F'");

            // a tag it holds cannot be unlocked on its own, nor deleted
            assertThatThrownBy(() -> store.setTagLock("A-1", TagLock.UNLOCKED)).isInstanceOfSatisfying(
                    StoreException.class, e -> assertThat(e.kind()).isEqualTo(StoreException.Kind.TAG_LOCKED))
                    .hasMessageContaining("part of the locked global tag 'GT-F'");
            assertThatThrownBy(() -> store.deleteTag(store.folder("/DET/A"), "A-1"))
                    .isInstanceOfSatisfying(StoreException.class,
                            e -> assertThat(e.kind()).isEqualTo(StoreException.Kind.TAG_LOCKED));

            // unlocking is explicit, lifts the freeze and is audited; locking again freezes the folders of now
            gts.lock(GT, TagLock.UNLOCKED, "test");
            assertThat(gts.frozenAt(GT)).isNull();
            assertThat(store.tag("A-1").lock()).isEqualTo(TagLock.UNLOCKED);
            assertThat(gts.resolve(GT)).hasSize(7);
            store.setTagLock(GT, TagLock.LOCKED); // the write API's path: also a freeze
            assertThat(gts.resolve(GT)).extracting(c -> c.folder().path() + "=" + c.tagName()).contains(
                    "/DET/LATER=GT-F.DET.LATER", "/DET/LATER_SV=HEAD", "/DET/B=GT-F.DET.B");
            assertThat(auditedOperations(store)).containsExactly("globaltag-lock", "globaltag-unlock",
                    "globaltag-lock");
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void globalTagsSharingATagUnlockOnlyWhatNoOtherFrozenOneHolds(Backends backend) {
        try (IovStore store = backend.freshStore("gt_shared")) {
            build(store);
            Map<String, String> choices = new LinkedHashMap<>();
            choices.put("/DET/A", "A-1");
            GlobalTags gts = new GlobalTags(store);
            gts.create("GT-G", "", choices);
            gts.lock(GT, TagLock.LOCKED, "test");
            gts.lock("GT-G", TagLock.LOCKED, "test");
            gts.lock("GT-G", TagLock.UNLOCKED, "test");
            assertThat(store.tag("A-1").lock()).isEqualTo(TagLock.LOCKED);
            assertThat(store.tag("GT-G").lock()).isEqualTo(TagLock.UNLOCKED);
        }
    }

    /**
     * The property: after the lock, any sequence of writes (new folders, HEAD inserts into multi- and single-version
     * folders, new channels, new tags, user tags, truncations, and tag moves, which are refused) leaves every read
     * through the locked global tag identical, compared as serialized text.
     */
    @ParameterizedTest
    @EnumSource(Backends.class)
    void randomWritesAfterTheLockLeaveEveryReadThroughItIdentical(Backends backend) {
        long seed = Long.getLong("outpost.freeze.seed", System.nanoTime());
        Random rnd = new Random(seed);
        try (IovStore store = backend.freshStore("gt_property")) {
            build(store);
            GlobalTags gts = new GlobalTags(store);
            gts.lock(GT, TagLock.LOCKED, "test");
            String before = readsThrough(store, gts);
            List<String> done = new ArrayList<>();
            for (int step = 0; step < 40; step++) {
                String op = randomWrite(store, rnd, step);
                done.add(op);
                assertThat(readsThrough(store, gts)).as("seed %d after %s", seed, done).isEqualTo(before);
            }
        }
    }

    private static String randomWrite(IovStore store, Random rnd, int step) {
        String[] members = {"/DET/A", "/DET/B", "/DET/E", "/OTHER/C"};
        Node mvFolder = store.folder(members[rnd.nextInt(members.length)]);
        long since = rnd.nextInt(6_000);
        long until = rnd.nextBoolean() ? ValidityKey.MAX : since + 1 + rnd.nextInt(2_000);
        int kind = rnd.nextInt(10);
        switch (kind) {
            case 0 -> mv(store, "/NEW/F" + step, step);
            case 1 -> store.createFolder("/DET/NEWSV" + step, Versioning.SINGLE_VERSION, KeyType.TIME, SPEC, "", true);
            case 2 -> store.store(mvFolder, List.of(new NewIov(rnd.nextInt(3), since, until, step)));
            case 3 -> {
                // single-version: new IOVs after the closed ones (storing closes the open one) or refused
                try {
                    store.store(store.folder("/DET/S"), List.of(new NewIov(rnd.nextInt(2), 300 + since, ValidityKey.MAX,
                            step)));
                } catch (StoreException refused) {
                    return "sv insert refused: " + refused.getMessage();
                }
            }
            case 4 -> store.createChannel(mvFolder, 10 + step, "ch" + step, "");
            case 5 -> {
                try {
                    store.tagCurrentHead(mvFolder, "NEW-" + step, "");
                } catch (StoreException nothingToTag) {
                    return "tag refused: " + nothingToTag.getMessage();
                }
            }
            case 6 -> store.store(mvFolder, List.of(new NewIov(0, since, until, step).withUserTag("U-" + step, false)));
            case 7 -> {
                // single-version truncation of the open IOV, which starts after the closed ones
                try {
                    store.truncateValidity(store.folder("/DET/S"), 300 + since, ChannelSelection.all());
                } catch (StoreException refused) {
                    return "truncation refused: " + refused.getMessage();
                }
            }
            case 8 -> {
                String tag = store.resolveTag(mvFolder, GT).name();
                assertThatThrownBy(() -> store.deleteTag(mvFolder, tag)).isInstanceOf(StoreException.class);
                assertThatThrownBy(() -> store.setTagLock(tag, TagLock.UNLOCKED)).isInstanceOf(StoreException.class);
                assertThatThrownBy(() -> store.store(mvFolder, List.of(new NewIov(0, since, until, step)
                        .withUserTag(tag, false)))).isInstanceOf(StoreException.class);
                return "tag moves of " + tag + " refused";
            }
            default -> {
                Node later = store.createFolder("/DET/MOVED" + step, Versioning.MULTI_VERSION, KeyType.TIME, SPEC, "",
                        true);
                store.store(later, List.of(new NewIov(0, 0, ValidityKey.MAX, step)));
                store.tagCurrentHead(later, "MOVED-" + step, "");
                assertThatThrownBy(() -> store.createTagRelation(later, "GT-F.DET", "MOVED-" + step))
                        .isInstanceOf(StoreException.class);
                return "relation into the frozen tag refused";
            }
        }
        return "write " + kind + " at " + since;
    }

    /** Every read through the global tag: what it resolves to, and each folder's rows and at-time answers. */
    private static String readsThrough(IovStore store, GlobalTags gts) {
        StringBuilder out = new StringBuilder();
        for (FolderChoice c : gts.resolve(GT)) {
            out.append(c.folder().path()).append(' ').append(c.tagName()).append('\n');
            boolean sv = !c.folder().isMultiVersion();
            long last = sv ? 299 : ValidityKey.MAX - 1;
            store.read(c.folder(), GT, 0, last, ChannelSelection.all(), iov -> out.append(row(iov)), false);
            for (long t : sv ? SV_CLOSED_KEYS : MV_KEYS) {
                out.append("@").append(t).append(':');
                store.read(c.folder(), GT, t, t, ChannelSelection.all(), iov -> out.append(row(iov)), false);
            }
        }
        return out.toString();
    }

    private static String row(io.outpost.store.model.Iov iov) {
        return "[" + iov.channelId() + " " + iov.since() + " " + iov.until() + " " + iov.objectId() + " "
                + iov.insertionTime() + " " + Arrays.toString(iov.payload()) + "]";
    }

    private static List<String> auditedOperations(IovStore store) {
        return store.read(c -> {
            List<String> ops = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT OPERATION FROM " + store.database().prefix()
                    + "WRITE_AUDIT WHERE TAG_NAME = ? ORDER BY AT_TIME"); ) {
                ps.setString(1, GT);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ops.add(rs.getString(1));
                    }
                }
            }
            return ops;
        });
    }
}
