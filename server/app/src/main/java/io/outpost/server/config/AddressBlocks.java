package io.outpost.server.config;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;

/**
 * A setting that lists IP addresses and CIDR blocks ({@code 192.0.2.10}, {@code 192.0.2.0/28}, {@code ::1}), read as
 * {@link TrustedProxies} reads them: literals only, never a host name to look up.
 */
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.RECORD_COMPONENT})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = AddressBlocks.Check.class)
public @interface AddressBlocks {
    /** The setting's key, named in the message. */
    String key();

    String message() default "";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Refuses the list with TrustedProxies' own reason, prefixed by the key. */
    final class Check implements ConstraintValidator<AddressBlocks, List<String>> {
        private String key;

        @Override
        public void initialize(AddressBlocks annotation) {
            key = annotation.key();
        }

        @Override
        public boolean isValid(List<String> entries, ConstraintValidatorContext context) {
            if (entries == null) {
                return true;
            }
            try {
                TrustedProxies.toCidrs(entries);
                return true;
            } catch (IllegalArgumentException bad) {
                context.disableDefaultConstraintViolation();
                // the reason quotes what was given: escaped, so that no part of it is read as a message template
                context.buildConstraintViolationWithTemplate(escape(key + ": " + bad.getMessage()))
                        .addConstraintViolation();
                return false;
            }
        }

        private static String escape(String text) {
            return text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}").replace("$", "\\$");
        }
    }
}
