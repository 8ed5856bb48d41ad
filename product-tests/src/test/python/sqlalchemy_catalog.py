"""What a BI tool or notebook sees of nsc through SQLAlchemy and the trino Python client.

Connects as the product tests' JDBC connections do (HTTPS, password, the cluster CA), asks
SQLAlchemy's inspector for the catalog nsc's schemas, tables, columns and primary key, reads the
table back through SQLAlchemy Core, and prints it all as one JSON object: the Java product test
that runs this script asserts on it.

Arguments: schema table. Environment: NSC_TRINO_PORT, NSC_TRINO_USER, NSC_TRINO_PASSWORD,
NSC_TRINO_CA.
"""
import json
import os
import sys

import sqlalchemy
from sqlalchemy import MetaData, Table, func, inspect, select
from trino.auth import BasicAuthentication


def main(schema, table):
    engine = sqlalchemy.create_engine(
        "trino://{}@localhost:{}/nsc".format(os.environ["NSC_TRINO_USER"], os.environ["NSC_TRINO_PORT"]),
        connect_args={
            "auth": BasicAuthentication(os.environ["NSC_TRINO_USER"], os.environ["NSC_TRINO_PASSWORD"]),
            "http_scheme": "https",
            "verify": os.environ["NSC_TRINO_CA"],
        },
    )
    try:
        inspector = inspect(engine)
        columns = inspector.get_columns(table, schema=schema)
        reflected = Table(table, MetaData(), schema=schema, autoload_with=engine)
        with engine.connect() as connection:
            row_count = connection.execute(select(func.count()).select_from(reflected)).scalar_one()
            first_column = reflected.columns[columns[0]["name"]]
            smallest = connection.execute(select(func.min(first_column))).scalar_one()
        report = {
            "sqlalchemy_version": sqlalchemy.__version__,
            "schemas": inspector.get_schema_names(),
            "tables": inspector.get_table_names(schema=schema),
            "columns": [
                {"name": column["name"], "type": str(column["type"]), "nullable": column["nullable"], "comment": column.get("comment")}
                for column in columns
            ],
            "table_comment": inspector.get_table_comment(table, schema=schema).get("text"),
            "primary_key": inspector.get_pk_constraint(table, schema=schema).get("constrained_columns", []),
            "row_count": row_count,
            "smallest_first_column": str(smallest),
        }
    finally:
        engine.dispose()
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: sqlalchemy_catalog.py <schema> <table>")
    main(sys.argv[1], sys.argv[2])
