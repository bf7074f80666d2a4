package io.outpost.server.rows;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the in-memory IOV rows ({@code outpost.rows.*}, docs/operations.md).
 *
 * @param enabled         answer at-time, browse and count queries from held rows
 * @param maxSize         heap bytes of rows held for all folders; unset: an eighth of the maximum heap, at most 256 MB
 * @param maxFolderShare  the largest share of {@code maxSize} one folder layer may take; bigger folders are read
 *                        from the database on every query
 * @param tooBigRetry     how long a layer found too big is left to the database before one build, in the background,
 *                        tries again (a multi-version layer can shrink when newer IOVs cover older ones)
 * @param encodedRows     also hold every row in the binary wire form (about as many bytes again as the payload
 *                        text, counted in the budget), so that binary answers copy rows instead of encoding them
 * @param keepAnswers     with encoded rows, also keep each layer's latest binary answer (budget: the encoded rows'
 *                        size again), so that the next answer of the same rows, header and codec (another key inside
 *                        the same IOVs) sends its bytes instead of compressing them again
 */
@Validated
@ConfigurationProperties("outpost.rows")
public record RowStoreProperties(@DefaultValue("true") boolean enabled, DataSize maxSize,
                                 @DefaultValue("0.5")
                                 @DecimalMin(value = "0", inclusive = false, message = MAX_FOLDER_SHARE)
                                 @DecimalMax(value = "1", message = MAX_FOLDER_SHARE) double maxFolderShare,
                                 @DefaultValue("1h") @DurationMin(seconds = 0,
                                         message = "outpost.rows.too-big-retry must not be negative")
                                 Duration tooBigRetry,
                                 @DefaultValue("true") boolean encodedRows,
                                 @DefaultValue("true") boolean keepAnswers) {

    private static final String MAX_FOLDER_SHARE = "outpost.rows.max-folder-share must be in (0, 1], not"
            + " ${validatedValue}";

    /** The byte budget in force. */
    public long budgetBytes() {
        if (maxSize != null) {
            return maxSize.toBytes();
        }
        return Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8);
    }
}
