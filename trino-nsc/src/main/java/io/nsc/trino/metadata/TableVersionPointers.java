package io.nsc.trino.metadata;

import io.nsc.trino.client.TableVersionPointer;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.type.DateType;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.Type;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;

import static io.trino.spi.StandardErrorCode.INVALID_ARGUMENTS;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateTimeEncoding.unpackMillisUtc;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TinyintType.TINYINT;
import static java.lang.Math.floorDiv;
import static java.time.ZoneOffset.UTC;

/** What a {@code FOR VERSION AS OF} or {@code FOR TIMESTAMP AS OF} clause asks of an nsc table. */
final class TableVersionPointers
{
    private TableVersionPointers() {}

    static TableVersionPointer toPointer(ConnectorSession session, ConnectorTableVersion version)
    {
        Type type = version.getVersionType();
        Object value = version.getVersion();
        return switch (version.getPointerType()) {
            case TARGET_ID -> {
                if (!(type.equals(BIGINT) || type.equals(INTEGER) || type.equals(SMALLINT) || type.equals(TINYINT))) {
                    throw new TrinoException(NOT_SUPPORTED, "Unsupported type for table version: %s (nsc table versions are integers, as \"<table>$history\" lists them)".formatted(type.getDisplayName()));
                }
                long number = (Long) value;
                if (number < 1) {
                    throw new TrinoException(INVALID_ARGUMENTS, "nsc table versions start at 1, got %s".formatted(number));
                }
                yield new TableVersionPointer.Version(number);
            }
            case TEMPORAL -> new TableVersionPointer.AsOf(epochMillis(session, type, value));
        };
    }

    /** The time in milliseconds, truncated: a version committed within the millisecond counts as before it. */
    private static long epochMillis(ConnectorSession session, Type type, Object value)
    {
        ZoneId zone = session.getTimeZoneKey().getZoneId();
        return switch (type) {
            case TimestampWithTimeZoneType timestamp when timestamp.isShort() -> unpackMillisUtc((Long) value);
            case TimestampWithTimeZoneType _ -> ((LongTimestampWithTimeZone) value).getEpochMillis();
            // a timestamp without a zone is a wall-clock time in the session's zone
            case TimestampType timestamp when timestamp.isShort() -> localMillis(floorDiv((Long) value, 1000L), zone);
            case TimestampType _ -> localMillis(floorDiv(((LongTimestamp) value).getEpochMicros(), 1000L), zone);
            case DateType _ -> LocalDate.ofEpochDay((Long) value).atStartOfDay(zone).toInstant().toEpochMilli();
            default -> throw new TrinoException(NOT_SUPPORTED, "Unsupported type for temporal table version: " + type.getDisplayName());
        };
    }

    private static long localMillis(long wallClockMillis, ZoneId zone)
    {
        LocalDateTime local = LocalDateTime.ofEpochSecond(floorDiv(wallClockMillis, 1000L), (int) Math.floorMod(wallClockMillis, 1000L) * 1_000_000, UTC);
        return local.atZone(zone).toInstant().toEpochMilli();
    }
}
