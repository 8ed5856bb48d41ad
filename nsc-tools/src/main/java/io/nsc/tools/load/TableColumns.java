package io.nsc.tools.load;

import io.nsc.protocol.proto.Column;

import java.util.List;
import java.util.Optional;

import static java.util.stream.Collectors.joining;

/** Compares column lists and says where they part, in words a person loading files can act on. */
final class TableColumns
{
    private TableColumns() {}

    /**
     * The first difference between two column lists, or empty when they are equal.
     *
     * @param leftName what the left list belongs to ("file a.parquet", "table s.t")
     */
    static Optional<String> firstDifference(String leftName, List<Column> left, String rightName, List<Column> right)
    {
        int common = Math.min(left.size(), right.size());
        for (int i = 0; i < common; i++) {
            if (!sameSlot(left.get(i), right.get(i))) {
                return Optional.of("column %s is %s in %s but %s in %s".formatted(
                        i + 1, describe(left.get(i)), leftName, describe(right.get(i)), rightName));
            }
        }
        if (left.size() > common) {
            return Optional.of("%s has %s columns, %s has %s: %s has no column %s (%s)".formatted(
                    leftName, left.size(), rightName, right.size(), rightName, common + 1, describe(left.get(common))));
        }
        if (right.size() > common) {
            return Optional.of("%s has %s columns, %s has %s: %s has no column %s (%s)".formatted(
                    leftName, left.size(), rightName, right.size(), leftName, common + 1, describe(right.get(common))));
        }
        return Optional.empty();
    }

    // a comment describes a column, it is no part of what a file must hold; a dropped column's
    // slot is no column a loaded file can fill
    private static boolean sameSlot(Column left, Column right)
    {
        return left.getName().equals(right.getName()) && left.getType().equals(right.getType()) && left.getDropped() == right.getDropped();
    }

    static String describe(Column column)
    {
        return column.getName() + " " + column.getType() + (column.getDropped() ? " (dropped)" : "");
    }

    static String describe(List<Column> columns)
    {
        return columns.stream().map(TableColumns::describe).collect(joining(", ", "(", ")"));
    }
}
