package io.nsc.storage.scrub;

import com.google.common.util.concurrent.RateLimiter;
import io.airlift.log.Logger;
import io.airlift.stats.CounterStat;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.nsc.protocol.parquet.InvalidParquetFileException;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.storage.store.BlockChecksums;
import io.nsc.storage.store.ChecksummedReader;
import io.nsc.storage.store.CorruptBlockException;
import io.nsc.storage.store.DamagedCopies;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.lang.Math.min;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newSingleThreadExecutor;

/**
 * Reads every stored file in the background, at a bounded rate, and checks each block against
 * its checksum, the whole file against its CRC32C and the footer against the Parquet format, as
 * Ceph's deep scrub and HDFS's block scanner do: damage in data nobody reads is found while the
 * other replicas are still there to repair it. A damaged copy is quarantined and reported like
 * one a read met.
 * <p>
 * One pass over the files present when it starts, then a pause until the interval since the
 * pass began is over.
 */
public final class Scrubber
        implements AutoCloseable
{
    private static final Logger log = Logger.get(Scrubber.class);
    private static final int READ_BYTES = 1024 * 1024;

    private final ParquetFileStore store;
    private final Optional<RateLimiter> rate;
    private final long intervalMillis;
    private final ExecutorService executor = newSingleThreadExecutor(daemonThreadsNamed("nsc-scrubber-%s"));

    private final CounterStat filesScrubbed = new CounterStat();
    private final CounterStat bytesScrubbed = new CounterStat();
    private final CounterStat damagedFound = new CounterStat();
    private final AtomicLong passesCompleted = new AtomicLong();
    private final AtomicLong lastPassCompletedMillis = new AtomicLong();
    private final AtomicLong currentPassFiles = new AtomicLong();
    private final AtomicLong currentPassDone = new AtomicLong();

    /**
     * @param rate bytes per second; zero disables scrubbing
     */
    public Scrubber(ParquetFileStore store, DataSize rate, Duration interval)
    {
        this.store = requireNonNull(store, "store is null");
        this.rate = rate.toBytes() == 0 ? Optional.empty() : Optional.of(RateLimiter.create(rate.toBytes()));
        this.intervalMillis = interval.toMillis();
    }

    public void start()
    {
        if (rate.isEmpty()) {
            log.info("Scrubbing is off (storage.scrub-rate=0B)");
            return;
        }
        executor.execute(this::run);
    }

    private void run()
    {
        while (!Thread.currentThread().isInterrupted()) {
            long passStart = System.currentTimeMillis();
            try {
                scrubPass();
            }
            catch (InterruptedException e) {
                return;
            }
            catch (RuntimeException e) {
                // a bug must not end scrubbing for the node's lifetime
                log.error(e, "Scrubbing pass failed");
            }
            long wait = passStart + intervalMillis - System.currentTimeMillis();
            try {
                if (wait > 0) {
                    Thread.sleep(wait);
                }
            }
            catch (InterruptedException e) {
                return;
            }
        }
    }

    private void scrubPass()
            throws InterruptedException
    {
        List<StoredFile> files = store.files();
        currentPassFiles.set(files.size());
        currentPassDone.set(0);
        long damaged = 0;
        for (StoredFile file : files) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException();
            }
            // a file deleted or quarantined since the pass began is not ours to check
            if (store.find(file.id()).filter(file::equals).isPresent()) {
                Optional<String> damage = scrub(file);
                if (damage.isPresent() && store.quarantine(file, damage.get())) {
                    damaged++;
                    damagedFound.update(1);
                }
            }
            currentPassDone.incrementAndGet();
        }
        passesCompleted.incrementAndGet();
        lastPassCompletedMillis.set(System.currentTimeMillis());
        log.info("Scrubbed %s files, %s damaged", files.size(), damaged);
    }

    /** What is wrong with the file, if anything. */
    Optional<String> scrub(StoredFile file)
    {
        try (ChecksummedReader reader = store.openReader(file)) {
            BlockChecksums checksums = file.checksums();
            // the reader checks each block; this checks that the blocks are the file that arrived
            CRC32C whole = new CRC32C();
            // whole blocks per read, so that each read is checked on its own
            int chunk = Math.max(checksums.blockSize(), READ_BYTES / checksums.blockSize() * checksums.blockSize());
            for (long position = 0; position < file.sizeBytes(); ) {
                long end = min(file.sizeBytes(), position + chunk);
                int length = toIntExact(end - position);
                rate.ifPresent(limiter -> limiter.acquire(length));
                byte[] data = reader.readBlocks(position, end);
                whole.update(data);
                bytesScrubbed.update(data.length);
                position = end;
            }
            if ((int) whole.getValue() != file.crc32c()) {
                return Optional.of("file %s has CRC32C %08x, %08x was recorded at upload".formatted(file.id(), (int) whole.getValue(), file.crc32c()));
            }
            ParquetFooterParser.parse(reader, file.sizeBytes(), "file " + file.id());
            filesScrubbed.update(1);
            return Optional.empty();
        }
        catch (CorruptBlockException | InvalidParquetFileException e) {
            return Optional.of(e.getMessage());
        }
        catch (NoSuchFileException e) {
            // deleted while scrubbed
            return Optional.empty();
        }
        catch (IOException | UncheckedIOException e) {
            Optional<CorruptBlockException> corruption = DamagedCopies.findCorruption(e);
            if (corruption.isPresent()) {
                return Optional.of(corruption.get().getMessage());
            }
            // a read error is not proof of damage: the next pass tries again
            log.warn(e, "Cannot scrub file %s", file.id());
            return Optional.empty();
        }
    }

    @Managed
    @Nested
    public CounterStat getFilesScrubbed()
    {
        return filesScrubbed;
    }

    @Managed
    @Nested
    public CounterStat getBytesScrubbed()
    {
        return bytesScrubbed;
    }

    @Managed
    @Nested
    public CounterStat getDamagedFound()
    {
        return damagedFound;
    }

    @Managed
    public long getPassesCompleted()
    {
        return passesCompleted.get();
    }

    @Managed
    public long getLastPassCompletedMillis()
    {
        return lastPassCompletedMillis.get();
    }

    @Managed
    public long getCurrentPassFiles()
    {
        return currentPassFiles.get();
    }

    @Managed
    public long getCurrentPassDone()
    {
        return currentPassDone.get();
    }

    @Override
    public void close()
    {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
