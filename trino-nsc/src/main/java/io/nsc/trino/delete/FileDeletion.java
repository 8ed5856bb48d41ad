package io.nsc.trino.delete;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.TrinoException;

import java.util.List;

import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static java.util.Objects.requireNonNull;

/**
 * What a row-level DELETE does to one file, from the rows it deleted: takes the file out when
 * they are all its remaining rows, takes row groups out when each of its row groups lost all its
 * rows or none, and otherwise rewrites the file with the rows that survive. Only a rewrite reads
 * or writes a byte of a file.
 */
sealed interface FileDeletion
{
    record WholeFile()
            implements FileDeletion {}

    record RowGroups(List<Integer> rowGroups)
            implements FileDeletion
    {
        public RowGroups
        {
            rowGroups = ImmutableList.copyOf(requireNonNull(rowGroups, "rowGroups is null"));
        }
    }

    record Rewrite(long survivingRows)
            implements FileDeletion {}

    /**
     * @param file the file as the version the DELETE read lists it
     * @throws TrinoException when a deleted row lies in no row group of the file that version has
     */
    static FileDeletion of(FileEntry file, DeletedRows deleted, long version)
    {
        CompactFileStats stats = file.stats();
        long[] firstRows = new long[stats.rowGroupCount()];
        for (int rowGroup = 1; rowGroup < firstRows.length; rowGroup++) {
            firstRows[rowGroup] = firstRows[rowGroup - 1] + stats.rowGroupRowCount(rowGroup - 1);
        }
        ImmutableList.Builder<Integer> emptied = ImmutableList.builder();
        boolean partly = false;
        long deletedInVersion = 0;
        for (int rowGroup : file.remainingRowGroups()) {
            long rows = stats.rowGroupRowCount(rowGroup);
            long count = deleted.countIn(firstRows[rowGroup], rows);
            deletedInVersion += count;
            if (count == rows && rows > 0) {
                emptied.add(rowGroup);
            }
            else if (count > 0) {
                partly = true;
            }
        }
        if (deletedInVersion != deleted.count()) {
            // the scan read this version: a row id outside its row groups is a connector bug, never to be committed
            throw new TrinoException(NSC_METADATA_ERROR, "DELETE names %s rows of nsc file %s that are in no row group of version %s of its table"
                    .formatted(deleted.count() - deletedInVersion, file.fileId(), version));
        }
        if (deletedInVersion == file.remainingRowCount()) {
            return new WholeFile();
        }
        if (!partly) {
            return new RowGroups(emptied.build());
        }
        return new Rewrite(file.remainingRowCount() - deletedInVersion);
    }
}
