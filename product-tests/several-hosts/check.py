"""The checks of product-tests/several-hosts/run.sh, run inside one host's network namespace.

    check.py certificates <tls-dir> <client-name> <host>=<name>:<port>...
        each endpoint presents the certificate of <host> (its CN and role), valid for <name> under
        the cluster CA; and a certificate is refused for a name it does not carry
    check.py plaintext-refused <name> <port>
        PostgreSQL refuses a session without TLS and offers TLS
    check.py unreachable <address> <port>...
        nothing answers on these ports (another host's services, tried on this host's loopback)
    check.py sql <trino-url> <reference-schema> before-failover|after-failover
        SQL through the coordinator against Trino's tpch catalog, writes included

Standard library only (and benchmarks/trino_client.py); a failed check exits 1 with its reason.
"""
import os
import socket
import ssl
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))
import trino_client  # noqa: E402

TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
ROLES = {"metadata": "nsc-metadata", "storage": "nsc-storage", "postgresql": "tls-server"}
SCHEMA = "nsc.several_hosts"


def fail(message):
    print(f"several-hosts: check failed: {message}", file=sys.stderr)
    sys.exit(1)


def ok(message):
    print(f"several-hosts: ok: {message}", file=sys.stderr)


# --- Certificates ---------------------------------------------------------------------------

def postgresql_ssl_request(sock):
    # SSLRequest: length 8, code 80877103; the server answers S (go on with TLS) or N
    sock.sendall(struct.pack("!II", 8, 80877103))
    answer = sock.recv(1)
    if answer != b"S":
        fail(f"PostgreSQL at {sock.getpeername()} answered {answer!r} to SSLRequest, not S: it does not offer TLS")


def peer_certificate(context, name, port, postgresql, server_hostname=None):
    with socket.create_connection((name, port), timeout=5) as sock:
        if postgresql:
            postgresql_ssl_request(sock)
        with context.wrap_socket(sock, server_hostname=server_hostname or name) as tls:
            return tls.getpeercert()


def subject_field(certificate, field):
    for rdn in certificate["subject"]:
        for key, value in rdn:
            if key == field:
                return value
    return None


def certificates(tls_dir, client, endpoints):
    ca = os.path.join(tls_dir, "ca.pem")
    mutual = ssl.create_default_context(cafile=ca)
    mutual.load_cert_chain(os.path.join(tls_dir, client + ".pem"), os.path.join(tls_dir, client + ".key"))
    # the gRPC ports speak HTTP/2 only
    mutual.set_alpn_protocols(["h2", "http/1.1"])
    # PostgreSQL is a server only: verified by the CA, no client certificate
    server_only = ssl.create_default_context(cafile=ca)
    parsed = []
    for endpoint in endpoints:
        host, address = endpoint.split("=", 1)
        name, port = address.rsplit(":", 1)
        parsed.append((host, name, int(port)))
    for host, name, port in parsed:
        postgresql = host == "postgresql"
        try:
            certificate = peer_certificate(server_only if postgresql else mutual, name, port, postgresql)
        except (ssl.SSLError, OSError) as e:
            fail(f"{host} at {name}:{port}: no TLS session verified for the name {name}: {e}")
        common_name = subject_field(certificate, "commonName")
        unit = subject_field(certificate, "organizationalUnitName")
        role = ROLES[host.split("-")[0]]
        if common_name != host or unit != role:
            fail(f"{name}:{port} presents the certificate of {unit}/{common_name}, not {role}/{host}")
        names = [value for kind, value in certificate.get("subjectAltName", ()) if kind == "DNS"]
        if name not in names:
            fail(f"{host}'s certificate does not name {name}: {names}")
    ok(f"{len(parsed)} endpoints each present their own host's certificate, verified under its host name: "
       + ", ".join(f"{name}:{port}={host}" for host, name, port in parsed))
    # the names matter: another host's name on the same address is refused
    host, name, port = parsed[-1]
    other = next(n for h, n, p in parsed if n != name)
    try:
        peer_certificate(mutual, name, port, host == "postgresql", server_hostname=other)
    except ssl.SSLCertVerificationError:
        ok(f"{name}:{port} is refused when the client expects {other}")
        return
    fail(f"{name}:{port} was accepted as {other}: certificates do not bind names")


