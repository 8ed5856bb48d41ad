"""The same Parquet files on every path: generated once by nsc's TPC-H generator (lineitem sorted
by l_shipdate, orders by o_orderdate), loaded into nsc with the loader, put into S3 byte for byte,
and registered there as Hive external tables and as Iceberg tables over the very same objects.

Standard library only.
"""
import os
import shutil
import subprocess
import time

from cluster import BUCKET, S3_ACCESS_KEY
from s3 import S3Client

TPCH_TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
HIVE_SCHEMA = "tpch"
# Iceberg's tables are registered from Hive's (add_files_from_table), in the metastore both
# catalogs share, so they need a schema name of their own
ICEBERG_SCHEMA = "tpch_iceberg"


def log(message):
    print(f"bench: {message}", flush=True)


def generate(settings, scale):
    """The TPC-H Parquet files at the scale, made once and kept under NSC_VAR."""
    directory = os.path.join(settings.data_dir, f"sf{scale:g}")
    if os.path.exists(os.path.join(directory, ".complete")):
        log(f"TPC-H scale {scale:g} is already generated in {directory}")
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    log(f"generating TPC-H scale {scale:g} as sorted Parquet in {directory}")
    started = time.monotonic()
    subprocess.run([os.path.join(settings.nsc_home, "bin", "nsc-node"), "tool", "tpch", "--scale", f"{scale:g}", "--output", directory],
                   check=True, env=dict(os.environ, NSC_HOME=settings.nsc_home))
    open(os.path.join(directory, ".complete"), "w").close()
    log(f"generated in {time.monotonic() - started:.1f} s")
    return directory


def parquet_files(directory, table):
    table_dir = os.path.join(directory, table)
    return sorted(os.path.join(table_dir, name) for name in os.listdir(table_dir) if name.endswith(".parquet"))


def load_nsc(cluster, directory):
    for table in TPCH_TABLES:
        started = time.monotonic()
        cluster.tool("load", "--metadata", cluster.metadata_address(), *cluster.tls_args(), f"tpch.{table}", os.path.join(directory, table))
        log(f"loaded nsc.tpch.{table} in {time.monotonic() - started:.1f} s")


def upload_s3(cluster, directory):
    ca = os.path.join(cluster.tls_dir, "ca.pem") if cluster.secure else None
    client = S3Client(cluster.s3_endpoint, S3_ACCESS_KEY, cluster.s3_secret, ca)
    client.create_bucket(BUCKET)
    for table in TPCH_TABLES:
        started, size = time.monotonic(), 0
        for path in parquet_files(directory, table):
            client.put_file(BUCKET, f"tpch/{table}/{os.path.basename(path)}", path)
            size += os.path.getsize(path)
        log(f"put {table} into s3://{BUCKET}/tpch/{table}/ ({size:,} bytes) in {time.monotonic() - started:.1f} s")
    # what the server holds must be exactly the files
    for table in TPCH_TABLES:
        stored = sorted(client.list_objects(BUCKET, f"tpch/{table}/"))
        expected = sorted((f"tpch/{table}/{os.path.basename(path)}", os.path.getsize(path)) for path in parquet_files(directory, table))
        if stored != expected:
            raise RuntimeError(f"s3://{BUCKET}/tpch/{table}/ holds {stored}, expected {expected}")


def nsc_columns(trino):
    """table -> [(column, type)] as nsc shows them: the Hive and Iceberg tables are declared
    with exactly these, so every path reads the same types from the same files."""
    rows = trino.rows("SELECT table_name, column_name, data_type FROM nsc.information_schema.columns "
                      "WHERE table_schema = 'tpch' ORDER BY table_name, ordinal_position")
    columns = {}
    for table, column, data_type in rows:
        columns.setdefault(table, []).append((column, data_type))
    missing = [table for table in TPCH_TABLES if table not in columns]
    if missing:
        raise RuntimeError(f"nsc.tpch lacks {missing}")
    return columns


def register_hive_and_iceberg(trino, columns, analyze):
    trino.rows(f"CREATE SCHEMA hive.{HIVE_SCHEMA}")
    trino.rows(f"CREATE SCHEMA iceberg.{ICEBERG_SCHEMA} WITH (location = 's3://{BUCKET}/iceberg/')")
    for table in TPCH_TABLES:
        definition = ", ".join(f"{column} {data_type}" for column, data_type in columns[table])
        trino.rows(f"CREATE TABLE hive.{HIVE_SCHEMA}.{table} ({definition}) "
                   f"WITH (external_location = 's3://{BUCKET}/tpch/{table}/', format = 'PARQUET')")
        # Trino 476's add_files_from_table checks the number of the Iceberg table's schema
        # *versions* against the source's column count (IcebergMetadata.getTableHandleForAddFilesFromTable),
        # so the table is made one column at a time: the same columns and field ids (1..n) as a
        # CREATE TABLE with all of them, and n schema versions in its metadata
        first, *rest = columns[table]
        trino.rows(f"CREATE TABLE iceberg.{ICEBERG_SCHEMA}.{table} ({first[0]} {first[1]}) WITH (format = 'PARQUET')")
        for column, data_type in rest:
            trino.rows(f"ALTER TABLE iceberg.{ICEBERG_SCHEMA}.{table} ADD COLUMN {column} {data_type}")
        # the Hive table's very files become the Iceberg table's data files (with the name
        # mapping Iceberg needs for files written without field ids); no file is rewritten
        trino.rows(f"ALTER TABLE iceberg.{ICEBERG_SCHEMA}.{table} EXECUTE add_files_from_table("
                   f"schema_name => '{HIVE_SCHEMA}', table_name => '{table}')")
        log(f"registered hive.{HIVE_SCHEMA}.{table} and iceberg.{ICEBERG_SCHEMA}.{table}")
    if analyze:
        # table and column statistics for the cost-based optimizer, as a Hive or Iceberg user
        # collects them; nsc's come from the compact stats and the column sketches of its files
        for table in TPCH_TABLES:
            started = time.monotonic()
            trino.rows(f"ANALYZE hive.{HIVE_SCHEMA}.{table}")
            trino.rows(f"ANALYZE iceberg.{ICEBERG_SCHEMA}.{table}")
            log(f"analyzed {table} on hive and iceberg in {time.monotonic() - started:.1f} s")


def verify(trino, columns):
    """Every path holds every table with the same columns and rows."""
    for table in TPCH_TABLES:
        counts = [trino.rows(f"SELECT count(*) FROM {catalog}.{schema}.{table}")[0][0]
                  for catalog, schema in (("nsc", "tpch"), ("hive", HIVE_SCHEMA), ("iceberg", ICEBERG_SCHEMA))]
        if len(set(counts)) != 1:
            raise RuntimeError(f"{table} has {counts} rows on nsc, hive, iceberg")
        for catalog, schema in (("hive", HIVE_SCHEMA), ("iceberg", ICEBERG_SCHEMA)):
            described = [(row[0], row[1]) for row in trino.rows(f"DESCRIBE {catalog}.{schema}.{table}")]
            if described != columns[table]:
                raise RuntimeError(f"{catalog}.{schema}.{table} has columns {described}, nsc {columns[table]}")
    log("every table has the same columns and row count on nsc, hive and iceberg")


def shipdate_histogram(trino):
    rows = trino.rows("SELECT CAST(l_shipdate AS varchar), count(*) FROM nsc.tpch.lineitem GROUP BY 1 ORDER BY 1")
    return [(day, count) for day, count in rows]
