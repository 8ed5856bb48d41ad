package io.nsc.metadata.catalog;

import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static java.nio.charset.StandardCharsets.UTF_8;

/** Checks of a view's definition before any transaction, so that bad input never reaches the database. */
final class ViewDefinitions
{
    /**
     * 1 MiB of UTF-8: at most as many characters as the catalog's definition column holds
     * (CatalogSchema migration 12), and far more than any view's SQL needs.
     */
    static final int MAX_DEFINITION_BYTES = 1 << 20;

    private ViewDefinitions() {}

    static void validateDefinition(String definition)
    {
        if (definition.isEmpty()) {
            throw invalidArgument("A view needs a definition");
        }
        // UTF-8 takes at least a byte a character: a string this long is over the limit whatever it holds
        if (definition.length() > MAX_DEFINITION_BYTES || definition.getBytes(UTF_8).length > MAX_DEFINITION_BYTES) {
            throw invalidArgument("The definition of a view is longer than %s bytes", MAX_DEFINITION_BYTES);
        }
        // PostgreSQL's text holds no NUL; refused on every catalog, so both keep the same views
        if (definition.indexOf('\0') >= 0) {
            throw invalidArgument("The definition of a view cannot contain the NUL character");
        }
    }
}
