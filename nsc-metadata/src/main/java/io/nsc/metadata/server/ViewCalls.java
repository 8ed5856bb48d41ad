package io.nsc.metadata.server;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.grpc.stub.StreamObserver;
import io.nsc.metadata.catalog.SchemaTableName;
import io.nsc.metadata.catalog.ViewCatalog;
import io.nsc.metadata.catalog.ViewEntry;
import io.nsc.protocol.proto.CreateViewRequest;
import io.nsc.protocol.proto.DropViewRequest;
import io.nsc.protocol.proto.DropViewResponse;
import io.nsc.protocol.proto.GetViewRequest;
import io.nsc.protocol.proto.ListViewsRequest;
import io.nsc.protocol.proto.ListViewsResponse;
import io.nsc.protocol.proto.RenameViewRequest;
import io.nsc.protocol.proto.RenameViewResponse;
import io.nsc.protocol.proto.UpdateViewRequest;
import io.nsc.protocol.proto.ViewInfo;

import java.util.Optional;

import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.server.MetadataProtoMapper.toTableName;
import static io.nsc.metadata.server.MetadataProtoMapper.toViewInfo;
import static java.util.Objects.requireNonNull;

/** The calls clients make to read and change views and materialized views. */
final class ViewCalls
{
    private static final Logger log = Logger.get(ViewCalls.class);

    private final ViewCatalog views;
    private final Responder responder;

    @Inject
    ViewCalls(ViewCatalog views, Responder responder)
    {
        this.views = requireNonNull(views, "views is null");
        this.responder = requireNonNull(responder, "responder is null");
    }

    void createView(CreateViewRequest request, StreamObserver<ViewInfo> observer)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getViewName());
        responder.audited("CreateView", name + (request.getMaterialized() ? " (materialized)" : "") + (request.getReplace() ? " (or replace)" : ""), observer, () -> {
            ViewEntry view = views.createView(name, request.getDefinition(), request.hasComment() ? Optional.of(request.getComment()) : Optional.empty(), request.getReplace(), request.getMaterialized());
            log.info("%s %s %s (version %s)", view.version() == 1 ? "Created" : "Replaced", kind(view.materialized()), name, view.version());
            return toViewInfo(view);
        });
    }

    void updateView(UpdateViewRequest request, StreamObserver<ViewInfo> observer)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getViewName());
        responder.audited("UpdateView", name + " (version " + request.getExpectedVersion() + ")", observer, () -> toViewInfo(
                views.updateView(name, request.getDefinition(), request.hasComment() ? Optional.of(request.getComment()) : Optional.empty(), request.getExpectedVersion(), request.getMaterialized())));
    }

    void getView(GetViewRequest request, StreamObserver<ViewInfo> observer)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getViewName());
        responder.respond("GetView", observer, () -> views.getView(name, request.getMaterialized())
                .map(MetadataProtoMapper::toViewInfo)
                .orElseThrow(() -> notFound("%s %s does not exist", request.getMaterialized() ? "Materialized view" : "View", name)));
    }

    void listViews(ListViewsRequest request, StreamObserver<ListViewsResponse> observer)
    {
        Optional<String> schema = request.getSchemaName().isEmpty() ? Optional.empty() : Optional.of(request.getSchemaName());
        responder.respond("ListViews", observer, () -> {
            ListViewsResponse.Builder response = ListViewsResponse.newBuilder();
            views.listViews(schema, request.getMaterialized()).forEach(name -> response.addViews(toTableName(name)));
            return response.build();
        });
    }

    void dropView(DropViewRequest request, StreamObserver<DropViewResponse> observer)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getViewName());
        responder.audited("DropView", name.toString(), observer, () -> {
            views.dropView(name, request.getMaterialized());
            log.info("Dropped %s %s", kind(request.getMaterialized()), name);
            return DropViewResponse.getDefaultInstance();
        });
    }

    void renameView(RenameViewRequest request, StreamObserver<RenameViewResponse> observer)
    {
        SchemaTableName from = new SchemaTableName(request.getSchemaName(), request.getViewName());
        SchemaTableName to = new SchemaTableName(request.getNewSchemaName(), request.getNewViewName());
        responder.audited("RenameView", from + " to " + to, observer, () -> {
            views.renameView(from, to, request.getMaterialized());
            log.info("Renamed %s %s to %s", kind(request.getMaterialized()), from, to);
            return RenameViewResponse.getDefaultInstance();
        });
    }

    private static String kind(boolean materialized)
    {
        return materialized ? "materialized view" : "view";
    }
}
