package io.outpost.loadtest;

/**
 * The ATLAS prompt-reconstruction model's outcome: snapshots scheduled, those complete within the deadline, and
 * the efficiency (their share; 1.0 = every job got its conditions in time). Times in ms.
 */
public record AtlasStats(int jobs, double staggerSeconds, double periodSeconds, int snapshotsPerJob,
                         double deadlineSeconds, long snapshots, long inDeadline, double efficiency,
                         double snapshotP50Millis, double snapshotP99Millis, double snapshotMaxMillis) {

    public static double efficiency(long inDeadline, long snapshots) {
        return snapshots == 0 ? 0 : (double) inDeadline / snapshots;
    }
}
