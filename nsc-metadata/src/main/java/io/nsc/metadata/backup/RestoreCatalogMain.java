package io.nsc.metadata.backup;

import io.nsc.metadata.backup.CatalogRestore.RestoreRefusedException;
import io.nsc.metadata.backup.CatalogRestore.Result;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code restore-catalog <backup-file> <data-dir> [--force]}: puts a backup from
 * {@code ./nsc backup} in place of the catalog in a stopped metadata service's data directory (see
 * {@link CatalogRestore}). Run by {@code bin/nsc-node restore-catalog} and {@code ./nsc restore}.
 * Exit status: 0 restored, 1 refused or failed (nothing changed), 2 bad usage.
 */
public final class RestoreCatalogMain
{
    private static final String USAGE = "usage: restore-catalog <backup-file> <metadata-data-dir> [--force]";

    private RestoreCatalogMain() {}

    public static void main(String[] args)
    {
        // H2's and the catalog's INFO lines are noise for a command-line tool
        Logger.getLogger("").setLevel(Level.WARNING);
        System.exit(run(Arrays.asList(args), System.out, System.err));
    }

    static int run(List<String> args, PrintStream out, PrintStream err)
    {
        List<String> positionals = new ArrayList<>();
        boolean force = false;
        for (String arg : args) {
            if (arg.equals("--force")) {
                force = true;
            }
            else if (arg.startsWith("-")) {
                err.println("restore-catalog: unknown option " + arg);
                err.println(USAGE);
                return 2;
            }
            else {
                positionals.add(arg);
            }
        }
        if (positionals.size() != 2) {
            err.println(USAGE);
            return 2;
        }
        Path backup = Path.of(positionals.get(0)).toAbsolutePath();
        Path dataDir = Path.of(positionals.get(1)).toAbsolutePath();
        try {
            Result result = CatalogRestore.restore(backup, dataDir, force, Clock.systemUTC());
            out.printf("restore-catalog: restored the catalog of cluster %s (schema version %s, %s tables, backed up at %s) into %s%n",
                    result.manifest().clusterId(), result.manifest().schemaVersion(), result.tableCount(), result.manifest().created(), dataDir);
            result.previousCatalog().ifPresent(previous -> out.printf("restore-catalog: the catalog it replaced is kept as %s%n", previous));
            return 0;
        }
        catch (RestoreRefusedException e) {
            err.println("restore-catalog: " + e.getMessage() + "; nothing was changed");
            return 1;
        }
        catch (IOException | RuntimeException e) {
            err.println("restore-catalog: failed: " + e.getMessage());
            return 1;
        }
    }
}
