package io.nsc.metadata.catalog;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A SQL view as the catalog keeps it.
 *
 * @param definition the connector's serialized definition, opaque to the service
 * @param comment the view's comment (CREATE VIEW ... COMMENT, COMMENT ON VIEW)
 * @param version 1 when created, bumped by every change: an update names the version it read
 * @param materialized a materialized view (its definition names the table holding its data)
 */
public record ViewEntry(SchemaTableName name, String definition, Optional<String> comment, long version, long createdMillis, boolean materialized)
{
    /** A plain view. */
    public ViewEntry(SchemaTableName name, String definition, Optional<String> comment, long version, long createdMillis)
    {
        this(name, definition, comment, version, createdMillis, false);
    }

    public ViewEntry
    {
        requireNonNull(name, "name is null");
        requireNonNull(definition, "definition is null");
        requireNonNull(comment, "comment is null");
    }
}
