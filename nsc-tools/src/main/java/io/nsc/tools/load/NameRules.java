package io.nsc.tools.load;

import io.nsc.protocol.proto.Column;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.nsc.protocol.catalog.NameRules.problem;
import static io.nsc.tools.load.LoadException.nothingLoaded;

/**
 * The metadata service enforces nsc's naming rule at commit, which comes after the uploads;
 * checking it here refuses a bad name before a byte is sent.
 */
final class NameRules
{
    private NameRules() {}

    static void checkTableName(String schema, String table)
    {
        problem("schema", schema).or(() -> problem("table", table)).ifPresent(problem -> {
            throw nothingLoaded(problem);
        });
    }

    static void checkColumnNames(Path file, List<Column> columns)
    {
        Set<String> seen = new HashSet<>();
        for (Column column : columns) {
            problem("column", column.getName()).ifPresent(problem -> {
                throw nothingLoaded("file %s: %s".formatted(file, problem));
            });
            if (!seen.add(column.getName())) {
                throw nothingLoaded("file %s: more than one column is named %s".formatted(file, column.getName()));
            }
        }
    }
}
