package io.nsc.protocol.client;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

/**
 * A configuration value that {@link MetadataAddresses#parse} accepts; null is valid (combine with
 * {@code @NotNull} where the setting is required). The violation names the entry that is wrong.
 */
@Documented
@Retention(RUNTIME)
@Target({METHOD, FIELD})
@Constraint(validatedBy = MetadataAddressesValidator.class)
public @interface ValidMetadataAddresses
{
    String message() default "must be a comma-separated list of distinct host:port addresses";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