def plaintext_refused(name, port):
    # a StartupMessage (protocol 3.0) without SSLRequest: pg_hba.conf has hostssl lines only
    parameters = b"user\0nsc\0database\0nsc\0\0"
    with socket.create_connection((name, int(port)), timeout=5) as sock:
        sock.sendall(struct.pack("!II", 8 + len(parameters), 196608) + parameters)
        answer = sock.recv(4096)
    if not answer.startswith(b"E") or b"no encryption" not in answer:
        fail(f"PostgreSQL at {name}:{port} did not refuse a session without TLS: {answer[:200]!r}")
    with socket.create_connection((name, int(port)), timeout=5) as sock:
        postgresql_ssl_request(sock)
    reason = answer[answer.find(b"no pg_hba"):].split(b"\0")[0].decode(errors="replace")
    ok(f"PostgreSQL at {name}:{port} refuses a session without TLS ({reason}) and offers TLS")


def unreachable(address, ports):
    for port in ports:
        try:
            with socket.create_connection((address, int(port)), timeout=3):
                fail(f"{address}:{port} answers on host {socket.gethostname()}'s namespace: the hosts are not apart")
        except (ConnectionRefusedError, TimeoutError, OSError):
            pass
    ok(f"nothing answers on {address}:{','.join(ports)} here: the services are on their own hosts' addresses")


# --- SQL ------------------------------------------------------------------------------------

class Trino:
    def __init__(self, url):
        self.url = url

    def rows(self, sql):
        return trino_client.run_query(self.url, "several-hosts", sql)[1]

    def value(self, sql):
        return self.rows(sql)[0][0]


def same_value(left, right):
    if isinstance(left, float) or isinstance(right, float):
        try:
            a, b = float(left), float(right)
        except (TypeError, ValueError):
            return False
        return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    return left == right


def same_rows(left, right):
    return len(left) == len(right) and all(
        len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b)) for a, b in zip(left, right))


QUERIES = {
    "Q1": """SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
        sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
        avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
        FROM {s}.lineitem WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
        GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus""",
    "Q3": """SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
        FROM {s}.customer, {s}.orders, {s}.lineitem
        WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
          AND o_orderdate < DATE '1995-03-15' AND l_shipdate > DATE '1995-03-15'
        GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate, l_orderkey LIMIT 10""",
    "Q6": """SELECT sum(l_extendedprice * l_discount) FROM {s}.lineitem
        WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
          AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24""",
    "Q12": """SELECT l_shipmode,
        sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END),
        sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END)
        FROM {s}.orders, {s}.lineitem
        WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate
          AND l_shipdate < l_commitdate AND l_receiptdate >= DATE '1994-01-01' AND l_receiptdate < DATE '1995-01-01'
        GROUP BY l_shipmode ORDER BY l_shipmode""",
}


def check_same(trino, label, nsc_sql, reference_sql):
    actual, expected = trino.rows(nsc_sql), trino.rows(reference_sql)
    if not same_rows(actual, expected):
        fail(f"{label}: nsc answered {actual[:5]}, tpch {expected[:5]}")


def check_tables(trino, reference, every_row):
    """Each table's row count, and with every_row its rows compared (EXCEPT both ways, one query)."""
    for table in TABLES:
        nsc, tpch = f"nsc.tpch.{table}", f"tpch.{reference}.{table}"
        if every_row:
            sql = (f"SELECT (SELECT count(*) FROM {nsc}), (SELECT count(*) FROM {tpch}), "
                   f"(SELECT count(*) FROM (SELECT * FROM {nsc} EXCEPT SELECT * FROM {tpch})), "
                   f"(SELECT count(*) FROM (SELECT * FROM {tpch} EXCEPT SELECT * FROM {nsc}))")
        else:
            sql = f"SELECT (SELECT count(*) FROM {nsc}), (SELECT count(*) FROM {tpch}), 0, 0"
        count, expected, missing, extra = trino.rows(sql)[0]
        if count != expected or count == 0:
            fail(f"{nsc} holds {count} rows, tpch.{reference}.{table} {expected}")
        if missing or extra:
            fail(f"{nsc}: {missing} distinct rows not in tpch.{reference}.{table}, which has {extra} not in nsc")
    ok(f"all {len(TABLES)} TPC-H tables in nsc.tpch hold tpch.{reference}'s "
       + ("rows exactly (counts, EXCEPT both ways)" if every_row else "row counts"))


def check_queries(trino, reference, names):
    for name in names:
        check_same(trino, f"TPC-H {name}", QUERIES[name].format(s="nsc.tpch"), QUERIES[name].format(s=f"tpch.{reference}"))
    ok(f"TPC-H {', '.join(names)} answer on nsc.tpch as on tpch.{reference}")


