package io.nsc.tools.load;

import io.nsc.protocol.proto.Column;
import io.nsc.protocol.security.TransportSecurity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Refusals that need no cluster: they happen before the loader contacts any service. */
final class TestLoadValidation
{
    // nothing listens here; reaching it would fail the load with UNAVAILABLE instead
    private static final String NO_SERVICE = "127.0.0.1:1";

    @TempDir
    Path directory;

    @Test
    void expandsDirectoriesRecursivelyInPathOrder()
            throws IOException
    {
        Path b = touch("data/b.parquet");
        Path a = touch("data/a.parquet");
        Path nested = touch("data/sub/c.parquet");
        touch("data/notes.txt");
        touch("data/_SUCCESS.parquet");
        touch("data/.in-progress.parquet");
        Path explicit = touch("explicit.bin");

        assertThat(InputFiles.expand(List.of(directory.resolve("data"), explicit)))
                .containsExactly(a, b, nested, explicit);
    }

    @Test
    void refusesMissingEmptyAndRepeatedInputs()
            throws IOException
    {
        assertThatThrownBy(() -> InputFiles.expand(List.of()))
                .hasMessage("no files or directories given; nothing was loaded");
        assertThatThrownBy(() -> InputFiles.expand(List.of(directory.resolve("missing.parquet"))))
                .hasMessageContaining("missing.parquet does not exist");
        Files.createDirectories(directory.resolve("empty"));
        assertThatThrownBy(() -> InputFiles.expand(List.of(directory.resolve("empty"))))
                .hasMessageContaining("no *.parquet files in directory");
        Path file = touch("data/a.parquet");
        assertThatThrownBy(() -> InputFiles.expand(List.of(directory.resolve("data"), file)))
                .hasMessageContaining("a.parquet is named more than once");
    }

    @Test
    void refusesNonParquetFileBeforeContactingTheService()
            throws IOException
    {
        Path junk = Files.writeString(directory.resolve("junk.parquet"), "plain text, long enough to have a tail that is not PAR1");
        assertThatThrownBy(() -> new ParquetLoader(TransportSecurity.insecure()).load(NO_SERVICE, "s", "t", List.of(junk), LoadOptions.defaults()))
                .isInstanceOf(LoadException.class)
                .hasMessageContaining("junk.parquet")
                .hasMessageEndingWith("nothing was loaded")
                .hasMessageNotContaining("UNAVAILABLE");
    }

    @Test
    void refusesNamesTheCatalogWouldReject()
    {
        assertThatThrownBy(() -> new ParquetLoader(TransportSecurity.insecure()).load(NO_SERVICE, "Sales", "t", List.of(directory), LoadOptions.defaults()))
                .hasMessageStartingWith("Invalid schema name 'Sales'");
        assertThatThrownBy(() -> new ParquetLoader(TransportSecurity.insecure()).load(NO_SERVICE, "s", "order-lines", List.of(directory), LoadOptions.defaults()))
                .hasMessageStartingWith("Invalid table name 'order-lines'");
        assertThatThrownBy(() -> NameRules.checkColumnNames(Path.of("f.parquet"), List.of(column("a b", "bigint"))))
                .hasMessageContaining("file f.parquet: Invalid column name 'a b'");
        assertThatThrownBy(() -> new ParquetLoader(TransportSecurity.insecure()).load(NO_SERVICE, "information_schema", "t", List.of(directory), LoadOptions.defaults()))
                .hasMessageStartingWith("Schema name information_schema is reserved");
    }

    @Test
    void describesTheFirstColumnDifference()
    {
        List<Column> left = List.of(column("a", "bigint"), column("b", "varchar"));
        assertThat(TableColumns.firstDifference("x", left, "y", left)).isEmpty();
        assertThat(TableColumns.firstDifference("x", left, "y", List.of(column("a", "bigint"), column("b", "double"))))
                .contains("column 2 is b varchar in x but b double in y");
        assertThat(TableColumns.firstDifference("x", left, "y", List.of(column("a", "bigint"))))
                .contains("x has 2 columns, y has 1: y has no column 2 (b varchar)");
        assertThat(TableColumns.firstDifference("x", List.of(column("a", "bigint")), "y", left))
                .contains("x has 1 columns, y has 2: x has no column 2 (b varchar)");
    }

    private Path touch(String name)
            throws IOException
    {
        Path file = directory.resolve(name);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, name);
    }

    private static Column column(String name, String type)
    {
        return Column.newBuilder().setName(name).setType(type).build();
    }
}
