package io.nsc.protocol.parquet;

/**
 * The file is not Parquet that nsc can serve: not Parquet at all, truncated, corrupt, or using
 * a feature nsc does not support. The message names the file and the reason.
 */
public final class InvalidParquetFileException
        extends Exception
{
    public InvalidParquetFileException(String message)
    {
        super(message);
    }

    public InvalidParquetFileException(String message, Throwable cause)
    {
        super(message, cause);
    }

    static InvalidParquetFileException invalidFile(String displayName, String reason)
    {
        return new InvalidParquetFileException(message(displayName, reason));
    }

    static InvalidParquetFileException invalidFile(String displayName, String reason, Throwable cause)
    {
        return new InvalidParquetFileException(message(displayName, reason), cause);
    }

    private static String message(String displayName, String reason)
    {
        return "Invalid Parquet file %s: %s".formatted(displayName, reason);
    }
}
