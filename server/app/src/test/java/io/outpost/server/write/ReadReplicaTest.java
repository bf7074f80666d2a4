package io.outpost.server.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.outpost.server.cache.Catalog;
import io.outpost.server.support.RunningService;
import io.outpost.server.support.WriteClient;
import io.outpost.store.IovStore;
import io.outpost.store.db.DatabaseConfig;
import io.outpost.store.model.NewIov;
import io.outpost.testkit.ReplicatedDatabase;
import io.outpost.testkit.ReplicatedMariaDb;
import io.outpost.testkit.ReplicatedPostgres;
import io.outpost.testkit.TokenIssuer;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reads from a real replica, writes to the primary, on PostgreSQL (streaming replication) and MariaDB (GTID
 * replication): a write through the API returns only once the replica has applied it (else it says
 * {@code X-Outpost-Replica: behind}); a change the replica has not applied yet is not served, and the folder's
 * generation (ETag) does not move until it is, so no stale answer is ever cached under a new generation.
 */
class ReadReplicaTest {
    private static final String COUNT = "/v1/json/count/HEAD/0/9223372036854775807/all/R/Cond";

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void readsGoToTheReplicaAndWritesBecomeVisibleOnceReplayed(String backend) throws Exception {
        try (ReplicatedDatabase pg = backend.equals("mariadb") ? new ReplicatedMariaDb() : new ReplicatedPostgres();
             TokenIssuer issuer = new TokenIssuer()) {
            pg.createDatabase("conditions");
            try (RunningService svc = RunningService.start(pg.primaryUrl("conditions"),
                    "--outpost.database.user=" + pg.user(), "--outpost.read-replica.url=" + pg.replicaUrl("conditions"),
                    "--outpost.demo-data=false", "--outpost.poll-interval=1h", "--outpost.write.replica-wait=2s",
                    "--outpost.write.issuer-uri=" + issuer.issuerUri())) {
                IovStore store = svc.bean(IovStore.class);
                assertThat(store.database().readPool().getJdbcUrl()).isEqualTo(pg.replicaUrl("conditions"));
                assertThat(store.database().writePool().getJdbcUrl()).isEqualTo(pg.primaryUrl("conditions"));
                WriteClient client = new WriteClient(svc.url(""));
                String token = issuer.token("writer", "conditions.write:/R");

                HttpResponse<String> folder = client.json("POST", "/write/v1/folders/R/Cond", token,
                        "{\"payload\":\"v:Int32\",\"parents\":true}");
                assertThat(folder.statusCode()).as(folder.body()).isEqualTo(201);
                HttpResponse<String> stored = client.send("POST", "/write/v1/iovs/R/Cond", token, "text/csv",
                        "channel,since,until,v\n1,0,10,1\n".getBytes(StandardCharsets.UTF_8));
                assertThat(stored.statusCode()).as(stored.body()).isEqualTo(200);
                assertThat(stored.headers().firstValue("X-Outpost-Replica")).isEmpty();
                assertThat(body(svc.get(COUNT))).as("read from the replica right after the write").contains("[1]");
                String etag = svc.get(COUNT).headers().firstValue("ETag").orElseThrow();

                // With replay paused, a write on the primary (here by the loader's code) is not served ...
                pg.pauseReplication();
                try (IovStore loader = IovStore.open(DatabaseConfig.of(pg.primaryUrl("conditions"), pg.user(), ""))) {
                    loader.store(loader.folder("/R/Cond"), List.of(new NewIov(2, 0, 10, 2)));
                }
                svc.bean(Catalog.class).refresh();
                HttpResponse<byte[]> stale = svc.get(COUNT);
                assertThat(body(stale)).as("the replica has not replayed the write").contains("[1]");
                assertThat(stale.headers().firstValue("ETag")).as("generation unchanged while unreplayed").hasValue(etag);
                // ... and a write through the API waits for the replica, then says it is behind
                HttpResponse<String> behind = client.send("POST", "/write/v1/iovs/R/Cond", token, "text/csv",
                        "channel,since,until,v\n3,0,10,3\n".getBytes(StandardCharsets.UTF_8));
                assertThat(behind.statusCode()).isEqualTo(200);
                assertThat(behind.headers().firstValue("X-Outpost-Replica")).hasValue("behind");
                assertThat(svc.get(COUNT).headers().firstValue("ETag")).hasValue(etag);

                pg.resumeReplication();
                HttpResponse<String> after = client.send("POST", "/write/v1/iovs/R/Cond", token, "text/csv",
                        "channel,since,until,v\n4,0,10,4\n".getBytes(StandardCharsets.UTF_8));
                assertThat(after.headers().firstValue("X-Outpost-Replica")).isEmpty();
                HttpResponse<byte[]> fresh = svc.get(COUNT);
                assertThat(body(fresh)).as("everything replayed").contains("[4]");
                assertThat(fresh.headers().firstValue("ETag")).isNotEqualTo(java.util.Optional.of(etag));
            }
        }
    }

    private static String body(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }
}
