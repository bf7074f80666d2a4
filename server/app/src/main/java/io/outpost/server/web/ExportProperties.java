package io.outpost.server.web;

import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The snapshot export endpoint (prefix {@code outpost.export}; {@link SnapshotExportController}).
 *
 * @param maxConcurrent folder copies made at once (each reads a whole folder layer into a temporary file); more get
 *                      503 with Retry-After; 0 turns {@code /export/v1} off
 */
@Validated
@ConfigurationProperties("outpost.export")
public record ExportProperties(@DefaultValue("2") @Min(value = 0, message = "outpost.export.max-concurrent must be 0"
        + " (off) or more, not ${validatedValue}") int maxConcurrent) {
}
