package io.nsc.trino.read;

import io.nsc.trino.split.RowGroupPlanner;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;

import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;

final class TestReadMetrics
{
    /**
     * The coordinator merges split-source and page-source metrics of a scan into one map; on a
     * real server a name in both fails every query's stats (their classes come from different
     * class loaders). The in-process test runner has one class loader and would not notice.
     */
    @Test
    void testNoNameIsBothASplitSourceAndAPageSourceMetric()
    {
        Set<String> pageSource = names(ReadMetrics.class);
        Set<String> splitSource = names(RowGroupPlanner.class);
        assertThat(pageSource).contains(ReadMetrics.STORAGE_BYTES_RECEIVED);
        assertThat(splitSource).contains(RowGroupPlanner.ROW_GROUPS_TOTAL);
        assertThat(pageSource).doesNotContainAnyElementsOf(splitSource);
    }

    private static Set<String> names(Class<?> holder)
    {
        return Arrays.stream(holder.getDeclaredFields())
                .filter(field -> Modifier.isStatic(field.getModifiers()) && Modifier.isPublic(field.getModifiers()) && field.getType() == String.class)
                .map(TestReadMetrics::value)
                .collect(toSet());
    }

    private static String value(Field field)
    {
        try {
            return (String) field.get(null);
        }
        catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }
}
