package io.nsc.protocol.parquet;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzzing of the Parquet footer parser on whole files (the parser reads the
 * trailer, then the footer it points to). Every input must parse or end in
 * InvalidParquetFileException; anything else, an OutOfMemoryError on the fork's small heap
 * included, is a finding.
 * <p>
 * {@code ./nsc test} fuzzes for a few seconds; {@code ./nsc fuzz footer --duration 10m} for longer.
 */
class ParquetFooterFuzzTest
{
    private static final ParquetLimits LIMITS = new ParquetLimits(4 * 1024 * 1024, 16 * 1024 * 1024);

    @FuzzTest(maxDuration = "15s")
    void fuzz(byte[] data)
    {
        try {
            ParquetFooterParser.parse(PositionalReader.ofBytes(data), data.length, "fuzzed.parquet", LIMITS);
        }
        catch (InvalidParquetFileException expected) {
            // refused
        }
    }
}
