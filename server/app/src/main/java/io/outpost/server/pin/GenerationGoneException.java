package io.outpost.server.pin;

/**
 * A pinned URL names a generation (or state) this replica cannot answer for: older than the current one and no
 * longer reproducible, or newer than anything it has seen even after refreshing its view.
 *
 * @param current the current generation token or state hash, for the client to re-pin to
 */
public class GenerationGoneException extends RuntimeException {
    private final String subject;
    private final String asked;
    private final String current;
    private final boolean newer;

    public GenerationGoneException(String subject, String asked, String current, boolean newer) {
        super(newer
                ? subject + ": generation " + asked + " is newer than this replica has seen (its current one is "
                        + current + "); ask again shortly or re-read the state"
                : subject + ": generation " + asked + " is gone; the current one is " + current
                        + "; re-read the state and use the current generation");
        this.subject = subject;
        this.asked = asked;
        this.current = current;
        this.newer = newer;
    }

    public String subject() {
        return subject;
    }

    public String asked() {
        return asked;
    }

    public String current() {
        return current;
    }

    /** True when the asked generation is newer than the replica's view (replica lag), not gone. */
    public boolean newer() {
        return newer;
    }
}
