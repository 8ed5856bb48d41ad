package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableMap;
import io.airlift.json.JsonCodec;
import io.airlift.json.JsonCodecFactory;
import io.airlift.json.ObjectMapperProvider;
import io.nsc.protocol.proto.ViewInfo;
import io.nsc.trino.client.NscMetadataClient;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorViewDefinition;
import io.trino.spi.connector.ConnectorViewDefinition.ViewColumn;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static io.trino.spi.StandardErrorCode.COLUMN_NOT_FOUND;
import static io.trino.spi.StandardErrorCode.INVALID_VIEW;
import static io.trino.spi.StandardErrorCode.TABLE_NOT_FOUND;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * SQL views in the metadata service: Trino's definition as JSON, opaque to the service, with the
 * view's comment kept beside it (so that the service checks it as it checks table comments). A
 * comment change reads the view, changes its definition and writes it back naming the version it
 * read: a change made meanwhile fails the statement instead of being lost.
 */
final class NscViews
{
    /** What the metadata service accepts (ViewDefinitions on its side): 1 MiB of UTF-8. */
    static final int MAX_DEFINITION_BYTES = 1 << 20;

    private static final JsonCodec<ConnectorViewDefinition> CODEC = new JsonCodecFactory(new ObjectMapperProvider()).jsonCodec(ConnectorViewDefinition.class);

    private final NscMetadataClient client;

    NscViews(NscMetadataClient client)
    {
        this.client = requireNonNull(client, "client is null");
    }

    void create(ConnectorSession session, SchemaTableName name, ConnectorViewDefinition definition, boolean replace)
    {
        client.onBehalfOf(session).createView(name, encode(name, definition), definition.getComment(), replace);
    }

    Optional<ConnectorViewDefinition> get(SchemaTableName name)
    {
        return client.getView(name).map(NscViews::decode);
    }

    /** Views of one schema or of all, read one by one: a view dropped meanwhile is left out. */
    Map<SchemaTableName, ConnectorViewDefinition> getAll(Optional<String> schemaName)
    {
        ImmutableMap.Builder<SchemaTableName, ConnectorViewDefinition> views = ImmutableMap.builder();
        for (SchemaTableName name : client.listViews(schemaName)) {
            get(name).ifPresent(view -> views.put(name, view));
        }
        return views.buildOrThrow();
    }

    void setComment(ConnectorSession session, SchemaTableName name, Optional<String> comment)
    {
        update(session, name, view -> withColumnsAndComment(view, view.getColumns(), comment));
    }

    void setColumnComment(ConnectorSession session, SchemaTableName name, String columnName, Optional<String> comment)
    {
        update(session, name, view -> {
            if (view.getColumns().stream().noneMatch(column -> column.getName().equals(columnName))) {
                throw new TrinoException(COLUMN_NOT_FOUND, "Column '%s' does not exist in view '%s'".formatted(columnName, name));
            }
            List<ViewColumn> columns = view.getColumns().stream()
                    .map(column -> column.getName().equals(columnName) ? new ViewColumn(column.getName(), column.getType(), comment) : column)
                    .collect(toImmutableList());
            return withColumnsAndComment(view, columns, view.getComment());
        });
    }

    private void update(ConnectorSession session, SchemaTableName name, UnaryOperator<ConnectorViewDefinition> change)
    {
        ViewInfo stored = client.getView(name).orElseThrow(() -> new TrinoException(TABLE_NOT_FOUND, "View '%s' does not exist".formatted(name)));
        ConnectorViewDefinition changed = change.apply(decode(stored));
        client.onBehalfOf(session).updateView(name, encode(name, changed), changed.getComment(), stored.getVersion());
    }

    private static ConnectorViewDefinition withColumnsAndComment(ConnectorViewDefinition view, List<ViewColumn> columns, Optional<String> comment)
    {
        return new ConnectorViewDefinition(view.getOriginalSql(), view.getCatalog(), view.getSchema(), columns, comment, view.getOwner(), view.isRunAsInvoker(), view.getPath());
    }

    /** The definition without its comment, which travels beside it; refused here when over the service's limit. */
    static String encode(SchemaTableName name, ConnectorViewDefinition definition)
    {
        String json = CODEC.toJson(withColumnsAndComment(definition, definition.getColumns(), Optional.empty()));
        int bytes = json.getBytes(UTF_8).length;
        if (bytes > MAX_DEFINITION_BYTES) {
            throw new TrinoException(INVALID_VIEW, "The definition of view '%s' takes %s bytes, over the limit of %s bytes".formatted(name, bytes, MAX_DEFINITION_BYTES));
        }
        return json;
    }

    static ConnectorViewDefinition decode(ViewInfo view)
    {
        ConnectorViewDefinition definition;
        try {
            definition = CODEC.fromJson(view.getDefinition());
        }
        catch (IllegalArgumentException e) {
            throw new TrinoException(NSC_METADATA_ERROR, "View '%s.%s' has a definition this connector cannot read: %s".formatted(view.getSchemaName(), view.getViewName(), e.getMessage()), e);
        }
        return withColumnsAndComment(definition, definition.getColumns(), view.hasComment() ? Optional.of(view.getComment()) : Optional.empty());
    }
}
