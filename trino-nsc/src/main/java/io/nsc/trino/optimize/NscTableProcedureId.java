package io.nsc.trino.optimize;

/** The connector's table procedures ({@code ALTER TABLE ... EXECUTE <name>}), by the name Trino passes back. */
public enum NscTableProcedureId
{
    /** Rewrites small files, and files that lost row groups, into files of the writer's target size. */
    OPTIMIZE,
}
