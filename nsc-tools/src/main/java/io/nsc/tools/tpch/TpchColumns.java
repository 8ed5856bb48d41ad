package io.nsc.tools.tpch;

import io.trino.spi.type.Type;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchColumnType;
import io.trino.tpch.TpchTable;

import java.util.List;
import java.util.Optional;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.createVarcharType;
import static java.lang.Math.toIntExact;

/**
 * Column names and types of the TPC-H tables exactly as Trino's {@code tpch} connector shows
 * them with {@code tpch.column-naming=STANDARD} and its default DOUBLE mapping for money
 * columns, so that a query gives the same answer against nsc and against the tpch catalog.
 */
public final class TpchColumns
{
    private TpchColumns() {}

    public static List<String> names(TpchTable<?> table)
    {
        return table.getColumns().stream()
                .map(TpchColumn::getColumnName)
                .collect(toImmutableList());
    }

    public static List<Type> types(TpchTable<?> table)
    {
        return table.getColumns().stream()
                .map(TpchColumns::trinoType)
                .collect(toImmutableList());
    }

    /** The mapping of {@code io.trino.plugin.tpch.TpchMetadata.getTrinoType} with {@code DecimalTypeMapping.DOUBLE}. */
    public static Type trinoType(TpchColumn<?> column)
    {
        TpchColumnType type = column.getType();
        return switch (type.getBase()) {
            case IDENTIFIER -> BIGINT;
            case INTEGER -> INTEGER;
            case DATE -> DATE;
            case DOUBLE -> DOUBLE;
            case VARCHAR -> createVarcharType(toIntExact(type.getPrecision().orElseThrow()));
        };
    }

    /**
     * The column a table is sorted by when written, so that its row groups have tight min/max on
     * the column most TPC-H predicates restrict; empty for tables kept in generator order.
     */
    public static Optional<String> sortColumn(TpchTable<?> table)
    {
        return switch (table.getTableName()) {
            case "lineitem" -> Optional.of("l_shipdate");
            case "orders" -> Optional.of("o_orderdate");
            default -> Optional.empty();
        };
    }
}
