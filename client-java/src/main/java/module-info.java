/**
 * The Java client of Outpost's native API. Its API is the package io.outpost.client; answers carry the wire
 * format's types (Schema, Column, ColumnType, AnswerKind), so the wire module comes with it.
 */
module io.outpost.client {
    requires transitive io.outpost.wire;

    // Only for the outpost-client command line (package cli); an optional dependency of the library.
    requires static info.picocli;
    // Only for offline mode (a server URL sqlite:FILE): the store is an optional dependency, loaded by name by
    // internal.OfflineQueries. On the module path, an application using offline mode adds it (--add-modules).
    requires static io.outpost.store;

    exports io.outpost.client;

    // picocli sets the command line's options into the annotated fields.
    opens io.outpost.client.cli to info.picocli;
}
