package io.outpost.frontier;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * Cores the machine leaves to this service, from how busy its CPUs were over the last second or so (read at most once
 * a second): splitting work across cores only pays when some are idle; on a machine busy with other processes (the
 * database, other services) the extra CPU of the split is lost time. The one-minute load average, used before,
 * lagged: a burst of load kept answers whole for a minute after it had passed. Unknown load (some platforms): taken
 * as idle.
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
            load = busyCores();
        }
        return left(OS.getAvailableProcessors(), load, ours);
    }

    /** CPUs busy since the last reading (by anyone in this JVM), in cores; the load average where not known. */
    private static double busyCores() {
        if (OS instanceof com.sun.management.OperatingSystemMXBean sun) {
            double busy = sun.getCpuLoad();
            if (busy >= 0) {
                return busy * OS.getAvailableProcessors();
            }
        }
        return OS.getSystemLoadAverage();
    }

    /** @param load cores busy with everything, this service's {@code ours} threads included; negative: unknown */
    static int left(int cores, double load, int ours) {
        return load < 0 ? cores : (int) Math.max(0, Math.min(cores, Math.round(cores - Math.max(0, load - ours))));
    }
}
