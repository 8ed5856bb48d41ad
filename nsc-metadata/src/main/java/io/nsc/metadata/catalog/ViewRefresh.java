package io.nsc.metadata.catalog;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What REFRESH MATERIALIZED VIEW records in the view with the commit of its storage table: the
 * view's new definition (opaque here: the connector's, naming the base table versions it read).
 *
 * @param view the materialized view, in the schema of the table the commit writes
 * @param expectedVersion the view version the new definition was derived from
 */
public record ViewRefresh(SchemaTableName view, String definition, Optional<String> comment, long expectedVersion)
{
    public ViewRefresh
    {
        requireNonNull(view, "view is null");
        requireNonNull(definition, "definition is null");
        requireNonNull(comment, "comment is null");
    }
}
