package io.nsc.trino;

import io.trino.Session;
import io.trino.spi.security.Identity;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Trino users reaching nsc: the access rules the demo ships ({@code ./nsc demo --access-control},
 * {@code etc/trino/access-control.json}) give an admin everything, a writer its own schemas and
 * read access to the loaded {@code tpch}, everyone else read access; and since every Trino node
 * calls the metadata service with the same certificate, the connector passes each change's
 * Trino user and query id, which the service's audit log records.
 */
final class TestNscTrinoUsers
        extends AbstractTestQueryFramework
{
    private static final Path SHIPPED_RULES = Path.of("..", "etc", "trino", "access-control.json").toAbsolutePath().normalize();

    private TestingNscCluster cluster;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        assertThat(SHIPPED_RULES).isRegularFile();
        cluster = closeAfterClass(TestingNscCluster.start(2));
        return NscQueryRunner.builder(cluster)
                .withTpchTinyLoaded()
                .setSystemAccessControl("file", Map.of("security.config-file", SHIPPED_RULES.toString()))
                .build();
    }

    @Test
    void testReaderOnlyReads()
    {
        Session analyst = asUser("analyst");
        assertThat(query(analyst, "SELECT count(*) FROM nsc.tpch.nation")).matches("VALUES BIGINT '25'");
        assertDenied(analyst, "CREATE SCHEMA nsc.mine");
        assertDenied(analyst, "CREATE TABLE nsc.tpch.mine AS SELECT 1 x");
        assertDenied(analyst, "INSERT INTO nsc.tpch.region SELECT * FROM nsc.tpch.region");
        assertDenied(analyst, "DELETE FROM nsc.tpch.region");
        assertDenied(analyst, "UPDATE nsc.tpch.region SET r_comment = 'x'");
        assertDenied(analyst, "DROP TABLE nsc.tpch.region");
        assertDenied(analyst, "ALTER TABLE nsc.tpch.region ADD COLUMN extra bigint");
        assertThat(query(analyst, "SELECT count(*) FROM nsc.tpch.region")).matches("VALUES BIGINT '5'");
    }

    @Test
    void testWriterOwnsItsSchemasAndReadsTpch()
            throws IOException
    {
        Session writer = asUser("writer");
        Session analyst = asUser("analyst");
        // the loaded data is read-only to writers
        assertThat(query(writer, "SELECT count(*) FROM nsc.tpch.region")).matches("VALUES BIGINT '5'");
        assertDenied(writer, "INSERT INTO nsc.tpch.region SELECT * FROM nsc.tpch.region");
        assertDenied(writer, "DROP TABLE nsc.tpch.region");
        assertDenied(writer, "CREATE TABLE nsc.tpch.mine AS SELECT 1 x");

        assertUpdate(writer, "CREATE SCHEMA nsc.staging");
        assertUpdate(writer, "CREATE TABLE nsc.staging.nation AS SELECT * FROM nsc.tpch.nation", 25);
        assertUpdate(writer, "UPDATE nsc.staging.nation SET n_comment = 'checked' WHERE n_regionkey = 1", 5);
        assertUpdate(writer, "DELETE FROM nsc.staging.nation WHERE n_regionkey = 2", 5);
        // what a writer makes, everyone may read, and only writers change
        assertThat(query(analyst, "SELECT count(*) FROM nsc.staging.nation WHERE n_comment = 'checked'")).matches("VALUES BIGINT '5'");
        assertDenied(analyst, "DELETE FROM nsc.staging.nation");
        // views too: a writer's view, read by everyone, changed only by writers. The shipped rules
        // give writers no GRANT_SELECT, which a SECURITY DEFINER view filtering a column needs
        // ("View owner 'writer' cannot create view that selects from ..."): this one runs as its reader
        assertUpdate(writer, "CREATE VIEW nsc.staging.checked SECURITY INVOKER AS SELECT n_name FROM nsc.staging.nation WHERE n_comment = 'checked'");
        assertUpdate(writer, "COMMENT ON VIEW nsc.staging.checked IS 'checked nations'");
        assertThat(query(analyst, "SELECT count(*) FROM nsc.staging.checked")).matches("VALUES BIGINT '5'");
        assertDenied(analyst, "DROP VIEW nsc.staging.checked");
        assertDenied(analyst, "CREATE VIEW nsc.tpch.mine AS SELECT 1 x");
        assertUpdate(writer, "DROP VIEW nsc.staging.checked");
        String dropQuery = getQueryRunner().executeWithPlan(writer, "DROP TABLE nsc.staging.nation").queryId().toString();
        assertUpdate(writer, "DROP SCHEMA nsc.staging");

        // the audit log says which Trino user made each change, and in which query
        List<String> audit = Files.readAllLines(cluster.root().resolve("metadata/audit.log"), UTF_8);
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"user\":\"writer\"", "\"method\":\"CreateSchema\"", "\"target\":\"staging\"", "\"outcome\":\"OK\""));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"user\":\"writer\"", "\"method\":\"CommitFiles\"", "\"target\":\"staging.nation"));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"user\":\"writer\"", "\"method\":\"CreateView\"", "\"target\":\"staging.checked\"", "\"outcome\":\"OK\""));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"user\":\"writer\"", "\"method\":\"UpdateView\"", "\"target\":\"staging.checked (version 1)\"", "\"outcome\":\"OK\""));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"user\":\"writer\"", "\"method\":\"DropView\"", "\"target\":\"staging.checked\"", "\"outcome\":\"OK\""));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains(
                "\"caller\":\"client:",
                "\"user\":\"writer\",\"query\":\"%s\"".formatted(dropQuery),
                "\"method\":\"DropTable\"",
                "\"target\":\"staging.nation\""));
        assertThat(audit.stream().filter(line -> line.contains("\"target\":\"staging")))
                .hasSizeGreaterThanOrEqualTo(6)
                .allSatisfy(line -> assertThat(line).contains("\"user\":\"writer\""));
    }

    @Test
    void testAdminChangesAnything()
    {
        Session admin = asUser("admin");
        assertUpdate(admin, "CREATE TABLE nsc.tpch.admin_copy AS SELECT * FROM nsc.tpch.region", 5);
        assertUpdate(admin, "INSERT INTO nsc.tpch.admin_copy SELECT * FROM nsc.tpch.region", 5);
        assertUpdate(admin, "DROP TABLE nsc.tpch.admin_copy");
    }

    private void assertDenied(Session session, String sql)
    {
        assertThat(query(session, sql)).failure().hasMessageContaining("Access Denied");
    }

    private Session asUser(String user)
    {
        return Session.builder(getSession()).setIdentity(Identity.ofUser(user)).build();
    }
}
