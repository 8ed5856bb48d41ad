package io.nsc.trino.optimize;

import com.google.common.collect.ImmutableList;
import io.nsc.trino.metadata.TableFileBatches;
import io.nsc.trino.metadata.TableFiles.FileEntry;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;

/**
 * Which files of a table version an OPTIMIZE rewrites: those smaller than its
 * {@code file_size_threshold}, and those a DELETE took row groups from (the removed row groups
 * still take their bytes on disk, and their place in the file's stats), whatever their size. The
 * coordinator decides it twice over the same version, with the same answer: once to plan the
 * scan (the split manager lists only these files) and once to commit (the rewritten files are
 * these), and the metadata service refuses a commit whose new files do not hold exactly their rows.
 */
public final class CompactionCandidates
{
    private CompactionCandidates() {}

    public static boolean isCandidate(FileEntry file, long fileSizeThreshold)
    {
        return file.sizeBytes() < fileSizeThreshold || !file.removedRowGroups().isEmpty();
    }

    /** The candidates among all files of a version. */
    public static Compaction plan(TableFileBatches files, long fileSizeThreshold)
    {
        ImmutableList.Builder<String> fileIds = ImmutableList.builder();
        long rows = 0;
        boolean wasted = false;
        while (files.hasNext()) {
            for (FileEntry file : files.next()) {
                if (isCandidate(file, fileSizeThreshold)) {
                    fileIds.add(file.fileId());
                    rows += file.remainingRowCount();
                    wasted |= !file.removedRowGroups().isEmpty();
                }
            }
        }
        return new Compaction(fileIds.build(), rows, wasted);
    }

    /**
     * The batches of a listing, each with only the candidates; batches left empty are skipped.
     *
     * @param listed gets the id of every candidate as it is listed
     */
    public static TableFileBatches filter(TableFileBatches files, long fileSizeThreshold, Consumer<String> listed)
    {
        requireNonNull(files, "files is null");
        requireNonNull(listed, "listed is null");
        return new TableFileBatches()
        {
            private List<FileEntry> next;

            @Override
            public boolean hasNext()
            {
                while (next == null && files.hasNext()) {
                    List<FileEntry> candidates = files.next().stream()
                            .filter(file -> isCandidate(file, fileSizeThreshold))
                            .collect(toImmutableList());
                    candidates.forEach(file -> listed.accept(file.fileId()));
                    if (!candidates.isEmpty()) {
                        next = candidates;
                    }
                }
                return next != null;
            }

            @Override
            public List<FileEntry> next()
            {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                List<FileEntry> batch = next;
                next = null;
                return batch;
            }

            @Override
            public long filesKept()
            {
                return files.filesKept();
            }

            @Override
            public void close()
            {
                files.close();
            }
        };
    }

    /**
     * The files an OPTIMIZE rewrites.
     *
     * @param rows the rows they hold (removed row groups not counted): exactly what the new files must hold
     * @param removedRowGroups whether any of them lost row groups to a DELETE
     */
    public record Compaction(List<String> fileIds, long rows, boolean removedRowGroups)
    {
        public Compaction
        {
            fileIds = ImmutableList.copyOf(requireNonNull(fileIds, "fileIds is null"));
        }

        /**
         * Whether rewriting the files changes anything: two or more become fewer, or a file sheds
         * its removed row groups. One small file alone would only be written again as it is.
         */
        public boolean isWorthDoing()
        {
            return fileIds.size() >= 2 || removedRowGroups;
        }
    }
}
