package io.nsc.tools.load;

import com.google.common.collect.ImmutableList;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.tools.load.LoadException.nothingLoaded;

/**
 * The files a load names: plain files as given, directories expanded to the {@code *.parquet}
 * files beneath them (recursively, in path order, so repeated loads of a directory register
 * files in the same order).
 */
final class InputFiles
{
    private InputFiles() {}

    static List<Path> expand(List<Path> paths)
    {
        if (paths.isEmpty()) {
            throw nothingLoaded("no files or directories given");
        }
        ImmutableList.Builder<Path> files = ImmutableList.builder();
        for (Path path : paths) {
            if (Files.isDirectory(path)) {
                List<Path> found = parquetFilesUnder(path);
                if (found.isEmpty()) {
                    throw nothingLoaded("no *.parquet files in directory " + path);
                }
                files.addAll(found);
            }
            else if (Files.isRegularFile(path)) {
                // a file named explicitly is taken whatever its name; validation decides if it is Parquet
                files.add(path);
            }
            else {
                throw nothingLoaded(path + " does not exist or is not a regular file");
            }
        }
        List<Path> result = files.build();
        checkNoDuplicates(result);
        return result;
    }

    private static List<Path> parquetFilesUnder(Path directory)
    {
        try (Stream<Path> walk = Files.walk(directory)) {
            return walk
                    .filter(Files::isRegularFile)
                    .filter(InputFiles::isVisibleParquetFile)
                    .sorted(Comparator.comparing(Path::toString))
                    .collect(toImmutableList());
        }
        catch (IOException | UncheckedIOException e) {
            throw nothingLoaded("cannot list directory %s: %s".formatted(directory, e.getMessage()), e);
        }
    }

    private static boolean isVisibleParquetFile(Path file)
    {
        String name = file.getFileName().toString();
        // names starting with '.' or '_' are in-progress or marker files by Hadoop/Spark convention
        return name.toLowerCase(Locale.ENGLISH).endsWith(".parquet") && !name.startsWith(".") && !name.startsWith("_");
    }

    private static void checkNoDuplicates(List<Path> files)
    {
        // loading one file twice would register its rows twice
        Map<Path, Path> seen = new HashMap<>();
        for (Path file : files) {
            Path key;
            try {
                key = file.toRealPath();
            }
            catch (IOException e) {
                throw nothingLoaded("cannot resolve %s: %s".formatted(file, e.getMessage()), e);
            }
            Path previous = seen.putIfAbsent(key, file);
            if (previous != null) {
                throw nothingLoaded("%s is named more than once (also as %s)".formatted(file, previous));
            }
        }
    }
}
