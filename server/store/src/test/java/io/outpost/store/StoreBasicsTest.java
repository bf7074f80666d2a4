package io.outpost.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.store.model.ChannelSelection;
import io.outpost.store.model.Iov;
import io.outpost.store.model.KeyType;
import io.outpost.store.model.NewIov;
import io.outpost.store.model.Node;
import io.outpost.store.model.PayloadSpec;
import io.outpost.store.model.TagLock;
import io.outpost.store.model.ValidityKey;
import io.outpost.store.model.Versioning;
import io.outpost.store.testing.Backends;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StoreBasicsTest {

    @ParameterizedTest
    @EnumSource(Backends.class)
    void singleVersionStoreClosesOpenIovsAndBrowsesInOrder(Backends backend) {
        try (IovStore store = backend.freshStore("basics_sv")) {
            Node f = store.createFolder("/A/B/sv", Versioning.SINGLE_VERSION, KeyType.TIME,
                    PayloadSpec.parse("x:Int32,s:String255"), "test", true);
            store.store(f, List.of(new NewIov(1, 10, ValidityKey.MAX, 1, "a"), new NewIov(2, 10, ValidityKey.MAX, 2, "b")));
            store.store(f, List.of(new NewIov(1, 20, ValidityKey.MAX, 3, "c")));

            List<Iov> all = new ArrayList<>();
            store.browse(f, 0, ValidityKey.MAX, ChannelSelection.all(), null, all::add);
            assertThat(all).extracting(Iov::channelId, Iov::since, Iov::until)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, 10L, 20L),
                            org.assertj.core.groups.Tuple.tuple(1L, 20L, ValidityKey.MAX),
                            org.assertj.core.groups.Tuple.tuple(2L, 10L, ValidityKey.MAX));
            assertThat(store.findObject(f, 15, 1, null).payload()).containsExactly(1, "a");
            assertThat(store.count(f, 0, ValidityKey.MAX, ChannelSelection.all(), null)).isEqualTo(3);
            assertThatThrownBy(() -> store.store(f, List.of(new NewIov(1, 5, 25, 9, "z"))))
                    .isInstanceOf(StoreException.class).extracting("kind").isEqualTo(StoreException.Kind.OVERLAP);
            store.store(f, List.of(new NewIov(1, 2, 8, 9, "gap")));
            assertThat(store.findObject(f, 3, 1, null).payload()).containsExactly(9, "gap");
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void multiVersionHidesOverlapsAndTagsKeepSnapshots(Backends backend) {
        try (IovStore store = backend.freshStore("basics_mv")) {
            Node f = store.createFolder("/mv", Versioning.MULTI_VERSION, KeyType.RUN_LUMI,
                    PayloadSpec.parse("v:Double"), "", true);
            store.store(f, List.of(new NewIov(0, 0, 100, 1.0)));
            store.tagCurrentHead(f, "T1", "first");
            store.store(f, List.of(new NewIov(0, 40, 60, 2.0)));
            store.store(f, List.of(new NewIov(0, 50, 70, 3.0).withUserTag("U1", false)));

            List<Iov> head = store.findObjects(f, 0, ChannelSelection.all(), null);
            assertThat(head).hasSize(1);
            List<Iov> rows = new ArrayList<>();
            store.browse(f, 0, 200, ChannelSelection.all(), "HEAD", rows::add);
            assertThat(rows).extracting(Iov::since, Iov::until).containsExactly(
                    org.assertj.core.groups.Tuple.tuple(0L, 40L), org.assertj.core.groups.Tuple.tuple(40L, 50L),
                    org.assertj.core.groups.Tuple.tuple(50L, 70L), org.assertj.core.groups.Tuple.tuple(70L, 100L));
            assertThat(store.findObject(f, 45, 0, "T1").payload()).containsExactly(1.0);
            assertThat(store.findObject(f, 55, 0, "U1").payload()).containsExactly(3.0);
            assertThat(store.count(f, 0, 200, ChannelSelection.all(), "U1")).isEqualTo(1);

            store.setTagLock("U1", TagLock.LOCKED);
            assertThatThrownBy(() -> store.store(f, List.of(new NewIov(0, 80, 90, 4.0).withUserTag("U1", false))))
                    .isInstanceOf(StoreException.class).extracting("kind").isEqualTo(StoreException.Kind.TAG_LOCKED);
            assertThat(store.count(f, 0, 200, ChannelSelection.all(), null)).isEqualTo(4);
        }
    }
}
