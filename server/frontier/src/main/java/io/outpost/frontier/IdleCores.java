package io.outpost.frontier;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * Cores the machine leaves to this service, from the one-minute load average (read at most once a second): splitting work
 * across cores only pays when some are idle; on a machine busy with other processes (the database, other services)
 * the extra CPU of the split is lost time. Unknown load (some platforms): taken as idle.
 */
final class IdleCores {
    private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();
    private static final long REREAD_NANOS = 1_000_000_000L;
    private static volatile double load = -1;
    private static volatile long readAt = System.nanoTime() - REREAD_NANOS;

    private IdleCores() {
    }

    /**
     * Cores left to {@code ours} runnable threads of this service now, rounded, 0 to the machine's count: all but the
     * load of everything else (the load average includes the caller's own work).
     */
    static int besides(int ours) {
        long t = System.nanoTime();
        if (t - readAt >= REREAD_NANOS) {
            readAt = t;
            load = OS.getSystemLoadAverage();
        }
        return left(OS.getAvailableProcessors(), load, ours);
    }

    static int left(int cores, double load, int ours) {
        return load < 0 ? cores : (int) Math.max(0, Math.min(cores, Math.round(cores - Math.max(0, load - ours))));
    }
}
