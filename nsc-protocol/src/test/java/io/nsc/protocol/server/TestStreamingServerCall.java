package io.nsc.protocol.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

final class TestStreamingServerCall
{
    @Test
    void testCompleteReleasesOnceAndTellsTheClient()
    {
        RecordingObserver observer = new RecordingObserver();
        Call call = new Call(observer);
        call.complete();
        call.complete();
        call.fail(Status.INTERNAL.asRuntimeException());

        assertThat(call.releases).isEqualTo(1);
        assertThat(call.failures).isEmpty();
        assertThat(observer.events).containsExactly("completed");
    }

    @Test
    void testFailureIsSeenThenSentOnce()
    {
        RecordingObserver observer = new RecordingObserver();
        Call call = new Call(observer);
        call.fail(Status.RESOURCE_EXHAUSTED.withDescription("busy").asRuntimeException());
        call.fail(Status.INTERNAL.asRuntimeException());
        call.complete();

        assertThat(call.releases).isEqualTo(1);
        assertThat(call.failures).containsExactly("RESOURCE_EXHAUSTED");
        assertThat(observer.events).containsExactly("error RESOURCE_EXHAUSTED");
        assertThat(call.ended()).isTrue();
    }

    @Test
    void testClientThatCancelledHearsNothing()
    {
        RecordingObserver observer = new RecordingObserver();
        observer.cancelled = true;
        Call call = new Call(observer);
        assertThat(call.end()).isTrue();
        assertThat(call.end()).isFalse();
        call.fail(Status.INTERNAL.asRuntimeException());

        assertThat(call.releases).isEqualTo(1);
        assertThat(observer.events).isEmpty();
    }

    @Test
    void testFailureAfterACancellationIsCountedButNotSent()
    {
        RecordingObserver observer = new RecordingObserver();
        observer.cancelled = true;
        Call call = new Call(observer);
        call.fail(Status.DATA_LOSS.asRuntimeException());

        assertThat(call.failures).containsExactly("DATA_LOSS");
        assertThat(observer.events).isEmpty();
    }

    private static final class Call
            extends StreamingServerCall<String>
    {
        private int releases;
        private final List<String> failures = new ArrayList<>();

        private Call(ServerCallStreamObserver<String> observer)
        {
            super(observer);
        }

        @Override
        protected void release()
        {
            releases++;
        }

        @Override
        protected void failing(StatusRuntimeException failure)
        {
            failures.add(failure.getStatus().getCode().name());
        }
    }

    private static final class RecordingObserver
            extends ServerCallStreamObserver<String>
    {
        private final List<String> events = new ArrayList<>();
        private boolean cancelled;

        @Override
        public boolean isCancelled()
        {
            return cancelled;
        }

        @Override
        public void setOnCancelHandler(Runnable onCancelHandler) {}

        @Override
        public void setCompression(String compression) {}

        @Override
        public boolean isReady()
        {
            return true;
        }

        @Override
        public void setOnReadyHandler(Runnable onReadyHandler) {}

        @Override
        public void disableAutoInboundFlowControl() {}

        @Override
        public void request(int count) {}

        @Override
        public void setMessageCompression(boolean enable) {}

        @Override
        public void onNext(String value)
        {
            events.add("next " + value);
        }

        @Override
        public void onError(Throwable t)
        {
            events.add("error " + Status.fromThrowable(t).getCode());
        }

        @Override
        public void onCompleted()
        {
            events.add("completed");
        }
    }
}
