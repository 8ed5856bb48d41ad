package io.nsc.metadata.catalog;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * File ids: 128 random bits as 32 lower-case hex characters. Storage nodes use the id as the
 * file's name, so the format is checked wherever an id comes in, and random bits (rather than a
 * counter) keep ids unique across metadata-service restarts and data-dir mix-ups.
 */
public final class FileIds
{
    private static final Pattern FILE_ID = Pattern.compile("[0-9a-f]{32}");
    private static final HexFormat HEX = HexFormat.of();

    private FileIds() {}

    public static boolean isValidFileId(String fileId)
    {
        return fileId != null && FILE_ID.matcher(fileId).matches();
    }

    public static String newFileId(SecureRandom random)
    {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return HEX.formatHex(bytes);
    }
}
