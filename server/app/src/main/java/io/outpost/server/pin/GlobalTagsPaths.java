package io.outpost.server.pin;

/** Path helpers shared by states and snapshots. */
final class GlobalTagsPaths {
    private GlobalTagsPaths() {
    }

    /** True when {@code path} is {@code subtree} or below it ("/" holds everything). */
    static boolean within(String path, String subtree) {
        return subtree.equals("/") || path.equals(subtree) || path.startsWith(subtree + "/");
    }
}
