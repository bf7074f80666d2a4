package io.outpost.loadtest;

import java.util.Locale;

/** The three ways a client reaches the conditions data. */
public enum Mode {
    /** JDBC straight to the database, issuing exactly the SQL the service issues (IovStore.browse). */
    DIRECT,
    /** HTTP to Outpost, every request a distinct URL so that the service's answer cache never helps. */
    PROXIED,
    /** HTTP through a real Squid (forward proxy, as Frontier clients use it), repeated canonical URLs. */
    CACHED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Mode parse(String s) {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
    }
}
