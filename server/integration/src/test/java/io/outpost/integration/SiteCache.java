package io.outpost.integration;

import io.outpost.store.IovStore;
import io.outpost.testkit.SquidProcess;
import java.nio.file.Path;
import java.util.function.Consumer;

/** The fixture of the Squid tests: the service on a fresh database of test data, and a real Squid in front of it. */
final class SiteCache implements AutoCloseable {
    final Path db;
    final OutpostServer outpost;
    final SquidProcess squid;

    private SiteCache(Path db, OutpostServer outpost, SquidProcess squid) {
        this.db = db;
        this.outpost = outpost;
        this.squid = squid;
    }

    static SiteCache start(String name, Consumer<IovStore> data, String... serviceArgs) {
        Path db = TestData.freshDatabase(name);
        try (IovStore store = TestData.open(db)) {
            data.accept(store);
        }
        OutpostServer outpost = OutpostServer.start(db, 0, serviceArgs);
        try {
            return new SiteCache(db, outpost, Layout.startSquid(name, "--outpost", outpost.baseUrl()));
        } catch (RuntimeException e) {
            outpost.close();
            throw e;
        }
    }

    @Override
    public void close() {
        squid.close();
        outpost.close();
    }
}
