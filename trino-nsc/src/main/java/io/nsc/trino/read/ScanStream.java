package io.nsc.trino.read;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;

import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import static com.google.common.base.Preconditions.checkState;

/**
 * One storage-side scan call as its page source sees it: the node's messages wait here until the
 * driver takes them, and the driver asks for the next message only after it took one, so at most
 * {@value #IN_FLIGHT} messages (a few page batches) are ever buffered per scan, whatever the node
 * sends. gRPC's threads deliver; the driver polls and, when nothing is there, waits on
 * {@link #progress} instead of blocking its thread.
 */
final class ScanStream
        implements ClientResponseObserver<ScanRequest, ScanResponse>
{
    // one message being decoded by the driver while the next one crosses the network
    static final int IN_FLIGHT = 2;

    private final Queue<ScanResponse> received = new ConcurrentLinkedQueue<>();
    // the serialized bytes of the messages waiting in received, for the page source's memory
    private final AtomicLong receivedBytes = new AtomicLong();
    private ClientCallStreamObserver<ScanRequest> call;
    // set once, before done: the call's end, with the error it ended with if any
    private volatile boolean done;
    private volatile Throwable failure;
    // completed by the next message or the end; replaced when the driver waits again
    private CompletableFuture<Void> progress = CompletableFuture.completedFuture(null);

    @Override
    public void beforeStart(ClientCallStreamObserver<ScanRequest> requestStream)
    {
        this.call = requestStream;
        requestStream.disableAutoRequestWithInitial(IN_FLIGHT);
    }

    @Override
    public void onNext(ScanResponse response)
    {
        receivedBytes.addAndGet(response.getSerializedSize());
        received.add(response);
        signal();
    }

    @Override
    public void onError(Throwable error)
    {
        failure = error;
        done = true;
        signal();
    }

    @Override
    public void onCompleted()
    {
        done = true;
        signal();
    }

    /** The next message, or null when none has arrived (yet: see {@link #isDone}); asks the node for one more. */
    ScanResponse poll()
    {
        ScanResponse response = received.poll();
        if (response != null) {
            receivedBytes.addAndGet(-response.getSerializedSize());
            if (!done) {
                call.request(1);
            }
        }
        return response;
    }

    /** What the messages waiting to be taken hold (their serialized size). */
    long bufferedBytes()
    {
        return receivedBytes.get();
    }

    /** No message will arrive any more: the call ended, and every message it brought was taken. */
    boolean isDone()
    {
        return done && received.isEmpty();
    }

    /** How the call ended, once {@link #isDone}: empty when the node completed it. */
    Optional<Throwable> failure()
    {
        checkState(done, "the call has not ended");
        return Optional.ofNullable(failure);
    }

    /** Completes when a message arrives or the call ends; at once if one is already there. */
    synchronized CompletableFuture<Void> progress()
    {
        if (!received.isEmpty() || done) {
            return CompletableFuture.completedFuture(null);
        }
        // a fresh future under the lock signal() takes: a message after this look completes it
        if (progress.isDone()) {
            progress = new CompletableFuture<>();
        }
        return progress;
    }

    /** Stops the call: the node sees it cancelled and stops scanning. */
    void cancel()
    {
        if (call != null && !done) {
            call.cancel("the page source was closed", null);
        }
    }

    // completed outside the lock: the engine's listeners run on this gRPC thread
    private void signal()
    {
        CompletableFuture<Void> current;
        synchronized (this) {
            current = progress;
        }
        current.complete(null);
    }
}
