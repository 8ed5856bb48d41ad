package io.nsc.trino.metadata;

import io.nsc.trino.metadata.NscFilesTable.Kind;
import io.nsc.trino.metadata.NscFilesTable.Name;
import io.trino.spi.connector.SchemaTableName;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

final class TestNscFilesTable
{
    @Test
    void testNamesOfMetadataTables()
    {
        assertThat(Name.parse(new SchemaTableName("s", "t$files"))).contains(new Name(new SchemaTableName("s", "t"), Kind.FILES));
        assertThat(Name.parse(new SchemaTableName("s", "t$row_groups"))).contains(new Name(new SchemaTableName("s", "t"), Kind.ROW_GROUPS));
        // only the last suffix counts: a table name never holds a '$', and the lookup then finds no table
        assertThat(Name.parse(new SchemaTableName("s", "t$files$row_groups"))).contains(new Name(new SchemaTableName("s", "t$files"), Kind.ROW_GROUPS));
        for (String notOne : new String[] {"t", "$files", "$row_groups", "t$partitions", "t$files_", "tfiles"}) {
            assertThat(Name.parse(new SchemaTableName("s", notOne))).as(notOne).isEqualTo(Optional.empty());
        }
    }
}
