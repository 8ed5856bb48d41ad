package io.nsc.trino.write;

import io.nsc.trino.metadata.NscColumnHandle;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;

/** The part of an output or insert handle the page sinks work from. */
public interface NscWritableTable
{
    SchemaTableName schemaTableName();

    /** Every column of the table, in table order: the order of the pages' channels and of the files' columns. */
    List<NscColumnHandle> columns();

    NscWriterSettings settings();
}
