package io.nsc.protocol.server;

import com.google.common.collect.ImmutableMap;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;

import java.io.InputStream;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Answers a request the service cannot even parse (truncated, or nested deeper than protobuf
 * reads) with {@code INVALID_ARGUMENT}. grpc-java parses requests before any interceptor or
 * handler sees them and answers a parse failure with an opaque {@code UNKNOWN}; here the service
 * receives raw streams and each is parsed with the method's own marshaller first.
 */
final class MalformedRequests
{
    private MalformedRequests() {}

    static ServerServiceDefinition refuseAsInvalidArgument(ServerServiceDefinition service)
    {
        ImmutableMap.Builder<String, MethodDescriptor.Marshaller<?>> parsers = ImmutableMap.builder();
        for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
            parsers.put(method.getMethodDescriptor().getFullMethodName(), method.getMethodDescriptor().getRequestMarshaller());
        }
        return ServerInterceptors.intercept(ServerInterceptors.useInputStreamMessages(service), new ParsingInterceptor(parsers.buildOrThrow()));
    }

    private record ParsingInterceptor(Map<String, MethodDescriptor.Marshaller<?>> parsers)
            implements ServerInterceptor
    {
        private ParsingInterceptor
        {
            requireNonNull(parsers, "parsers is null");
        }

        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next)
        {
            @SuppressWarnings("unchecked")
            MethodDescriptor.Marshaller<Object> parser = (MethodDescriptor.Marshaller<Object>) parsers.get(call.getMethodDescriptor().getFullMethodName());
            return new ParsingListener<>(next.startCall(call, headers), call, requireNonNull(parser, "no parser"));
        }
    }

    private static final class ParsingListener<Q, R>
            extends SimpleForwardingServerCallListener<Q>
    {
        private final ServerCall<Q, R> call;
        private final MethodDescriptor.Marshaller<Object> parser;
        private boolean refused;

        private ParsingListener(ServerCall.Listener<Q> delegate, ServerCall<Q, R> call, MethodDescriptor.Marshaller<Object> parser)
        {
            super(delegate);
            this.call = call;
            this.parser = parser;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void onMessage(Q message)
        {
            if (refused) {
                return;
            }
            Object request;
            try {
                request = parser.parse((InputStream) message);
            }
            catch (RuntimeException e) {
                refused = true;
                call.close(Status.INVALID_ARGUMENT.withDescription("Malformed %s request: %s".formatted(call.getMethodDescriptor().getBareMethodName(), describe(e))), new Metadata());
                return;
            }
            // the method's marshaller hands a message it streamed itself back without parsing it again
            super.onMessage((Q) parser.stream(request));
        }

        @Override
        public void onHalfClose()
        {
            // the call is closed: the handler must not see the end of a request it never got
            if (!refused) {
                super.onHalfClose();
            }
        }

        @Override
        public void onReady()
        {
            if (!refused) {
                super.onReady();
            }
        }

        private static String describe(RuntimeException e)
        {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        }
    }
}
