package io.nsc.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

final class TestNscTool
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void badUsagePrintsUsageAndExitsWithTwo()
    {
        assertThat(run()).isEqualTo(2);
        assertThat(err()).contains("nsc load --metadata host:port").contains("nsc tpch --scale S --output DIR");

        reset();
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err()).contains("unknown command 'frobnicate'");

        reset();
        assertThat(run("load", "--metadata", "127.0.0.1:1", "not-a-table-name", "x.parquet")).isEqualTo(2);
        assertThat(err()).contains("nsc load: 'not-a-table-name' is not <schema>.<table>").contains("usage: nsc load");

        reset();
        assertThat(run("load", "s.t", "x.parquet")).isEqualTo(2);
        assertThat(err()).contains("--metadata is required");

        reset();
        assertThat(run("load", "--metadata", "127.0.0.1:1", "--replication", "zero", "s.t", "x.parquet")).isEqualTo(2);
        assertThat(err()).contains("--replication needs a whole number");

        reset();
        assertThat(run("tpch", "--scale", "-1", "--output", "/tmp/x")).isEqualTo(2);
        assertThat(err()).contains("--scale needs a positive number");

        reset();
        assertThat(run("tpch", "--scale", "1", "--output", "/tmp/x", "--tables", "nation,foo")).isEqualTo(2);
        assertThat(err()).contains("Unknown TPC-H table 'foo'");
    }

    @Test
    void failedLoadPrintsOneLineAndExitsWithOne(@TempDir Path directory)
            throws Exception
    {
        Path missing = directory.resolve("missing.parquet");
        assertThat(run("load", "--metadata", "127.0.0.1:1", "s.t", missing.toString())).isEqualTo(1);
        assertThat(err()).startsWith("nsc load: ").contains("missing.parquet does not exist").contains("nothing was loaded");

        reset();
        Path junk = Files.writeString(directory.resolve("junk.parquet"), "not parquet at all, just some text to fill a file");
        assertThat(run("load", "--metadata", "127.0.0.1:1", "s.t", junk.toString())).isEqualTo(1);
        assertThat(err()).startsWith("nsc load: ").contains("junk.parquet").contains("nothing was loaded");
    }

    @Test
    void tpchCommandWritesTables(@TempDir Path directory)
    {
        assertThat(run("tpch", "--scale", "0.01", "--output", directory.toString(), "--tables", "nation,region", "--rows-per-row-group", "10")).isEqualTo(0);
        assertThat(out()).contains("nation: 25 rows in 1 file").contains("region: 5 rows in 1 file");
        assertThat(directory.resolve("nation/nation-000.parquet")).isRegularFile();
        assertThat(directory.resolve("region/region-000.parquet")).isRegularFile();
        assertThat(directory.resolve("lineitem")).doesNotExist();
    }

    private int run(String... args)
    {
        return NscTool.run(List.of(args), new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
    }

    private String out()
    {
        return out.toString(UTF_8);
    }

    private String err()
    {
        return err.toString(UTF_8);
    }

    private void reset()
    {
        out.reset();
        err.reset();
    }
}
