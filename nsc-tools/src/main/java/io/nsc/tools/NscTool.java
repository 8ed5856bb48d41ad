package io.nsc.tools;

import io.nsc.tools.backup.BackupCommand;
import io.nsc.tools.certs.CertificatesCommand;
import io.nsc.tools.cluster.DrainCommand;
import io.nsc.tools.info.TableInfoCommand;
import io.nsc.tools.load.LoadCommand;
import io.nsc.tools.tpch.TpchCommand;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The nsc command-line tools behind one entry point:
 * <pre>
 * nsc load --metadata host:port[,host:port...] (--certificate F --key F --ca F | --insecure) [--replication N] [--no-verify] &lt;schema&gt;.&lt;table&gt; &lt;file-or-dir&gt;...
 * nsc certs --dir DIR role:name[:hosts]...
 * nsc backup --metadata host:port[,host:port...] (--certificate F --key F --ca F | --insecure) &lt;file&gt;
 * nsc tpch --scale S --output DIR [--rows-per-row-group N] [--rows-per-file N] [--sort-run-rows N] [--tables a,b,...] [--compression zstd|lz4|snappy|gzip|none]
 * </pre>
 * Exit status: 0 success, 1 the command failed, 2 bad usage.
 */
public final class NscTool
{
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;

    private NscTool() {}

    public static void main(String[] args)
    {
        int status = run(Arrays.asList(args), System.out, System.err);
        System.out.flush();
        System.err.flush();
        // gRPC and the JDK may leave non-daemon threads behind; the exit status is what matters
        System.exit(status);
    }

    public static int run(List<String> args, PrintStream out, PrintStream err)
    {
        if (args.isEmpty()) {
            err.print(usage());
            return EXIT_USAGE;
        }
        String command = args.getFirst();
        List<String> rest = args.subList(1, args.size());
        return switch (command) {
            case "load" -> LoadCommand.run(rest, out, err);
            case "tpch" -> TpchCommand.run(rest, out, err);
            case "info" -> TableInfoCommand.run(rest, out, err);
            case "certs" -> CertificatesCommand.run(rest, out, err);
            case "drain" -> DrainCommand.run(rest, out, err);
            case "backup" -> BackupCommand.run(rest, out, err);
            case "help", "--help", "-h" -> {
                out.print(usage());
                yield EXIT_OK;
            }
            default -> {
                err.println("nsc: unknown command '%s'".formatted(command));
                err.print(usage());
                yield EXIT_USAGE;
            }
        };
    }

    public static String usage()
    {
        return "usage:\n  " + LoadCommand.USAGE + "\n  " + TpchCommand.USAGE + "\n  " + TableInfoCommand.USAGE + "\n  " + CertificatesCommand.USAGE + "\n  " + DrainCommand.USAGE + "\n  " + BackupCommand.USAGE + "\n";
    }
}
