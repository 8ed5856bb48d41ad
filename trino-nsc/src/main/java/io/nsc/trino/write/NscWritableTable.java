package io.nsc.trino.write;

import io.nsc.trino.metadata.NscColumnHandle;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;

/** The part of an output or insert handle the page sinks work from. */
public interface NscWritableTable
{
    SchemaTableName schemaTableName();

    /** Every live column of the table, in table order: the order of the pages' channels. */
    List<NscColumnHandle> columns();

    /**
     * The table's dropped columns: each keeps its place among the files' columns (its ordinal),
     * written as NULL.
     */
    List<NscColumnHandle> droppedColumns();

    NscWriterSettings settings();
}
