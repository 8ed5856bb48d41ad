package io.nsc.trino;

import io.trino.Session;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A query run in every pushdown mode: the worker decodes (raw), the storage node filters
 * (filter), nsc chooses (auto) or nothing is pushed (none). Each reads the files its own way, and
 * all must return the same rows.
 */
final class EveryPushdownMode
{
    private EveryPushdownMode() {}

    static Session withMode(Session session, PushdownMode mode)
    {
        return Session.builder(session)
                .setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, mode.name())
                .build();
    }

    /**
     * @param expected Trino SQL whose rows {@code sql} must return in every mode, in any order
     */
    static void assertSameRows(QueryRunner queryRunner, Session session, String sql, String expected)
    {
        List<MaterializedRow> expectedRows = queryRunner.execute(session, expected).getMaterializedRows();
        for (PushdownMode mode : PushdownMode.values()) {
            assertThat(queryRunner.execute(withMode(session, mode), sql).getMaterializedRows())
                    .as("%s in mode %s", sql, mode)
                    .containsExactlyInAnyOrderElementsOf(expectedRows);
        }
    }
}
