package io.nsc.tools.tpch;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What sorting one table took.
 *
 * @param runs sorted runs cut from the generator's rows; 1 when the table fit in one run, which
 *        then never left memory (0 for a table without rows)
 * @param mergePasses passes over the run files: 0 when nothing was written, 1 when every run was
 *        merged at once, more when there were more runs than one merge opens
 * @param peakBufferedRows the most generator rows held in memory at once
 * @param peakBufferBytes the most bytes those rows and their sort order took at once
 * @param spilledBytes bytes written to run files, intermediate merges included
 */
public record SortStatistics(int runs, int mergePasses, int peakBufferedRows, long peakBufferBytes, long spilledBytes)
{
    public SortStatistics
    {
        checkArgument(runs >= 0 && mergePasses >= 0 && peakBufferedRows >= 0 && peakBufferBytes >= 0 && spilledBytes >= 0, "negative statistics");
    }
}
