package io.outpost.loadtest;

import java.util.List;
import java.util.Map;

/** Everything a run measured, as written to result.json and rendered in report.html. */
public record RunReport(String tool, String startedAt, String command, double scale, Map<String, String> environment,
                        List<StepResult> steps, List<TargetCheck> targets, List<String> notes) {

    /** One printed target: {@code pass} is null when the run did not measure what the target needs. */
    public record TargetCheck(String name, String rule, String measured, Boolean pass) {
    }
}
