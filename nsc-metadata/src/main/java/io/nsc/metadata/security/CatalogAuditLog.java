package io.nsc.metadata.security;

import io.airlift.log.Logger;
import io.nsc.protocol.security.EndUser;
import io.nsc.protocol.security.PeerIdentity;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

import static io.nsc.protocol.host.OwnerOnlyFiles.ownerOnlyFileAttributes;
import static io.nsc.protocol.host.OwnerOnlyFiles.restrict;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * One JSON line per call that changes the catalog (or tries to): when, who (the component, from
 * the caller's certificate, and the Trino user and query it acts for, as it says), what, on which
 * object, and how it ended. Written and flushed before the answer
 * leaves, so a caller never sees an effect the log does not show.
 */
public final class CatalogAuditLog
        implements AutoCloseable
{
    private static final Logger log = Logger.get(CatalogAuditLog.class);

    private final Path file;
    private final Clock clock;
    private final BufferedWriter writer;

    public CatalogAuditLog(Path file, Clock clock)
    {
        this.file = requireNonNull(file, "file is null");
        this.clock = requireNonNull(clock, "clock is null");
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            createOwnerOnly(file);
            this.writer = Files.newBufferedWriter(file, UTF_8, CREATE, WRITE, APPEND);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot open the audit log " + file, e);
        }
    }

    /** Who did what to the catalog is for the operators: the log may sit beside other logs, so the file itself is the owner's only. */
    private static void createOwnerOnly(Path file)
            throws IOException
    {
        try {
            Files.createFile(file, ownerOnlyFileAttributes(file));
        }
        catch (FileAlreadyExistsException e) {
            // a log from an earlier start: appended to, once its permissions are the owner's only
        }
        restrict(file);
    }

    public Path file()
    {
        return file;
    }

    /**
     * @param caller empty on an insecure service, where nobody is authenticated
     * @param endUser the person and query the caller acts for, as it says (Trino's user); empty when it names none
     * @param outcome {@code OK} or the gRPC status code of the refusal
     */
    public synchronized void record(Optional<PeerIdentity> caller, Optional<EndUser> endUser, String method, String target, String outcome)
    {
        String onBehalfOf = endUser
                .map(user -> ",\"user\":%s,\"query\":%s".formatted(quote(user.user()), quote(user.queryId())))
                .orElse("");
        String line = "{\"time\":\"%s\",\"caller\":%s%s,\"method\":%s,\"target\":%s,\"outcome\":%s}".formatted(
                Instant.now(clock),
                quote(caller.map(PeerIdentity::toString).orElse("anonymous (insecure)")),
                onBehalfOf,
                quote(method),
                quote(target),
                quote(outcome));
        try {
            writer.write(line);
            writer.newLine();
            writer.flush();
        }
        catch (IOException e) {
            // the change itself is already durable in the catalog: losing its audit line must not undo or fail it
            log.error(e, "Cannot write to the audit log %s: %s", file, line);
        }
    }

    @Override
    public synchronized void close()
    {
        try {
            writer.close();
        }
        catch (IOException e) {
            log.warn(e, "Cannot close the audit log %s", file);
        }
    }

    private static String quote(String value)
    {
        StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        quoted.append("\\u%04x".formatted((int) c));
                    }
                    else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
