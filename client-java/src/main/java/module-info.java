/**
 * The Java client of Outpost's native API. Its API is the package io.outpost.client; answers carry the wire
 * format's types (Schema, Column, ColumnType, AnswerKind), so the wire module comes with it.
 */
module io.outpost.client {
    requires transitive io.outpost.wire;
    // Evaluates proxy auto-config files (package pac); optional, like the Maven dependency. Only PacScript touches
    // it, and only a client configured with a proxy auto-config URL loads PacScript; without Rhino such a client
    // fails at creation with a message saying what to add (ProxyDiscovery.requireEngine). On the module path a
    // static dependency is not resolved by itself: PAC users add --add-modules org.mozilla.rhino.
    requires static org.mozilla.rhino;

    // Only for the outpost-client command line (package cli); an optional dependency of the library.
    requires static info.picocli;
    // Offline mode (a server URL sqlite:FILE, package offline, loaded by name by internal.OfflineQueries) reads the
    // snapshot with the store, an optional dependency that is not a module: it is compiled against the class path
    // (--add-reads io.outpost.client=ALL-UNNAMED in the pom) and works where the store is on the class path.

    exports io.outpost.client;

    // picocli sets the command line's options into the annotated fields.
    opens io.outpost.client.cli to info.picocli;
}
