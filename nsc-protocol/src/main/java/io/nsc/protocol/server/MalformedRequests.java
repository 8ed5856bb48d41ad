package io.nsc.protocol.server;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;

import java.io.InputStream;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Answers a request the service cannot even parse (truncated, or nested deeper than protobuf
 * reads) with {@code INVALID_ARGUMENT}. grpc-java parses requests before any interceptor or
 * handler sees them and answers a parse failure with an opaque {@code UNKNOWN}; here each method
 * receives its requests as raw streams and parses them with its own marshaller first.
 * <p>
 * Only requests are taken raw. Responses keep the method's own marshaller, which gRPC drains
 * straight into its transport buffers: grpc-java's {@code useInputStreamMessages} would wrap each
 * response in a buffered stream, so that every message (a megabyte of file bytes in a
 * {@code ReadRanges} answer) was first copied into a new, zeroed array (a storage node's profile
 * of a full scan: 12% of its CPU).
 */
final class MalformedRequests
{
    // the stream gRPC hands over is valid until onMessage returns, and is parsed before then
    private static final MethodDescriptor.Marshaller<InputStream> RAW_REQUESTS = new MethodDescriptor.Marshaller<>()
    {
        @Override
        public InputStream stream(InputStream value)
        {
            return value;
        }

        @Override
        public InputStream parse(InputStream stream)
        {
            return stream;
        }
    };

    private MalformedRequests() {}

    static ServerServiceDefinition refuseAsInvalidArgument(ServerServiceDefinition service)
    {
        ServiceDescriptor typed = service.getServiceDescriptor();
        List<ServerMethodDefinition<InputStream, ?>> methods = service.getMethods().stream()
                .<ServerMethodDefinition<InputStream, ?>>map(MalformedRequests::parsingRequests)
                .toList();
        ServiceDescriptor.Builder raw = ServiceDescriptor.newBuilder(typed.getName()).setSchemaDescriptor(typed.getSchemaDescriptor());
        methods.forEach(method -> raw.addMethod(method.getMethodDescriptor()));
        ServerServiceDefinition.Builder definition = ServerServiceDefinition.builder(raw.build());
        methods.forEach(definition::addMethod);
        return definition.build();
    }

    private static <Q, R> ServerMethodDefinition<InputStream, R> parsingRequests(ServerMethodDefinition<Q, R> method)
    {
        MethodDescriptor<Q, R> typed = method.getMethodDescriptor();
        MethodDescriptor<InputStream, R> raw = typed.toBuilder(RAW_REQUESTS, typed.getResponseMarshaller()).build();
        ServerCallHandler<Q, R> handler = method.getServerCallHandler();
        return ServerMethodDefinition.create(raw, (call, headers) -> new ParsingListener<>(handler.startCall(new TypedCall<>(call, typed), headers), call, typed));
    }

    /**
     * The call as the method's handler sees it: its own request type. Requests never pass through
     * a call (they arrive at its listener), so only the method descriptor differs.
     */
    private static final class TypedCall<Q, R>
            extends SimpleForwardingServerCall<Q, R>
    {
        private final MethodDescriptor<Q, R> method;

        @SuppressWarnings("unchecked") // the request type appears only in getMethodDescriptor, overridden below
        private TypedCall(ServerCall<InputStream, R> call, MethodDescriptor<Q, R> method)
        {
            super((ServerCall<Q, R>) (ServerCall<?, R>) call);
            this.method = requireNonNull(method, "method is null");
        }

        @Override
        public MethodDescriptor<Q, R> getMethodDescriptor()
        {
            return method;
        }
    }

    private static final class ParsingListener<Q, R>
            extends ServerCall.Listener<InputStream>
    {
        private final ServerCall.Listener<Q> delegate;
        private final ServerCall<InputStream, R> call;
        private final MethodDescriptor<Q, R> method;
        private boolean refused;

        private ParsingListener(ServerCall.Listener<Q> delegate, ServerCall<InputStream, R> call, MethodDescriptor<Q, R> method)
        {
            this.delegate = requireNonNull(delegate, "delegate is null");
            this.call = requireNonNull(call, "call is null");
            this.method = requireNonNull(method, "method is null");
        }

        @Override
        public void onMessage(InputStream message)
        {
            if (refused) {
                return;
            }
            Q request;
            try {
                request = method.parseRequest(message);
            }
            catch (RuntimeException e) {
                refused = true;
                call.close(Status.INVALID_ARGUMENT.withDescription("Malformed %s request: %s".formatted(method.getBareMethodName(), describe(e))), new Metadata());
                return;
            }
            delegate.onMessage(request);
        }

        @Override
        public void onHalfClose()
        {
            // the call is closed: the handler must not see the end of a request it never got
            if (!refused) {
                delegate.onHalfClose();
            }
        }

        @Override
        public void onReady()
        {
            if (!refused) {
                delegate.onReady();
            }
        }

        @Override
        public void onCancel()
        {
            delegate.onCancel();
        }

        @Override
        public void onComplete()
        {
            delegate.onComplete();
        }

        private static String describe(RuntimeException e)
        {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        }
    }
}
