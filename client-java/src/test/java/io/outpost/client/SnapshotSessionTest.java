package io.outpost.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outpost.client.testing.InProcessService;
import io.outpost.server.cache.Catalog;
import io.outpost.store.IovStore;
import io.outpost.store.model.NewIov;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The snapshot session against the real service on its demo database (global tag DEMO-GT-2026), real HTTP. */
class SnapshotSessionTest {
    static final long T0 = RealServiceTest.T0;
    static final long HOUR = RealServiceTest.HOUR;
    static final String GT = "DEMO-GT-2026";
    /** Run 302, lumi 17: the demo global tag holds time and run-lumi folders, so a snapshot takes both keys. */
    static final long RL = (302L << 32) | 17;
    static InProcessService service;
    static OutpostClient client;

    @BeforeAll
    static void start() throws IOException {
        // Folders over 200 bytes come by URL, so the session fetches some folders in parallel.
        service = InProcessService.start(null, "--outpost.snapshot.inline-max-bytes=200B",
                "--outpost.snapshot.state-max-age=60s");
        client = OutpostClient.create(ClientConfig.builder().server(service.url()).build());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (service != null) {
            service.close();
        }
    }

    @Test
    void snapshotEqualsPerFolderQueriesReusesTheStateAndRefreshesWhenAGenerationIsGone() throws Exception {
        SnapshotSession session = client.snapshotSession(GT, null);
        long t = T0 + 3 * HOUR + 17;
        Snapshot first = session.at(t, RL);
        assertThat(first.state()).isEqualTo(session.state()).matches("[0-9a-f]{16}");
        assertThat(first.folders()).containsKeys("/DEMO/Calo/Gains", "/DEMO/Calo/Pedestals", "/DEMO/DCS/HV");
        assertThat(first.folders().get("/DEMO/Calo/Gains").tag()).isEqualTo("GAINS-v2");
        assertThat(first.requests()).as("one snapshot request plus the folders given by URL")
                .isGreaterThan(1).isLessThanOrEqualTo(1 + first.folders().size());
        for (Snapshot.FolderSnapshot f : first.folders().values()) {
            long key = f.keyType().equals("run-lumi") ? RL : t;
            List<Iov> direct = client.browse(f.folder(), f.tag(), key, key, ChannelSelection.all(),
                    Order.CHANNEL_SINCE);
            assertThat(f.iovs()).as(f.folder()).isEqualTo(direct).isNotEmpty();
        }
        assertThat(first.folders().get("/DEMO/Align/Global").keyType()).isEqualTo("run-lumi");
        assertThat(first.time().covers(t)).isTrue();
        assertThat(first.runLumi().covers(RL)).isTrue();
        assertThat(first.runLumi().since()).isGreaterThanOrEqualTo(302L << 32);
        // keys in the same validity interval of every folder of their type: no request at all
        Snapshot again = session.at(t + 1000, RL + 1);
        assertThat(again.requests()).isZero();
        assertThat(again.folders()).isEqualTo(first.folders());

        // a write the session's state does not know: its pinned request is gone, it re-reads the state once
        IovStore store = service.context().getBean(IovStore.class);
        store.store(store.folder("/DEMO/Calo/Pedestals"), List.of(new NewIov(3, T0 + 50 * HOUR, T0 + 60 * HOUR,
                1.5f, 0.5f, 7)));
        service.context().getBean(Catalog.class).refresh();
        long later = T0 + 55 * HOUR;
        Snapshot after = session.at(later, RL);
        assertThat(after.state()).isNotEqualTo(first.state());
        assertThat(after.iovs("/DEMO/Calo/Pedestals")).anyMatch(i -> i.channel() == 3 && i.since() == T0 + 50 * HOUR);
        assertThat(after.folders().get("/DEMO/Calo/Pedestals").generation())
                .isNotEqualTo(first.folders().get("/DEMO/Calo/Pedestals").generation());
        assertThat(after.folders().get("/DEMO/Calo/Gains").generation())
                .isEqualTo(first.folders().get("/DEMO/Calo/Gains").generation());

        // pinned browse of one folder at the state's generation
        List<Iov> browsed = session.browse("/DEMO/Calo/Pedestals", later, later, ChannelSelection.channel(3),
                Order.CHANNEL_SINCE);
        assertThat(browsed).hasSize(1);
        assertThat(browsed.get(0).since()).isEqualTo(T0 + 50 * HOUR);
        assertThatThrownBy(() -> session.browse("/NOT/IN/STATE", 0, 1, ChannelSelection.all(), Order.CHANNEL_SINCE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void oneKeyForAGlobalTagOfBothKeyTypesIsRejectedAndOneKeyTypeTakesOneKey() throws Exception {
        assertThatThrownBy(() -> client.snapshotSession(GT, null).at(T0))
                .isInstanceOf(OutpostException.class).hasMessageContaining("{time},{runlumi}")
                .extracting("kind").isEqualTo(OutpostException.Kind.REJECTED);
        Snapshot calo = client.snapshotSession(GT, "/DEMO/DCS").at(T0 + HOUR);
        assertThat(calo.validSince()).isPositive();
        assertThat(calo.covers(T0 + HOUR)).isTrue();
        assertThat(calo.runLumi()).isNull();
        SnapshotSession dcs = client.snapshotSession(GT, "/DEMO/DCS");
        Snapshot pair = dcs.at(T0 + HOUR, RL);
        assertThat(pair.folders().keySet()).isEqualTo(calo.folders().keySet());
        assertThat(pair.iovs("/DEMO/DCS/HV")).isEqualTo(calo.iovs("/DEMO/DCS/HV")).isNotEmpty();
        // pinned to the state now: the pair URL is redirected to the one-key URL of the time folders
        long later = T0 + 5 * HOUR;
        Snapshot pinned = dcs.at(later, RL);
        assertThat(pinned.requests()).isPositive();
        assertThat(pinned.iovs("/DEMO/DCS/HV")).isEqualTo(client.browse("/DEMO/DCS/HV", "HEAD", later, later,
                ChannelSelection.all(), Order.CHANNEL_SINCE)).isNotEmpty();
    }

    @Test
    void anUnknownGlobalTagIsNotFound() {
        assertThatThrownBy(() -> client.snapshotSession("NO-SUCH-GT", null).at(5))
                .isInstanceOf(OutpostException.class).extracting("kind").isEqualTo(OutpostException.Kind.NOT_FOUND);
    }
}
