package io.nsc.tools.tpch;

import com.google.common.collect.ImmutableList;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** A TPC-H table's rows straight from the generator, as the Java values ParquetRows reads back. */
final class TpchRows
{
    private TpchRows() {}

    static <E extends TpchEntity> List<List<Object>> generatorRows(TpchTable<E> table, double scale)
    {
        ImmutableList.Builder<List<Object>> rows = ImmutableList.builder();
        for (E entity : table.createGenerator(scale, 1, 1)) {
            rows.add(row(table, entity));
        }
        return rows.build();
    }

    static <E extends TpchEntity> List<Object> row(TpchTable<E> table, E entity)
    {
        List<Object> row = new ArrayList<>();
        for (TpchColumn<E> column : table.getColumns()) {
            row.add(switch (column.getType().getBase()) {
                case IDENTIFIER -> column.getIdentifier(entity);
                case INTEGER -> column.getInteger(entity);
                case DATE -> column.getDate(entity);
                case DOUBLE -> column.getDouble(entity);
                case VARCHAR -> column.getString(entity);
            });
        }
        return row;
    }

    /** The rows ordered by an integer or date column; List.sort is stable, so ties keep their order. */
    static List<List<Object>> stableSorted(TpchTable<?> table, List<List<Object>> rows, String column)
    {
        int key = TpchColumns.names(table).indexOf(column);
        List<List<Object>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparing(row -> (Integer) row.get(key)));
        return sorted;
    }
}