ORDERS_CHECK = "SELECT count(*), sum(o_orderkey), sum(o_totalprice), checksum(o_comment) FROM {}"


def first_answer(trino, sql, limit_seconds=120):
    started = time.monotonic()
    while True:
        try:
            rows = trino.rows(sql)
            return rows, time.monotonic() - started
        except Exception as e:  # the coordinator may still try the killed service first
            if time.monotonic() - started > limit_seconds:
                fail(f"no answer within {limit_seconds} s of the failover: {e}")
            time.sleep(1)


def sql(url, reference, phase):
    trino = Trino(url)
    tpch = f"tpch.{reference}"
    if phase == "before-failover":
        check_tables(trino, reference, every_row=True)
        check_queries(trino, reference, ["Q1", "Q3", "Q6", "Q12"])
        trino.rows(f"CREATE SCHEMA {SCHEMA}")
        trino.rows(f"CREATE TABLE {SCHEMA}.orders_copy AS SELECT * FROM nsc.tpch.orders WHERE o_orderdate < DATE '1995-01-01'")
        check_same(trino, "CTAS", ORDERS_CHECK.format(f"{SCHEMA}.orders_copy"),
                   ORDERS_CHECK.format(f"(SELECT * FROM {tpch}.orders WHERE o_orderdate < DATE '1995-01-01')"))
        trino.rows(f"INSERT INTO {SCHEMA}.orders_copy SELECT * FROM {tpch}.orders WHERE o_orderdate >= DATE '1995-01-01'")
        check_same(trino, "CTAS + INSERT", ORDERS_CHECK.format(f"{SCHEMA}.orders_copy"), ORDERS_CHECK.format(f"{tpch}.orders"))
        ok(f"a CTAS and an INSERT into {SCHEMA}.orders_copy hold exactly {tpch}.orders")
        return
    # after metadata-1's SIGKILL: the coordinator's connector goes on with metadata-2
    rows, seconds = first_answer(trino, "SELECT count(*) FROM nsc.tpch.lineitem")
    if rows[0][0] != trino.value(f"SELECT count(*) FROM {tpch}.lineitem"):
        fail(f"after the failover nsc.tpch.lineitem counts {rows[0][0]} rows")
    ok(f"first query answered {seconds:.1f} s after metadata-1 was killed")
    check_tables(trino, reference, every_row=False)
    # these read every row of three tables through metadata-2's file lists
    check_queries(trino, reference, ["Q3", "Q12"])
    check_same(trino, "orders_copy after the failover", ORDERS_CHECK.format(f"{SCHEMA}.orders_copy"), ORDERS_CHECK.format(f"{tpch}.orders"))
    trino.rows(f"INSERT INTO {SCHEMA}.orders_copy SELECT * FROM {tpch}.orders WHERE o_orderkey <= 100")
    check_same(trino, "INSERT after the failover", ORDERS_CHECK.format(f"{SCHEMA}.orders_copy"),
               ORDERS_CHECK.format(f"(SELECT * FROM {tpch}.orders UNION ALL SELECT * FROM {tpch}.orders WHERE o_orderkey <= 100)"))
    trino.rows(f"CREATE TABLE {SCHEMA}.after_failover AS SELECT * FROM nsc.tpch.nation")
    check_same(trino, "CTAS after the failover", f"SELECT count(*), checksum(n_name) FROM {SCHEMA}.after_failover",
               f"SELECT count(*), checksum(n_name) FROM {tpch}.nation")
    tables = sorted(row[0] for row in trino.rows(f"SHOW TABLES FROM {SCHEMA}"))
    if tables != ["after_failover", "orders_copy"]:
        fail(f"SHOW TABLES FROM {SCHEMA} after the failover: {tables}")
    ok("with metadata-1 down: every table's count, TPC-H Q3 and Q12, the earlier CTAS, an INSERT and a new CTAS answer through metadata-2")


def main(args):
    if not args:
        fail(__doc__)
    command, rest = args[0], args[1:]
    if command == "certificates":
        certificates(rest[0], rest[1], rest[2:])
    elif command == "plaintext-refused":
        plaintext_refused(rest[0], rest[1])
    elif command == "unreachable":
        unreachable(rest[0], rest[1:])
    elif command == "sql":
        sql(rest[0], rest[1], rest[2])
    else:
        fail(f"unknown check {command}")


if __name__ == "__main__":
    main(sys.argv[1:])
