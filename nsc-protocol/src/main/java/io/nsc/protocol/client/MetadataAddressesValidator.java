package io.nsc.protocol.client;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

/** Checks a {@link ValidMetadataAddresses} value and reports what {@link MetadataAddresses#parse} found wrong. */
public final class MetadataAddressesValidator
        implements ConstraintValidator<ValidMetadataAddresses, String>
{
    @Override
    public boolean isValid(String value, ConstraintValidatorContext context)
    {
        if (value == null) {
            return true;
        }
        try {
            MetadataAddresses.parse(value);
            return true;
        }
        catch (IllegalArgumentException e) {
            context.disableDefaultConstraintViolation();
            context.buildConstraintViolationWithTemplate(escapeTemplate(e.getMessage())).addConstraintViolation();
            return false;
        }
    }

    // the message quotes the configured value: braces or dollars in it must not be read as message parameters
    private static String escapeTemplate(String message)
    {
        return message.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}").replace("$", "\\$");
    }
}
