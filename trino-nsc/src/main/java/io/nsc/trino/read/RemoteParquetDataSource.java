package io.nsc.trino.read;

import com.google.common.collect.ImmutableList;
import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.proto.ByteRange;
import io.nsc.protocol.proto.ReadRangesRequest;
import io.nsc.protocol.proto.ReadRangesResponse;
import io.nsc.trino.client.StorageClients;
import io.trino.parquet.AbstractParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.TrinoException;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * A Parquet file on the storage nodes, read by byte range. trino-parquet coalesces the column
 * chunks it needs into ranges and calls {@link #readInternal} once per range; each call is one
 * streaming gRPC read from a replica. A replica that fails is skipped and the next one tried;
 * the one that answered last is tried first next time.
 */
public class RemoteParquetDataSource
        extends AbstractParquetDataSource
{
    private final String fileId;
    private final List<String> replicaAddresses;
    private final StorageClients storageClients;
    private final long timeoutMillis;
    private int preferredReplica;
    private long readRequests;
    private long replicaFailovers;
    private long footerBytes;

    public RemoteParquetDataSource(
            String fileId,
            long fileSize,
            List<String> replicaAddresses,
            StorageClients storageClients,
            ParquetReaderOptions options,
            long timeoutMillis)
    {
        super(new ParquetDataSourceId("nsc file " + fileId), fileSize, options);
        this.fileId = requireNonNull(fileId, "fileId is null");
        this.replicaAddresses = ImmutableList.copyOf(replicaAddresses);
        checkArgument(!this.replicaAddresses.isEmpty(), "file %s has no replica", fileId);
        this.storageClients = requireNonNull(storageClients, "storageClients is null");
        this.timeoutMillis = timeoutMillis;
    }

    public long getReadRequests()
    {
        return readRequests;
    }

    public long getReplicaFailovers()
    {
        return replicaFailovers;
    }

    /** Marks everything read so far as the file's footer: a worker fetches it once, whatever the query reads. */
    public void footerRead()
    {
        footerBytes = getReadBytes();
    }

    /** Bytes of the footer, when this read fetched it (0 when the worker had it cached). */
    public long getFooterBytes()
    {
        return footerBytes;
    }

    @Override
    protected void readInternal(long position, byte[] buffer, int bufferOffset, int bufferLength)
    {
        readRequests++;
        List<String> failures = new ArrayList<>();
        for (int attempt = 0; attempt < replicaAddresses.size(); attempt++) {
            int replica = (preferredReplica + attempt) % replicaAddresses.size();
            String address = replicaAddresses.get(replica);
            try {
                readFromReplica(address, position, buffer, bufferOffset, bufferLength);
                if (replica != preferredReplica) {
                    replicaFailovers++;
                    preferredReplica = replica;
                }
                return;
            }
            catch (StatusRuntimeException | IllegalStateException e) {
                failures.add(address + ": " + e.getMessage());
            }
        }
        throw new TrinoException(NSC_STORAGE_ERROR, "Cannot read %s bytes at offset %s of nsc file %s from any replica: %s".formatted(
                bufferLength, position, fileId, String.join("; ", failures)));
    }

    private void readFromReplica(String address, long position, byte[] buffer, int bufferOffset, int bufferLength)
    {
        ReadRangesRequest request = ReadRangesRequest.newBuilder()
                .setFileId(fileId)
                .addRanges(ByteRange.newBuilder().setOffset(position).setLength(bufferLength))
                .build();
        // A stream abandoned half-way (bad bytes from the node) must not stay open until its
        // deadline: the call lives in a context that is cancelled whenever this method returns.
        Context.CancellableContext call = Context.current().withCancellation();
        Context previous = call.attach();
        try {
            Iterator<ReadRangesResponse> responses = storageClients.blockingStub(address)
                    .withDeadlineAfter(timeoutMillis, MILLISECONDS)
                    .readRanges(request);
            int received = 0;
            while (responses.hasNext()) {
                ReadRangesResponse response = responses.next();
                long expectedOffset = position + received;
                if (response.getRangeIndex() != 0 || response.getOffset() != expectedOffset || received + response.getData().size() > bufferLength) {
                    throw new IllegalStateException("storage node sent bytes out of order (range %s, offset %s, expected offset %s)".formatted(
                            response.getRangeIndex(), response.getOffset(), expectedOffset));
                }
                response.getData().copyTo(buffer, bufferOffset + received);
                received += response.getData().size();
            }
            if (received != bufferLength) {
                throw new IllegalStateException("storage node sent %s of %s bytes".formatted(received, bufferLength));
            }
        }
        finally {
            call.detach(previous);
            call.cancel(null);
        }
    }
}
